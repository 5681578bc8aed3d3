/*
 * Where no thread binds to a CPU (macOS), the pin knob steers by QoS class:
 * an M4 Max topology (tests/data/hybrid16.xml, 12 P + 4 E) gets pcores,
 * ecores and none in tune's space, each mapped to its class (tuner/pin.c,
 * tuner/spaces.c); where threads bind, nothing changes.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../common/platform.h"
#include "../common/rt.h"
#include "../search/space.h"
#include "../tuner/machine.h"
#include "../tuner/pin.h"
#include "../tuner/spaces.h"
#include "../workloads/pool.h"

#define M4MAX "tests/data/hybrid16.xml"

/* The pin values of space s, space-separated, into buf. */
static void pins_of(const rt_space *s, char *buf, size_t len)
{
	int p = rt_space_find(s, "pin");
	assert_true(p >= 0);
	buf[0] = '\0';
	for (int v = 0; v < rt_space_size(s, p); v++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", v ? " " : "",
		         rt_space_str_at(s, p, v));
}

/* The default GEMM space as a machine of this kind would have it. */
static void gemm_space(int can_bind, int hybrid, char *pins, size_t len)
{
	char err[RT_ERRLEN];
	rt_space *s = NULL;
	assert_int_equal(rt_space_for(rt_workload_find("gemm"), NULL, 16, &s, err, sizeof err), 0);
	int p = rt_space_find(s, "pin"), n = rt_space_nparams(s);
	rt_param_role role = rt_space_role(s, p);
	assert_int_equal(rt_space_steer_pins(s, can_bind, hybrid, err, sizeof err), 0);
	pins_of(s, pins, len);
	/* the rest of the space as it was: the same parameters, pin in its place and role */
	assert_int_equal(rt_space_nparams(s), n);
	assert_int_equal(rt_space_find(s, "pin"), p);
	assert_int_equal(rt_space_role(s, p), role);
	assert_true(rt_space_find(s, "threads") >= 0);
	rt_space_destroy(s);
}

/* The M4 Max: 12 performance and 4 efficiency cores, so QoS steering has both to offer. */
static void test_m4max_space_steers(void **state)
{
	(void)state;
	rt_machine m;
	char err[RT_ERRLEN], pins[128];
	assert_int_equal(rt_machine_probe(M4MAX, &m, err, sizeof err), 0);
	assert_int_equal(m.nkinds, 2);
	assert_int_equal(m.kinds[0].cores, 4);  /* efficiency */
	assert_int_equal(m.kinds[1].cores, 12); /* performance */
	assert_int_equal(rt_machine_pcores(&m), 12);
	gemm_space(0, m.nkinds > 1, pins, sizeof pins);
	assert_string_equal(pins, "pcores ecores none");
	gemm_space(0, 0, pins, sizeof pins); /* one kind of core: nothing to steer to */
	assert_string_equal(pins, "none");
	gemm_space(1, 1, pins, sizeof pins); /* Linux: binding, as the space file says */
	assert_string_equal(pins, "compact spread");
}

/* Each steerable value's QoS class; compact and spread have none, and say why. */
static void test_pin_to_qos(void **state)
{
	(void)state;
	assert_int_equal(rt_pin_steer(RT_PIN_PCORES), RT_STEER_PERFORMANCE);
	assert_int_equal(rt_pin_steer(RT_PIN_ECORES), RT_STEER_EFFICIENCY);
	assert_int_equal(rt_pin_steer(RT_PIN_NONE), RT_STEER_ANY);
	assert_int_equal(rt_pin_steer(RT_PIN_COMPACT), -1);
	assert_int_equal(rt_pin_steer(RT_PIN_SPREAD), -1);
	char err[RT_ERRLEN];
	assert_int_equal(rt_pin_cannot_bind(RT_PIN_SPREAD, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "pin=spread cannot be had"));
	assert_non_null(strstr(rt_pin_steer_said(RT_PIN_PCORES), "performance cores by QoS"));
	assert_non_null(strstr(rt_pin_steer_said(RT_PIN_ECORES), "efficiency cores"));
	assert_int_equal(rt_pin_parse("ecores"), RT_PIN_ECORES);
	assert_string_equal(rt_pin_name(RT_PIN_ECORES), "ecores");
}

/* Bound (Linux): ecores takes the E-cores (PUs 0-3 of the M4 Max) first, then P-cores. */
static void test_ecores_binding(void **state)
{
	(void)state;
	hwloc_topology_t t;
	char buf[64];
	assert_int_equal(hwloc_topology_init(&t), 0);
	assert_int_equal(hwloc_topology_set_xml(t, M4MAX), 0);
	assert_int_equal(hwloc_topology_load(t), 0);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	assert_int_equal(rt_pin_cpuset(t, RT_PIN_ECORES, 3, set), 0);
	hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
	assert_string_equal(buf, "0-2");
	assert_int_equal(rt_pin_cpuset(t, RT_PIN_ECORES, 6, set), 0);
	hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
	assert_string_equal(buf, "0-5"); /* 4 E-cores, then the first P-cores (4, 5) */
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(t);
}

#ifdef __linux__
/*
 * The seam's thread hook, wrapped (the Makefile links this test with GNU ld's
 * --wrap): it counts its calls and gives each thread a stack size no default has,
 * which the thread reads back: the attributes it readied are those the thread got.
 */
#define MARK_STACK (1024 * 1024 + 64 * 1024)
int __real_rt_plat_thread_attr(pthread_attr_t *attr);
int __wrap_rt_plat_thread_attr(pthread_attr_t *attr);
static atomic_int attr_calls;
int __wrap_rt_plat_thread_attr(pthread_attr_t *attr)
{
	attr_calls++;
	int e = __real_rt_plat_thread_attr(attr);
	return e ? e : pthread_attr_setstacksize(attr, MARK_STACK);
}
#endif

#define POOL_THREADS 4

/* Where each thread of a pool job was: its class, its CPU, its stack size (Linux). */
typedef struct placed {
	const char *qos[POOL_THREADS];
	int cpu[POOL_THREADS];
	size_t stack[POOL_THREADS];
} placed;

static void record_place(void *arg, int index, int nthreads)
{
	placed *p = arg;
	(void)nthreads;
	rt_plat_thread_place(&p->qos[index], &p->cpu[index]);
#ifdef __linux__
	pthread_attr_t a;
	if (!pthread_getattr_np(pthread_self(), &a)) {
		pthread_attr_getstacksize(&a, &p->stack[index]);
		pthread_attr_destroy(&a);
	}
#endif
}

/* "P-core" or "E-core" for a CPU of this machine (hwloc's kinds: the last the most powerful). */
static const char *core_kind(int cpu)
{
	static char kind[16];
	hwloc_topology_t t;
	snprintf(kind, sizeof kind, "kind unknown");
	if (cpu < 0 || hwloc_topology_init(&t))
		return kind;
	if (!hwloc_topology_load(t)) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t, (unsigned)cpu);
		int n = hwloc_cpukinds_get_nr(t, 0);
		int k = pu ? hwloc_cpukinds_get_by_cpuset(t, pu->cpuset, 0) : -1;
		if (k >= 0 && n > 1)
			snprintf(kind, sizeof kind, "%s", k == n - 1 ? "P-core" : "E-core");
	}
	hwloc_topology_destroy(t);
	return kind;
}

/*
 * Every worker of the workloads' pool starts through the platform seam's hook: on
 * Linux the wrapped hook sees each (3 of a pool of 4: the caller is the 4th) and each
 * got its attributes; on macOS, steered to the P-cores, every thread of the pool runs
 * in the user-interactive class, and each says where it ran (mac-check.sh shows it).
 */
static void test_pool_threads_take_the_class(void **state)
{
	(void)state;
	rt_pool *pool;
	char err[RT_ERRLEN];
	placed p = {0};
	int steered = rt_plat_steer(RT_STEER_PERFORMANCE) == 0;
#ifdef __linux__
	attr_calls = 0;
#endif
	assert_int_equal(rt_pool_create(POOL_THREADS, 0, &pool, err, sizeof err), 0);
	rt_pool_run_each(pool, record_place, &p);
	rt_pool_destroy(pool);
	for (int i = 0; i < POOL_THREADS; i++)
		print_message("pool thread %d: QoS %s, ran on CPU %d (%s)\n", i, p.qos[i], p.cpu[i],
			      core_kind(p.cpu[i]));
#ifdef __linux__
	assert_false(steered); /* no classes here */
	assert_int_equal(attr_calls, POOL_THREADS - 1);
	for (int i = 1; i < POOL_THREADS; i++)
		assert_int_equal(p.stack[i], MARK_STACK);
	assert_int_not_equal(p.stack[0], MARK_STACK); /* the caller's own */
#else
	assert_true(steered);
	for (int i = 0; i < POOL_THREADS; i++)
		assert_string_equal(p.qos[i], "user-interactive");
	assert_int_equal(rt_plat_steer(RT_STEER_ANY), 0);
#endif
}

/* New values replace a categorical's; values given twice are refused and change nothing. */
static void test_set_categorical(void **state)
{
	(void)state;
	char err[RT_ERRLEN], pins[64];
	rt_space *s = rt_space_create();
	static const char *const two[] = {"compact", "spread"}, *const dup[] = {"none", "none"};
	assert_int_equal(rt_space_add_categorical(s, "pin", two, 2, err, sizeof err), 0);
	assert_int_equal(rt_space_set_categorical(s, 0, dup, 2, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "pin: value none given twice"));
	pins_of(s, pins, sizeof pins);
	assert_string_equal(pins, "compact spread");
	assert_int_equal(rt_space_grid_size(s), 2);
	rt_space_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_m4max_space_steers),
	    cmocka_unit_test(test_pin_to_qos),
	    cmocka_unit_test(test_ecores_binding),
	    cmocka_unit_test(test_set_categorical),
	    cmocka_unit_test(test_pool_threads_take_the_class),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
