/* check_pairs.c: an A/B check's comparison by pairs of trials (check_pairs.h). */
#include "check_pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PAIRS 3
/* Pairs the signed-rank test is exact for here; more are tested on their first as many. */
#define MAX_EXACT 64

/* The rank (1-based, by magnitude) of each of n values; ties in order. */
static void ranks_by_magnitude(const double *x, size_t n, int *rank)
{
	for (size_t i = 0; i < n; i++) {
		rank[i] = 1;
		for (size_t j = 0; j < n; j++)
			rank[i] += fabs(x[j]) < fabs(x[i]) || (fabs(x[j]) == fabs(x[i]) && j < i);
	}
}

/*
 * The two-sided p of Wilcoxon's signed-rank test that the pairs' log ratios
 * center on 0, from its exact null distribution: each of the 2^n sign
 * patterns of the ranks as likely (counted by rank sum, not enumerated).
 */
static double signed_rank_p(const double *x, size_t n)
{
	if (n > MAX_EXACT)
		n = MAX_EXACT;
	int rank[MAX_EXACT], max = (int)(n * (n + 1) / 2), w = 0;
	double ways[MAX_EXACT * (MAX_EXACT + 1) / 2 + 1] = {1};
	ranks_by_magnitude(x, n, rank);
	for (size_t i = 0; i < n; i++)
		w += x[i] > 0 ? rank[i] : 0;
	for (int r = 1; r <= (int)n; r++)
		for (int s = max; s >= r; s--)
			ways[s] += ways[s - r];
	double below = 0, above = 0, all = ldexp(1, (int)n);
	for (int s = 0; s <= max; s++) {
		below += s <= w ? ways[s] : 0;
		above += s >= w ? ways[s] : 0;
	}
	double p = 2 * fmin(below, above) / all;
	return p < 1 ? p : 1;
}

/* Pairs that would bring the CI's half-width hw down to want: 0 when none can. */
static long more_pairs(size_t n, double hw, double want)
{
	if (!(want > 0))
		return 0;
	double need = (double)n * (hw / want) * (hw / want);
	return need > (double)n ? (long)ceil(need - (double)n) : 1;
}

void rt_compare_pairs(const double *log_ratios, size_t n, const rt_mwu *pooled,
		      const rt_compare_opts *o, rt_comparison *c)
{
	memset(c, 0, sizeof *c);
	c->base_n = c->now_n = n;
	c->change = RT_CHANGE_UNDECIDED;
	c->test = *pooled;
	c->ratio = c->ci_lo = c->ci_hi = 1;
	c->more_samples = MIN_PAIRS;
	if (n == 0)
		return;
	double l = rt_median(log_ratios, n), lo = l, hi = l;
	if (n >= 2)
		rt_bootstrap_ci(log_ratios, n, rt_median, o->reps, 0.95, o->seed, &lo, &hi);
	c->ratio = exp(l);
	c->ci_lo = exp(lo);
	c->ci_hi = exp(hi);
	/* the pairs themselves must differ, not only the pooled samples (drift) */
	c->test.p = fmax(c->test.p, signed_rank_p(log_ratios, n));
	double t = o->threshold;
	if (n >= MIN_PAIRS && c->test.p < o->alpha && c->ci_hi < 1 && c->ratio <= 1 - t)
		c->change = RT_CHANGE_SLOWER;
	else if (n >= MIN_PAIRS && c->test.p < o->alpha && c->ci_lo > 1 && c->ratio >= 1 + t)
		c->change = RT_CHANGE_FASTER;
	else if (n >= MIN_PAIRS && c->ci_lo >= 1 - t && c->ci_hi <= 1 + t)
		c->change = RT_CHANGE_SAME;
	if (c->change != RT_CHANGE_UNDECIDED)
		return;
	/* past the threshold: the CI must leave 0; within: it must fit inside */
	double hw = (hi - lo) / 2, bound = log(1 + t);
	c->more_samples = n < MIN_PAIRS ? (long)(MIN_PAIRS - n)
		: more_pairs(n, hw, fabs(l) >= bound ? fabs(l) : bound - fabs(l));
	/* a change needs pairs enough for the signed-rank test to reach alpha at all */
	long least = (long)floor(log2(2 / o->alpha)) + 1 - (long)n;
	if (fabs(l) >= bound && least > c->more_samples)
		c->more_samples = least;
}
