/* strategy_halving.c: successive halving on trial time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/platform.h"
#include "strategy_impl.h"

static int cmp_trial_desc(const void *a, const void *b, void *arg)
{
	const rt_trial *t = arg;
	double x = t[*(const int *)a].value, y = t[*(const int *)b].value;
	return (x < y) - (x > y);
}

/*
 * Indices of the m best feasible trials, best first, into out (room for
 * ntrials). Returns how many there are (at most m).
 */
static int best_trials(const rt_search *se, int m, int *out)
{
	int k = 0;
	for (int t = 0; t < se->r->ntrials; t++)
		if (!se->r->trials[t].cause)
			out[k++] = t;
	rt_sort_r(out, (size_t)k, sizeof *out, cmp_trial_desc, se->r->trials);
	return k < m ? k : m;
}

/*
 * Picks, uniformly at random, a neighbour of x that may still be evaluated:
 * one numeric parameter one step up or down, or one categorical parameter
 * set to another value. Returns 0 with *y set, or 1 when there is none.
 */
static int random_neighbour(rt_search *se, const int *x, int *y)
{
	int count = 0;
	for (int pass = 0; pass < 2; pass++) {
		int pick = pass ? (int)rt_rng_below(&se->rng, (uint64_t)count) : -1, k = 0;
		for (int p = 0; p < se->np; p++) {
			int cat = rt_space_kind(se->s, p) == RT_PARAM_CATEGORICAL;
			for (int v = 0; v < rt_space_size(se->s, p); v++) {
				if (v == x[p] || (!cat && abs(v - x[p]) != 1))
					continue;
				memcpy(y, x, (size_t)se->np * sizeof *y);
				y[p] = v;
				if (!rt_search_fresh(se, y))
					continue;
				if (k++ == pick)
					return 0;
			}
		}
		count = k;
		if (!count)
			return 1;
	}
	return 1;
}

/*
 * halving: successive halving adapted to "never measure a point twice".
 * Rung 0 measures n0 = clamp(N/4, 4, 64) random points (at most half of
 * max_trials) at a quarter of the trial cap. Each later rung doubles the cap
 * (up to trial_s), keeps the best half of the pool (m, m/2, ... 1) and, for
 * each survivor, measures one unvisited random neighbour instead of
 * re-measuring the survivor: the survivors' neighbourhoods race for the
 * longer trials. Stops when the pool is down to one and a rung gained less
 * than 1%, or when no survivor has a neighbour left.
 */
static int run_halving(rt_search *se)
{
	uint64_t *ranks;
	size_t n, i = 0;
	int rc = rt_search_shuffled(se, &ranks, &n);
	if (rc)
		return rc;
	int *order = NULL;
	size_t n0 = n / 4 < 4 ? 4 : n / 4 > 64 ? 64 : n / 4;
	if (se->o.max_trials > 0 && n0 > (size_t)(se->o.max_trials / 2))
		n0 = se->o.max_trials > 1 ? (size_t)se->o.max_trials / 2 : 1;
	double cap = se->o.trial_s / 4, v;
	for (size_t done = 0; i < n && done < n0; i++) {
		int idx[RT_SPACE_MAX_PARAMS], ntrials = se->r->ntrials;
		rt_space_unrank(se->s, ranks[i], idx);
		if (rt_search_visit(se, idx, cap, &v) == SEARCH_STOPPED)
			goto out;
		done += se->r->ntrials > ntrials;
	}
	int m = (int)(n0 + 1) / 2;
	for (;;) {
		int *o2 = realloc(order, (size_t)(se->r->ntrials + 1) * sizeof *order);
		if (!o2) {
			rc = RT_ENOMEM;
			goto out;
		}
		order = o2;
		cap = fmin(2 * cap, se->o.trial_s);
		double before = rt_search_best_value(se);
		int k = best_trials(se, m, order), moved = 0;
		for (int j = 0; j < k; j++) {
			int x[RT_SPACE_MAX_PARAMS], y[RT_SPACE_MAX_PARAMS];
			memcpy(x, se->r->trials[order[j]].idx, (size_t)se->np * sizeof *x);
			if (random_neighbour(se, x, y))
				continue;
			moved = 1;
			if (rt_search_visit(se, y, cap, &v) == SEARCH_STOPPED)
				goto out;
		}
		if (!moved) {
			se->stop = "no survivor has an unvisited neighbour";
			break;
		}
		if (m == 1 && rt_search_best_value(se) <= before * (1 + SEARCH_CONVERGED)) {
			se->stop = "converged: the last survivor's rung gained under 1%";
			break;
		}
		m = (m + 1) / 2;
	}
out:
	free(order);
	free(ranks);
	return rc;
}

const rt_strategy rt_strategy_halving = {
	"halving",
	"successive halving: short trials for many points, longer ones for the best half",
	run_halving};
