/* Statistics on samples with known answers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../common/rng.h"
#include "../common/rt.h"
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
	/* Completely separated samples of 10, no ties: exact, p = 2 / C(20, 10) */
	double a[10], b[10];
	for (int i = 0; i < 10; i++) {
		a[i] = i;
		b[i] = 100 + i;
	}
	rt_mwu t;
	assert_int_equal(rt_mann_whitney(a, 10, b, 10, &t), 0);
	assert_float_equal(t.u, 0.0, 0);
	assert_int_equal(t.exact, 1);
	assert_float_equal(t.p, 2.0 / 184756, 1e-15);
	/* Identical samples: all tied pairs, normal approximation, p = 1 */
	assert_int_equal(rt_mann_whitney(a, 10, a, 10, &t), 0);
	assert_float_equal(t.u, 50.0, 1e-9);
	assert_int_equal(t.exact, 0);
	assert_float_equal(t.p, 1.0, 1e-12);
	/* Hand-computed: x={1,2,3}, y={2,4,5}: ranks x: 1, 2.5, 4 -> R=7.5, U=1.5 */
	double x[] = {1, 2, 3}, y[] = {2, 4, 5};
	assert_int_equal(rt_mann_whitney(x, 3, y, 3, &t), 0);
	assert_float_equal(t.u, 1.5, 1e-12);
	assert_int_equal(rt_mann_whitney(x, 0, y, 3, &t), RT_EINVAL);
}

/*
 * p-values from scipy 1.10.1 (scipy.stats.mannwhitneyu, two-sided), computed
 * once with Debian's python3-scipy; the test does not need scipy.
 */
static void test_mann_whitney_scipy(void **state)
{
	(void)state;
	rt_mwu t;
	/* no ties, small: method='exact' */
	double x1[] = {1.1, 2.3, 3.7, 4.2, 5.9}, y1[] = {2.9, 6.1, 7.4, 8.8, 9.5, 10.2};
	assert_int_equal(rt_mann_whitney(x1, 5, y1, 6, &t), 0);
	assert_int_equal(t.exact, 1);
	assert_float_equal(t.u, 3.0, 0);
	assert_float_equal(t.p, 0.030303030303030304, 1e-12);
	/* swapping the samples mirrors U and keeps p */
	assert_int_equal(rt_mann_whitney(y1, 6, x1, 5, &t), 0);
	assert_float_equal(t.u, 27.0, 0);
	assert_float_equal(t.p, 0.030303030303030304, 1e-12);
	/* separated 5 v 5: 2 / C(10, 5) */
	double x2[] = {1, 2, 3, 4, 5}, y2[] = {6, 7, 8, 9, 10};
	assert_int_equal(rt_mann_whitney(x2, 5, y2, 5, &t), 0);
	assert_float_equal(t.p, 0.007936507936507936, 1e-12);
	/* unbalanced, U in the middle of its range: exact */
	double x3[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	double y3[] = {4.5, 6.5, 8.5, 10.5, 12.5, 14.5, 16.5};
	assert_int_equal(rt_mann_whitney(x3, 12, y3, 7, &t), 0);
	assert_int_equal(t.exact, 1);
	assert_float_equal(t.u, 20.0, 0);
	assert_float_equal(t.p, 0.06834960704929745, 1e-12);
	/* ties: method='asymptotic' (tie and continuity corrections) */
	double x4[] = {1, 2, 2, 3, 4, 5, 5, 6}, y4[] = {3, 4, 4, 5, 7, 8, 8, 9, 9};
	assert_int_equal(rt_mann_whitney(x4, 8, y4, 9, &t), 0);
	assert_int_equal(t.exact, 0);
	assert_float_equal(t.u, 13.5, 1e-12);
	assert_float_equal(t.p, 0.03295011419483441, 1e-12);
	/* no ties but 60 x 50 > RT_MWU_EXACT_MAX: asymptotic */
	double x5[60], y5[50];
	for (int i = 0; i < 60; i++)
		x5[i] = (i * 37) % 101 + 0.5;
	for (int i = 0; i < 50; i++)
		y5[i] = (i * 53) % 97 + 10.25;
	assert_int_equal(rt_mann_whitney(x5, 60, y5, 50, &t), 0);
	assert_int_equal(t.exact, 0);
	assert_float_equal(t.u, 1350.0, 1e-9);
	assert_float_equal(t.p, 0.3694794629024877, 1e-12);
}

static void test_bootstrap_ratio(void **state)
{
	(void)state;
	double lo, hi;
	/* constant samples: the ratio is exact */
	double c2[] = {2, 2, 2}, c5[] = {5, 5, 5, 5};
	assert_int_equal(rt_bootstrap_ratio_ci(c2, 3, c5, 4, 500, 0.95, 1, &lo, &hi), 0);
	assert_float_equal(lo, 2.5, 0);
	assert_float_equal(hi, 2.5, 0);
	/*
	 * x = {1}, y = {2, 4}: a resample of y has median 2, 3 or 4 with
	 * probabilities 1/4, 1/2, 1/4, so the 2.5% and 97.5% points are 2 and 4.
	 */
	double one[] = {1}, y[] = {2, 4};
	assert_int_equal(rt_bootstrap_ratio_ci(one, 1, y, 2, 4000, 0.95, 9, &lo, &hi), 0);
	assert_float_equal(lo, 2.0, 0);
	assert_float_equal(hi, 4.0, 0);
	/* an 80% interval cuts at the 10% and 90% points: still 2 and 4 */
	assert_int_equal(rt_bootstrap_ratio_ci(one, 1, y, 2, 4000, 0.40, 9, &lo, &hi), 0);
	assert_float_equal(lo, 3.0, 0); /* the middle half is all 3 */
	assert_float_equal(hi, 3.0, 0);
	double zero[] = {0};
	assert_int_equal(rt_bootstrap_ratio_ci(zero, 1, y, 2, 100, 0.95, 9, &lo, &hi), RT_EINVAL);
	assert_int_equal(rt_bootstrap_ratio_ci(one, 0, y, 2, 100, 0.95, 9, &lo, &hi), RT_EINVAL);
}

static void test_bootstrap_ratio_seeded_and_covers(void **state)
{
	(void)state;
	/* B = 0.9 A in distribution: the 95% CI of the ratio covers 0.9 about 95% of the time */
	rt_rng r;
	rt_rng_seed(&r, 11);
	int covered = 0, trials = 300;
	for (int t = 0; t < trials; t++) {
		double a[40], b[40], lo, hi;
		for (int i = 0; i < 40; i++) {
			a[i] = 100 * (1 + 0.03 * rt_rng_normal(&r));
			b[i] = 90 * (1 + 0.03 * rt_rng_normal(&r));
		}
		assert_int_equal(rt_bootstrap_ratio_ci(a, 40, b, 40, 400, 0.95, (uint64_t)t, &lo,
						       &hi), 0);
		covered += lo <= 0.9 && 0.9 <= hi;
		if (t == 0) {
			double lo2, hi2;
			rt_bootstrap_ratio_ci(a, 40, b, 40, 400, 0.95, 0, &lo2, &hi2);
			assert_float_equal(lo, lo2, 0);
			assert_float_equal(hi, hi2, 0);
		}
	}
	double rate = (double)covered / trials;
	assert_true(rate > 0.88 && rate < 0.995);
}

static void test_median_se(void **state)
{
	(void)state;
	/* MAD of 1..9 is 2: se = sqrt(pi/2) * 1.4826 * 2 / 3 */
	double x[] = {9, 1, 8, 2, 7, 3, 6, 4, 5};
	assert_float_equal(rt_median_se(x, 9), sqrt(M_PI / 2) * 1.4826 * 2 / 3, 1e-12);
	assert_float_equal(rt_median_se(x, 1), 0.0, 0);
	/* for normal samples it is close to the spread of medians across samples */
	rt_rng r;
	rt_rng_seed(&r, 5);
	double meds[400], se_sum = 0;
	for (int t = 0; t < 400; t++) {
		double s[50];
		for (int i = 0; i < 50; i++)
			s[i] = rt_rng_normal(&r);
		meds[t] = rt_median(s, 50);
		se_sum += rt_median_se(s, 50);
	}
	double sd = rt_cv(meds, 400) * fabs(rt_mean(meds, 400));
	double se = se_sum / 400; /* sqrt(pi/2)/sqrt(50) = 0.177 */
	assert_true(se > 0.15 && se < 0.20);
	assert_true(fabs(sd - se) / se < 0.2);
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
		cmocka_unit_test(test_mann_whitney_scipy),
		cmocka_unit_test(test_bootstrap_ratio),
		cmocka_unit_test(test_bootstrap_ratio_seeded_and_covers),
		cmocka_unit_test(test_median_se),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
