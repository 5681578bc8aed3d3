/* strategy_random.c: random, feasible points in a seeded random order. */
#include <stdlib.h>

#include "strategy_impl.h"

/*
 * random: feasible points in a seeded random order at the full trial cap.
 * Stops when max(16, N/8) trials in a row (N feasible points) raised the
 * best by less than 1%: at that point another N/8 draws find a point in the
 * top 1% of the grid with a probability of only 1 - 0.99^(N/8).
 */
static int run_random(rt_search *se)
{
	uint64_t *ranks;
	size_t n;
	int rc = rt_search_shuffled(se, &ranks, &n);
	if (rc)
		return rc;
	size_t patience = n / 8 > 16 ? n / 8 : 16, since = 0;
	for (size_t i = 0; i < n; i++) {
		int idx[RT_SPACE_MAX_PARAMS];
		double before = rt_search_best_value(se), v;
		int ntrials = se->r->ntrials;
		rt_space_unrank(se->s, ranks[i], idx);
		if (rt_search_visit(se, idx, se->o.trial_s, &v) == SEARCH_STOPPED)
			goto out;
		if (se->r->ntrials == ntrials)
			continue; /* skipped as implied infeasible: no trial spent */
		since = rt_search_best_value(se) > before * (1 + SEARCH_CONVERGED) ? 0 : since + 1;
		if (since >= patience) {
			se->stop = "converged: max(16, N/8) trials without a 1% gain";
			goto out;
		}
	}
	se->stop = "every feasible point evaluated";
out:
	free(ranks);
	return 0;
}

const rt_strategy rt_strategy_random = {"random", "feasible points in a seeded random order",
					 run_random};
