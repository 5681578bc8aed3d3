/* Statistics on samples with known answers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../common/rng.h"
#include "../search/stats.h"

static void test_median_and_quantiles(void **state)
{
	(void)state;
	double odd[] = {5, 1, 4, 2, 3};
	double even[] = {4, 1, 3, 2};
	assert_float_equal(rt_median(odd, 5), 3.0, 1e-12);
	assert_float_equal(rt_median(even, 4), 2.5, 1e-12);
	/* type-7 quantiles of 1..5: q=0.25 -> 2, q=0.9 -> 4.6 */
	assert_float_equal(rt_quantile(odd, 5, 0.25), 2.0, 1e-12);
	assert_float_equal(rt_quantile(odd, 5, 0.9), 4.6, 1e-12);
	assert_float_equal(odd[0], 5.0, 0); /* input untouched */
}

static void test_mad_mean_cv(void **state)
{
	(void)state;
	double x[] = {1, 2, 3, 4, 100};
	assert_float_equal(rt_mad(x, 5), 1.0, 1e-12); /* |x-3| = 2 1 0 1 97 */
	assert_float_equal(rt_mean(x, 5), 22.0, 1e-12);
	double y[] = {9, 11};
	/* sd = sqrt(2), mean 10 */
	assert_float_equal(rt_cv(y, 2), sqrt(2.0) / 10, 1e-12);
	assert_float_equal(rt_cv(y, 1), 0.0, 0);
}

static void test_median_ci_order_statistics(void **state)
{
	(void)state;
	/* n = 20: binomial(20, .5) gives the 6th and 15th order statistics. */
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = 20 - i; /* 20..1, unsorted on purpose */
	double lo, hi;
	rt_median_ci95(x, 20, &lo, &hi);
	assert_float_equal(lo, 6.0, 0);
	assert_float_equal(hi, 15.0, 0);
	/* tiny samples: the range */
	double s[] = {3, 1, 2};
	rt_median_ci95(s, 3, &lo, &hi);
	assert_float_equal(lo, 1.0, 0);
	assert_float_equal(hi, 3.0, 0);
}

static void test_median_ci_coverage(void **state)
{
	(void)state;
	/* Over many normal samples of 30, the CI covers the true median ~95%. */
	rt_rng r;
	rt_rng_seed(&r, 7);
	int covered = 0, trials = 2000;
	for (int t = 0; t < trials; t++) {
		double x[30], lo, hi;
		for (int i = 0; i < 30; i++)
			x[i] = 10 + rt_rng_normal(&r);
		rt_median_ci95(x, 30, &lo, &hi);
		covered += lo <= 10 && 10 <= hi;
	}
	double rate = (double)covered / trials;
	assert_true(rate > 0.93 && rate < 0.99);
}

static void test_bootstrap_is_seeded_and_brackets(void **state)
{
	(void)state;
	double x[50];
	rt_rng r;
	rt_rng_seed(&r, 3);
	for (int i = 0; i < 50; i++)
		x[i] = 100 + 5 * rt_rng_normal(&r);
	double lo1, hi1, lo2, hi2;
	rt_bootstrap_ci(x, 50, rt_median, 1000, 0.95, 42, &lo1, &hi1);
	rt_bootstrap_ci(x, 50, rt_median, 1000, 0.95, 42, &lo2, &hi2);
	assert_float_equal(lo1, lo2, 0);
	assert_float_equal(hi1, hi2, 0);
	double med = rt_median(x, 50);
	assert_true(lo1 < med && med < hi1);
	assert_true(hi1 - lo1 < 6); /* about 2 * 1.96 * 1.25 * 5 / sqrt(50) = 3.5 */
}

static void test_mann_whitney(void **state)
{
	(void)state;
	/* Completely separated samples of 10: U = 0, p ~ 0.00018 (normal approx.) */
	double a[10], b[10];
	for (int i = 0; i < 10; i++) {
		a[i] = i;
		b[i] = 100 + i;
	}
	double u;
	double p = rt_mann_whitney(a, 10, b, 10, &u);
	assert_float_equal(u, 0.0, 0);
	assert_true(p < 0.001);
	/* Identical samples: p = 1 */
	p = rt_mann_whitney(a, 10, a, 10, &u);
	assert_float_equal(u, 50.0, 1e-9);
	assert_true(p > 0.95);
	/* Hand-computed: x={1,2,3}, y={2,4,5}: ranks x: 1, 2.5, 4 -> R=7.5, U=1.5 */
	double x[] = {1, 2, 3}, y[] = {2, 4, 5};
	rt_mann_whitney(x, 3, y, 3, &u);
	assert_float_equal(u, 1.5, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_and_quantiles),
		cmocka_unit_test(test_mad_mean_cv),
		cmocka_unit_test(test_median_ci_order_statistics),
		cmocka_unit_test(test_median_ci_coverage),
		cmocka_unit_test(test_bootstrap_is_seeded_and_brackets),
		cmocka_unit_test(test_mann_whitney),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
