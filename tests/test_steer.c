/*
 * Where no thread binds to a CPU (macOS), the pin knob steers by QoS class:
 * an M4 Max topology (tests/data/hybrid16.xml, 12 P + 4 E) gets pcores,
 * ecores and none in tune's space, each mapped to its class (tuner/pin.c,
 * tuner/spaces.c); where threads bind, nothing changes.
 */
#include <setjmp.h>
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
