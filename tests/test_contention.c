/* Others' share of a trial's CPUs from two readings of their busy times (tuner/contention.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../tuner/contention.h"

static rt_cpu_times before, after; /* large: not on the stack */

/* Two CPUs counted at 100 ticks/s; CPU c was busy busy_s[c] seconds between the readings. */
static void readings(double busy0, double busy1)
{
	memset(&before, 0, sizeof before);
	before.ncpus = 2;
	before.ticks_per_s = 100;
	before.busy_s[0] = 50, before.busy_s[1] = 70;
	after = before;
	after.busy_s[0] += busy0, after.busy_s[1] += busy1;
}

static rt_cpuset both_cpus(void)
{
	rt_cpuset s;
	rt_cpuset_zero(&s);
	rt_cpuset_add(&s, 0);
	rt_cpuset_add(&s, 1);
	return s;
}

/* 1 s on 2 CPUs, the trial used 1 CPU-second and the CPUs were busy 1.8 s: others took
 * 0.8 s, less the 2 ticks a CPU the counting may be off (0.04 s): 0.38 of the capacity. */
static void test_others_share(void **state)
{
	(void)state;
	rt_cpuset cpus = both_cpus();
	readings(0.9, 0.9);
	assert_float_equal(rt_contention(&before, &after, &cpus, 1.0, 1.0), 0.38, 1e-9);
}

/* A 5 ms trial that used 8 ms of CPU, with one tick (10 ms) counted on each CPU: the
 * counting's rounding, not another process. */
static void test_short_trial_rounding_is_not_contention(void **state)
{
	(void)state;
	rt_cpuset cpus = both_cpus();
	readings(0.01, 0.01);
	assert_float_equal(rt_contention(&before, &after, &cpus, 0.005, 0.008), 0, 0);
}

/* Only the trial's CPUs count, and the share stays within [0, 1]. */
static void test_only_the_trial_cpus_and_clamped(void **state)
{
	(void)state;
	rt_cpuset cpu0;
	rt_cpuset_zero(&cpu0);
	rt_cpuset_add(&cpu0, 0);
	readings(0.52, 1.0);
	assert_float_equal(rt_contention(&before, &after, &cpu0, 1.0, 0.0), 0.5, 1e-9);
	readings(5.0, 5.0);
	assert_float_equal(rt_contention(&before, &after, &cpu0, 1.0, 0.0), 1.0, 0);
	assert_float_equal(rt_contention(&before, &after, &cpu0, 0.0, 0.0), 0.0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_others_share),
		cmocka_unit_test(test_short_trial_rounding_is_not_contention),
		cmocka_unit_test(test_only_the_trial_cpus_and_clamped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
