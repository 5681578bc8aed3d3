#include "fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "../common/rt.h"
#include "minimize.h"
#include "stats.h"

/* 1.4826 * MAD estimates sigma for normal noise. */
#define MAD_TO_SIGMA 1.4826
/* Huber threshold of the first, nearly-L1 pass, in log units (2%). */
#define DELTA_L1 0.02
/* Huber threshold of the final pass in robust sigmas: 95% efficiency. */
#define HUBER_K 1.345
/*
 * Scales below 0.1% are clamped: timing noise is never that small, and an
 * exact synthetic curve would otherwise flag round-off as outliers.
 */
#define SCALE_FLOOR 1e-3
#define OUTLIER_SIGMAS 3.0
#define GRID_PER_DECADE 64
#define MAX_BRACKETS 8

/*
 * The fit works in scaled variables so that every parameter is O(1) whatever
 * the time unit: x = {A, b, C} with t(n) = t_ref * (A * (n/n_ref)^b + C),
 * n_ref the geometric mean of n, t_ref the median time.
 */
typedef struct fit_ctx {
	const double *u; /* log(n_i / n_ref) */
	const double *y; /* log(t_i / t_ref) */
	size_t count;
	double delta; /* Huber threshold */
} fit_ctx;

static double huber(double r, double delta)
{
	double ar = fabs(r);
	return ar <= delta ? 0.5 * r * r : delta * (ar - 0.5 * delta);
}

static double residual(const fit_ctx *f, const double *x, size_t i)
{
	double m = x[0] * exp(x[1] * f->u[i]) + x[2];
	return f->y[i] - log(fmax(m, 1e-300));
}

static double objective(unsigned dim, const double *x, double *grad, void *data)
{
	(void)dim;
	(void)grad; /* derivative-free method */
	const fit_ctx *f = data;
	double s = 0;
	for (size_t i = 0; i < f->count; i++)
		s += huber(residual(f, x, i), f->delta);
	return s;
}

/* One local minimization of the Huber loss from x (updated in place) inside the bounds. */
static int minimize(fit_ctx *f, double *x, const double *lb, const double *ub,
		    double *loss, char *err, size_t errlen)
{
	double step[3] = {0.3 * x[0] + 0.01, 0.2, 0.3 * x[2] + 0.01};
	rt_minimize_opts mo = {.xtol_rel = 1e-9, .ftol_rel = 1e-13, .maxeval = 4000,
			       .initial_step = step};
	return rt_minimize(3, objective, f, lb, ub, &mo, x, loss, err, errlen);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Checks the series and counts its distinct sizes; sorted gets sorted n. */
static int check_series(const rt_series *s, double *sorted, size_t *distinct,
			char *err, size_t errlen)
{
	for (size_t i = 0; i < s->count; i++) {
		if (!(s->n[i] > 0 && isfinite(s->n[i]) && s->seconds[i] > 0 &&
		      isfinite(s->seconds[i])))
			return rt_fail(err, errlen, RT_EINVAL,
				       "observation %zu (n=%g, seconds=%g) is not positive and finite",
				       i, s->n[i], s->seconds[i]);
		sorted[i] = s->n[i];
	}
	qsort(sorted, s->count, sizeof *sorted, cmp_double);
	size_t d = s->count ? 1 : 0;
	for (size_t i = 1; i < s->count; i++)
		d += sorted[i] != sorted[i - 1];
	*distinct = d;
	if (d < 3)
		return rt_fail(err, errlen, RT_EINVAL,
			       "a curve needs at least 3 distinct n to fit c + a*n^b, it has %zu", d);
	return RT_OK;
}

/*
 * A starting point for a given fixed cost C (scaled): the least-squares line
 * of log(t - C) against log n over the upper half of the sizes, where the
 * n^b term dominates. Falls back to b = 1 when too few points lie above C.
 */
static void initial_guess(const fit_ctx *f, double u_mid, double C, double *x)
{
	double su = 0, sv = 0, suu = 0, suv = 0;
	size_t m = 0;
	for (size_t i = 0; i < f->count; i++) {
		double rest = exp(f->y[i]) - C;
		if (f->u[i] < u_mid || rest <= 0)
			continue;
		double v = log(rest);
		su += f->u[i], sv += v, suu += f->u[i] * f->u[i], suv += f->u[i] * v;
		m++;
	}
	double b = 1, icpt = 0;
	double den = (double)m * suu - su * su;
	if (m >= 2 && den > 0) {
		b = ((double)m * suv - su * sv) / den;
		icpt = (sv - b * su) / (double)m;
	} else if (m >= 1) {
		icpt = sv / (double)m - su / (double)m;
	}
	x[0] = exp(icpt);
	x[1] = fmin(fmax(b, 0), RT_FIT_B_MAX);
	x[2] = C;
}

/* 1.4826 * median |r_i| of the current residuals; r is scratch of count. */
static double residual_scale(const fit_ctx *f, const double *x, double *r)
{
	for (size_t i = 0; i < f->count; i++)
		r[i] = fabs(residual(f, x, i));
	return MAD_TO_SIGMA * rt_median(r, f->count);
}

/*
 * The robust fit in two passes. Pass 1 minimizes a nearly-L1 loss (Huber
 * with a 2% threshold) from three starting fixed costs (none, half and 90%
 * of the time at the smallest n) and keeps the best: it needs no scale and
 * ignores outliers. Its residuals give the scale (1.4826 * median |r|);
 * pass 2 refines with the Huber threshold 1.345 * scale.
 */
static int robust_fit(fit_ctx *f, const double *lb, const double *ub, double u_mid,
		      double t_small, double *x, double *scratch, char *err, size_t errlen)
{
	const double starts[] = {0, 0.5, 0.9};
	double best = INFINITY;
	f->delta = DELTA_L1;
	for (size_t s = 0; s < RT_COUNT(starts); s++) {
		double xs[3], loss;
		initial_guess(f, u_mid, starts[s] * t_small, xs);
		for (int j = 0; j < 3; j++)
			xs[j] = fmin(fmax(xs[j], lb[j]), ub[j]);
		int rc = minimize(f, xs, lb, ub, &loss, err, errlen);
		if (rc)
			return rc;
		if (loss < best) {
			best = loss;
			memcpy(x, xs, sizeof xs);
		}
	}
	f->delta = HUBER_K * fmax(residual_scale(f, x, scratch), SCALE_FLOOR);
	return minimize(f, x, lb, ub, &best, err, errlen);
}

/* Median time of the observations at the smallest n, scaled by t_ref. */
static double small_n_time(const rt_series *s, double n_lo, double t_ref, double *scratch)
{
	size_t m = 0;
	for (size_t i = 0; i < s->count; i++)
		if (s->n[i] == n_lo)
			scratch[m++] = s->seconds[i];
	return rt_median(scratch, m) / t_ref;
}

int rt_fit_curve(const rt_series *s, rt_fit *fit, bool *outlier, char *err, size_t errlen)
{
	if (!s || s->count < 3)
		return rt_fail(err, errlen, RT_EINVAL,
			       "a curve needs at least 3 observations to fit c + a*n^b");
	size_t cnt = s->count, distinct;
	double *buf = malloc(4 * cnt * sizeof *buf);
	if (!buf)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory fitting a curve");
	double *u = buf, *y = buf + cnt, *sorted = buf + 2 * cnt, *scratch = buf + 3 * cnt;
	int rc = check_series(s, sorted, &distinct, err, errlen);
	if (rc)
		goto out;

	double log_nref = 0, t_max = 0;
	for (size_t i = 0; i < cnt; i++) {
		log_nref += log(s->n[i]) / (double)cnt;
		t_max = fmax(t_max, s->seconds[i]);
	}
	double t_ref = rt_median(s->seconds, cnt);
	for (size_t i = 0; i < cnt; i++) {
		u[i] = log(s->n[i]) - log_nref;
		y[i] = log(s->seconds[i] / t_ref);
	}
	/* A at n_ref and C can never need to exceed a few times the slowest time. */
	double lb[3] = {0, 0, 0}, ub[3] = {10 * t_max / t_ref, RT_FIT_B_MAX, 2 * t_max / t_ref};
	double u_mid = log(rt_median(sorted, cnt)) - log_nref;
	double t_small = small_n_time(s, sorted[0], t_ref, scratch);
	fit_ctx f = {.u = u, .y = y, .count = cnt};
	double x[3];
	rc = robust_fit(&f, lb, ub, u_mid, t_small, x, scratch, err, errlen);
	if (rc)
		goto out;

	fit->b = x[1];
	fit->a = t_ref * x[0] * exp(-x[1] * log_nref);
	fit->c = t_ref * x[2];
	if (fit->b <= 1e-9) {
		/* A flat curve: a*n^0 is a second constant, reported as part of c. */
		fit->c += fit->a;
		fit->a = 0;
	}
	fit->scale = residual_scale(&f, x, scratch);
	fit->n_min = sorted[0];
	fit->n_max = sorted[cnt - 1];
	fit->outliers = 0;
	double cut = OUTLIER_SIGMAS * fmax(fit->scale, SCALE_FLOOR);
	for (size_t i = 0; i < cnt; i++) {
		bool out = fabs(residual(&f, x, i)) > cut;
		fit->outliers += out;
		if (outlier)
			outlier[i] = out;
	}
out:
	free(buf);
	return rc;
}

double rt_fit_eval(const rt_fit *fit, double n)
{
	return fit->c + fit->a * pow(n, fit->b);
}

/* log t0(n) - log t1(n): positive where curve 1 is faster. */
static double log_gap(const rt_fit *f0, const rt_fit *f1, double n)
{
	return log(fmax(rt_fit_eval(f0, n), 1e-300)) - log(fmax(rt_fit_eval(f1, n), 1e-300));
}

static int sign_of(double v)
{
	return (v > 0) - (v < 0);
}

/* Bisection in log n of a bracketed sign change of log_gap. */
static double bisect(const rt_fit *f0, const rt_fit *f1, double lo, double hi)
{
	int s_lo = sign_of(log_gap(f0, f1, lo));
	for (int it = 0; it < 200 && hi / lo - 1 > 1e-12; it++) {
		double mid = sqrt(lo * hi);
		int s = sign_of(log_gap(f0, f1, mid));
		if (s == 0)
			return mid;
		if (s == s_lo)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

/*
 * Scans [lo, hi] on a log grid for sign changes of log_gap. Writes up to
 * MAX_BRACKETS brackets (ascending) into br as lo/hi pairs and returns how
 * many sign changes there were. A zero at a grid point is skipped over, so
 * touching without crossing is no crossing.
 */
static int scan(const rt_fit *f0, const rt_fit *f1, double lo, double hi, double *br)
{
	int steps = (int)ceil(log10(hi / lo) * GRID_PER_DECADE);
	if (steps < 16)
		steps = 16;
	int found = 0, s_prev = 0;
	double n_prev = lo;
	for (int i = 0; i <= steps; i++) {
		double n = i == steps ? hi : lo * pow(hi / lo, (double)i / steps);
		int s = sign_of(log_gap(f0, f1, n));
		if (s == 0)
			continue;
		if (s_prev && s != s_prev) {
			if (found < MAX_BRACKETS) {
				br[2 * found] = n_prev;
				br[2 * found + 1] = n;
			}
			found++;
		}
		s_prev = s;
		n_prev = n;
	}
	return found;
}

/* Sets n_star and the side faster above it from one bracket. */
static void take_crossing(const rt_fit *f0, const rt_fit *f1, const double *br,
			  rt_crossover *cx)
{
	cx->n_star = bisect(f0, f1, br[0], br[1]);
	cx->faster_above = log_gap(f0, f1, br[1]) > 0 ? 1 : 0;
}

/*
 * Outside the measured range the crossing nearest to it (in log n) is
 * taken: extrapolation grows less trustworthy with distance.
 */
static void extrapolate(const rt_fit *f0, const rt_fit *f1, rt_crossover *cx)
{
	double below[2 * MAX_BRACKETS], above[2 * MAX_BRACKETS];
	double lo = fmax(1.0, cx->range_lo / RT_CROSS_EXTRAPOLATE);
	int nb = lo < cx->range_lo ? scan(f0, f1, lo, cx->range_lo, below) : 0;
	int na = scan(f0, f1, cx->range_hi, cx->range_hi * RT_CROSS_EXTRAPOLATE, above);
	if (nb > MAX_BRACKETS)
		nb = MAX_BRACKETS;
	const double *pick = NULL;
	if (nb > 0)
		pick = below + 2 * (nb - 1);
	if (na > 0 && (!pick || above[0] / cx->range_hi < cx->range_lo / pick[1]))
		pick = above;
	if (!pick)
		return;
	cx->kind = RT_CROSS_EXTRAPOLATED;
	take_crossing(f0, f1, pick, cx);
}

int rt_crossover_solve(const rt_fit *f0, const rt_fit *f1, rt_crossover *cx, char *err,
		       size_t errlen)
{
	double lo = fmax(f0->n_min, f1->n_min), hi = fmin(f0->n_max, f1->n_max);
	if (!(lo < hi))
		return rt_fail(err, errlen, RT_EINVAL,
			       "the measured ranges n=%g..%g and n=%g..%g do not overlap",
			       f0->n_min, f0->n_max, f1->n_min, f1->n_max);
	double br[2 * MAX_BRACKETS];
	*cx = (rt_crossover){.kind = RT_CROSS_NONE, .n_star = NAN, .winner = -1,
			     .range_lo = lo, .range_hi = hi};
	cx->crossings = scan(f0, f1, lo, hi, br);
	if (cx->crossings > 0) {
		int last = cx->crossings < MAX_BRACKETS ? cx->crossings : MAX_BRACKETS;
		cx->kind = RT_CROSS_IN_RANGE;
		take_crossing(f0, f1, br + 2 * (last - 1), cx);
		return RT_OK;
	}
	cx->winner = log_gap(f0, f1, sqrt(lo * hi)) > 0 ? 1 : 0;
	cx->faster_above = cx->winner;
	extrapolate(f0, f1, cx);
	return RT_OK;
}

void rt_crossover_describe(const rt_crossover *cx, const char *name0, const char *name1,
			   char *buf, size_t len)
{
	const char *names[2] = {name0, name1};
	if (cx->kind == RT_CROSS_NONE) {
		snprintf(buf, len, "no crossover in range: %s wins from n=%.4g to n=%.4g",
			 names[cx->winner], cx->range_lo, cx->range_hi);
		return;
	}
	const char *taker = names[cx->faster_above], *other = names[1 - cx->faster_above];
	if (cx->kind == RT_CROSS_IN_RANGE)
		snprintf(buf, len, "%s beats %s from n=%.4g (in the measured range)", taker,
			 other, cx->n_star);
	else
		snprintf(buf, len,
			 "%s beats %s from n=%.4g (extrapolated: no crossover in range, where %s wins from n=%.4g to n=%.4g)",
			 taker, other, cx->n_star, names[cx->winner], cx->range_lo,
			 cx->range_hi);
}

/* Draws s->count observations of s with replacement into n and t. */
static void resample(const rt_series *s, rt_rng *rng, double *n, double *t)
{
	for (size_t i = 0; i < s->count; i++) {
		size_t j = (size_t)rt_rng_below(rng, s->count);
		n[i] = s->n[j];
		t[i] = s->seconds[j];
	}
}

/* One bootstrap replicate: 1 crossed (n_star set), 0 not, -1 a refit failed. */
static int replicate(const rt_series *s0, const rt_series *s1, rt_rng *rng, double *buf,
		     double *n_star)
{
	double *n0 = buf, *t0 = n0 + s0->count, *n1 = t0 + s0->count, *t1 = n1 + s1->count;
	resample(s0, rng, n0, t0);
	resample(s1, rng, n1, t1);
	rt_series r0 = {n0, t0, s0->count}, r1 = {n1, t1, s1->count};
	rt_fit f0, f1;
	rt_crossover cx;
	if (rt_fit_curve(&r0, &f0, NULL, NULL, 0) || rt_fit_curve(&r1, &f1, NULL, NULL, 0) ||
	    rt_crossover_solve(&f0, &f1, &cx, NULL, 0))
		return -1;
	*n_star = cx.n_star;
	return cx.kind != RT_CROSS_NONE;
}

int rt_crossover_bootstrap(const rt_series *s0, const rt_series *s1, int reps, double level,
			   uint64_t seed, rt_crossover_ci *ci, char *err, size_t errlen)
{
	rt_fit f0, f1;
	rt_crossover cx;
	*ci = (rt_crossover_ci){.lo = NAN, .hi = NAN};
	if (reps < 1 || !(level > 0 && level < 1))
		return rt_fail(err, errlen, RT_EINVAL, "bootstrap needs reps >= 1 and 0 < level < 1");
	int rc = rt_fit_curve(s0, &f0, NULL, err, errlen);
	if (!rc)
		rc = rt_fit_curve(s1, &f1, NULL, err, errlen);
	if (!rc)
		rc = rt_crossover_solve(&f0, &f1, &cx, err, errlen);
	if (rc)
		return rc;
	double *stars = malloc((size_t)reps * sizeof *stars);
	double *buf = malloc(2 * (s0->count + s1->count) * sizeof *buf);
	if (!stars || !buf) {
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory in the bootstrap");
		goto out;
	}
	rt_rng rng;
	rt_rng_seed(&rng, seed);
	ci->reps = reps;
	for (int r = 0; r < reps; r++) {
		int got = replicate(s0, s1, &rng, buf, &stars[ci->crossed]);
		ci->crossed += got == 1;
		ci->no_crossover += got == 0;
		ci->failed += got < 0;
	}
	if (ci->crossed >= 2) {
		ci->lo = rt_quantile(stars, (size_t)ci->crossed, (1 - level) / 2);
		ci->hi = rt_quantile(stars, (size_t)ci->crossed, (1 + level) / 2);
	}
out:
	free(buf);
	free(stars);
	return rc;
}

int rt_fit_threads_pay_from(const rt_fit *one, const rt_fit *many, double *n_from,
			    rt_crossover *cx, char *err, size_t errlen)
{
	rt_crossover local;
	if (!cx)
		cx = &local;
	int rc = rt_crossover_solve(one, many, cx, err, errlen);
	if (rc)
		return rc;
	if (cx->kind != RT_CROSS_NONE && cx->faster_above == 1)
		*n_from = cx->n_star;
	else if (cx->kind == RT_CROSS_NONE && cx->winner == 1)
		*n_from = cx->range_lo;
	else
		*n_from = INFINITY;
	return RT_OK;
}

/* Index of the fastest curve at n; the first one on a tie. */
static size_t fastest(const rt_fit *fits, size_t k, double n)
{
	size_t best = 0;
	for (size_t i = 1; i < k; i++)
		if (rt_fit_eval(&fits[i], n) < rt_fit_eval(&fits[best], n))
			best = i;
	return best;
}

int rt_fit_best_threads(const rt_fit *fits, const int *threads, size_t k,
			rt_thread_range *out, size_t cap, size_t *nout, char *err, size_t errlen)
{
	if (k == 0 || cap == 0)
		return rt_fail(err, errlen, RT_EINVAL, "no curves or no room for thread ranges");
	double lo = fits[0].n_min, hi = fits[0].n_max;
	for (size_t i = 1; i < k; i++) {
		lo = fmax(lo, fits[i].n_min);
		hi = fmin(hi, fits[i].n_max);
	}
	if (!(lo < hi))
		return rt_fail(err, errlen, RT_EINVAL,
			       "the measured ranges of the thread counts do not overlap");
	int steps = (int)ceil(log10(hi / lo) * GRID_PER_DECADE);
	if (steps < 16)
		steps = 16;
	size_t cur = fastest(fits, k, lo), m = 0;
	double n_prev = lo, start = lo;
	for (int i = 1; i <= steps; i++) {
		double n = i == steps ? hi : lo * pow(hi / lo, (double)i / steps);
		size_t w = fastest(fits, k, n);
		if (w != cur) {
			if (m + 1 >= cap)
				return rt_fail(err, errlen, RT_EINVAL,
					       "more than %zu thread ranges", cap);
			double edge = bisect(&fits[cur], &fits[w], n_prev, n);
			out[m++] = (rt_thread_range){threads[cur], start, edge};
			start = edge;
			cur = w;
		}
		n_prev = n;
	}
	out[m++] = (rt_thread_range){threads[cur], start, hi};
	*nout = m;
	return RT_OK;
}

int rt_fit_min_batch(double n_star, double rows_per_sample, const rt_step_gemm *g,
		     size_t count, long *batch, size_t *binding, char *err, size_t errlen)
{
	if (!(rows_per_sample >= 1) || count == 0)
		return rt_fail(err, errlen, RT_EINVAL,
			       "rows per sample must be >= 1 and the step needs a GEMM");
	double need = 0;
	size_t which = 0;
	for (size_t i = 0; i < count; i++) {
		double m;
		if (isfinite(g[i].m_star) && g[i].m_star > 0)
			m = g[i].m_star;
		else if (n_star > 0 && isfinite(n_star) && g[i].k > 0 && g[i].n > 0)
			m = n_star * n_star * n_star / (g[i].k * g[i].n);
		else
			return rt_fail(err, errlen, RT_EINVAL,
				       "GEMM %s needs its m* or a square n* > 0 and k, n > 0",
				       g[i].name ? g[i].name : "?");
		/* The relative slack absorbs round-off of an exact product. */
		double b = ceil(m / rows_per_sample * (1 - 1e-12));
		if (b > need) {
			need = b;
			which = i;
		}
	}
	/* an extrapolated n* can ask for more than a long holds: say so, not UB */
	if (!(need < 9.2e18))
		return rt_fail(err, errlen, RT_EINVAL, "the batch needed is beyond any machine (%g)",
			       need);
	*batch = need < 1 ? 1 : (long)need;
	if (binding)
		*binding = which;
	return RT_OK;
}
