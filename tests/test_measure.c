/*
 * The harness: a steady trial, and trials that crash, hang, cannot allocate
 * or lack their backend, each with the cause the strategies act on; a trial
 * whose CPU another process shares is contended; a CPU trial's memory is
 * capped.
 */
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tuner/measure.h"

enum behaviour { STEADY, CRASH, HANG, NOMEM, BADSHAPE, ALLOCFAIL, UNAVAIL, BUSY, NBEHAVIOUR };
static const rt_shape_key keys[] = {{"mode", STEADY, 0, NBEHAVIOUR - 1, "what the fake does"}};
static const char *const phases[] = {"work", "rest"};

static int fake_check(const rt_point *pt, const rt_shape *sh, char *err, size_t errlen)
{
	(void)pt, (void)sh, (void)err, (void)errlen;
	return RT_OK;
}

static uint64_t fake_mem(const rt_point *pt, const rt_shape *sh)
{
	(void)pt, (void)sh;
	return 0;
}

static int fake_setup(const rt_point *pt, const rt_shape *sh, const rt_backend_ops *be,
		      void **state, char *err, size_t errlen)
{
	(void)pt, (void)be;
	if (sh->v[0] == NOMEM)
		return rt_fail(err, errlen, RT_EINFEASIBLE, "needs 512.0 GiB, 3.0 GiB available");
	if (sh->v[0] == BADSHAPE)
		return rt_fail(err, errlen, RT_EINVAL, "mode: bad");
	if (sh->v[0] == ALLOCFAIL) /* gemm's words when an allocation fails after the check */
		return rt_fail(err, errlen, RT_EINFEASIBLE, "cannot allocate 2.00 GiB");
	if (sh->v[0] == UNAVAIL)
		return rt_fail(err, errlen, RT_EUNAVAIL, "fake device 0 does not offer bf16 GEMMs");
	*state = (void *)(intptr_t)sh->v[0];
	return RT_OK;
}

/* STEADY: 2 ms of sleeping, 1.5 ms of it "work"; 1 item and 1e6 flops per step. */
static int fake_step(void *state, rt_step_result *out, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	switch ((intptr_t)state) {
	case CRASH:
		raise(SIGSEGV);
		break;
	case HANG:
		for (;;)
			pause();
	case BUSY: { /* 2 ms on the CPU, not asleep */
		double t0 = rt_now();
		while (rt_now() - t0 < 0.002)
			;
		out->items = 1;
		out->phase[0] = rt_now() - t0;
		return RT_OK;
	}
	default:
		break;
	}
	struct timespec ts = {0, 2000000};
	double t0 = rt_now();
	nanosleep(&ts, NULL);
	double dt = rt_now() - t0;
	out->items = 1;
	out->flops = 1e6;
	out->phase[0] = 0.75 * dt;
	out->phase[1] = 0.25 * dt;
	return RT_OK;
}

static void fake_teardown(void *state)
{
	(void)state;
}

static const rt_workload fake = {
	.name = "fake", .unit = "items/s", .keys = keys, .nkeys = 1,
	.phase_names = phases, .nphases = 2, .check = fake_check, .mem_bytes = fake_mem,
	.setup = fake_setup, .step = fake_step, .teardown = fake_teardown,
};

static int run_pinned(enum behaviour b, double timeout, rt_pin pin, rt_measurement *m)
{
	rt_point pt;
	rt_point_default(&pt);
	pt.pin = pin;
	rt_shape sh = {.n = 1, .v = {b}};
	rt_measure_opts o;
	rt_measure_defaults(&o);
	o.warmup_s = 0.02;
	o.time_cap_s = 1.0;
	o.timeout_s = timeout;
	char err[256];
	return rt_measure(&fake, &pt, &sh, &o, m, err, sizeof err);
}

static int run(enum behaviour b, double timeout, rt_measurement *m)
{
	return run_pinned(b, timeout, RT_PIN_NONE, m);
}

static void test_steady(void **state)
{
	(void)state;
	rt_measurement m;
	assert_int_equal(run(STEADY, 20, &m), 0);
	assert_true(m.feasible);
	/* a step is >= 2 ms of sleep, so at most 500 items/s (how much a loaded
	   machine oversleeps is luck: no lower bound) */
	assert_true(m.median > 0 && m.median <= 500);
	assert_true(m.ci_lo <= m.median && m.median <= m.ci_hi);
	assert_true(m.nsamples >= 8);
	/* each sample is >= 10 ms of steps: 5 steps of 2 ms */
	assert_true(m.step_seconds >= 0.002);
	assert_float_equal(m.median, 1 / m.step_seconds, 0.5 * m.median);
	assert_float_equal(m.phase_frac[0], 0.75, 0.05);
	assert_float_equal(m.phase_frac[1], 0.25, 0.05);
	assert_float_equal(m.gflops, m.median * 1e6 * 1e-9, 1e-9);
	rt_measurement_free(&m);
}

static void test_crash_is_infeasible(void **state)
{
	(void)state;
	rt_measurement m;
	assert_int_equal(run(CRASH, 20, &m), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_CRASH);
	assert_non_null(strstr(m.reason, "crashed"));
	assert_non_null(strstr(m.reason, "Segmentation"));
	rt_measurement_free(&m);
}

static void test_hang_times_out(void **state)
{
	(void)state;
	rt_measurement m;
	double t0 = rt_now();
	assert_int_equal(run(HANG, 1.0, &m), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_TIMEOUT);
	assert_non_null(strstr(m.reason, "timeout"));
	assert_true(rt_now() - t0 < 5.0); /* killed, not waited for */
	rt_measurement_free(&m);
	/* and the harness still works afterwards */
	assert_int_equal(run(STEADY, 20, &m), 0);
	assert_true(m.feasible);
	rt_measurement_free(&m);
}

static void test_allocation_failure_is_infeasible(void **state)
{
	(void)state;
	rt_measurement m;
	assert_int_equal(run(NOMEM, 20, &m), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_MEMORY);
	assert_string_equal(m.reason, "needs 512.0 GiB, 3.0 GiB available");
	rt_measurement_free(&m);
	/* the kind comes from the code, not the words: "cannot allocate" is memory too */
	assert_int_equal(run(ALLOCFAIL, 20, &m), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_MEMORY);
	assert_string_equal(m.reason, "cannot allocate 2.00 GiB");
	rt_measurement_free(&m);
}

static void test_unavailable(void **state)
{
	(void)state;
	rt_measurement m;
	assert_int_equal(run(UNAVAIL, 20, &m), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_UNAVAILABLE);
	rt_measurement_free(&m);
}

/*
 * The real gemm workload on the fake plugin (1 MiB of device memory): a
 * product that does not fit is memory; a plugin that is not there is
 * unavailable.
 */
static void test_real_workload_causes(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/plugins",
		 getenv("BUILD_DIR") ? getenv("BUILD_DIR") : "build");
	setenv("RIGTUNE_BACKEND_PATH", dir, 1);
	const rt_workload *g = rt_workload_find("gemm");
	rt_point pt;
	rt_shape sh;
	rt_measure_opts o;
	rt_measurement m;
	rt_point_default(&pt);
	pt.pin = RT_PIN_NONE;
	rt_shape_default(g, &sh);
	rt_measure_defaults(&o);
	o.timeout_s = 60;
	strcpy(pt.backend, "fake");
	assert_int_equal(rt_measure(g, &pt, &sh, &o, &m, NULL, 0), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_MEMORY);
	assert_non_null(strstr(m.reason, "needs "));
	rt_measurement_free(&m);
	strcpy(pt.backend, "nosuch");
	assert_int_equal(rt_measure(g, &pt, &sh, &o, &m, NULL, 0), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_UNAVAILABLE);
	assert_non_null(strstr(m.reason, "librigtune_nosuch.so"));
	rt_measurement_free(&m);
	unsetenv("RIGTUNE_BACKEND_PATH");
}

/* The caller checks input before a trial; in the child any failure means infeasible. */
static void test_setup_error_is_infeasible(void **state)
{
	(void)state;
	rt_measurement m;
	assert_int_equal(run(BADSHAPE, 20, &m), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_CRASH);
	assert_string_equal(m.reason, "mode: bad");
	rt_measurement_free(&m);
}

/* A process spinning on the first PU, where a compact 1-thread trial runs too. */
static pid_t start_spinner(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		sched_getaffinity(0, sizeof one, &one);
		int first = 0;
		while (!CPU_ISSET(first, &one))
			first++;
		CPU_ZERO(&one);
		CPU_SET(first, &one);
		sched_setaffinity(0, sizeof one, &one);
		for (;;)
			;
	}
	return pid;
}

/* Another process on the trial's CPU takes about half of it: the trial says so. */
static void test_contended(void **state)
{
	(void)state;
	rt_measurement m;
	pid_t spinner = start_spinner();
	assert_true(spinner > 0);
	int rc = run_pinned(BUSY, 20, RT_PIN_COMPACT, &m);
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	assert_int_equal(rc, 0);
	assert_true(m.feasible);
	print_message("# contention with a spinner on the trial's CPU: %.2f\n", m.contention);
	assert_true(m.contention > 0.25 && m.contention <= 1.0);
	assert_true(m.contended);
	rt_measurement_free(&m);
}

/*
 * A CPU trial's address space is capped: the real transformer at a batch
 * that fits the machine but not the cap fails its allocations and is
 * memory, never swap or the OOM killer.
 */
static void test_memory_cap(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip(); /* the cap is off under AddressSanitizer, whose shadow memory it would refuse */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	skip();
#endif
#endif
	const rt_workload *t = rt_workload_find("transformer");
	rt_point pt;
	rt_shape sh;
	rt_measure_opts o;
	rt_measurement m;
	rt_point_default(&pt);
	pt.batch = 512;
	rt_shape_default(t, &sh);
	rt_measure_defaults(&o);
	o.warmup_s = 0.01;
	o.time_cap_s = 0.1;
	o.mem_cap = 256ull << 20;
	assert_true(t->mem_bytes(&pt, &sh) > o.mem_cap);
	assert_int_equal(rt_measure(t, &pt, &sh, &o, &m, NULL, 0), 0);
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_MEMORY);
	print_message("# under a 256 MiB cap: %s\n", m.reason);
	rt_measurement_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_crash_is_infeasible),
		cmocka_unit_test(test_hang_times_out),
		cmocka_unit_test(test_allocation_failure_is_infeasible),
		cmocka_unit_test(test_setup_error_is_infeasible),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_real_workload_causes),
		cmocka_unit_test(test_contended),
		cmocka_unit_test(test_memory_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
