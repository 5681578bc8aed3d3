#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "../common/rt.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A sorted copy; NULL on allocation failure (callers then return NAN). */
static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof *s);
	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	return s;
}

static double quantile_sorted(const double *s, size_t n, double q)
{
	if (!(q >= 0)) /* NaN too */
		q = 0;
	if (q > 1)
		q = 1;
	double h = q * (double)(n - 1);
	size_t i = (size_t)floor(h);
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

double rt_quantile(const double *x, size_t n, double q)
{
	if (n == 0)
		return NAN;
	double *s = sorted_copy(x, n);
	if (!s)
		return NAN;
	double r = quantile_sorted(s, n, q);
	free(s);
	return r;
}

double rt_median(const double *x, size_t n)
{
	return rt_quantile(x, n, 0.5);
}

double rt_mad(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double med = rt_median(x, n);
	double *d = malloc(n * sizeof *d);
	if (!d)
		return NAN;
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	double r = rt_median(d, n);
	free(d);
	return r;
}

double rt_mean(const double *x, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : NAN;
}

double rt_cv(const double *x, size_t n)
{
	if (n < 2)
		return 0;
	double m = rt_mean(x, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return m != 0 ? sqrt(ss / (double)(n - 1)) / fabs(m) : 0;
}

double rt_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/*
 * The order statistics s[j], s[n-1-j] bracket the median with probability
 * P(j < B < n-j), B ~ binomial(n, 1/2). Take the largest j that keeps that
 * at least 95%. Exact binomial sums, computed in log space for large n.
 */
void rt_median_ci95(const double *x, size_t n, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (n == 0)
		return;
	double *s = sorted_copy(x, n);
	if (!s)
		return;
	size_t j = 0;
	double tail = 0; /* P(B <= j) */
	for (size_t i = 0; i < n / 2; i++) {
		double logp = lgamma((double)n + 1) - lgamma((double)i + 1) -
			      lgamma((double)(n - i) + 1) - (double)n * M_LN2;
		tail += exp(logp);
		if (2 * tail > 0.05)
			break;
		j = i + 1; /* P(B <= i) small enough: s[i+1-1]=s[i] is usable */
	}
	/* j order statistics are excluded on each side: s[j-1]..s[n-j] (1-based j). */
	size_t a = j ? j - 1 : 0, b = j ? n - j : n - 1;
	*lo = s[a];
	*hi = s[b];
	free(s);
}

void rt_bootstrap_ci(const double *x, size_t n, rt_stat_fn stat, int reps,
		     double level, uint64_t seed, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (n == 0 || reps < 2)
		return;
	double *res = malloc((size_t)reps * sizeof *res);
	double *buf = malloc(n * sizeof *buf);
	if (res && buf) {
		rt_rng r;
		rt_rng_seed(&r, seed);
		for (int k = 0; k < reps; k++) {
			for (size_t i = 0; i < n; i++)
				buf[i] = x[rt_rng_below(&r, n)];
			res[k] = stat(buf, n);
		}
		qsort(res, (size_t)reps, sizeof *res, cmp_double);
		double a = (1 - level) / 2;
		*lo = quantile_sorted(res, (size_t)reps, a);
		*hi = quantile_sorted(res, (size_t)reps, 1 - a);
	}
	free(res);
	free(buf);
}

/* One observation of the pooled sample: its value and which sample it is from. */
typedef struct mw_obs {
	double v; /* first member: cmp_double sorts by it */
	int from_x;
} mw_obs;

/*
 * Ranks the pooled sample o (sorted, n values): the rank sum of x (average
 * ranks for ties) and the tie term sum(t^3 - t) over groups of equal values.
 */
static void mw_ranks(const mw_obs *o, size_t n, double *rank_x, double *tie_term)
{
	*rank_x = *tie_term = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && o[j + 1].v == o[i].v)
			j++;
		double rank = (double)(i + j + 2) / 2; /* average 1-based rank */
		for (size_t k = i; k <= j; k++)
			if (o[k].from_x)
				*rank_x += rank;
		double t = (double)(j - i + 1);
		*tie_term += t * t * t - t;
		i = j + 1;
	}
}

/*
 * P(U <= u) under the null for samples of sizes a and b, from the recurrence
 * on the largest observation: it is one of a's with probability a/(a+b),
 * and then beats all b of the other sample,
 *   P(a, b, u) = a/(a+b) P(a-1, b, u-b) + b/(a+b) P(a, b-1, u).
 * Probabilities, not counts, so nothing overflows. The distribution is the
 * same with a and b swapped: the array runs over the smaller one.
 */
static int mw_exact_cdf(size_t a, size_t b, long u, double *cdf)
{
	if (a < b) {
		size_t t = a;
		a = b;
		b = t;
	}
	size_t umax = a * b, w = umax + 1;
	double *prev = calloc((b + 1) * w, sizeof *prev);
	double *cur = calloc((b + 1) * w, sizeof *cur);
	if (!prev || !cur) {
		free(prev);
		free(cur);
		return RT_ENOMEM;
	}
	for (size_t j = 0; j <= b; j++)
		prev[j * w] = 1; /* no observation of the larger sample: U = 0 */
	for (size_t i = 1; i <= a; i++) {
		memset(cur, 0, (b + 1) * w * sizeof *cur);
		cur[0] = 1;
		for (size_t j = 1; j <= b; j++) {
			double pi = (double)i / (double)(i + j), pj = 1 - pi;
			for (size_t k = 0; k <= i * j; k++) {
				double from_i = k >= j ? prev[j * w + k - j] : 0;
				cur[j * w + k] = pi * from_i + pj * cur[(j - 1) * w + k];
			}
		}
		double *t = prev;
		prev = cur;
		cur = t;
	}
	double sum = 0;
	for (long k = 0; k <= u && k <= (long)umax; k++)
		sum += prev[b * w + (size_t)k];
	*cdf = sum;
	free(prev);
	free(cur);
	return RT_OK;
}

static double mw_normal_p(double ux, size_t nx, size_t ny, double tie_term)
{
	double n = (double)(nx + ny);
	double mu = (double)nx * (double)ny / 2;
	double var = (double)nx * (double)ny / 12 * (n + 1 - tie_term / (n * (n - 1)));
	if (var <= 0) /* every value equal */
		return 1.0;
	double z = (fabs(ux - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return 2 * (1 - rt_norm_cdf(z));
}

int rt_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, rt_mwu *out)
{
	if (nx == 0 || ny == 0)
		return RT_EINVAL;
	size_t n = nx + ny;
	mw_obs *o = malloc(n * sizeof *o);
	if (!o)
		return RT_ENOMEM;
	for (size_t i = 0; i < nx; i++)
		o[i] = (mw_obs){x[i], 1};
	for (size_t i = 0; i < ny; i++)
		o[nx + i] = (mw_obs){y[i], 0};
	qsort(o, n, sizeof *o, cmp_double);
	double rank_x, tie_term;
	mw_ranks(o, n, &rank_x, &tie_term);
	free(o);
	out->u = rank_x - (double)nx * ((double)nx + 1) / 2;
	out->exact = tie_term == 0 && nx * ny <= RT_MWU_EXACT_MAX;
	if (!out->exact) {
		out->p = mw_normal_p(out->u, nx, ny, tie_term);
		return RT_OK;
	}
	/* no ties: U is a whole number; the smaller tail, doubled */
	long u = lround(out->u), mirror = (long)(nx * ny) - u;
	double tail;
	int rc = mw_exact_cdf(nx, ny, u < mirror ? u : mirror, &tail);
	if (rc)
		return rc;
	out->p = fmin(1.0, 2 * tail);
	return RT_OK;
}

/* The median of n values sampled with replacement from x into buf. */
static double resampled_median(const double *x, size_t n, double *buf, rt_rng *r)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = x[rt_rng_below(r, n)];
	qsort(buf, n, sizeof *buf, cmp_double);
	return quantile_sorted(buf, n, 0.5);
}

/* Whether t splits n samples into trials: more than one, of sizes >= 1 adding up to n. */
static int in_trials(const rt_trials *t, size_t n)
{
	if (!t || t->n < 2)
		return 0;
	size_t sum = 0;
	for (size_t i = 0; i < t->n; i++)
		sum += t->size[i] > 0 ? (size_t)t->size[i] : n + 1;
	return sum == n;
}

/* Room a resample by trials needs: t->n times the largest trial. */
static size_t trials_room(const rt_trials *t, size_t n)
{
	if (!in_trials(t, n))
		return n;
	size_t most = 0;
	for (size_t i = 0; i < t->n; i++)
		most = (size_t)t->size[i] > most ? (size_t)t->size[i] : most;
	return most * t->n;
}

/*
 * The median of one resample of x by its trials: t->n trials drawn with
 * replacement, and each drawn trial's samples drawn with replacement within
 * it (the two-stage bootstrap), so that the spread between trials enters the
 * CI, not only the spread within one; with one trial, resampled_median.
 * buf has trials_room() values; start is scratch of t->n + 1.
 */
static double resampled_median_by_trial(const double *x, size_t n, const rt_trials *t,
					size_t *start, double *buf, rt_rng *r)
{
	if (!in_trials(t, n))
		return resampled_median(x, n, buf, r);
	start[0] = 0;
	for (size_t i = 0; i < t->n; i++)
		start[i + 1] = start[i] + (size_t)t->size[i];
	size_t m = 0;
	for (size_t i = 0; i < t->n; i++) {
		size_t g = rt_rng_below(r, t->n), size = (size_t)t->size[g];
		for (size_t k = 0; k < size; k++)
			buf[m++] = x[start[g] + rt_rng_below(r, size)];
	}
	qsort(buf, m, sizeof *buf, cmp_double);
	return quantile_sorted(buf, m, 0.5);
}

/*
 * Percentile bootstrap CI of median(y) / median(x) with the samples of each
 * side in trials (tx, ty: NULL or one trial, as rt_bootstrap_ratio_ci), and
 * of median(x) alone (xlo, xhi; NULL: not wanted).
 */
static int ratio_ci_by_trial(const double *x, size_t nx, const rt_trials *tx, const double *y,
			     size_t ny, const rt_trials *ty, int reps, double level, uint64_t seed,
			     double *lo, double *hi, double *xlo, double *xhi)
{
	*lo = *hi = NAN;
	if (nx == 0 || ny == 0 || reps < 2)
		return RT_EINVAL;
	size_t room_x = trials_room(tx, nx), room_y = trials_room(ty, ny);
	size_t room = room_x > room_y ? room_x : room_y;
	size_t groups = (tx ? tx->n : 0) + (ty ? ty->n : 0) + 2;
	double *res = malloc(2 * (size_t)reps * sizeof *res), *mx = res ? res + reps : NULL;
	double *buf = malloc(room * sizeof *buf);
	size_t *start = malloc(groups * sizeof *start);
	int rc = res && buf && start ? RT_OK : RT_ENOMEM;
	rt_rng r;
	rt_rng_seed(&r, seed);
	for (int k = 0; rc == RT_OK && k < reps; k++) {
		mx[k] = resampled_median_by_trial(x, nx, tx, start, buf, &r);
		double my = resampled_median_by_trial(y, ny, ty, start, buf, &r);
		if (mx[k] == 0)
			rc = RT_EINVAL;
		res[k] = my / mx[k];
	}
	double a = (1 - level) / 2;
	if (rc == RT_OK) {
		qsort(res, (size_t)reps, sizeof *res, cmp_double);
		*lo = quantile_sorted(res, (size_t)reps, a);
		*hi = quantile_sorted(res, (size_t)reps, 1 - a);
	}
	if (rc == RT_OK && xlo) {
		qsort(mx, (size_t)reps, sizeof *mx, cmp_double);
		*xlo = quantile_sorted(mx, (size_t)reps, a);
		*xhi = quantile_sorted(mx, (size_t)reps, 1 - a);
	}
	free(res);
	free(buf);
	free(start);
	return rc;
}

int rt_bootstrap_ratio_ci(const double *x, size_t nx, const double *y, size_t ny, int reps,
			  double level, uint64_t seed, double *lo, double *hi)
{
	return ratio_ci_by_trial(x, nx, NULL, y, ny, NULL, reps, level, seed, lo, hi, NULL, NULL);
}

double rt_median_se(const double *x, size_t n)
{
	if (n < 2)
		return 0;
	return sqrt(M_PI / 2) * 1.4826 * rt_mad(x, n) / sqrt((double)n);
}

/* The ratio's CI decides; p guards a slowdown or a speedup against noise. */
static rt_change classify(const rt_comparison *c, const rt_compare_opts *o)
{
	int significant = c->test.p < o->alpha;
	if (significant && c->ci_hi < 1 && c->ratio <= 1 - o->threshold)
		return RT_CHANGE_SLOWER;
	if (significant && c->ci_lo > 1 && c->ratio >= 1 + o->threshold)
		return RT_CHANGE_FASTER;
	if (c->ci_lo >= 1 - o->threshold && c->ci_hi <= 1 + o->threshold)
		return RT_CHANGE_SAME;
	return RT_CHANGE_UNDECIDED;
}

/*
 * The distance from the ratio to the boundary that would decide it: 1 for
 * a ratio past the threshold (its CI must leave 1 behind), else the nearer
 * edge of the band of no change.
 */
static double decisive_distance(double r, double t)
{
	if (r <= 1 - t || r >= 1 + t)
		return fabs(r - 1);
	return fmin(r - (1 - t), (1 + t) - r);
}

/*
 * Samples of now for an 80% chance that the CI clears the decisive
 * boundary: the usual power calculation, n = ((1.96 + 0.84) se / dist)^2,
 * with the baseline's share of the half-width fixed. That share is taken
 * from the bootstrap of the baseline's median, as the decision's CI has it
 * (a normal-theory guess is far off for the handful of samples a trial
 * keeps); the spread of now, from its rt_median_se.
 */
static int estimate_more(rt_comparison *c, const double *base, const double *now,
			 const rt_compare_opts *o, double lo, double hi)
{
	if (isnan(lo)) /* the baseline in one trial: the bootstrap of its samples */
		rt_bootstrap_ci(base, c->base_n, rt_median, o->reps, 0.95, o->seed, &lo, &hi);
	if (isnan(lo))
		return RT_ENOMEM;
	c->base_halfwidth = fmax(hi - c->base_median, c->base_median - lo) / c->base_median;
	double sn = 0; /* the relative spread of one sample now */
	if (c->now_median != 0)
		sn = rt_median_se(now, c->now_n) / fabs(c->now_median) * sqrt((double)c->now_n);
	double power = 1.96 / (1.96 + 0.84);
	double want = power * decisive_distance(c->ratio, o->threshold) / c->ratio;
	double room = want * want - c->base_halfwidth * c->base_halfwidth;
	c->more_samples = 0;
	if (room <= 0 || !(want > 0))
		return RT_OK;
	double need = ceil(1.96 * 1.96 * sn * sn / room) - (double)c->now_n;
	c->more_samples = need < 1 ? 1 : need > 1e6 ? 1000000 : (long)need;
	return RT_OK;
}

/*
 * One side of a comparison: its samples in the trials it keeps. x and t
 * are the caller's when every trial is kept, else own_x and own_size.
 */
typedef struct side {
	const double *x;
	size_t n;
	rt_trials t;
	size_t left_out;
	double *own_x;
	int *own_size;
} side;

static void side_free(side *s)
{
	free(s->own_x);
	free(s->own_size);
}

/* Copies the trials whose median is at least `least` into s's own arrays. */
static int copy_kept(const double *x, const rt_trials *t, const double *med, double least,
		     side *s)
{
	s->own_x = malloc(s->n * sizeof *s->own_x);
	s->own_size = malloc(t->n * sizeof *s->own_size);
	if (!s->own_x || !s->own_size)
		return RT_ENOMEM;
	size_t n = 0, kept = 0, at = 0;
	for (size_t i = 0; i < t->n; at += (size_t)t->size[i++]) {
		if (!(med[i] >= least))
			continue;
		memcpy(s->own_x + n, x + at, (size_t)t->size[i] * sizeof *x);
		n += (size_t)t->size[i];
		s->own_size[kept++] = t->size[i];
	}
	s->x = s->own_x;
	s->n = n;
	s->t = (rt_trials){s->own_size, kept};
	return RT_OK;
}

/*
 * The least median a side's trial needs to be kept: within `within` of the
 * fastest trial's, or in the faster half of the k trials (k/2 + k%2 of
 * them), so that the side's rate is an upper quantile of its trials, alike
 * for 2 trials and for 30, not the luckiest of many. NAN when it cannot be
 * sorted.
 */
static double least_kept(const double *med, size_t k, double within)
{
	double *s = sorted_copy(med, k);
	if (!s)
		return NAN;
	double least = fmin((1 - within) * s[k - 1], s[k / 2]);
	free(s);
	return least;
}

/*
 * The trials of x (in t) that a throughput comparison keeps: the faster
 * half, and any other within `within` of the fastest trial's median
 * (rt_compare_opts' keep_within); every trial when within is 0 or x is one
 * trial.
 */
static int keep_fastest(const double *x, size_t n, const rt_trials *t, double within, side *s)
{
	*s = (side){.x = x, .n = n, .t = *t};
	if (!(within > 0) || !in_trials(t, n))
		return RT_OK;
	double *med = malloc(t->n * sizeof *med);
	if (!med)
		return RT_ENOMEM;
	int rc = RT_OK;
	for (size_t i = 0, at = 0; i < t->n && rc == RT_OK; at += (size_t)t->size[i++]) {
		med[i] = rt_median(x + at, (size_t)t->size[i]);
		rc = isnan(med[i]) ? RT_ENOMEM : RT_OK;
	}
	double least = rc == RT_OK ? least_kept(med, t->n, within) : NAN;
	rc = rc == RT_OK && isnan(least) ? RT_ENOMEM : rc;
	for (size_t i = 0; i < t->n && rc == RT_OK; i++)
		s->left_out += !(med[i] >= least);
	if (rc == RT_OK && s->left_out)
		rc = copy_kept(x, t, med, least, s);
	free(med);
	return rc;
}

/* rt_compare on the samples of the trials each side keeps. */
static int compare_sides(const side *b, const side *n, const rt_compare_opts *o,
			 rt_comparison *c)
{
	c->base_n = b->n;
	c->now_n = n->n;
	c->base_median = rt_median(b->x, b->n);
	c->now_median = rt_median(n->x, n->n);
	if (!(c->base_median != 0))
		return RT_EINVAL;
	c->ratio = c->now_median / c->base_median;
	/* a baseline in trials: its median's CI from the same two-stage resamples */
	double lo = NAN, hi = NAN;
	int trials = in_trials(&b->t, b->n);
	int rc = ratio_ci_by_trial(b->x, b->n, &b->t, n->x, n->n, &n->t, o->reps, 0.95, o->seed,
				   &c->ci_lo, &c->ci_hi, trials ? &lo : NULL, trials ? &hi : NULL);
	if (rc == RT_OK)
		rc = rt_mann_whitney(n->x, n->n, b->x, b->n, &c->test);
	if (rc)
		return rc;
	c->change = classify(c, o);
	return c->change == RT_CHANGE_UNDECIDED ? estimate_more(c, b->x, n->x, o, lo, hi) : RT_OK;
}

/*
 * A change the kept trials show stands only when every trial shows it too
 * (rt_compare_opts' keep_within): a VM's host can hold a slower state for
 * minutes, so the trials left out may be its usual state, not a spell.
 * "The same" needs the kept trials only: the machine reaches the rate it had.
 */
static int confirm_with_all(const double *base, size_t nb, const double *now, size_t nn,
			    const rt_compare_opts *o, rt_comparison *c)
{
	if (c->change != RT_CHANGE_SLOWER && c->change != RT_CHANGE_FASTER)
		return RT_OK;
	side b = {.x = base, .n = nb, .t = o->base_trials}, n = {.x = now, .n = nn,
							       .t = o->now_trials};
	rt_comparison all = {0};
	int rc = compare_sides(&b, &n, o, &all);
	if (rc == RT_OK && all.change != c->change) {
		c->change = RT_CHANGE_UNDECIDED;
		c->kept_only = 1;
	}
	return rc;
}

int rt_compare(const double *base, size_t nb, const double *now, size_t nn,
	       const rt_compare_opts *o, rt_comparison *c)
{
	memset(c, 0, sizeof *c);
	if (nb == 0 || nn == 0)
		return RT_EINVAL;
	side b, n = {0};
	int rc = keep_fastest(base, nb, &o->base_trials, o->keep_within, &b);
	if (rc == RT_OK)
		rc = keep_fastest(now, nn, &o->now_trials, o->keep_within, &n);
	if (rc == RT_OK)
		rc = compare_sides(&b, &n, o, c);
	if (rc == RT_OK && (b.left_out || n.left_out))
		rc = confirm_with_all(base, nb, now, nn, o, c);
	c->base_left_out = b.left_out;
	c->now_left_out = n.left_out;
	side_free(&b);
	side_free(&n);
	return rc;
}
