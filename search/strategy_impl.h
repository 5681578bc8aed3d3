/*
 * strategy_impl.h: what the strategies share, private to search/ (the
 * public side is strategy.h). A strategy is one file, strategy_NAME.c,
 * defining `const rt_strategy rt_strategy_NAME` whose run() proposes points
 * through rt_search_visit(), and one line in strategies.h.
 *
 * rt_search_visit() is the one place that calls the objective: it keeps the
 * contract of strategy.h for every strategy (no point twice, none the space
 * rejects, the monotone rule for memory, the budgets). A strategy only
 * decides which point to visit next and when more trials stop paying; it
 * returns 0 (setting se->stop to its reason, or leaving it to the budget
 * that stopped it) or RT_ENOMEM. Its stop is the driver's to overrule: a
 * space whose unmeasured points fit the budgets is measured whole
 * (rt_search_run), whichever strategy ran.
 */
#ifndef RT_STRATEGY_IMPL_H
#define RT_STRATEGY_IMPL_H

#include <stdint.h>

#include "../common/rng.h"
#include "strategy.h"

/*
 * rt_search_visit() outcomes besides 0 (measured) and RT_EINFEASIBLE (does
 * not fit: rejected by the space, out of memory, or implied by a smaller
 * value that was): SEARCH_FAILED, the point ran and failed otherwise (a
 * crash, a timeout), which says nothing of its neighbours; SEARCH_STOPPED,
 * no more trials may run.
 */
#define SEARCH_STOPPED 1
#define SEARCH_FAILED 2

/* "More trials stop paying": a gain of the best under this is no gain. */
#define SEARCH_CONVERGED 0.01

struct rt_search {
	const rt_space *s;
	int np;
	rt_objective_fn obj;
	void *user;
	rt_search_opts o;
	rt_search_result *r;
	rt_rng rng;
	double t0;
	uint64_t *hkeys; /* visited set: rank + 1, 0 = empty slot */
	int *hvals;      /* trial index of each key */
	size_t hcap;     /* a power of two */
	int abort_rc;
	const char *stop; /* why the search ended (static), NULL while it goes on */
	/* the objective's calls in this run: seconds, each scaled to a whole trial's cap */
	double timed_s;
	int ntimed;
};

/*
 * The value of point idx: from the visited set when it was evaluated,
 * otherwise by running the objective under the budgets. Returns 0 with
 * *value, RT_EINFEASIBLE, SEARCH_FAILED or SEARCH_STOPPED (se->stop says
 * why: a budget spent, the objective aborted).
 */
int rt_search_visit(rt_search *se, const int *idx, double cap, double *value);
/* rt_search_visit() at x with parameter p set to value index vi. */
int rt_search_visit_at(rt_search *se, const int *x, int p, int vi, double cap,
		       double *value);

/* Trial index of point idx, -1 if it was not evaluated. */
int rt_search_lookup(const rt_search *se, const int *idx);
/*
 * Nonzero when a trial that ran out of memory, or timed out within a whole
 * trial's cap (opts.trial_s; a tune's step predicted over it), differs from
 * idx only by values of saturating parameters that are no larger than idx's:
 * the monotone rule (a batch that ran out of memory or time makes every
 * bigger batch of the same settings infeasible). A crash implies nothing.
 */
int rt_search_implied(const rt_search *se, const int *idx);
/* Nonzero when idx may still be evaluated: feasible, unvisited, not implied infeasible. */
int rt_search_fresh(const rt_search *se, const int *idx);
/* Nonzero when idx does not fit: rejected by the space, out of memory, or implied so. */
int rt_search_no_room(const rt_search *se, const int *idx);

/* The best value so far (0 when nothing ran), and its point into x (unchanged then). */
double rt_search_best_value(const rt_search *se);
void rt_search_copy_best(const rt_search *se, int *x);

/*
 * Every feasible point's rank in a seeded random order (Fisher-Yates).
 * *out is malloc'ed (NULL when there are none). RT_ENOMEM.
 */
int rt_search_shuffled(rt_search *se, uint64_t **out, size_t *n);

#endif
