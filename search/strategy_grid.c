/* strategy_grid.c: grid, every feasible point (the oracle). */
#include "strategy_impl.h"

/*
 * grid: every feasible point in grid order, each at the full trial cap.
 * It is the oracle, so it has no stopping rule of its own; its one economy is
 * the monotone infeasibility rule, which skips the larger batches of a
 * setting that ran out of memory.
 */
static int run_grid(rt_search *se)
{
	int idx[RT_SPACE_MAX_PARAMS], more = 1;
	double v;
	for (rt_space_first(se->s, idx); more; more = rt_space_next(se->s, idx))
		if (rt_search_visit(se, idx, se->o.trial_s, &v) == SEARCH_STOPPED)
			return 0;
	se->stop = "grid exhausted";
	return 0;
}

const rt_strategy rt_strategy_grid = {"grid", "every feasible point: the oracle", run_grid};
