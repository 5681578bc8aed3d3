/*
 * fit.h: scaling models of measured times and the sizes where they cross.
 *
 * A curve is a set of observations (n_i, seconds_i) of one configuration
 * (a backend, precision and thread count), repeats allowed. Each curve is
 * fitted with
 *
 *	t(n) = c + a * n^b,   a >= 0, c >= 0, 0 <= b <= 4,
 *
 * c being the fixed cost (launch, transfer latency, thread wake-up) and a*n^b
 * the work. The fit minimizes a Huber loss of the log-residuals
 * r_i = log(seconds_i) - log(t(n_i)): timing noise is multiplicative, and the
 * Huber loss keeps one slow warm-up sample from pulling the curve. The
 * Huber threshold is 1.345 robust sigmas, the sigma being 1.4826 * median|r_i|
 * of a first, nearly-L1 fit (which needs no scale); an observation is an
 * outlier when |r_i| > 3 sigmas of the final fit.
 *
 * This module knows no backend: curves are plain arrays, labels belong to the
 * caller. The caller owns every array passed in and every struct filled.
 */
#ifndef RT_FIT_H
#define RT_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The observations of one curve (a view: the arrays belong to the caller). */
typedef struct rt_series {
	const double *n;
	const double *seconds;
	size_t count;
} rt_series;

/* A fitted curve. */
/* The largest exponent b a fit takes (a GEMM's time grows as n^3). */
#define RT_FIT_B_MAX 4.0

typedef struct rt_fit {
	double a, b, c;
	/*
	 * Robust sigma of the log-residuals, 1.4826 * median(|r_i|): about the
	 * relative noise of one observation (0.03 = 3%).
	 */
	double scale;
	double n_min, n_max; /* the measured range */
	size_t outliers;     /* observations with |r_i| > 3 * max(scale, 1e-3) */
} rt_fit;

/*
 * Fits t(n) = c + a*n^b to the series (count >= 3, at least 3 distinct n,
 * every n and seconds > 0 and finite). outlier may be NULL, else it has
 * count entries and gets the per-observation outlier flags.
 * Returns 0, RT_EINVAL for unusable data, RT_ERUNTIME when NLopt fails.
 */
int rt_fit_curve(const rt_series *s, rt_fit *fit, bool *outlier, char *err,
		 size_t errlen);

/* The fitted time at size n. */
double rt_fit_eval(const rt_fit *fit, double n);

/* How two fitted curves relate on (and near) their common measured range. */
typedef enum rt_cross_kind {
	RT_CROSS_IN_RANGE,     /* n_star lies in the common measured range */
	RT_CROSS_EXTRAPOLATED, /* the curves only cross outside it */
	RT_CROSS_NONE,         /* no crossing within the extended search range */
} rt_cross_kind;

/* Crossings outside the measured range are searched up to this factor beyond it. */
#define RT_CROSS_EXTRAPOLATE 1000.0

typedef struct rt_crossover {
	rt_cross_kind kind;
	double n_star; /* NAN for RT_CROSS_NONE */
	/*
	 * Index (0 or 1) of the curve that is faster for n > n_star: the side
	 * that takes over. For RT_CROSS_NONE, the curve faster over the whole
	 * common range (the winner).
	 */
	int faster_above;
	/* The curve faster over the whole common range, -1 if they cross in it. */
	int winner;
	int crossings;             /* sign changes found in the common range */
	double range_lo, range_hi; /* the common measured range */
} rt_crossover;

/*
 * Finds where two fitted curves meet: the difference of their log-times is
 * scanned on a log grid and every sign change refined by bisection.
 *
 * Two curves of this family can cross twice (a GPU with a larger fixed cost
 * and a steeper exponent, say). The crossover reported is the one at the
 * largest n: from there on the side that is faster at large n takes over
 * and stays ahead, which is the question "from which size does X pay".
 * The common range is searched first; only if the curves do not cross in
 * it is the range extended by RT_CROSS_EXTRAPOLATE both ways (n >= 1), and
 * a crossing found there is flagged RT_CROSS_EXTRAPOLATED.
 * Returns RT_EINVAL when the measured ranges do not overlap.
 */
int rt_crossover_solve(const rt_fit *f0, const rt_fit *f1, rt_crossover *cx,
		       char *err, size_t errlen);

/*
 * One sentence about a crossover, with the curves named name0 and name1:
 *   "gpu/fp32 beats cpu/fp32 from n=293 (in the measured range)"
 *   "gpu/fp32 beats cpu/fp32 from n=1716 (extrapolated beyond n=16..1024)"
 *   "no crossover in range: gpu/fp32 wins from n=32 to n=4096"
 */
void rt_crossover_describe(const rt_crossover *cx, const char *name0,
			   const char *name1, char *buf, size_t len);

/* Percentile bootstrap interval of n_star. */
typedef struct rt_crossover_ci {
	double lo, hi;    /* NAN when fewer than 2 resamples crossed */
	int reps;         /* resamples drawn */
	int crossed;      /* resamples whose refits crossed (in range or not) */
	int no_crossover; /* resamples whose refits did not cross */
	int failed;       /* resamples whose refit failed (too few distinct n drawn) */
} rt_crossover_ci;

/*
 * Bootstrap CI at `level` (0.95) for the crossover of two series: each
 * resample draws every curve's observations with replacement (count of
 * them, within the curve), refits both curves and re-solves. Deterministic
 * for the seed (common/rng.h). Returns 0, or an error of rt_fit_curve that
 * the original, unresampled data already has.
 */
int rt_crossover_bootstrap(const rt_series *s0, const rt_series *s1, int reps,
			   double level, uint64_t seed, rt_crossover_ci *ci,
			   char *err, size_t errlen);

/*
 * The CPU thread crossover: the size from which `many` threads beat one.
 * *n_from is the crossover when `many` takes over at large n, the low end of
 * the common range when `many` wins everywhere in it, INFINITY when one
 * thread stays ahead (or `many` only wins below some size). cx may be NULL.
 */
int rt_fit_threads_pay_from(const rt_fit *one, const rt_fit *many,
			    double *n_from, rt_crossover *cx, char *err,
			    size_t errlen);

/* A size range and the thread count fastest in it. */
typedef struct rt_thread_range {
	int threads;
	double n_lo, n_hi;
} rt_thread_range;

/*
 * The best thread count per size range over the common measured range of k
 * fitted curves (fits[i] measured with threads[i]). Ranges are contiguous,
 * ascending and merged; their boundaries are the crossovers of the two
 * neighbours, refined by bisection. On a tie the earlier curve wins, so list
 * fewer threads first to prefer them. Writes at most `cap` ranges, *nout
 * gets the count. Returns RT_EINVAL when the ranges do not overlap or cap
 * is too small.
 */
int rt_fit_best_threads(const rt_fit *fits, const int *threads, size_t k,
			rt_thread_range *out, size_t cap, size_t *nout,
			char *err, size_t errlen);

/*
 * One GEMM of a training step, m x k x n with m = batch * rows_per_sample
 * (a transformer's seq_len: the caller's workload says which GEMMs and how
 * many rows). m_star is the crossover in m fitted on a sweep of this very
 * shape (k and n fixed, m swept), or NAN when only the square crossover is
 * known.
 */
typedef struct rt_step_gemm {
	const char *name;
	double k, n;
	double m_star;
} rt_step_gemm;

/*
 * The smallest batch that puts every GEMM of a step above the crossover.
 * "Above" for an m x k x n GEMM:
 *  - with m_star (a crossover fitted on this shape with m swept): m >= m_star;
 *  - without it: its flop-equivalent cube (m*k*n)^(1/3) >= n_star of the
 *    square sweep, i.e. m >= n_star^3 / (k*n). Equal flops take roughly
 *    equal time once the matrices are large, which is what the crossover is
 *    about; it is an approximation for thin shapes, hence m_star first.
 * Then batch = ceil(m / rows_per_sample) maximized over the GEMMs;
 * *binding (may be NULL) gets the index of the GEMM that sets it. n_star > 0
 * unless every GEMM has its m_star. Returns RT_EINVAL for non-positive sizes.
 */
int rt_fit_min_batch(double n_star, double rows_per_sample, const rt_step_gemm *g,
		     size_t count, long *batch, size_t *binding, char *err,
		     size_t errlen);

#endif
