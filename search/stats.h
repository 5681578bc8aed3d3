/*
 * stats.h: robust statistics for timing samples.
 *
 * Timing samples are skewed (a machine only ever gets slower), so rigtune
 * reports medians with distribution-free or bootstrap intervals, never means
 * with normal-theory intervals. All functions leave their input unchanged.
 */
#ifndef RT_STATS_H
#define RT_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Median of n > 0 values. */
double rt_median(const double *x, size_t n);
/* Quantile q in [0,1] with linear interpolation (type 7, as R and numpy). */
double rt_quantile(const double *x, size_t n, double q);
/* Median absolute deviation (unscaled). */
double rt_mad(const double *x, size_t n);
double rt_mean(const double *x, size_t n);
/* Coefficient of variation: sample standard deviation / mean (0 if n < 2). */
double rt_cv(const double *x, size_t n);

/*
 * Distribution-free 95% confidence interval of the median from order
 * statistics (binomial(n, 1/2)); for n < 6 it is the sample range.
 */
void rt_median_ci95(const double *x, size_t n, double *lo, double *hi);

/*
 * Percentile bootstrap CI at level (e.g. 0.95) of stat(x) with `reps`
 * resamples from a seeded generator: deterministic for the seed.
 */
typedef double (*rt_stat_fn)(const double *x, size_t n);
void rt_bootstrap_ci(const double *x, size_t n, rt_stat_fn stat, int reps,
		     double level, uint64_t seed, double *lo, double *hi);

/* The result of a Mann-Whitney U test. */
typedef struct rt_mwu {
	double u;  /* U of x: pairs with x_i > y_j, a tie counting 1/2 */
	double p;  /* two-sided p-value */
	int exact; /* 1: from the exact null distribution; 0: normal approximation */
} rt_mwu;

/* Largest nx * ny for which the exact distribution of U is computed. */
#define RT_MWU_EXACT_MAX 2500

/*
 * Two-sided Mann-Whitney U test of x against y (nx, ny > 0). Without ties
 * and with nx * ny <= RT_MWU_EXACT_MAX, p is exact: 2 min(P(U <= u),
 * P(U >= u)) under the null distribution of U, capped at 1. Otherwise
 * (ties anywhere in x and y together, or larger samples) the normal
 * approximation with the tie correction of the variance and a continuity
 * correction of 1/2. These are scipy.stats.mannwhitneyu's two methods.
 * RT_EINVAL for an empty sample, RT_ENOMEM.
 */
int rt_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, rt_mwu *out);

/*
 * Percentile bootstrap CI at level (0.95) of median(y) / median(x): x and y
 * resampled independently `reps` times from a generator seeded with seed,
 * so the interval is reproducible. RT_EINVAL for an empty sample, reps < 2
 * or a resample whose median of x is 0; RT_ENOMEM.
 */
int rt_bootstrap_ratio_ci(const double *x, size_t nx, const double *y, size_t ny, int reps,
			  double level, uint64_t seed, double *lo, double *hi);

/*
 * Standard error of the sample median of n values, robustly: the normal
 * theory sqrt(pi/2) sigma / sqrt(n) with sigma estimated as 1.4826 MAD.
 * 0 for n < 2.
 */
double rt_median_se(const double *x, size_t n);

/*
 * Whether throughput samples `now` differ from `base` in practice, the way
 * `rigtune check` decides (the rule is asv's and criterion's together):
 *   ratio = median(now) / median(base), with the bootstrap 95% CI of the
 *   ratio (by trial when the samples came in trials: rt_compare_opts) and
 *   the Mann-Whitney p-value;
 *   SLOWER    p < alpha, the CI below 1, and ratio <= 1 - threshold;
 *   FASTER    p < alpha, the CI above 1, and ratio >= 1 + threshold;
 *   SAME      the whole CI within [1 - threshold, 1 + threshold];
 *   UNDECIDED anything else: more samples may decide it.
 * For UNDECIDED, more_samples estimates how many more samples of `now`
 * give an 80% chance of deciding at the observed ratio (a power
 * calculation on the ratio's CI: the baseline's share fixed, now's
 * shrinking as 1/sqrt(n)); 0 when no number of them can, because the
 * baseline's own spread already covers the distance to the nearest
 * boundary, or the ratio sits on it. base_halfwidth is the baseline's
 * share: the half-width of the bootstrap 95% CI of its median, relative.
 */
typedef enum rt_change {
	RT_CHANGE_SAME,
	RT_CHANGE_SLOWER,
	RT_CHANGE_FASTER,
	RT_CHANGE_UNDECIDED,
} rt_change;

/*
 * Samples that came in trials: size[i] consecutive samples are trial i's.
 * Each trial is one draw of the machine's state (on a VM, the host's other
 * tenants move a rate by a fifth for seconds at a time), so samples of one
 * trial are not independent of each other. n 0 or 1 (or sizes that do not
 * add up to the samples): one trial.
 */
typedef struct rt_trials {
	const int *size;
	size_t n;
} rt_trials;

typedef struct rt_compare_opts {
	double alpha;     /* 0.01 */
	double threshold; /* 0.05: a change smaller than this is no change */
	int reps;         /* bootstrap resamples */
	uint64_t seed;
	/*
	 * The trials of base and now: when a side has several, its resamples
	 * draw trials and then samples within them (a two-stage bootstrap), so
	 * that the CI holds the spread between trials. Zero: one trial each.
	 */
	rt_trials base_trials, now_trials;
	/*
	 * 0: every trial counts. Else a trial of the slower half of its side's
	 * trials whose median is more than this fraction below the side's
	 * fastest trial's is left out, on both sides alike. A host's other
	 * tenants only ever slow a trial, so the fastest trials are the
	 * machine's own rate (the reason benchmark harnesses judge by the
	 * minimum time); the faster half is always kept, so that a side of
	 * many trials is not judged by its luckiest. The trials kept decide
	 * SAME; SLOWER and FASTER must hold with every trial counted too (a
	 * host can hold its slower state for minutes, and then the trials left
	 * out were its usual state), else UNDECIDED with kept_only set. A
	 * slower library or machine slows every trial, the fastest too, and
	 * is still seen.
	 */
	double keep_within;
} rt_compare_opts;

typedef struct rt_comparison {
	double base_median, now_median;
	size_t base_n, now_n;
	double ratio, ci_lo, ci_hi;
	rt_mwu test;
	rt_change change;
	long more_samples;
	double base_halfwidth;
	/* trials left out (keep_within); the medians and n are of the rest */
	size_t base_left_out, now_left_out;
	int kept_only; /* a change the kept trials show and all trials do not: UNDECIDED */
} rt_comparison;

/* RT_EINVAL for an empty sample or a zero median of base; RT_ENOMEM. */
int rt_compare(const double *base, size_t nb, const double *now, size_t nn,
	       const rt_compare_opts *o, rt_comparison *c);

/* Standard normal CDF. */
double rt_norm_cdf(double z);

#endif
