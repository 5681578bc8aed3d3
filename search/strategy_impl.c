/*
 * strategy_impl.c: what every strategy shares (strategy_impl.h): the visited
 * set, the one place that calls the objective under the budgets and the
 * monotone rule; and the driver that runs a strategy (rt_search_run) and
 * then measures the rest of a space small enough to measure whole.
 */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/rng.h"
#include "../common/rt.h"

/* A trial starts only while this share of its cap is left of the budget. */
#define MIN_CAP_SHARE 0.25

/* ---- the visited set and the one place that calls the objective -------- */

static double search_clock(const rt_search *se)
{
	return se->o.clock ? se->o.clock(se->o.clock_user) : rt_clock_now();
}

static size_t hash_slot(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
	while (keys[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

int rt_search_lookup(const rt_search *se, const int *idx)
{
	uint64_t key = rt_space_rank(se->s, idx) + 1;
	size_t i = hash_slot(se->hkeys, se->hcap, key);
	return se->hkeys[i] ? se->hvals[i] : -1;
}

/* Doubles the visited set's table. RT_ENOMEM. */
static int hash_grow(rt_search *se)
{
	size_t cap = se->hcap * 2;
	uint64_t *keys = calloc(cap, sizeof *keys);
	int *vals = calloc(cap, sizeof *vals);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return RT_ENOMEM;
	}
	for (size_t i = 0; i < se->hcap; i++)
		if (se->hkeys[i]) {
			size_t j = hash_slot(keys, cap, se->hkeys[i]);
			keys[j] = se->hkeys[i];
			vals[j] = se->hvals[i];
		}
	free(se->hkeys);
	free(se->hvals);
	se->hkeys = keys;
	se->hvals = vals;
	se->hcap = cap;
	return 0;
}

/* Records a finished trial in the result and the visited set. RT_ENOMEM. */
static int record(rt_search *se, const int *idx, double value, rt_cause cause, double cap)
{
	if ((size_t)(se->r->ntrials + 1) * 2 > se->hcap && hash_grow(se))
		return RT_ENOMEM;
	if (rt_search_result_add(se->r, idx, value, cause, cap))
		return RT_ENOMEM;
	uint64_t key = rt_space_rank(se->s, idx) + 1;
	size_t i = hash_slot(se->hkeys, se->hcap, key);
	se->hkeys[i] = key;
	se->hvals[i] = se->r->ntrials - 1;
	return 0;
}

int rt_search_implied(const rt_search *se, const int *idx)
{
	for (int t = 0; t < se->r->ntrials; t++) {
		const rt_trial *tr = &se->r->trials[t];
		/* a step that overran a whole trial's cap overruns it at larger batches too */
		if (tr->cause != RT_CAUSE_MEMORY &&
		    !(tr->cause == RT_CAUSE_TIMEOUT && tr->cap_s >= se->o.trial_s))
			continue;
		int p;
		for (p = 0; p < se->np; p++) {
			int sat = rt_space_role(se->s, p) == RT_ROLE_SATURATING;
			if (sat ? idx[p] < tr->idx[p] : idx[p] != tr->idx[p])
				break;
		}
		if (p == se->np)
			return 1;
	}
	return 0;
}

int rt_search_fresh(const rt_search *se, const int *idx)
{
	return rt_space_feasible(se->s, idx) && rt_search_lookup(se, idx) < 0 &&
	       !rt_search_implied(se, idx);
}

/* What rt_search_visit() says of a trial: 0, RT_EINFEASIBLE for memory, else SEARCH_FAILED. */
static int outcome(rt_cause cause)
{
	if (cause == RT_CAUSE_NONE)
		return 0;
	return cause == RT_CAUSE_MEMORY ? RT_EINFEASIBLE : SEARCH_FAILED;
}

int rt_search_visit(rt_search *se, const int *idx, double cap, double *value)
{
	*value = 0.0;
	if (!rt_space_feasible(se->s, idx))
		return RT_EINFEASIBLE;
	int t = rt_search_lookup(se, idx);
	if (t >= 0) {
		*value = se->r->trials[t].value;
		return outcome(se->r->trials[t].cause);
	}
	if (rt_search_implied(se, idx))
		return RT_EINFEASIBLE;
	if (se->stop)
		return SEARCH_STOPPED;
	if (se->o.max_trials > 0 && se->r->ntrials >= se->o.max_trials) {
		se->stop = "budget: trials";
		return SEARCH_STOPPED;
	}
	if (se->o.budget_s > 0) {
		double left = se->o.budget_s - (search_clock(se) - se->t0);
		if (left < MIN_CAP_SHARE * cap) {
			se->stop = "budget: seconds";
			return SEARCH_STOPPED;
		}
		cap = fmin(cap, left);
	}
	double v = 0.0, start = search_clock(se);
	rt_cause cause = RT_CAUSE_NONE;
	int rc = se->obj(se->s, idx, cap, se->user, &v, &cause);
	se->timed_s += (search_clock(se) - start) * se->o.trial_s / cap;
	se->ntimed++;
	if (rc == 0 && !(isfinite(v) && v >= 0))
		rc = RT_ERUNTIME;
	if (rc && rc != RT_EINFEASIBLE) {
		se->abort_rc = rc;
		se->stop = "aborted by the objective";
		return SEARCH_STOPPED;
	}
	if (rc == 0)
		cause = RT_CAUSE_NONE;
	else if (cause == RT_CAUSE_NONE || (unsigned)cause >= RT_NCAUSE)
		cause = RT_CAUSE_CRASH;
	if (record(se, idx, v, cause, cap)) {
		se->abort_rc = RT_ENOMEM;
		se->stop = "out of memory";
		return SEARCH_STOPPED;
	}
	*value = rc ? 0.0 : v;
	return outcome(cause);
}

int rt_search_no_room(const rt_search *se, const int *idx)
{
	int t = rt_search_lookup(se, idx);
	return !rt_space_feasible(se->s, idx) || rt_search_implied(se, idx) ||
	       (t >= 0 && se->r->trials[t].cause == RT_CAUSE_MEMORY);
}

int rt_search_visit_at(rt_search *se, const int *x, int p, int vi, double cap,
		       double *value)
{
	int y[RT_SPACE_MAX_PARAMS];
	memcpy(y, x, (size_t)se->np * sizeof *y);
	y[p] = vi;
	return rt_search_visit(se, y, cap, value);
}

double rt_search_best_value(const rt_search *se)
{
	return se->r->best < 0 ? 0.0 : se->r->trials[se->r->best].value;
}

void rt_search_copy_best(const rt_search *se, int *x)
{
	if (se->r->best >= 0)
		memcpy(x, se->r->trials[se->r->best].idx, (size_t)se->np * sizeof *x);
}

int rt_search_shuffled(rt_search *se, uint64_t **out, size_t *n)
{
	uint64_t cap = rt_space_count_feasible(se->s), k = 0;
	int idx[RT_SPACE_MAX_PARAMS], more = 1;
	*out = NULL;
	*n = 0;
	if (!cap)
		return 0;
	uint64_t *ranks = malloc(cap * sizeof *ranks);
	if (!ranks)
		return RT_ENOMEM;
	for (rt_space_first(se->s, idx); more; more = rt_space_next(se->s, idx))
		if (rt_space_feasible(se->s, idx))
			ranks[k++] = rt_space_rank(se->s, idx);
	for (uint64_t i = k; i > 1; i--) {
		uint64_t j = rt_rng_below(&se->rng, i);
		uint64_t tmp = ranks[i - 1];
		ranks[i - 1] = ranks[j];
		ranks[j] = tmp;
	}
	*out = ranks;
	*n = (size_t)k;
	return 0;
}

/* ---- the driver ---------------------------------------------------------- */

/*
 * Nonzero when some point is still fresh and every such point fits what is
 * left of the budgets: no more of them than trials are left and, at the
 * time a trial took so far (the mean of this run's, each scaled to a whole
 * trial's cap), no more seconds than are left. A search without a budget,
 * or a seconds budget with no trial timed yet, has nothing that says the
 * rest fits: zero.
 */
static int rest_fits(const rt_search *se)
{
	int idx[RT_SPACE_MAX_PARAMS], more = 1;
	long most = -1, fresh = 0;
	if (se->o.budget_s > 0) {
		double left = se->o.budget_s - (search_clock(se) - se->t0);
		double per_trial = se->ntimed ? se->timed_s / se->ntimed : 0;
		if (!(per_trial > 0))
			return 0;
		most = (long)fmax(0, fmin(left / per_trial, 1e9));
	}
	if (se->o.max_trials > 0 && (most < 0 || se->o.max_trials - se->r->ntrials < most))
		most = se->o.max_trials - se->r->ntrials;
	for (rt_space_first(se->s, idx); more && fresh <= most; more = rt_space_next(se->s, idx))
		fresh += rt_search_fresh(se, idx);
	return fresh > 0 && fresh <= most;
}

/*
 * A space small enough to measure whole is measured whole: when the
 * strategy stopped on its own rule while every point it left fresh fits
 * what is left of the budgets (rest_fits), those points are measured too,
 * in grid order at a whole trial's cap, the fit checked again before each
 * (a trial that took longer than the ones before may end it). Why: on a few
 * points a fit or a convergence rule can miss an interaction (one corner
 * fast) that a few more trials would have found, and the time it saved
 * would go to measuring the best points again. A space that does not fit
 * keeps the strategy's stop.
 */
static void measure_rest(rt_search *se)
{
	int idx[RT_SPACE_MAX_PARAMS], more = 1;
	double v;
	if (se->abort_rc || !rest_fits(se))
		return;
	se->stop = NULL;
	for (rt_space_first(se->s, idx); more; more = rt_space_next(se->s, idx)) {
		if (!rt_search_fresh(se, idx))
			continue;
		if (!rest_fits(se)) {
			se->stop = "the rest of the space stopped fitting the budget";
			return;
		}
		if (rt_search_visit(se, idx, se->o.trial_s, &v) == SEARCH_STOPPED)
			return;
	}
	se->stop = "the space fits the budget: every feasible point measured";
}

int rt_search_run(const rt_strategy *st, const rt_space *s, rt_objective_fn obj, void *user,
		  const rt_search_opts *opts, rt_search_result **out, char *err, size_t errlen)
{
	rt_search se = { .s = s, .np = rt_space_nparams(s), .obj = obj, .user = user };
	int rc;
	*out = NULL;
	if (se.np == 0)
		return rt_fail(err, errlen, RT_EINVAL, "the search space has no parameters");
	if (!(opts->trial_s > 0))
		return rt_fail(err, errlen, RT_EINVAL, "the trial time cap must be positive");
	se.o = *opts;
	rt_rng_seed(&se.rng, opts->seed);
	se.r = rt_search_result_create(se.np);
	se.hcap = 64;
	se.hkeys = calloc(se.hcap, sizeof *se.hkeys);
	se.hvals = calloc(se.hcap, sizeof *se.hvals);
	if (!se.r || !se.hkeys || !se.hvals) {
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		goto fail;
	}
	if (rt_space_count_feasible(s) == 0) {
		se.r->stop = "no feasible point";
		*out = se.r;
		rc = rt_fail(err, errlen, RT_EINFEASIBLE, "no point of the space is feasible");
		goto done;
	}
	for (int i = 0; i < opts->nprior; i++) {
		const rt_trial *t = &opts->prior[i];
		if (rt_space_feasible(s, t->idx) && rt_search_lookup(&se, t->idx) < 0 &&
		    record(&se, t->idx, t->value, t->cause, t->cap_s)) {
			rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
			goto fail;
		}
	}
	se.t0 = search_clock(&se);
	rc = st->run(&se);
	if (rc == 0)
		measure_rest(&se);
	se.r->seconds = search_clock(&se) - se.t0;
	se.r->stop = se.stop ? se.stop : "done";
	if (rc == 0 && se.abort_rc)
		rc = se.abort_rc;
	if (rc == RT_ENOMEM) {
		rt_fail(err, errlen, rc, "out of memory");
		goto fail;
	}
	if (rc)
		rt_fail(err, errlen, rc, "search %s stopped after %d trials: the objective "
			"failed (%s)", st->name, se.r->ntrials, rt_strstatus(rc));
	*out = se.r;
	goto done;
fail:
	rt_search_result_destroy(se.r);
done:
	free(se.hkeys);
	free(se.hvals);
	return rc;
}
