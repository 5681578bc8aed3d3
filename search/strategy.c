#include "strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "../common/rt.h"
#include "minimize.h"

/*
 * visit() outcomes besides 0 (measured) and RT_EINFEASIBLE (does not fit:
 * rejected by the space, out of memory, or implied by a smaller value that
 * was): FAILED, the point ran and failed otherwise (a crash, a timeout), which
 * says nothing of its neighbours; STOPPED, no more trials may run.
 */
#define STOPPED 1
#define FAILED 2

/* A trial starts only while this share of its cap is left of the budget. */
#define MIN_CAP_SHARE 0.25
/* "More trials stop paying": a gain of the best under this is no gain. */
#define CONVERGED 0.01
/* model: stop climbing a saturating knob when the fit predicts less than
 * this from the rest of the climb ... */
#define GAIN_STOP 0.02
/* ... and the last measured step gained less than this (a noise guard: one
 * lucky or unlucky sample must not end the climb). It is also the drop that
 * counts as "past the top". */
#define STEP_NOISE 0.05
/* model: a categorical value below this share of the best at the same point
 * of the other knobs is pruned; one above it gets its knobs re-tuned. */
#define PRUNE_BELOW 0.90
#define MODEL_ROUNDS 4

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
	const char *stop;
};

void rt_search_opts_default(rt_search_opts *o)
{
	memset(o, 0, sizeof *o);
	o->trial_s = 1.0;
	o->seed = 1;
}

/* ---- results ---------------------------------------------------------- */

rt_search_result *rt_search_result_create(int nparams)
{
	rt_search_result *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->nparams = nparams;
	r->best = -1;
	r->stop = "not run";
	return r;
}

void rt_search_result_destroy(rt_search_result *r)
{
	if (!r)
		return;
	free(r->trials);
	free(r);
}

int rt_search_result_add(rt_search_result *r, const int *idx, double value, rt_cause cause,
			 double cap_s)
{
	if (r->ntrials == r->cap) {
		int cap = r->cap ? 2 * r->cap : 64;
		rt_trial *t = realloc(r->trials, (size_t)cap * sizeof *t);
		if (!t)
			return RT_ENOMEM;
		r->trials = t;
		r->cap = cap;
	}
	rt_trial *t = &r->trials[r->ntrials];
	memset(t, 0, sizeof *t);
	memcpy(t->idx, idx, (size_t)r->nparams * sizeof *idx);
	t->value = cause ? 0.0 : value;
	t->cap_s = cap_s;
	t->cause = cause;
	if (!cause && (r->best < 0 || value > r->trials[r->best].value))
		r->best = r->ntrials;
	r->ntrials++;
	return 0;
}

/* ---- the visited set and the one place that calls the objective -------- */

static double search_clock(const rt_search *se)
{
	return se->o.clock ? se->o.clock(se->o.clock_user) : rt_now();
}

static size_t hash_slot(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
	while (keys[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Trial index of point idx, -1 if it was not evaluated. */
static int lookup(const rt_search *se, const int *idx)
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

/*
 * Nonzero when a trial that ran out of memory differs from idx only by
 * values of saturating parameters that are no larger than idx's: the
 * monotone rule (a batch that ran out of memory makes every bigger batch of
 * the same settings infeasible). A crash or a timeout implies nothing.
 */
static int implied_infeasible(const rt_search *se, const int *idx)
{
	for (int t = 0; t < se->r->ntrials; t++) {
		const rt_trial *tr = &se->r->trials[t];
		if (tr->cause != RT_CAUSE_MEMORY)
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

/* Nonzero when idx may still be evaluated: feasible, unvisited, not implied infeasible. */
static int fresh(const rt_search *se, const int *idx)
{
	return rt_space_feasible(se->s, idx) && lookup(se, idx) < 0 &&
	       !implied_infeasible(se, idx);
}

/* visit()'s outcome for a trial: 0, RT_EINFEASIBLE for memory, FAILED for any other cause. */
static int outcome(rt_cause cause)
{
	return cause == RT_CAUSE_NONE ? 0 : cause == RT_CAUSE_MEMORY ? RT_EINFEASIBLE : FAILED;
}

/*
 * The value of point idx: from the visited set when it was evaluated,
 * otherwise by running the objective under the budgets. Returns 0 with
 * *value, RT_EINFEASIBLE (rejected by the space, implied by the monotone
 * rule, or out of memory), FAILED (it ran and failed for another reason),
 * or STOPPED once the budget is spent or the objective aborted (se->stop
 * says which).
 */
static int visit(rt_search *se, const int *idx, double cap, double *value)
{
	*value = 0.0;
	if (!rt_space_feasible(se->s, idx))
		return RT_EINFEASIBLE;
	int t = lookup(se, idx);
	if (t >= 0) {
		*value = se->r->trials[t].value;
		return outcome(se->r->trials[t].cause);
	}
	if (implied_infeasible(se, idx))
		return RT_EINFEASIBLE;
	if (se->stop)
		return STOPPED;
	if (se->o.max_trials > 0 && se->r->ntrials >= se->o.max_trials) {
		se->stop = "budget: trials";
		return STOPPED;
	}
	if (se->o.budget_s > 0) {
		double left = se->o.budget_s - (search_clock(se) - se->t0);
		if (left < MIN_CAP_SHARE * cap) {
			se->stop = "budget: seconds";
			return STOPPED;
		}
		cap = fmin(cap, left);
	}
	double v = 0.0;
	rt_cause cause = RT_CAUSE_NONE;
	int rc = se->obj(se->s, idx, cap, se->user, &v, &cause);
	if (rc == 0 && !(isfinite(v) && v >= 0))
		rc = RT_ERUNTIME;
	if (rc && rc != RT_EINFEASIBLE) {
		se->abort_rc = rc;
		se->stop = "aborted by the objective";
		return STOPPED;
	}
	if (rc == 0)
		cause = RT_CAUSE_NONE;
	else if (cause == RT_CAUSE_NONE || (unsigned)cause >= RT_NCAUSE)
		cause = RT_CAUSE_CRASH;
	if (record(se, idx, v, cause, cap)) {
		se->abort_rc = RT_ENOMEM;
		se->stop = "out of memory";
		return STOPPED;
	}
	*value = rc ? 0.0 : v;
	return outcome(cause);
}

/* Nonzero when idx does not fit: rejected by the space, out of memory, or implied so. */
static int no_room(const rt_search *se, const int *idx)
{
	int t = lookup(se, idx);
	return !rt_space_feasible(se->s, idx) || implied_infeasible(se, idx) ||
	       (t >= 0 && se->r->trials[t].cause == RT_CAUSE_MEMORY);
}

/* visit() at x with parameter p set to value index vi. */
static int visit_at(rt_search *se, const int *x, int p, int vi, double cap, double *value)
{
	int y[RT_SPACE_MAX_PARAMS];
	memcpy(y, x, (size_t)se->np * sizeof *y);
	y[p] = vi;
	return visit(se, y, cap, value);
}

static double best_value(const rt_search *se)
{
	return se->r->best < 0 ? 0.0 : se->r->trials[se->r->best].value;
}

static void copy_best(const rt_search *se, int *x)
{
	if (se->r->best >= 0)
		memcpy(x, se->r->trials[se->r->best].idx, (size_t)se->np * sizeof *x);
}

/*
 * Every feasible point's rank in a seeded random order (Fisher-Yates).
 * *out is malloc'ed (NULL when there are none). RT_ENOMEM.
 */
static int feasible_shuffled(rt_search *se, uint64_t **out, size_t *n)
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

/* ---- grid --------------------------------------------------------------- */

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
		if (visit(se, idx, se->o.trial_s, &v) == STOPPED)
			return 0;
	se->stop = "grid exhausted";
	return 0;
}

/* ---- random ------------------------------------------------------------- */

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
	int rc = feasible_shuffled(se, &ranks, &n);
	if (rc)
		return rc;
	size_t patience = n / 8 > 16 ? n / 8 : 16, since = 0;
	for (size_t i = 0; i < n; i++) {
		int idx[RT_SPACE_MAX_PARAMS];
		double before = best_value(se), v;
		int ntrials = se->r->ntrials;
		rt_space_unrank(se->s, ranks[i], idx);
		if (visit(se, idx, se->o.trial_s, &v) == STOPPED)
			goto out;
		if (se->r->ntrials == ntrials)
			continue; /* skipped as implied infeasible: no trial spent */
		since = best_value(se) > before * (1 + CONVERGED) ? 0 : since + 1;
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

/* ---- halving ------------------------------------------------------------ */

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
	qsort_r(out, (size_t)k, sizeof *out, cmp_trial_desc, se->r->trials);
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
				if (!fresh(se, y))
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
	int rc = feasible_shuffled(se, &ranks, &n);
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
		if (visit(se, idx, cap, &v) == STOPPED)
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
		double before = best_value(se);
		int k = best_trials(se, m, order), moved = 0;
		for (int j = 0; j < k; j++) {
			int x[RT_SPACE_MAX_PARAMS], y[RT_SPACE_MAX_PARAMS];
			memcpy(x, se->r->trials[order[j]].idx, (size_t)se->np * sizeof *x);
			if (random_neighbour(se, x, y))
				continue;
			moved = 1;
			if (visit(se, y, cap, &v) == STOPPED)
				goto out;
		}
		if (!moved) {
			se->stop = "no survivor has an unvisited neighbour";
			break;
		}
		if (m == 1 && best_value(se) <= before * (1 + CONVERGED)) {
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

/* ---- model: fits ------------------------------------------------------- */

/* One measured point on a line through the space. */
typedef struct obs {
	int vi;   /* value index along the line */
	double x; /* the model's abscissa (batch, or thread count from 1) */
	double y; /* throughput, divided by the line's best before fitting */
} obs;

typedef double (*model_fn)(const double *q, double x);

typedef struct fit_data {
	const obs *o;
	int n;
	model_fn model;
} fit_data;

/* Saturation in batch: T(b) = Tmax * b / (b + b0), q = {Tmax, log b0}. */
static double model_saturating(const double *q, double b)
{
	return q[0] * b / (b + exp(q[1]));
}

/*
 * One peak in thread count: the universal scalability law, Amdahl's law
 * (sigma) plus a contention/oversubscription term (kappa) that makes
 * throughput fall past N* = sqrt((1 - sigma) / kappa). q = {lambda, sigma, kappa}.
 */
static double model_peaked(const double *q, double n)
{
	return q[0] * n / (1 + q[1] * (n - 1) + q[2] * n * (n - 1));
}

/* Sum of squared relative residuals: noise is multiplicative. */
static double fit_cost(unsigned n, const double *q, double *grad, void *data)
{
	(void)n;
	(void)grad;
	const fit_data *d = data;
	double s = 0.0;
	for (int i = 0; i < d->n; i++) {
		double e = (d->model(q, d->o[i].x) - d->o[i].y) / d->o[i].y;
		s += e * e;
	}
	return s;
}

/*
 * Least-squares fit of a model with nq parameters (q: start in, fit out)
 * within bounds, by NLopt's BOBYQA. 0, or RT_ERUNTIME when NLopt fails.
 */
static int fit(model_fn model, const obs *o, int n, int nq, double *q, const double *lb,
	       const double *ub)
{
	fit_data d = { o, n, model };
	rt_minimize_opts mo = {.xtol_rel = 1e-6, .maxeval = 500};
	return rt_minimize((unsigned)nq, fit_cost, &d, lb, ub, &mo, q, NULL, NULL, 0);
}

/* The abscissa of a value of parameter p: the value itself, shifted to start at 1 if it starts lower. */
static double abscissa(const rt_space *s, int p, int vi)
{
	long lo = rt_space_int_at(s, p, 0);
	long v = rt_space_int_at(s, p, vi);
	return lo >= 1 ? (double)v : (double)(v - lo + 1);
}

/* Abscissa for a peaked parameter: a count from 1 (threads 1.., workers 0.. -> 1..). */
static double count_from_one(const rt_space *s, int p, int vi)
{
	return (double)(rt_space_int_at(s, p, vi) - rt_space_int_at(s, p, 0) + 1);
}

static int cmp_obs(const void *a, const void *b)
{
	return ((const obs *)a)->vi - ((const obs *)b)->vi;
}

/*
 * The feasible trials on the line through x along p (equal to x in every
 * other parameter), sorted by value index, with y normalized to the line's
 * best. *out is malloc'ed; returns the count, or RT_ENOMEM.
 */
static int line_obs(const rt_search *se, const int *x, int p, int peaked, obs **out)
{
	obs *o = malloc((size_t)(se->r->ntrials + 1) * sizeof *o);
	int n = 0;
	double ymax = 0.0;
	if (!o)
		return RT_ENOMEM;
	for (int t = 0; t < se->r->ntrials; t++) {
		const rt_trial *tr = &se->r->trials[t];
		int q;
		if (tr->cause || tr->value <= 0)
			continue;
		for (q = 0; q < se->np; q++)
			if (q != p && tr->idx[q] != x[q])
				break;
		if (q < se->np)
			continue;
		o[n].vi = tr->idx[p];
		o[n].x = peaked ? count_from_one(se->s, p, tr->idx[p])
				: abscissa(se->s, p, tr->idx[p]);
		o[n].y = tr->value;
		ymax = fmax(ymax, tr->value);
		n++;
	}
	for (int i = 0; i < n; i++)
		o[i].y /= ymax;
	qsort(o, (size_t)n, sizeof *o, cmp_obs);
	*out = o;
	return n;
}

/* Index into o of the highest y; o has n > 0 entries. */
static int obs_best(const obs *o, int n)
{
	int b = 0;
	for (int i = 1; i < n; i++)
		if (o[i].y > o[b].y)
			b = i;
	return b;
}

/* ---- model: saturating knobs (batch) ------------------------------------ */

/*
 * Nonzero when climbing p above value index top should stop: the saturating
 * fit through the line's points predicts less than GAIN_STOP from top to the
 * highest value below the first that does not fit (values that failed
 * otherwise do not count), and the last measured step
 * gained less than STEP_NOISE. Needs two points.
 */
static int climb_done(rt_search *se, const int *x, int p, int top)
{
	obs *o;
	int n = line_obs(se, x, p, 0, &o), done = 0, last = top, y[RT_SPACE_MAX_PARAMS];
	if (n < 2)
		goto out;
	int k = n - 1; /* o is sorted: o[k] is top, o[k - 1] the step below */
	if (o[k].vi != top || o[k].y / o[k - 1].y - 1 >= STEP_NOISE)
		goto out;
	memcpy(y, x, (size_t)se->np * sizeof *y);
	for (y[p] = top + 1; y[p] < rt_space_size(se->s, p) && !no_room(se, y); y[p]++) {
		int t = lookup(se, y);
		if (t < 0 || !se->r->trials[t].cause)
			last = y[p]; /* a value that failed otherwise (a crash) is stepped over */
	}
	if (last == top) {
		done = 1;
		goto out;
	}
	double q[2] = { 1.0, log(o[0].x) };
	double lb[2] = { 0.5, log(o[0].x) - 7 }, ub[2] = { 100.0, log(o[k].x) + 7 };
	if (fit(model_saturating, o, n, 2, q, lb, ub))
		goto out;
	double gain = model_saturating(q, abscissa(se->s, p, last)) /
			      model_saturating(q, abscissa(se->s, p, top)) - 1;
	done = gain < GAIN_STOP;
out:
	if (n >= 0)
		free(o);
	return done;
}

/*
 * Climbs saturating knob p from x upward (down first when x itself cannot
 * run) until climb_done, a value that does not fit, a fall of STEP_NOISE, or
 * the top; a value that failed otherwise (a crash) is stepped over. Leaves
 * x[p] at the best value on the line. 0 or STOPPED.
 */
static int climb(rt_search *se, int *x, int p)
{
	double v, prev;
	int top = x[p];
	int rc = visit_at(se, x, p, top, se->o.trial_s, &v);
	while ((rc == RT_EINFEASIBLE || rc == FAILED) && top > 0)
		rc = visit_at(se, x, p, --top, se->o.trial_s, &v);
	if (rc)
		return rc == STOPPED ? STOPPED : 0;
	for (prev = v; top + 1 < rt_space_size(se->s, p) && !climb_done(se, x, p, top); prev = v) {
		rc = visit_at(se, x, p, top + 1, se->o.trial_s, &v);
		if (rc == STOPPED)
			return STOPPED;
		if (rc == RT_EINFEASIBLE || (rc == 0 && v < (1 - STEP_NOISE) * prev))
			break;
		top++;
		if (rc == FAILED)
			v = prev;
	}
	obs *o;
	int n = line_obs(se, x, p, 0, &o);
	if (n < 0)
		return RT_ENOMEM;
	if (n > 0)
		x[p] = o[obs_best(o, n)].vi;
	free(o);
	return 0;
}

/* ---- model: peaked knobs (threads, workers) ------------------------------ */

/*
 * The value index nearest to the fitted peak of the line's points among the
 * candidates c[0..nc), or -1 without a usable fit (fewer than 3 points).
 */
static int fitted_peak(const rt_search *se, const obs *o, int n, int p, const int *c, int nc)
{
	if (n < 3)
		return -1;
	double q[3] = { o[0].y / o[0].x, 0.1, 0.001 };
	double lb[3] = { 1e-4, 0.0, 0.0 }, ub[3] = { 1e4, 1.0, 1.0 };
	if (fit(model_peaked, o, n, 3, q, lb, ub))
		return -1;
	double top = q[2] > 1e-12 ? sqrt((1 - q[1]) / q[2]) : HUGE_VAL;
	int best = c[0];
	for (int i = 1; i < nc; i++)
		if (fabs(count_from_one(se->s, p, c[i]) - top) <
		    fabs(count_from_one(se->s, p, best) - top))
			best = c[i];
	return best;
}

/*
 * Finds the peak of knob p on the line through x: measures the lowest, the
 * highest and the current feasible value (all of them when there are at most
 * three), then repeatedly the fitted peak and the neighbours of the best
 * measured value, until the best has both neighbours measured (a local
 * maximum, which is the maximum on a one-peak line). Leaves x[p] at the
 * best. 0, STOPPED or RT_ENOMEM.
 */
static int peak(rt_search *se, int *x, int p)
{
	int n = rt_space_size(se->s, p), nf = 0, rc = 0, y[RT_SPACE_MAX_PARAMS];
	int *f = malloc((size_t)n * sizeof *f);
	obs *o = NULL;
	double v;
	if (!f)
		return RT_ENOMEM;
	memcpy(y, x, (size_t)se->np * sizeof *y);
	for (y[p] = 0; y[p] < n; y[p]++)
		if (rt_space_feasible(se->s, y) && !implied_infeasible(se, y))
			f[nf++] = y[p];
	if (!nf)
		goto out;
	int probe[3] = { f[0], f[nf - 1], f[nf / 2] };
	for (int i = 0; i < nf; i++)
		if (f[i] == x[p])
			probe[2] = x[p];
	for (int i = 0; i < (nf < 3 ? nf : 3); i++)
		if (visit_at(se, x, p, nf <= 3 ? f[i] : probe[i], se->o.trial_s, &v) == STOPPED) {
			rc = STOPPED;
			goto out;
		}
	for (int iter = 0; iter < nf; iter++) {
		free(o);
		int k = line_obs(se, x, p, 1, &o), cand[3], pos = 0;
		if (k < 0) {
			o = NULL;
			rc = RT_ENOMEM;
			goto out;
		}
		if (!k)
			break;
		int b = o[obs_best(o, k)].vi;
		while (pos < nf && f[pos] != b)
			pos++;
		if (pos == nf) { /* the best became implied infeasible: keep it, look no further */
			x[p] = b;
			break;
		}
		cand[0] = fitted_peak(se, o, k, p, f, nf);
		cand[1] = pos > 0 ? f[pos - 1] : -1;
		cand[2] = pos + 1 < nf ? f[pos + 1] : -1;
		int next = -1;
		for (int i = 0; i < 3 && next < 0; i++) {
			y[p] = cand[i];
			if (cand[i] >= 0 && lookup(se, y) < 0)
				next = cand[i];
		}
		if (next < 0) {
			x[p] = b;
			break;
		}
		if (visit_at(se, x, p, next, se->o.trial_s, &v) == STOPPED) {
			rc = STOPPED;
			break;
		}
	}
out:
	free(o);
	free(f);
	return rc;
}

/* ---- model: the whole strategy ----------------------------------------- */

typedef struct model {
	rt_search *se;
	int ncat;                     /* categorical parameters ... */
	int cat[RT_SPACE_MAX_PARAMS]; /* ... and their indices */
	int ncombos;                  /* combinations of their values */
	unsigned char *pruned;        /* per combination */
} model;

static int is_numeric(const rt_space *s, int p)
{
	return rt_space_kind(s, p) != RT_PARAM_CATEGORICAL;
}

/*
 * Where to start: the first value of every categorical knob (the space file
 * lists the usual choice first), a quarter of the way up saturating knobs
 * (so that the climb also sees the small values the knee rule needs), the
 * middle of the others; then the feasible point nearest to that.
 */
static int start_point(const rt_search *se, int *x)
{
	int want[RT_SPACE_MAX_PARAMS], idx[RT_SPACE_MAX_PARAMS], more = 1;
	long best = -1;
	for (int p = 0; p < se->np; p++) {
		int n = rt_space_size(se->s, p);
		rt_param_role role = rt_space_role(se->s, p);
		want[p] = !is_numeric(se->s, p) ? 0 : role == RT_ROLE_SATURATING ? n / 4 : n / 2;
	}
	for (rt_space_first(se->s, idx); more; more = rt_space_next(se->s, idx)) {
		long d = 0;
		for (int p = 0; p < se->np; p++)
			d += labs((long)idx[p] - want[p]);
		if ((best < 0 || d < best) && rt_space_feasible(se->s, idx)) {
			best = d;
			memcpy(x, idx, (size_t)se->np * sizeof *x);
		}
	}
	return best < 0 ? RT_EINFEASIBLE : 0;
}

/*
 * When two peaked knobs share a constraint (threads + workers <= cores), a
 * step up of one may be rejected by the space although trading a step of
 * the other would run: tries those diagonal moves from x once each and moves
 * x to an improvement. 0 or STOPPED.
 */
static int trade_steps(rt_search *se, int *x)
{
	int y[RT_SPACE_MAX_PARAMS];
	double here, v;
	if (visit(se, x, se->o.trial_s, &here) != 0)
		return 0;
	for (int p = 0; p < se->np; p++)
		for (int q = 0; q < se->np; q++) {
			if (p == q || !is_numeric(se->s, p) || !is_numeric(se->s, q) ||
			    rt_space_role(se->s, p) != RT_ROLE_PEAKED ||
			    rt_space_role(se->s, q) != RT_ROLE_PEAKED)
				continue;
			memcpy(y, x, (size_t)se->np * sizeof *y);
			y[p]++;
			if (y[p] >= rt_space_size(se->s, p) || rt_space_feasible(se->s, y) ||
			    y[q] == 0)
				continue;
			y[q]--;
			int rc = visit(se, y, se->o.trial_s, &v);
			if (rc == STOPPED)
				return STOPPED;
			if (rc == 0 && v > here) {
				memcpy(x, y, (size_t)se->np * sizeof *x);
				here = v;
			}
		}
	return 0;
}

/* Climbs every saturating knob from x. 0, STOPPED or RT_ENOMEM. */
static int climb_all(rt_search *se, int *x)
{
	for (int p = 0; p < se->np; p++)
		if (is_numeric(se->s, p) && rt_space_role(se->s, p) == RT_ROLE_SATURATING) {
			int rc = climb(se, x, p);
			if (rc)
				return rc;
		}
	return 0;
}

/* Climbs every saturating knob, then finds the peak of every other numeric knob. */
static int numeric_pass(model *m, int *x)
{
	rt_search *se = m->se;
	int rc = climb_all(se, x);
	if (rc)
		return rc;
	for (int p = 0; p < se->np; p++)
		if (is_numeric(se->s, p) && rt_space_role(se->s, p) != RT_ROLE_SATURATING) {
			rc = peak(se, x, p);
			if (rc)
				return rc;
		}
	return trade_steps(se, x);
}

/* Sets x's categorical parameters to combination c (mixed radix, last fastest). */
static void set_combo(const model *m, int *x, int c)
{
	for (int i = m->ncat - 1; i >= 0; i--) {
		int n = rt_space_size(m->se->s, m->cat[i]);
		x[m->cat[i]] = c % n;
		c /= n;
	}
}

static int combo_of(const model *m, const int *x)
{
	int c = 0;
	for (int i = 0; i < m->ncat; i++)
		c = c * rt_space_size(m->se->s, m->cat[i]) + x[m->cat[i]];
	return c;
}

/*
 * The categorical knobs, jointly (backend and precision interact: bf16 may
 * lose on the CPU and win on the GPU): each combination not yet pruned is
 * judged at x, the best point so far, after a climb of its saturating knobs
 * from there (down while out of memory, up while the fit predicts a gain: a
 * GPU wants a larger batch than the CPU it is compared with). Combinations
 * under PRUNE_BELOW of the best are pruned for the rest of the run; the
 * others get their numeric knobs re-tuned. Moves x to the best point found.
 * 0, STOPPED or RT_ENOMEM.
 */
static int categorical_pass(model *m, int *x)
{
	rt_search *se = m->se;
	int here = combo_of(m, x), rc = 0;
	double *val = malloc((size_t)m->ncombos * sizeof *val), top = 0.0;
	int *at = malloc((size_t)m->ncombos * (size_t)se->np * sizeof *at);
	if (!val || !at) {
		rc = RT_ENOMEM;
		goto out;
	}
	for (int c = 0; c < m->ncombos; c++) {
		int *y = at + (size_t)c * (size_t)se->np;
		val[c] = -1.0;
		if (m->pruned[c])
			continue;
		memcpy(y, x, (size_t)se->np * sizeof *y);
		set_combo(m, y, c);
		rc = climb_all(se, y);
		if (rc)
			goto out;
		rc = visit(se, y, se->o.trial_s, &val[c]);
		if (rc == STOPPED)
			goto out;
		if (rc)
			val[c] = -1.0;
		top = fmax(top, val[c]);
	}
	rc = 0;
	for (int c = 0; c < m->ncombos; c++) {
		if (m->pruned[c] || val[c] < 0)
			continue; /* runs nowhere near x: nothing to tune from */
		if (val[c] < PRUNE_BELOW * top) {
			m->pruned[c] = 1;
			continue;
		}
		if (c == here)
			continue;
		rc = numeric_pass(m, at + (size_t)c * (size_t)se->np);
		if (rc)
			goto out;
	}
	copy_best(se, x);
out:
	free(at);
	free(val);
	return rc;
}

/*
 * model: tunes the numeric knobs at the start point, then rounds of
 * (categorical knobs at the best point, numeric knobs at the new best) until
 * a round raises the best by less than 1% or MODEL_ROUNDS are done. Within a
 * round the knobs stop on their own rules: a batch climb stops when the fit
 * predicts under 2% more, a thread search when the best has been bracketed,
 * a categorical value is dropped when it is 10% behind.
 */
static int run_model(rt_search *se)
{
	model m = { .se = se, .ncombos = 1 };
	int x[RT_SPACE_MAX_PARAMS], rc;
	for (int p = 0; p < se->np; p++)
		if (!is_numeric(se->s, p)) {
			m.cat[m.ncat++] = p;
			m.ncombos *= rt_space_size(se->s, p);
		}
	m.pruned = calloc((size_t)m.ncombos, 1);
	if (!m.pruned)
		return RT_ENOMEM;
	rc = start_point(se, x);
	if (rc)
		goto out;
	rc = numeric_pass(&m, x);
	for (int round = 0; !rc; round++) {
		if (round == MODEL_ROUNDS) {
			se->stop = "converged: round limit";
			break;
		}
		double before = best_value(se);
		copy_best(se, x);
		rc = categorical_pass(&m, x);
		if (rc)
			break;
		copy_best(se, x);
		rc = numeric_pass(&m, x);
		if (!rc && best_value(se) <= before * (1 + CONVERGED))
			se->stop = "converged: a round gained under 1%";
		if (se->stop)
			break;
	}
	if (rc == STOPPED)
		rc = 0;
out:
	free(m.pruned);
	return rc;
}

/* ---- the table and the driver -------------------------------------------- */

static const rt_strategy strategies[] = {
	{ "model", "fits saturation in batch and one peak in threads; prunes categorical "
		   "knobs (default)", run_model },
	{ "grid", "every feasible point: the oracle", run_grid },
	{ "random", "feasible points in a seeded random order", run_random },
	{ "halving", "successive halving: short trials for many points, longer ones for "
		     "the best half", run_halving },
};

static const rt_strategy *const strategy_list[] = {
	&strategies[0], &strategies[1], &strategies[2], &strategies[3],
};

const rt_strategy *const *rt_strategy_list(int *count)
{
	*count = (int)RT_COUNT(strategy_list);
	return strategy_list;
}

const rt_strategy *rt_strategy_find(const char *name)
{
	for (size_t i = 0; i < RT_COUNT(strategies); i++)
		if (strcmp(strategies[i].name, name) == 0)
			return &strategies[i];
	return NULL;
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
	se.t0 = search_clock(&se);
	rc = st->run(&se);
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

/* ---- the knee ------------------------------------------------------------ */

int rt_knee(const rt_space *s, const rt_search_result *r, const char *param, double within,
	    int *trial, char *err, size_t errlen)
{
	int p = rt_space_find(s, param);
	if (p < 0 || !is_numeric(s, p))
		return rt_fail(err, errlen, RT_EINVAL, "%s is not a numeric parameter", param);
	if (r->best < 0)
		return rt_fail(err, errlen, RT_EINVAL, "no feasible trial to take a knee from");
	const rt_trial *b = &r->trials[r->best];
	int knee = r->best;
	for (int t = 0; t < r->ntrials; t++) {
		const rt_trial *tr = &r->trials[t];
		int q;
		if (tr->cause || tr->value < (1 - within) * b->value ||
		    tr->idx[p] >= r->trials[knee].idx[p])
			continue;
		for (q = 0; q < r->nparams; q++)
			if (q != p && tr->idx[q] != b->idx[q])
				break;
		if (q == r->nparams)
			knee = t;
	}
	*trial = knee;
	return 0;
}
