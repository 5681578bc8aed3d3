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

static const rt_compare_opts cmp_opts = {.alpha = 0.01, .threshold = 0.05, .reps = 1000, .seed = 1};

/* n samples of median m with relative noise sd, from r. */
static void noisy(double *x, int n, double m, double sd, rt_rng *r)
{
	for (int i = 0; i < n; i++)
		x[i] = m * (1 + sd * rt_rng_normal(r));
}

static void test_compare_decides(void **state)
{
	(void)state;
	rt_rng r;
	rt_rng_seed(&r, 21);
	double base[20], now[20];
	noisy(base, 20, 100, 0.01, &r);
	rt_comparison c;
	noisy(now, 20, 80, 0.01, &r);
	assert_int_equal(rt_compare(base, 20, now, 20, &cmp_opts, &c), 0);
	assert_int_equal(c.change, RT_CHANGE_SLOWER);
	assert_float_equal(c.ratio, c.now_median / c.base_median, 1e-15);
	assert_true(c.ratio > 0.78 && c.ratio < 0.82);
	assert_true(c.ci_lo < c.ratio && c.ratio < c.ci_hi && c.ci_hi < 0.83);
	assert_float_equal(c.test.p, 2.0 / 137846528820.0, 1e-15); /* separated: 2 / C(40, 20) */
	noisy(now, 20, 120, 0.01, &r);
	assert_int_equal(rt_compare(base, 20, now, 20, &cmp_opts, &c), 0);
	assert_int_equal(c.change, RT_CHANGE_FASTER);
	noisy(now, 20, 101, 0.01, &r);
	assert_int_equal(rt_compare(base, 20, now, 20, &cmp_opts, &c), 0);
	assert_int_equal(c.change, RT_CHANGE_SAME);
	assert_true(c.ci_lo > 0.95 && c.ci_hi < 1.05);
	assert_int_equal(c.more_samples, 0);
	/* significant but smaller than the threshold: no change */
	noisy(now, 20, 98, 0.002, &r);
	noisy(base, 20, 100, 0.002, &r);
	assert_int_equal(rt_compare(base, 20, now, 20, &cmp_opts, &c), 0);
	assert_true(c.test.p < 1e-6);
	assert_int_equal(c.change, RT_CHANGE_SAME);
}

/*
 * A baseline of four trials, three at 100 and one at 120 (each tight), and
 * four trials now at 110. Pooled, the baseline's median is 100 in nearly
 * every resample: "10% faster", CI clear of 1. By trial, a resample draws
 * the 120 trial twice or more with probability 1 - (3/4)^4 - 4 (1/4)
 * (3/4)^3 = 26% (the baseline's median then 110 or 120, the ratio 1 or
 * 0.92): the CI takes in 1, and no change is called. Sizes that do not add
 * up to the samples are one trial: the pooled answer.
 */
static void test_compare_by_trial(void **state)
{
	(void)state;
	rt_rng r;
	rt_rng_seed(&r, 5);
	double base[40], now[40];
	noisy(base, 10, 100, 0.002, &r);
	noisy(base + 10, 10, 100, 0.002, &r);
	noisy(base + 20, 10, 120, 0.002, &r);
	noisy(base + 30, 10, 100, 0.002, &r);
	noisy(now, 40, 110, 0.002, &r);
	static const int ten[] = {10, 10, 10, 10}, wrong[] = {10, 10, 10, 9};
	rt_comparison pooled, by_trial, mismatched;
	rt_compare_opts o = cmp_opts;
	assert_int_equal(rt_compare(base, 40, now, 40, &o, &pooled), 0);
	assert_int_equal(pooled.change, RT_CHANGE_FASTER);
	assert_true(pooled.ci_lo > 1.05);
	o.base_trials = (rt_trials){ten, 4};
	o.now_trials = (rt_trials){ten, 4};
	assert_int_equal(rt_compare(base, 40, now, 40, &o, &by_trial), 0);
	assert_float_equal(by_trial.ratio, pooled.ratio, 1e-12);
	assert_true(by_trial.ci_lo < 0.93 && by_trial.ci_hi > 1.09);
	assert_int_equal(by_trial.change, RT_CHANGE_UNDECIDED);
	/* the baseline's own spread, by trial, covers the distance: no more samples decide it */
	assert_true(by_trial.base_halfwidth > 0.15);
	assert_int_equal(by_trial.more_samples, 0);
	o.base_trials = (rt_trials){wrong, 4};
	o.now_trials = (rt_trials){0};
	assert_int_equal(rt_compare(base, 40, now, 40, &o, &mismatched), 0);
	assert_float_equal(mismatched.ci_lo, pooled.ci_lo, 0);
	assert_float_equal(mismatched.ci_hi, pooled.ci_hi, 0);
	assert_int_equal(mismatched.change, RT_CHANGE_FASTER);
}

/* Trials of ten samples each, of medians m[0..k), into x. */
static void trials_of(double *x, const double *m, int k, rt_rng *r)
{
	for (int i = 0; i < k; i++)
		noisy(x + 10 * i, 10, m[i], 0.002, r);
}

/*
 * A baseline of three trials, one slowed 10% by the host: by trial it
 * cannot say "unchanged" of an unchanged machine; with the slow trial left
 * out (keep_within) it can. A 10% slower machine slows the fastest trials
 * too, and is "slower" when it is slower than every baseline trial; a slow
 * trial now is left out alike, but only from the slower half of a side's
 * trials.
 */
static void test_compare_keeps_fastest(void **state)
{
	(void)state;
	rt_rng r;
	rt_rng_seed(&r, 9);
	static const int ten[] = {10, 10, 10};
	static const double base_m[] = {100, 90, 100}, same_m[] = {100.5, 100.5},
			    slower_m[] = {90, 90.2}, spell_m[] = {90, 100.3};
	double base[30], same[20], slower[20], spell[20];
	trials_of(base, base_m, 3, &r);
	trials_of(same, same_m, 2, &r);
	trials_of(slower, slower_m, 2, &r);
	trials_of(spell, spell_m, 2, &r);
	rt_compare_opts o = cmp_opts;
	o.base_trials = (rt_trials){ten, 3};
	o.now_trials = (rt_trials){ten, 2};
	rt_comparison c;
	assert_int_equal(rt_compare(base, 30, same, 20, &o, &c), 0);
	assert_int_equal(c.change, RT_CHANGE_UNDECIDED);
	assert_true(c.ci_hi > 1.05);
	assert_int_equal(c.base_left_out, 0);
	assert_int_equal(c.base_n, 30);

	o.keep_within = 0.05;
	assert_int_equal(rt_compare(base, 30, same, 20, &o, &c), 0);
	assert_int_equal(c.change, RT_CHANGE_SAME);
	assert_int_equal(c.base_left_out, 1);
	assert_int_equal(c.now_left_out, 0);
	assert_int_equal(c.base_n, 20);
	assert_float_equal(c.base_median, 100, 0.5);

	/* 10% slower now, as slow as the baseline's slow trial: the host's state, or slower? */
	assert_int_equal(rt_compare(base, 30, slower, 20, &o, &c), 0);
	assert_int_equal(c.change, RT_CHANGE_UNDECIDED);
	assert_int_equal(c.kept_only, 1);
	assert_float_equal(c.ratio, 0.901, 0.005);
	/* slower than every trial of the baseline: slower */
	static const double near_m[] = {100, 94, 100};
	double near[30];
	trials_of(near, near_m, 3, &r);
	assert_int_equal(rt_compare(near, 30, slower, 20, &o, &c), 0);
	assert_int_equal(c.change, RT_CHANGE_SLOWER);
	assert_int_equal(c.kept_only, 0);
	assert_int_equal(c.base_left_out, 1);
	assert_float_equal(c.ratio, 0.901, 0.005);

	assert_int_equal(rt_compare(base, 30, spell, 20, &o, &c), 0);
	assert_int_equal(c.change, RT_CHANGE_SAME);
	assert_int_equal(c.now_left_out, 1);
	assert_int_equal(c.now_n, 10);

	/* the faster half stays: one fast trial of four is not the side's rate */
	static const int ten4[] = {10, 10, 10, 10};
	static const double mostly_slow_m[] = {90, 100.3, 90.1, 89.9};
	double mostly_slow[40];
	trials_of(mostly_slow, mostly_slow_m, 4, &r);
	o.now_trials = (rt_trials){ten4, 4};
	assert_int_equal(rt_compare(base, 30, mostly_slow, 40, &o, &c), 0);
	assert_int_equal(c.now_left_out, 2);
	assert_int_equal(c.now_n, 20);
	assert_true(c.ratio < 0.97);
	assert_true(c.change != RT_CHANGE_SAME);
}

/*
 * 4% slower on 5 samples each: p = 2/252 (separated) but the ratio 0.96
 * is inside the band and its CI crosses 0.95. The baseline's own spread
 * is wider than the 1% to the band's edge: the bootstrap median of
 * {98, 99, 100, 101, 102} is 98 or less with probability P(B >= 3),
 * B ~ binomial(5, 0.2), = 5.8%, so its 95% CI is [98, 102], +-2%. No
 * number of new samples decides it.
 */
static void test_compare_baseline_limited(void **state)
{
	(void)state;
	double base[] = {100, 102, 98, 101, 99}, now[] = {96.5, 97.5, 95.5, 96, 95};
	rt_comparison c;
	assert_int_equal(rt_compare(base, 5, now, 5, &cmp_opts, &c), 0);
	assert_float_equal(c.ratio, 0.96, 1e-12);
	assert_float_equal(c.test.p, 2.0 / 252, 1e-12);
	assert_true(c.test.exact);
	assert_int_equal(c.change, RT_CHANGE_UNDECIDED);
	assert_int_equal(c.more_samples, 0);
	assert_float_equal(c.base_halfwidth, 0.02, 1e-12);
}

/* The estimate of more samples is about right: with that many, about 80% of cases decide. */
static void test_compare_more_samples(void **state)
{
	(void)state;
	rt_rng r;
	rt_rng_seed(&r, 33);
	double base[60], now[4000];
	int decided = 0, cases = 0;
	while (cases < 30) {
		noisy(base, 60, 100, 0.002, &r);
		noisy(now, 6, 97, 0.03, &r);
		rt_comparison c;
		assert_int_equal(rt_compare(base, 60, now, 6, &cmp_opts, &c), 0);
		if (c.change != RT_CHANGE_UNDECIDED)
			continue; /* six samples were enough this time */
		if (c.more_samples == 0) { /* only where the baseline's spread covers the gap */
			double gap = fmin(fabs(c.ratio - 0.95), fabs(1.05 - c.ratio));
			assert_true(c.base_halfwidth * 2.8 / 1.96 * c.ratio >= gap);
			continue;
		}
		if (c.more_samples > 1000)
			continue; /* a ratio right at the edge: right, but long to confirm */
		cases++;
		size_t n = 6 + (size_t)c.more_samples;
		noisy(now + 6, (int)n - 6, 97, 0.03, &r);
		assert_int_equal(rt_compare(base, 60, now, n, &cmp_opts, &c), 0);
		decided += c.change == RT_CHANGE_SAME;
	}
	assert_true(decided >= cases * 7 / 10); /* aimed at 80% */
}

/* Simulated checks: false alarms at 2% noise stay far below alpha; 10% is always seen. */
static void test_compare_rates(void **state)
{
	(void)state;
	rt_rng r;
	rt_rng_seed(&r, 44);
	rt_compare_opts o = cmp_opts;
	o.reps = 300;
	int alarms = 0, detected = 0, runs = 300;
	for (int k = 0; k < runs; k++) {
		double base[10], now[10];
		rt_comparison c;
		noisy(base, 10, 100, 0.02, &r);
		noisy(now, 10, 100, 0.02, &r);
		o.seed = (uint64_t)k;
		assert_int_equal(rt_compare(base, 10, now, 10, &o, &c), 0);
		alarms += c.change == RT_CHANGE_SLOWER || c.change == RT_CHANGE_FASTER;
		noisy(now, 10, 90, 0.02, &r);
		assert_int_equal(rt_compare(base, 10, now, 10, &o, &c), 0);
		detected += c.change == RT_CHANGE_SLOWER;
	}
	assert_true(alarms <= 3);
	assert_true(detected >= runs * 95 / 100);
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
		cmocka_unit_test(test_compare_decides),
		cmocka_unit_test(test_compare_baseline_limited),
	    cmocka_unit_test(test_compare_by_trial),
		cmocka_unit_test(test_compare_keeps_fastest),
		cmocka_unit_test(test_compare_more_samples),
		cmocka_unit_test(test_compare_rates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
