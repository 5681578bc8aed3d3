/*
 * strategy.h: search strategies over a space (search/space.h), in one table
 * (search/strategies.h: one line per strategy, each in its own file
 * search/strategy_NAME.c; what they share is search/strategy_impl.h).
 *
 * A strategy proposes points; the caller's objective measures them. The
 * search knows nothing of workloads or backends: it sees the space, the
 * roles of its parameters and the objective's answers.
 *
 *   grid     every feasible point (the oracle)
 *   random   feasible points in a seeded random order
 *   halving  successive halving: many random points at a short trial time,
 *            the best half advance, the trial time doubles
 *   model    (default) fits the shapes these problems have: saturation in
 *            batch, one peak in threads, categorical knobs compared at a
 *            good point of the others and pruned
 *
 * Contract shared by every strategy:
 *  - never evaluates the same point twice in one run, nor a point the space's
 *    feasibility callback rejects;
 *  - when a point runs out of memory (RT_CAUSE_MEMORY), every point that
 *    differs from it only by larger values of RT_ROLE_SATURATING parameters
 *    is taken as infeasible too, without evaluating it (a bigger batch of the
 *    same settings runs out of memory as well); any other failure (a crash,
 *    a timeout, bad output, an unavailable backend) marks only that point;
 *  - budgets: never more than max_trials evaluations; a trial starts only
 *    while at least a quarter of its time cap is left of the seconds budget,
 *    and its cap is cut to what is left, so the search ends within the
 *    budget plus the objective's overrun of a cap;
 *  - stops early when more trials stop paying (each strategy states its rule
 *    at its definition in strategy_NAME.c; result->stop names the reason),
 *    except on a space small enough to measure whole: while every point not
 *    yet measured fits what is left of the budgets (at the mean time the
 *    run's trials took), the driver measures them all before the search
 *    ends (strategy_impl.c, measure_rest); with neither budget set, the
 *    strategy's rule alone decides;
 *  - an objective code other than 0 and RT_EINFEASIBLE aborts the search:
 *    rt_search_run returns that code and *out still holds the trials so far
 *    (so a caller interrupted by SIGINT can report the best so far).
 */
#ifndef RT_STRATEGY_H
#define RT_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include "../common/rt.h"
#include "space.h"

/*
 * Measures point idx within about time_cap_s seconds. Returns 0 with the
 * throughput in *value (higher is better), RT_EINFEASIBLE when the point
 * cannot run with *cause saying why (RT_CAUSE_NONE is read as a crash), or
 * another negative code to abort the search.
 */
typedef int (*rt_objective_fn)(const rt_space *s, const int *idx, double time_cap_s,
			       void *user, double *value, rt_cause *cause);

typedef struct rt_search_opts {
	double budget_s;   /* seconds for the whole search; <= 0: no limit */
	int max_trials;    /* evaluations; <= 0: no limit */
	double trial_s;    /* time cap of one trial (halving starts below it); > 0 */
	uint64_t seed;     /* for random and halving, and model's tie breaks */
	/*
	 * Trials the caller measured before the search (a screening of every
	 * backend, the naive default): taken as visited, so no strategy
	 * measures them again, and counted against max_trials. Points the
	 * space rejects are left out.
	 */
	const struct rt_trial *prior;
	int nprior;
	/* Where model starts (NULL: its own start point): the best of the screening. */
	const int *start;
	/* The clock that budget_s is counted on; NULL: the budget clock (common/clock.h). */
	double (*clock)(void *user);
	void *clock_user;
} rt_search_opts;

/* Fills o with defaults: no budget, trial_s 1 s, seed 1, the budget clock. */
void rt_search_opts_default(rt_search_opts *o);

typedef struct rt_trial {
	int idx[RT_SPACE_MAX_PARAMS];
	double value;    /* throughput; 0 when infeasible */
	double cap_s;    /* the time cap it ran under */
	rt_cause cause;  /* RT_CAUSE_NONE: it ran; else why it could not */
} rt_trial;

/* Every evaluated point in order, and the best one. */
typedef struct rt_search_result {
	int nparams;
	int ntrials;
	int cap;
	rt_trial *trials;
	int best;           /* index into trials of the highest value; -1: none feasible */
	double seconds;     /* elapsed on the search clock */
	const char *stop;   /* why the search ended (a static string) */
} rt_search_result;

rt_search_result *rt_search_result_create(int nparams);
void rt_search_result_destroy(rt_search_result *r);
/* Appends a trial (cause RT_CAUSE_NONE: it ran) and updates best. RT_ENOMEM. */
int rt_search_result_add(rt_search_result *r, const int *idx, double value, rt_cause cause,
			 double cap_s);

typedef struct rt_search rt_search; /* the state of one run (strategy_impl.h) */

typedef struct rt_strategy {
	const char *name;
	const char *description;
	int (*run)(rt_search *se);
} rt_strategy;

#define RT_STRATEGY_DEFAULT "model"

/* The table, in the order `--help` lists it. */
const rt_strategy *const *rt_strategy_list(int *count);
/* NULL if there is no strategy called name. */
const rt_strategy *rt_strategy_find(const char *name);

/*
 * Runs strategy st on space s. *out gets a new result (the caller destroys
 * it) whenever the return is 0 or an objective's abort code; it is NULL
 * otherwise. RT_EINVAL for a space without parameters or trial_s <= 0,
 * RT_EINFEASIBLE (with *out set, no trials) when no point is feasible.
 */
int rt_search_run(const rt_strategy *st, const rt_space *s, rt_objective_fn obj, void *user,
		  const rt_search_opts *opts, rt_search_result **out, char *err, size_t errlen);

/*
 * The knee along parameter p (batch) from trial `from` (feasible): among the
 * feasible trials equal to it in every other parameter, the one with the
 * smallest value of p whose throughput is at least (1 - within) times the
 * best trial's (within = RT_KNEE_WITHIN: 5%). Why: past the knee a larger
 * batch buys under 5% of throughput but costs memory, latency and, in
 * training, optimization quality, so the knee is the recommended setting and
 * the best point is reported beside it. The bar is the best's, not from's:
 * knees taken one after another (rt_knee_point) never lose more than
 * `within` in all. Returns its index, `from` when nothing smaller
 * qualifies. r must have a feasible trial.
 */
#define RT_KNEE_WITHIN 0.05
int rt_knee_along(const rt_search_result *r, int p, int from, double within);

/*
 * The parameters a knee is taken along, in the order it is taken: the
 * numeric saturating ones (batch: memory, latency), then the numeric peaked
 * ones (threads, workers: cores that data loading and other jobs could
 * use). Both cost more as they grow, so the smallest value within noise of
 * the best is the one to recommend. Writes up to RT_SPACE_MAX_PARAMS
 * indices into out; returns how many.
 */
int rt_knee_params(const rt_space *s, int *out);

/*
 * The recommended trial: from the best, the knee along each of
 * rt_knee_params in turn (rt_knee_along, each from the previous knee), so
 * that a GPU point whose host threads barely matter is recommended with the
 * fewest threads within `within` of the best, while the best stays the
 * fastest. *trial gets its index (the best when no knob can come down).
 * RT_EINVAL when r has no feasible trial.
 */
int rt_knee_point(const rt_space *s, const rt_search_result *r, double within, int *trial,
		  char *err, size_t errlen);

#endif
