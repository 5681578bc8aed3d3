/*
 * The harness: a steady trial, and trials that crash, hang, cannot allocate
 * or lack their backend, each with the cause the strategies act on; a trial
 * whose CPU another process shares is contended; a CPU trial's memory is
 * capped, by RLIMIT_AS or by the watchdog.
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
#include "../tuner/measure_yaml.h"
#include "../workloads/ppo.h"

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
	/* the CPU's GEMM library is named; no device figures without a context */
	assert_non_null(strstr(m.gemm_impl, "OpenBLAS"));
	assert_false(m.device_timed);
	assert_false(m.device_sampled);
	rt_measurement_free(&m);
}

/* The steady fake on the fake plugin's device: a context to read the device figures from. */
typedef struct on_dev {
	const rt_backend_ops *be;
	rt_ctx *ctx;
} on_dev;

static int dev_setup(const rt_point *pt, const rt_shape *sh, const rt_backend_ops *be,
		     void **state, char *err, size_t errlen)
{
	(void)sh;
	on_dev *d = calloc(1, sizeof *d);
	if (!d)
		return RT_ENOMEM;
	d->be = be;
	int rc = be->open(pt->device, 1, &d->ctx, err, errlen);
	if (rc)
		free(d);
	else
		*state = d;
	return rc;
}

static rt_ctx *dev_context(void *state)
{
	return ((on_dev *)state)->ctx;
}

static void dev_teardown(void *state)
{
	on_dev *d = state;
	d->be->close(d->ctx);
	free(d);
}

static int dev_step(void *state, rt_step_result *out, char *err, size_t errlen)
{
	(void)state;
	return fake_step((void *)(intptr_t)STEADY, out, err, errlen);
}

static const rt_workload on_device = {
	.name = "fake", .unit = "items/s", .keys = keys, .nkeys = 1,
	.phase_names = phases, .nphases = 2, .host_phases = 1u << 1, .check = fake_check,
	.mem_bytes = fake_mem, .setup = dev_setup, .step = dev_step, .teardown = dev_teardown,
	.context = dev_context,
};

/*
 * On a backend that times its device and has a monitor (the fake plugin: 60%
 * busy by its events, 10% by its monitor, "fake-blas 1.0"), the measurement
 * carries all three, and the note names the sampling artifact with the
 * workload's host phase and its share.
 */
/* Measures wl at sh on the fake plugin's device (built beside the tests). */
static void measure_on_fake(const rt_workload *wl, const rt_shape *sh, rt_point *pt,
			    rt_measurement *m)
{
	char dir[1024], err[256];
	const char *build = getenv("BUILD_DIR");
	snprintf(dir, sizeof dir, "%s/tests/plugins", build && *build ? build : "build");
	setenv("RIGTUNE_BACKEND_PATH", dir, 1);
	rt_point_default(pt);
	pt->pin = RT_PIN_NONE;
	snprintf(pt->backend, sizeof pt->backend, "fake");
	rt_measure_opts o;
	rt_measure_defaults(&o);
	o.warmup_s = 0.02;
	o.time_cap_s = 0.5;
	assert_int_equal(rt_measure(wl, pt, sh, &o, m, err, sizeof err), 0);
	if (!m->feasible)
		fail_msg("%s", m->reason);
	unsetenv("RIGTUNE_BACKEND_PATH");
}

static void test_device_figures(void **state)
{
	(void)state;
	char note[768];
	rt_point pt;
	rt_shape sh = {.n = 1, .v = {STEADY}};
	rt_measurement m;
	measure_on_fake(&on_device, &sh, &pt, &m);
	assert_string_equal(m.gemm_impl, "fake-blas 1.0");
	assert_true(m.device_timed);
	/* 0.6 of the wall time between start and stop, over the sampled steps' time */
	assert_true(m.device_busy >= 0.6 && m.device_busy < 0.75);
	assert_true(m.device_sampled);
	assert_float_equal(m.device_busy_sampled, 0.1, 1e-12);
	assert_string_equal(m.monitor, "fakemon");
	assert_int_equal(rt_device_busy_note(&on_device, &m, note, sizeof note), 1);
	assert_non_null(strstr(note, "fakemon sampled the device 10% busy where its own events "
				     "measured 6"));
	assert_non_null(strstr(note, "CPU phases that starve it (rest 25% of each step)"));
	/* agreeing figures need no note */
	m.device_busy_sampled = 0.5;
	assert_int_equal(rt_device_busy_note(&on_device, &m, note, sizeof note), 0);
	rt_measurement_free(&m);
}

/*
 * An update-heavy PPO iteration on the fake device, in PPO's phases (env
 * 10%, policy 5%, transfer 3%, update 82% of 2 ms of sleep): PPO's own
 * figures and sentence, with the device's verdict from the busy share the
 * fake's events script.
 */
static int ppo_split_step(void *state, rt_step_result *out, char *err, size_t errlen)
{
	static const double split[RT_PPO_NPH] = {0.10, 0.05, 0.03, 0.82};
	struct timespec ts = {0, 2000000};
	(void)state, (void)err, (void)errlen;
	double t0 = rt_now();
	nanosleep(&ts, NULL);
	double dt = rt_now() - t0;
	out->items = 1;
	for (int p = 0; p < RT_PPO_NPH; p++)
		out->phase[p] = split[p] * dt;
	return RT_OK;
}

/* The bottleneck sentence of the update-heavy PPO run with the fake's device busy share. */
static void ppo_bottleneck(const char *busy, rt_measurement *m, char *sentence, size_t len)
{
	rt_workload w = rt_workload_ppo;
	rt_derived d[RT_MAX_DERIVED];
	rt_point pt;
	rt_shape sh;
	w.check = fake_check, w.mem_bytes = fake_mem, w.setup = dev_setup;
	w.step = ppo_split_step, w.teardown = dev_teardown, w.context = dev_context;
	rt_shape_default(&w, &sh);
	setenv("RIGTUNE_FAKE_BUSY", busy, 1);
	measure_on_fake(&w, &sh, &pt, m);
	unsetenv("RIGTUNE_FAKE_BUSY");
	assert_true(m->device_timed);
	assert_float_equal(m->phase_frac[RT_PPO_PH_UPDATE], 0.82, 0.02);
	rt_derive(&w, &pt, &sh, m->median, m->phase_frac, m->step_seconds, m->device_busy, 4, d,
		  sentence, len);
}

/* The device's busy share in "the device is busy N% of its phases", -1 if absent. */
static int busy_said(const char *sentence)
{
	const char *at = strstr(sentence, "the device is busy ");
	int pct = -1;
	if (at)
		sscanf(at, "the device is busy %d%%", &pct);
	return pct;
}

/*
 * A phase on the device that the device computes only a few percent of is
 * launch-bound, and a faster device is not the advice; a busy device is
 * device-bound. Without the device's figure, or when the host phases take
 * most of the step, no verdict.
 */
static void test_launch_bound(void **state)
{
	(void)state;
	char s[1024];
	rt_measurement m;
	ppo_bottleneck("0.05", &m, s, sizeof s);
	print_message("# device busy %.3f: %s\n", m.device_busy, s);
	assert_true(m.device_busy >= 0.05 && m.device_busy < 0.1);
	assert_non_null(strstr(s, "update-bound: 8"));
	assert_non_null(strstr(s, "; launch-bound: the device is busy "));
	assert_non_null(strstr(s, " of its phases (policy, transfer, update: 90% of each step)"));
	int pct = busy_said(s); /* 0.05 of the step over the 90% in its phases */
	assert_true(pct >= 5 && pct <= 11);
	assert_non_null(strstr(s, "CUDA/HIP graphs help, and a faster device would not"));
	assert_null(strstr(s, "device-bound"));
	assert_null(strstr(s, "a faster device or"));
	rt_measurement_free(&m);

	ppo_bottleneck("0.8", &m, s, sizeof s);
	print_message("# device busy %.3f: %s\n", m.device_busy, s);
	assert_non_null(strstr(s, "update-bound: 8"));
	assert_non_null(strstr(s, "; device-bound: the device is busy "));
	assert_true(busy_said(s) >= 88);
	assert_non_null(strstr(s, "a faster device or a lower precision helps"));
	assert_null(strstr(s, "launch-bound"));
	rt_measurement_free(&m);

	/* no device figure (the CPU, a backend without events): PPO's sentence alone */
	const rt_workload *w = &rt_workload_ppo;
	const double up[RT_PPO_NPH] = {0.10, 0.05, 0.03, 0.82}, roll[RT_PPO_NPH] = {0.7, 0.1, 0.0, 0.2};
	rt_derived d[RT_MAX_DERIVED];
	rt_point pt;
	rt_shape sh;
	rt_point_default(&pt);
	rt_shape_default(w, &sh);
	rt_derive(w, &pt, &sh, 100, up, 0.01, -1, 4, d, s, sizeof s);
	assert_string_equal(s, "update-bound: 82% of each iteration is the network update, which "
			       "more workers do not shorten");
	/* rollout-bound: the host phase is the bottleneck, whatever the device does */
	rt_derive(w, &pt, &sh, 100, roll, 0.01, 0.01, 4, d, s, sizeof s);
	assert_non_null(strstr(s, "rollout-bound: 70%"));
	assert_null(strstr(s, "-bound: the device"));
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

	/* where the watchdog holds the cap (macOS's path, the test hook's here): ended past it */
	setenv("RIGTUNE_MEMWATCH_MIB", "256", 1);
	assert_int_equal(rt_measure(t, &pt, &sh, &o, &m, NULL, 0), 0);
	unsetenv("RIGTUNE_MEMWATCH_MIB");
	assert_false(m.feasible);
	assert_int_equal(m.cause, RT_CAUSE_MEMORY);
	double cap, seen;
	if (sscanf(m.reason, "needs more than the %lf GiB cap (%lf GiB when the watchdog ended it)",
		   &cap, &seen) != 2)
		fail_msg("reason: '%s'", m.reason);
	assert_true(seen >= cap);
	rt_measurement_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_device_figures),
		cmocka_unit_test(test_launch_bound),
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
