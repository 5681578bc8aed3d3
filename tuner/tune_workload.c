/*
 * tune_workload.c: a built-in workload as a target of tune's loop
 * (tune_target.h), beside the user's command (tune_usercmd.c). A point is a
 * rt_point and shape of the workload; it may run where its backend is
 * available, offers its precision and has the memory; the journal keys it
 * by the machine, workload, shape and point.
 *
 * Before the search (screen_and_naive): every backend x precision the
 * space allows, measured once at a cheap common point (the smallest values
 * of the saturating knobs, the naive default's threads), the accelerators
 * before the CPU, each point within its share of the screening's time, so
 * that the budget screens every backend; then the naive default (naive.h),
 * the bar no recommendation falls below, within a larger cap, down to one
 * step, or predicted from the CPU's screening trial when even one step
 * would overrun that cap; then its nearest point of the space, a candidate
 * like any other. The search starts from the best of them. A trial whose
 * step is predicted, from the trials measured, to overrun its cap is
 * skipped with the reason ("predicted 27 s a step, over the 2 s trial
 * cap"); a backend left unscreened is named with
 * its reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../workloads/knobs.h"
#include "backends.h"
#include "naive.h"
#include "params.h"
#include "pin.h"
#include "spaces.h"
#include "tune.h"
#include "tune_target.h"

/* The screening's share of the workload's budget at most. */
#define SCREEN_SHARE 0.5
/* A screening point gets at least this cap, else it is left unscreened. */
#define MIN_TRIAL_S 0.1
/* The naive default's cap: this share of the workload's budget, or the trials' cap. */
#define NAIVE_SHARE 0.1
#define SETUP_S 20.0

/* ---- the machine's backends ---- */

int rt_tune_backend_wanted(const rt_tune_opts *o, const char *name)
{
	if (!o->nbackends)
		return 1;
	for (int i = 0; i < o->nbackends; i++)
		if (!strcmp(o->backends[i], name))
			return 1;
	return 0;
}

/* Notes the backends that cannot take part and why; RT_ERUNTIME if none can. */
static int check_backends(const rt_tune_opts *o, rt_tune_run *run, char *err, size_t errlen)
{
	int usable = 0;
	size_t n = 0;
	for (int i = 0; i < run->machine.naccel; i++) {
		const rt_accel *a = &run->machine.accel[i];
		if (!rt_tune_backend_wanted(o, a->backend))
			continue;
		if (a->available)
			usable++;
		else
			n += (size_t)snprintf(run->unavailable + n, n < sizeof run->unavailable
							      ? sizeof run->unavailable - n : 0,
					      "%s%s: %s", n ? "; " : "", a->backend, a->reason);
	}
	if (!usable)
		return rt_fail(err, errlen, RT_ERUNTIME, "no backend to tune on%s%s",
			       run->unavailable[0] ? ": " : "", run->unavailable);
	return RT_OK;
}

/* ---- points of a space ---- */

/*
 * Whether value v of parameter p of space s is one the workload takes, as
 * the file's text is checked (the CLI's rules and messages): RT_EINVAL if not.
 */
static int check_value(const rt_space *s, int p, int v, const rt_workload *w, char *err,
		       size_t errlen)
{
	const char *name = rt_space_name(s, p);
	rt_point pt;
	rt_shape sh;
	rt_point_default(&pt);
	rt_shape_default(w, &sh);
	if (!rt_space_numeric(s, p))
		return rt_params_set(w, name, rt_space_str_at(s, p, v), &pt, &sh, err, errlen);
	return rt_params_set_long(w, name, rt_space_int_at(s, p, v), &pt, &sh, err, errlen);
}

/*
 * The parameters of twl's space typed (every value checked): a knob's row
 * or a shape key's index, a choice knob's values as their indices, so that
 * a point of the space is made without reading a name again.
 */
static void type_params(rt_tune_workload *twl)
{
	const rt_space *s = twl->space;
	for (int p = 0; p < rt_space_nparams(s); p++) {
		rt_tune_param *tp = &twl->params[p];
		const char *name = rt_space_name(s, p);
		tp->knob = rt_knob_find(name);
		tp->shape = tp->knob ? -1 : rt_shape_index(twl->w, name);
		RT_BUG_ON(!tp->knob && (tp->shape < 0 || !rt_space_numeric(s, p)));
		if (!tp->knob || tp->knob->kind != RT_KNOB_CHOICE)
			continue;
		RT_BUG_ON(rt_space_size(s, p) > RT_TUNE_MAX_CHOICES);
		for (int v = 0; v < rt_space_size(s, p); v++)
			tp->choice[v] = rt_knob_choice(tp->knob, rt_space_str_at(s, p, v));
	}
}

/* Sets parameter p of twl's space at its value v into pt or sh, by its type. */
static void set_param(const rt_tune_workload *twl, int p, int v, rt_point *pt, rt_shape *sh)
{
	const rt_space *s = twl->space;
	const rt_tune_param *tp = &twl->params[p];
	int rc = RT_OK;
	if (!tp->knob)
		sh->v[tp->shape] = rt_space_int_at(s, p, v);
	else if (tp->knob->kind == RT_KNOB_CHOICE)
		rc = rt_knob_set_long(tp->knob, tp->choice[v], pt, NULL, 0);
	else if (rt_space_numeric(s, p))
		rc = rt_knob_set_long(tp->knob, rt_space_int_at(s, p, v), pt, NULL, 0);
	else /* a backend: its name is its value */
		rc = rt_knob_set(tp->knob, rt_space_str_at(s, p, v), pt, NULL, 0);
	RT_BUG_ON(rc != RT_OK); /* check_space took every value */
}

/* The point and shape that idx stands for. */
static void point_of(const rt_tune_workload *twl, const int *idx, rt_point *pt, rt_shape *sh)
{
	rt_point_default(pt);
	*sh = twl->shape;
	for (int p = 0; p < rt_space_nparams(twl->space); p++)
		set_param(twl, p, idx[p], pt, sh);
}

/*
 * A point of a workload can run here when its backend is available and
 * offers its precision, threads + workers fit the usable cores, the workload
 * accepts it and its memory fits the device.
 */
static int point_runs_here(const tune_ctx *c, const rt_point *pt, const rt_shape *sh)
{
	const rt_accel *a = rt_machine_accel(&c->run->machine, pt->backend);
	if (!a || !a->available || !rt_tune_backend_wanted(c->o, pt->backend) || pt->device >= a->ndevices)
		return 0;
	if (!(a->dev[pt->device].precisions & RT_PREC_BIT(pt->precision)))
		return 0;
	if (rt_point_cores(pt) > c->run->usable_cores)
		return 0;
	if (c->twl->w->check(pt, sh, NULL, 0))
		return 0;
	uint64_t mem = rt_backend_on_host(pt->backend) && c->run->machine.mem_available
			       ? c->run->machine.mem_available
			       : a->dev[pt->device].mem_total;
	return c->twl->w->mem_bytes(pt, sh) <= mem;
}

static int workload_feasible(const tune_ctx *c, const int *idx, int *cpus)
{
	rt_point pt;
	rt_shape sh;
	point_of(c->twl, idx, &pt, &sh);
	*cpus = pt.threads + pt.workers;
	return point_runs_here(c, &pt, &sh);
}

/*
 * A trial's harness within cap: a trial runs its cap plus a step at most
 * (measure.h), and a step over the cap is predicted and skipped; one with
 * nothing to predict it (the first of its backend) is stopped after
 * SETUP_S, what a GPU runtime and a large model's setup take to start on a
 * busy machine, and three caps.
 */
static void measure_opts(double cap, rt_measure_opts *mo)
{
	rt_measure_defaults(mo);
	mo->warmup_s = 0.1;
	mo->min_samples = 5;
	mo->rel_ci = 0.03;
	mo->time_cap_s = cap;
	mo->timeout_s = SETUP_S + 3 * cap;
}

/* ---- the built-in workloads as a target ---- */

static int workload_point(const tune_ctx *c, rt_tune_trial *t, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	point_of(c->twl, t->idx, &t->pt, &t->sh);
	return RT_OK;
}

static const rt_journal_record *workload_find(const tune_ctx *c, const rt_tune_trial *t)
{
	return rt_journal_find(c->reuse, c->nreuse, c->run->fingerprint, c->twl->w, &t->sh, &t->pt);
}

/* The size a step's cost grows with: the workload's knee key (batch, num_envs). */
static double step_size(const rt_workload *w, const rt_point *pt, const rt_shape *sh)
{
	int k = w->knee ? rt_shape_index(w, w->knee) : -1;
	return k >= 0 ? (double)sh->v[k] : (double)pt->batch;
}

/* Whether u's step predicts t's: the same device and shape but the knee key. */
static int same_kind(const rt_workload *w, const rt_tune_trial *u, const rt_tune_trial *t)
{
	rt_shape a = u->sh, b = t->sh;
	int k = w->knee ? rt_shape_index(w, w->knee) : -1;
	if (k >= 0)
		a.v[k] = b.v[k];
	return u->feasible && u->step_seconds > 0 && !strcmp(u->pt.backend, t->pt.backend) &&
	       u->pt.device == t->pt.device && rt_shape_equal(&a, &b);
}

/*
 * Seconds a step of t is predicted to take, from the measured trial of its
 * device nearest it in precision, size and threads: in proportion to the
 * size, and on the CPU in inverse proportion to the threads (an upper
 * bound for fewer threads, where scaling is sublinear). 0 when nothing
 * measured predicts it.
 */
static double predicted_step(const tune_ctx *c, const rt_tune_trial *t, double *setup_s,
			     const rt_tune_trial **from)
{
	const rt_workload *w = c->twl->w;
	const rt_tune_trial *ref = NULL;
	double size = step_size(w, &t->pt, &t->sh), dist = INFINITY;
	int cpu = rt_backend_on_host(t->pt.backend);
	for (int i = -1; i < c->twl->ntrials; i++) {
		const rt_tune_trial *u = i < 0 ? &c->twl->naive : &c->twl->trials[i];
		if (!same_kind(w, u, t))
			continue;
		double d = fabs(log(step_size(w, &u->pt, &u->sh) / size)) +
			   (cpu ? fabs(log((double)u->pt.threads / t->pt.threads)) : 0) +
			   10.0 * (u->pt.precision != t->pt.precision); /* another precision: a guess */
		if (d < dist) {
			dist = d;
			ref = u;
		}
	}
	*setup_s = ref ? ref->setup_seconds : 0;
	*from = ref;
	if (!ref)
		return 0;
	double s = ref->step_seconds * size / step_size(w, &ref->pt, &ref->sh);
	return cpu ? s * ref->pt.threads / t->pt.threads : s;
}

/* A trial not run (why: RT_SKIP_CAP, RT_SKIP_BUDGET), with the reason: a timeout foreseen. */
static int skip(rt_measurement *m, int why, const char *fmt, double a, double b)
{
	memset(m, 0, sizeof *m);
	m->skipped = why;
	m->cause = RT_CAUSE_TIMEOUT;
	snprintf(m->reason, sizeof m->reason, fmt, a, b);
	return RT_OK;
}

/*
 * Measures t within its cap: a point whose one step is predicted to take
 * longer than the cap is not run (m->skipped, a timeout with the reason),
 * nor one whose setup and steps are predicted to end past the search's
 * budget by more than half a cap (the budget + 10% of a whole tune).
 */
static int workload_measure(const tune_ctx *c, const rt_tune_trial *t, double cap,
			    rt_measurement *m, char *err, size_t errlen)
{
	const rt_tune_trial *ref;
	double setup, step = predicted_step(c, t, &setup, &ref);
	double trial = setup + (step >= cap / 4 ? 2 * step : cap), left = c->deadline - rt_clock_now();
	if (step > cap)
		return skip(m, RT_SKIP_CAP, "predicted %.2g s a step, over the %.2g s trial cap", step,
			    cap);
	if (c->deadline > 0 && trial > left + cap / 2)
		return skip(m, RT_SKIP_BUDGET,
			    "predicted %.2g s with its setup, %.2g s left in the budget", trial,
			    left > 0 ? left : 0);
	rt_measure_opts mo;
	measure_opts(cap, &mo);
	mo.one_step = t->naive && 2 * step > cap; /* the naive default: one step, when two overrun */
	mo.timeout_s += 2 * setup; /* a setup measured slow is given its time */
	if (c->deadline > 0) /* the budget's end is its limit too */
		mo.timeout_s = fmax(cap, fmin(mo.timeout_s, left + cap));
	return rt_measure(c->twl->w, &t->pt, &t->sh, &mo, m, err, errlen);
}

static int workload_append(const tune_ctx *c, const rt_tune_trial *t, const rt_measurement *m,
			   char *err, size_t errlen)
{
	rt_journal_trial jt = {.role = t->again ? RT_TRIAL_AGAIN
				       : t->naive ? RT_TRIAL_NAIVE
						  : RT_TRIAL_SEARCH,
			       .w = c->twl->w, .pt = &t->pt, .sh = &t->sh, .m = m};
	return rt_journal_append(c->journal, &jt, err, errlen);
}

/* ---- one workload ---- */

/* The --shape argument, split once into its KEY=VALUE items. */
typedef struct shape_args {
	rt_arglist kv;
	int used[RT_ARGLIST_MAX_ITEMS]; /* the item set a key of some workload */
} shape_args;

static int split_shape(const char *shape, shape_args *a, char *err, size_t errlen)
{
	memset(a->used, 0, sizeof a->used);
	a->kv.n = 0;
	return shape ? rt_arglist_split(shape, "--shape", RT_ARGLIST_MAX_ITEMS, &a->kv, err, errlen)
		     : RT_OK;
}

/* The workload's default shape with the --shape items that name its keys. */
static int apply_shape(shape_args *a, rt_tune_workload *twl, char *err, size_t errlen)
{
	rt_shape_default(twl->w, &twl->shape);
	for (int i = 0; i < a->kv.n; i++) {
		char key[64];
		snprintf(key, sizeof key, "%.*s", (int)strcspn(a->kv.item[i], "="), a->kv.item[i]);
		if (rt_shape_index(twl->w, key) < 0)
			continue;
		int rc = rt_params_apply_shape(twl->w, a->kv.item[i], &twl->shape, err, errlen);
		if (rc)
			return rc;
		a->used[i] = 1;
	}
	return RT_OK;
}

/*
 * Checks that every value of every parameter of the space is a valid knob of
 * the workload (the space file has checked the keys; this checks the values
 * against the knobs' ranges), then types the space's parameters: the
 * search's points are made from those.
 */
static int check_space(tune_ctx *c, char *err, size_t errlen)
{
	const rt_space *s = c->twl->space;
	const char *where = c->o->space_file ? c->o->space_file : c->twl->w->name;
	char why[RT_ERRLEN];
	for (int p = 0; p < rt_space_nparams(s); p++)
		for (int v = 0; v < rt_space_size(s, p); v++)
			if (check_value(s, p, v, c->twl->w, why, sizeof why))
				return rt_fail(err, errlen, RT_EINVAL, "%s: %s", where, why);
	type_params(c->twl);
	return RT_OK;
}

/* ---- the naive default ---- */

/* A progress line of its own: the naive default is no trial of the search. */
static void report_naive(tune_ctx *c, const rt_tune_trial *t)
{
	char outcome[300];
	if (t->predicted)
		snprintf(outcome, sizeof outcome, "%.4g %s predicted, not measured (%s)", t->median,
			 c->twl->unit, t->reason);
	else
		rt_tune_trial_outcome(c, t, outcome, sizeof outcome);
	rt_progress_note(c->progress, "%s: the naive default (%s %s, %d threads, pin %s), for "
				      "comparison: %s",
			 c->twl->name, t->pt.backend, rt_precision_name(t->pt.precision),
			 t->pt.threads, rt_pin_name(t->pt.pin), outcome);
}

/*
 * A naive default not measured (one step predicted over its cap, or the
 * trial timed out): its throughput predicted from the measured trial that
 * predicts its step (predicted_step), marked so, when there is one.
 */
static void predict_naive(const tune_ctx *c, rt_tune_trial *t)
{
	const rt_tune_trial *ref;
	double setup, step = predicted_step(c, t, &setup, &ref);
	const rt_workload *w = c->twl->w;
	if (!ref || step <= 0)
		return;
	double items = ref->median * ref->step_seconds * step_size(w, &t->pt, &t->sh) /
		       step_size(w, &ref->pt, &ref->sh);
	t->predicted = 1;
	t->median = t->ci_lo = t->ci_hi = items / step;
	t->step_seconds = step;
}

/*
 * Measures the naive default (naive.h) of a built-in workload as a trial
 * like the search's (reused from the journals, or measured and journaled
 * with its phases) into twl->naive: the bar no recommendation may fall
 * below (rt_tune_pick), and what `rigtune report` sets its phase split
 * beside, within its own cap (naive_cap): down to one step (measure.h), or
 * predicted from the screening's trial of the CPU when even one step is
 * predicted over that cap. It is journaled with role: naive and never joins
 * the search's trials (its nearest point of the space does).
 */
static int measure_naive(tune_ctx *c, double cap, char *err, size_t errlen)
{
	rt_tune_trial *t = &c->twl->naive;
	memset(t, 0, sizeof *t);
	t->naive = 1;
	rt_naive_point(c->twl->w, &c->twl->shape, c->run->usable_cores, &t->pt, &t->sh);
	if (!point_runs_here(c, &t->pt, &t->sh))
		return RT_OK;
	int rc = rt_tune_run_trial(c, t, cap, err, errlen);
	if (rc == RT_OK && !t->feasible && t->cause == RT_CAUSE_TIMEOUT)
		predict_naive(c, t);
	if (rc == RT_OK)
		report_naive(c, t);
	return rc;
}

/* ---- the screening ---- */

/* How far a from b: the knobs' distance, and the shape keys' on a log scale. */
static double point_distance(const rt_point *a, const rt_shape *as, const rt_point *b,
			     const rt_shape *bs)
{
	double d = rt_point_distance(a, b);
	for (int k = 0; k < RT_MAX_SHAPE_KEYS; k++)
		d += fabs(log((1.0 + fabs((double)as->v[k])) / (1.0 + fabs((double)bs->v[k]))));
	return d;
}

/*
 * Where the point nearest the naive default cannot run because of its pin
 * policy, the first of the space's policies with which it can: no pinning
 * on every core binds the PUs that any policy binds there, and the search
 * runs only the first of the policies that bind the same PUs (tune.c). Else
 * the naive default's point would never be measured, nor screened.
 */
static void runnable_pin(const rt_space *s, int *idx)
{
	int p = rt_space_find(s, "pin"), nearest = p >= 0 ? idx[p] : 0;
	if (p < 0 || rt_space_feasible(s, idx))
		return;
	for (idx[p] = 0; idx[p] < rt_space_size(s, p); idx[p]++)
		if (rt_space_feasible(s, idx))
			return;
	idx[p] = nearest; /* not the pin: the point cannot run with any */
}

/* The point of the space nearest the naive default, knob by knob, into idx (runnable_pin). */
static void nearest_to_naive(const tune_ctx *c, int *idx)
{
	const rt_space *s = c->twl->space;
	rt_point naive, pt;
	rt_shape nsh, sh;
	rt_naive_point(c->twl->w, &c->twl->shape, c->run->usable_cores, &naive, &nsh);
	for (int p = 0; p < rt_space_nparams(s); p++) {
		double best = INFINITY;
		idx[p] = 0;
		for (int v = 0; v < rt_space_size(s, p); v++) {
			pt = naive;
			sh = nsh;
			set_param(c->twl, p, v, &pt, &sh);
			double d = point_distance(&pt, &sh, &naive, &nsh);
			if (d < best) {
				best = d;
				idx[p] = v;
			}
		}
	}
	runnable_pin(s, idx);
}

/* Notes a point that was not screened, and why, for the progress and the reason. */
static void note_unscreened(tune_ctx *c, const int *idx, const char *why)
{
	rt_tune_workload *twl = c->twl;
	char what[160], one[400];
	rt_space_format(twl->space, idx, what, sizeof what);
	snprintf(one, sizeof one, "%s (%s)", what, why);
	rt_list_append(twl->unscreened, sizeof twl->unscreened, "; ", one);
	rt_progress_note(c->progress, "%s: not screened: %s", twl->name, one);
}

/*
 * Measures point idx before the search (a prior trial of it, rt_search_opts)
 * within cap, unless the screening's time is spent; a point that was
 * skipped (predicted over its cap) or not reached is noted unscreened.
 */
static int screen_point(tune_ctx *c, const int *idx, double cap, double until)
{
	rt_tune_workload *twl = c->twl;
	double value = 0;
	rt_cause cause = RT_CAUSE_NONE;
	if (!rt_space_feasible(twl->space, idx) || c->nprior == RT_TUNE_MAX_PRIOR)
		return RT_OK; /* not a point of this machine (rt_space_feasible says why not) */
	for (int i = 0; i < c->nprior; i++)
		if (!memcmp(c->prior[i].idx, idx, sizeof(int) * (size_t)rt_space_nparams(twl->space)))
			return RT_OK;
	cap = fmin(cap, until - rt_clock_now());
	if (cap < MIN_TRIAL_S) {
		note_unscreened(c, idx, "no time left in the budget");
		return RT_OK;
	}
	int rc = rt_tune_objective(twl->space, idx, cap, c, &value, &cause);
	if (rc && rc != RT_EINFEASIBLE)
		return rc;
	const rt_tune_trial *t = &twl->trials[twl->ntrials - 1];
	if (t->skipped)
		note_unscreened(c, idx, t->reason);
	rt_trial *pr = &c->prior[c->nprior++];
	memset(pr, 0, sizeof *pr);
	memcpy(pr->idx, idx, sizeof(int) * (size_t)rt_space_nparams(twl->space));
	pr->value = rc ? 0 : value;
	pr->cause = rc ? (cause ? cause : RT_CAUSE_CRASH) : RT_CAUSE_NONE;
	pr->cap_s = cap;
	return RT_OK;
}

/* Whether value v of the backend parameter b is the CPU (screened after the accelerators). */
static int is_cpu(const rt_space *s, int b, int v)
{
	return b >= 0 && rt_backend_on_host(rt_space_str_at(s, b, v));
}

/*
 * Reorders the n screening points so that each backend's first point comes
 * before any backend's second, keeping their order otherwise: a device that
 * offers four precisions (fp32, tf32, bf16, fp16) must not take the time in
 * which the CPU is screened at all.
 */
static void first_precisions_first(int b, int (*pts)[RT_SPACE_MAX_PARAMS], int n)
{
	int(*tmp)[RT_SPACE_MAX_PARAMS] = malloc(sizeof *tmp * (size_t)(n > 0 ? n : 1));
	int k = 0;
	if (!tmp || b < 0)
		goto out; /* out of memory: the order stays, the screening is whole either way */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			int first = 1;
			for (int j = 0; j < i && first; j++)
				first = pts[j][b] != pts[i][b];
			if (first == !pass)
				memcpy(tmp[k++], pts[i], sizeof tmp[0]);
		}
	memcpy(pts, tmp, sizeof *tmp * (size_t)n);
out:
	free(tmp);
}

/*
 * The screening: every backend x precision of the space at the cheap common
 * point (the naive default's knobs, the saturating ones at their smallest),
 * the accelerators' first (cheap, and what tuning is most often for), every
 * backend's first precision before any backend's second; each point gets
 * its share of the time left.
 */
static int screen(tune_ctx *c, const int *naive, double cap, double until)
{
	const rt_space *s = c->twl->space;
	int b = rt_space_find(s, "backend"), q = rt_space_find(s, "precision");
	int nb = b >= 0 ? rt_space_size(s, b) : 1, nq = q >= 0 ? rt_space_size(s, q) : 1;
	int n = 0, np = rt_space_nparams(s), rc = 0;
	int(*pts)[RT_SPACE_MAX_PARAMS] = malloc(sizeof *pts * (size_t)(nb * nq));
	if (!pts)
		return RT_ENOMEM;
	for (int cpu = 0; cpu < 2; cpu++)
		for (int iq = 0; iq < nq; iq++)
			for (int ib = 0; ib < nb; ib++) {
				if (is_cpu(s, b, ib) != cpu)
					continue;
				memcpy(pts[n], naive, sizeof pts[n]);
				for (int p = 0; p < np; p++)
					if (rt_space_numeric(s, p) &&
					    rt_space_role(s, p) == RT_ROLE_SATURATING)
						pts[n][p] = 0;
				if (b >= 0)
					pts[n][b] = ib;
				if (q >= 0)
					pts[n][q] = iq;
				n += rt_space_feasible(s, pts[n]); /* else not a point of this machine */
			}
	first_precisions_first(b, pts, n);
	for (int i = 0; i < n && !rc && !rt_tune_stop_requested(); i++)
		rc = screen_point(c, pts[i], fmin(cap, (until - rt_clock_now()) / (n - i)), until);
	free(pts);
	return rc;
}

/*
 * The naive default's cap: a larger share than a trial's, as what every
 * tuning is held to (one step of a large model on the CPU takes seconds).
 */
static double naive_cap(double budget, double cap)
{
	return fmax(cap, NAIVE_SHARE * budget);
}

/*
 * Before the search: the screening within SCREEN_SHARE of the budget, the
 * naive default (the bar: after the screening, whose trial of the CPU
 * predicts its step, so that a step predicted over its cap is not run but
 * predicted), and the naive default's nearest point of the space within a
 * trial's cap; the search starts from the best of them.
 */
static int screen_and_naive(tune_ctx *c, double budget, double cap, char *err, size_t errlen)
{
	rt_tune_workload *twl = c->twl;
	double until = rt_clock_now() + SCREEN_SHARE * budget;
	nearest_to_naive(c, twl->naive_idx);
	int rc = screen(c, twl->naive_idx, cap, until);
	if (rc == RT_OK && !rt_tune_stop_requested())
		rc = measure_naive(c, naive_cap(budget, cap), err, errlen);
	if (rc == RT_OK && !rt_tune_stop_requested())
		rc = screen_point(c, twl->naive_idx, cap, fmax(until, rt_clock_now() + cap));
	int best = -1;
	for (int i = 0; i < c->nprior; i++)
		if (!c->prior[i].cause && (best < 0 || c->prior[i].value > c->prior[best].value))
			best = i;
	c->have_start = best >= 0;
	if (best >= 0)
		memcpy(c->start, c->prior[best].idx, sizeof c->start);
	return rc;
}

int rt_tune_workloads_resolve(const rt_tune_opts *o, rt_tune_run *run, char *err, size_t errlen)
{
	int rc = check_backends(o, run, err, errlen);
	if (rc)
		return rc;
	int count;
	const rt_workload *const *all = rt_workload_list(&count);
	shape_args shape;
	rc = split_shape(o->shape, &shape, err, errlen);
	if (rc)
		return rc;
	int n = o->nworkloads ? o->nworkloads : count;
	for (int i = 0; i < n && i < RT_NWORKLOADS; i++) {
		const rt_workload *w = o->nworkloads ? rt_workload_find(o->workloads[i]) : all[i];
		if (!w) {
			char names[256];
			rt_workload_names(names, sizeof names);
			return rt_fail(err, errlen, RT_EINVAL, "unknown workload '%s' (%s)",
				       o->workloads[i], names);
		}
		for (int k = 0; k < run->nwl; k++)
			if (run->wl[k].w == w)
				return rt_fail(err, errlen, RT_EINVAL, "workload '%s' given twice",
					       w->name);
		rt_tune_workload *twl = &run->wl[run->nwl++];
		twl->w = w;
		twl->name = w->name;
		twl->unit = w->unit;
		twl->target = &rt_tune_target_workload;
		twl->grow = !o->space_file;
		rt_point pt;
		rt_point_default(&pt);
		rc = apply_shape(&shape, twl, err, errlen);
		if (rc == RT_OK) /* the shape must be one the workload can run at all */
			rc = w->check(&pt, &twl->shape, err, errlen);
		if (rc)
			return rc;
		if ((rc = rt_space_for(w, o->space_file, run->usable_cores, &twl->space, err,
				       errlen)))
			return rc;
	}
	for (int i = 0; i < shape.kv.n; i++) /* every --shape key must belong to some workload */
		if (!shape.used[i])
			return rt_fail(err, errlen, RT_EINVAL,
				       "--shape: '%s' is not a shape key of the workloads tuned",
				       shape.kv.item[i]);
	return RT_OK;
}

const rt_tune_target rt_tune_target_workload = {
	.feasible = workload_feasible,
	.point = workload_point,
	.find = workload_find,
	.measure = workload_measure,
	.append = workload_append,
	.check_space = check_space,
	.before_search = screen_and_naive,
};
