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

/*
 * Two-sided Mann-Whitney U test of x against y (normal approximation with tie
 * correction and continuity correction). Returns the p-value; *u gets U of x.
 */
double rt_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       double *u);

/* Standard normal CDF. */
double rt_norm_cdf(double z);

#endif
