/*
 * tune.c: the loop of `rigtune tune` (tune.h), whatever its target
 * (tune_target.h): the budget's shares, the strategy's search from what the
 * target measured before it (each trial: tune_trial.c), a command's leaders
 * told apart (search/leaders.h), the walk to the knee, the pick that never
 * falls below the naive default, the crossover sweep at the end.
 */
#include "tune.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "backends.h"
#include "blas_kernels.h"
#include "crossover.h"
#include "journal.h"
#include "../search/leaders.h"
#include "../workloads/knobs.h"
#include "../search/stats.h"
#include "output.h"
#include "pin.h"
#include "spaces.h"
#include "tune_baseline.h"
#include "tune_target.h"

void rt_tune_opts_default(rt_tune_opts *o)
{
	memset(o, 0, sizeof *o);
	o->budget_s = 60;
	o->crossover = 1;
	o->results_dir = "results";
	o->seed = 1;
}

/* Share of the budget per workload, by how much a search of it needs (a command: 1). */
static double workload_weight(const rt_tune_workload *twl)
{
	return twl->w && twl->w->budget_weight > 0 ? twl->w->budget_weight : 1.0;
}
/*
 * The frameworks' probe comes first (importing PyTorch takes seconds of CPU
 * that no trial should share) and is charged to the budget: the measuring
 * gets what it left. It may take PROBE_SHARE of the budget at most, so that a
 * short budget still measures (the probes run at once, but PyPI's torch and
 * jax imports took 6-17 s together on a busy 2-core machine: a budget of 60 s
 * or more gives them 15 s); a framework whose import takes longer is noted
 * as timed out.
 */
#define PROBE_SHARE 0.25
/* Each OpenBLAS kernel set's SGEMM, when they are measured (blas_kernels): seconds of samples. */
#define BLAS_CORE_SECONDS 0.3
/* A user's command: of its budget, the share kept for telling its leaders apart. */
#define CONFIRM_SHARE 0.25
#define MIN_SEARCH_S 0.5 /* less than this cannot measure one point */

/*
 * Two pin policies that bind the same PUs (every policy, when the threads
 * fill the machine) are one point: only the first in the space's order runs.
 */
static int same_pus_as_earlier_pin(const tune_ctx *c, const rt_space *s, const int *idx, int n)
{
	int p = rt_space_find(s, "pin");
	if (p < 0 || !c->topo || idx[p] == 0)
		return 0;
	int same = 0, pin = rt_pin_parse(rt_space_str_at(s, p, idx[p]));
	hwloc_bitmap_t mine = hwloc_bitmap_alloc(), other = hwloc_bitmap_alloc();
	if (mine && other && pin >= 0 && rt_pin_cpuset(c->topo, (rt_pin)pin, n, mine) == RT_OK)
		for (int v = 0; v < idx[p] && !same; v++) {
			pin = rt_pin_parse(rt_space_str_at(s, p, v));
			same = pin >= 0 && rt_pin_cpuset(c->topo, (rt_pin)pin, n, other) == RT_OK &&
			       hwloc_bitmap_isequal(mine, other);
		}
	hwloc_bitmap_free(mine);
	hwloc_bitmap_free(other);
	return same;
}

/* The target's verdict, and only the first of pin policies that bind the same PUs. */
static int feasible(const rt_space *s, const int *idx, void *user)
{
	const tune_ctx *c = user;
	int cpus = 1;
	return c->twl->target->feasible(c, idx, &cpus) &&
	       !same_pus_as_earlier_pin(c, s, idx, cpus);
}

/* The search's trial at idx, -1 if it has none. */
static int trial_index(const rt_search_result *r, const int *idx)
{
	for (int t = 0; t < r->ntrials; t++)
		if (!memcmp(r->trials[t].idx, idx, sizeof(int) * (size_t)r->nparams))
			return t;
	return -1;
}

/*
 * The value of point idx: from the search's trials, or measured now (and
 * added to them) when the search did not measure it: *cause says why a
 * point failed; a point the space rules out (*ruled_out 1) is not measured.
 */
static int value_at(tune_ctx *c, const int *idx, double cap, double *value, rt_cause *cause,
		    int *ruled_out)
{
	rt_search_result *r = c->twl->result;
	const rt_space *s = c->twl->space;
	int t = trial_index(r, idx);
	*value = t >= 0 ? r->trials[t].value : 0;
	*cause = t >= 0 ? r->trials[t].cause : RT_CAUSE_NONE;
	*ruled_out = t < 0 && !rt_space_feasible(s, idx);
	if (t >= 0 || *ruled_out)
		return RT_OK;
	int rc = rt_tune_objective(s, idx, cap, c, value, cause);
	if (rc && rc != RT_EINFEASIBLE)
		return rc;
	*cause = rc ? *cause : RT_CAUSE_NONE;
	return rt_search_result_add(r, idx, rc ? 0 : *value, *cause, cap);
}

/*
 * Whether point idx reaches bar (value_at). *ok is 0 for a point that is
 * infeasible, failed or falls short.
 */
static int reaches(tune_ctx *c, const int *idx, double bar, double cap, int *ok)
{
	double value;
	rt_cause cause;
	int ruled_out, rc = value_at(c, idx, cap, &value, &cause, &ruled_out);
	*ok = !rc && !ruled_out && cause == RT_CAUSE_NONE && value >= bar;
	return rc;
}

/*
 * Growing the batch past the space's top (tune_run.h: rt_tune_workload.grow):
 * while the fastest point is at the top of the batch and the top gained more
 * than GROW_GAIN over the value below it, the next doubling is added to the
 * space and measured with every other knob as the fastest's, until the gain
 * falls under GROW_GAIN, the point does not fit (the memory check, or the
 * trial ran out of memory), the knob's largest value, or the budget. The
 * knee is then walked down from the fastest as ever.
 */
#define GROW_GAIN 0.03
#define GROW_STEPS 3 /* trials kept back from the search for the growing */

/* The batch parameter that may grow (a saturating ordinal), -1 if none or not asked. */
static int growable(const rt_tune_workload *twl)
{
	int p = twl->grow ? rt_space_find(twl->space, "batch") : -1;
	return p >= 0 && rt_space_kind(twl->space, p) == RT_PARAM_ORDINAL &&
		       rt_space_role(twl->space, p) == RT_ROLE_SATURATING
		       ? p
		       : -1;
}

/* The largest value the batch knob takes (knobs.h), or the space's own limit. */
static long grow_limit(const rt_tune_workload *twl, int p)
{
	const struct rt_knob *k = twl->params[p].knob;
	return k ? k->max : 1L << 24;
}

/* Time kept back from the strategy for the growing: GROW_STEPS trials' caps. */
static double grow_reserve(const rt_tune_workload *twl, double cap)
{
	return growable(twl) >= 0 ? GROW_STEPS * cap : 0;
}

/* Why the growing stopped, into twl->grown; RT_OK. */
static int grow_stop(rt_tune_workload *twl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int grow_stop(rt_tune_workload *twl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = strlen(twl->grown);
	vsnprintf(twl->grown + n, sizeof twl->grown - n, fmt, ap);
	va_end(ap);
	return RT_OK;
}

/*
 * One step of the growing from the fastest point: *reached the larger
 * batch when it was measured and ran, else unchanged with why in
 * twl->grown; an error code.
 */
static int grow_step(tune_ctx *c, int p, double deadline, double cap, long *reached)
{
	rt_tune_workload *twl = c->twl;
	rt_search_result *r = twl->result;
	int idx[RT_SPACE_MAX_PARAMS], n = rt_space_size(twl->space, p), ruled_out;
	double below, grown;
	rt_cause cause;
	long top = rt_space_int_at(twl->space, p, n - 1), next = 2 * top;
	char err[RT_ERRLEN];
	memcpy(idx, r->trials[r->best].idx, sizeof(int) * (size_t)r->nparams);
	if (idx[p] != n - 1 || n < 2)
		return grow_stop(twl, "the fastest's batch %ld is below the top %ld",
				 rt_space_int_at(twl->space, p, idx[p]), top);
	idx[p] = n - 2;
	int rc = value_at(c, idx, cap, &below, &cause, &ruled_out);
	if (rc || ruled_out || cause || below <= 0)
		return rc ? rc : grow_stop(twl, "batch %ld was not measured", top / 2);
	double gain = r->trials[r->best].value / below - 1;
	if (gain <= GROW_GAIN)
		return grow_stop(twl, "batch %ld gained %.1f%% over %ld, not more than %.0f%%", top,
				 100 * gain, rt_space_int_at(twl->space, p, n - 2), 100 * GROW_GAIN);
	if (next > grow_limit(twl, p))
		return grow_stop(twl, "batch %ld is the knob's largest", top);
	if (rt_clock_now() + cap > deadline)
		return grow_stop(twl, "batch %ld still gained %.1f%%: no time left for %ld", top,
				 100 * gain, next);
	if ((rc = rt_space_extend_ordinal(twl->space, p, next, err, sizeof err)))
		return rc == RT_EINVAL ? grow_stop(twl, "%s", err) : rc;
	idx[p] = n;
	if ((rc = value_at(c, idx, cap, &grown, &cause, &ruled_out)))
		return rc;
	if (ruled_out || cause)
		return grow_stop(twl, "batch %ld still gained %.1f%%; %ld %s", top, 100 * gain, next,
				 ruled_out ? "does not fit the device's memory"
				 : cause == RT_CAUSE_MEMORY ? "ran out of memory"
							    : rt_cause_name(cause));
	rt_progress_note(c->progress, "%s: batch %ld gained %.1f%%: measuring %ld", twl->name, top,
			 100 * gain, next);
	*reached = next;
	return RT_OK;
}

/*
 * The growing of the batch past the space's top, while the budget lasts;
 * twl->grown says how far and why it stopped: "grown from 256 to 1024:
 * batch 1024 gained 1.2% over 512, not more than 3%".
 */
static int grow_batch(tune_ctx *c, double deadline, double cap)
{
	rt_tune_workload *twl = c->twl;
	int p = growable(twl), rc = RT_OK;
	if (p < 0 || !twl->result || twl->result->best < 0)
		return RT_OK;
	long top = rt_space_int_at(twl->space, p, rt_space_size(twl->space, p) - 1), now = top,
	     before = 0;
	twl->grown[0] = '\0';
	while (now > before && rc == RT_OK && !rt_tune_stop_requested()) {
		before = now;
		rc = grow_step(c, p, deadline, cap, &now);
	}
	if (rc == RT_OK && now > top) {
		char why[sizeof twl->grown];
		snprintf(why, sizeof why, "%s", twl->grown);
		snprintf(twl->grown, sizeof twl->grown, "grown from %ld to %ld: %.180s", top, now, why);
	}
	return rc;
}

/*
 * Walks knob p down from trial `from` towards its knee: bisects the values
 * below from's for the smallest that reaches bar, each taken from the trials
 * or measured, while the budget lasts. Below its knee throughput rises with
 * a saturating or a peaked knob, so bisection finds the knee in log2 of the
 * values' count of trials, where stepping down one value at a time would
 * take one per value (threads 1..64).
 */
static int walk_down(tune_ctx *c, int p, int from, double bar, double deadline, double cap)
{
	rt_search_result *r = c->twl->result;
	int idx[RT_SPACE_MAX_PARAMS], lo = -1, hi, ok;
	memcpy(idx, r->trials[from].idx, sizeof(int) * (size_t)r->nparams);
	hi = idx[p]; /* hi reaches the bar, lo does not (-1: below the smallest value) */
	while (hi - lo > 1 && !rt_tune_stop_requested() && rt_clock_now() + cap / 4 < deadline) {
		idx[p] = lo + (hi - lo) / 2;
		int rc = reaches(c, idx, bar, cap, &ok);
		if (rc)
			return rc;
		if (ok)
			hi = idx[p];
		else
			lo = idx[p];
	}
	return RT_OK;
}

/*
 * The recommendation (config.c's writer) is the knee: from the best point, the
 * smallest value within RT_KNEE_WITHIN of the best along each knob of
 * rt_knee_params in turn (batch, then threads and workers), among the
 * measured points equal in every other knob. A strategy that climbed the
 * batch or placed the thread peak at other settings may not have measured
 * the smaller values there: each knob is walked down from the knee so far,
 * measuring what is missing while the budget lasts.
 */
static int walk_to_knee(tune_ctx *c, double deadline, double cap)
{
	rt_search_result *r = c->twl->result;
	int params[RT_SPACE_MAX_PARAMS];
	if (!r || r->best < 0)
		return RT_OK;
	int n = rt_knee_params(c->twl->space, params), knee = r->best;
	for (int i = 0; i < n; i++) {
		double bar = (1 - RT_KNEE_WITHIN) * r->trials[r->best].value;
		int rc = walk_down(c, params[i], knee, bar, deadline, cap);
		if (rc)
			return rc;
		knee = rt_knee_along(r, params[i], knee, RT_KNEE_WITHIN);
	}
	return RT_OK;
}

/* A progress line for a point measured again. */
static void report_again(tune_ctx *c, const rt_tune_trial *t, const rt_measurement *m)
{
	char what[256], outcome[300];
	int n = snprintf(what, sizeof what, "%s ", c->twl->name);
	rt_space_format(c->twl->space, t->idx, what + n, sizeof what - (size_t)n);
	if (m->feasible)
		snprintf(outcome, sizeof outcome, "%.4g %s (again)", m->median, c->twl->unit);
	else
		snprintf(outcome, sizeof outcome, "infeasible this time: %s", m->reason);
	rt_progress_trial(c->progress, what, outcome, c->best);
}

/* Adds a run's samples to t's pooled ones. RT_ENOMEM. */
static int pool_samples(rt_tune_trial *t, const double *v, int n)
{
	double *all = realloc(t->samples, sizeof *all * (size_t)(t->nsamples + n));
	if (!all)
		return RT_ENOMEM;
	memcpy(all + t->nsamples, v, sizeof *all * (size_t)n);
	t->samples = all;
	t->nsamples += n;
	return RT_OK;
}

/* A command's leaders, as search/leaders.h sees them: candidate i is trial cand[i]. */
typedef struct leaders_ctx {
	tune_ctx *c;
	int *cand;
	double *cost; /* each candidate's last run, in seconds */
	char *err;
	size_t errlen;
} leaders_ctx;

static double leaders_clock(void *user)
{
	(void)user;
	return rt_clock_now();
}

static double leaders_cost(void *user, int i)
{
	const leaders_ctx *l = user;
	return l->cost[i];
}

/* Samples as the search ranks them: higher is better. NULL: out of memory. */
static double *as_scores(const rt_tune_workload *twl, const double *v, int n)
{
	double *s = malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
	for (int i = 0; s && i < n; i++)
		s[i] = !twl->minimize ? v[i] : v[i] > 0 ? 1 / v[i] : 0;
	return s;
}

/* One more run of candidate i: its samples join the trial's pool and come back as scores. */
static int leaders_measure(void *user, int i, int round, double **v, size_t *n)
{
	leaders_ctx *l = user;
	rt_tune_trial *t = &l->c->twl->trials[l->cand[i]];
	rt_measurement m;
	(void)round;
	if (rt_tune_stop_requested())
		return RT_ERUNTIME;
	int rc = rt_tune_measure_fresh(l->c, t, 0, &m, l->err, l->errlen);
	if (rc)
		return rc;
	report_again(l->c, t, &m);
	l->cost[i] = m.seconds;
	if (!m.feasible) {
		rt_measurement_free(&m);
		return RT_EINFEASIBLE;
	}
	rc = pool_samples(t, m.samples, m.nsamples);
	*v = rc ? NULL : as_scores(l->c->twl, m.samples, m.nsamples);
	*n = (size_t)m.nsamples;
	rt_measurement_free(&m);
	return rc ? rc : *v ? RT_OK : RT_ENOMEM;
}

/* Takes t's pooled figures, and its new score for the search's best. */
static void take_pooled(rt_tune_workload *twl, rt_tune_trial *t)
{
	rt_measurement m = {.samples = t->samples, .nsamples = t->nsamples};
	rt_search_result *r = twl->result;
	rt_measurement_summarize(&m);
	t->median = m.median;
	t->ci_lo = m.ci_lo;
	t->ci_hi = m.ci_hi;
	t->cv = m.cv;
	t->score = !twl->minimize ? m.median : m.median > 0 ? 1 / m.median : 0;
	int i = trial_index(r, t->idx);
	if (i >= 0)
		r->trials[i].value = t->score;
	r->best = -1;
	for (i = 0; i < r->ntrials; i++)
		if (!r->trials[i].cause && (r->best < 0 || r->trials[i].value > r->trials[r->best].value))
			r->best = i;
}

/* The median of the candidates' known costs (a reused trial may have none), 0 if none. */
static double typical_cost(const double *cost, int n)
{
	double *k = malloc(sizeof *k * (size_t)(n > 0 ? n : 1));
	int nk = 0;
	for (int i = 0; k && i < n; i++)
		if (cost[i] > 0)
			k[nk++] = cost[i];
	double med = nk ? rt_median(k, (size_t)nk) : 0;
	free(k);
	return med;
}

/* The feasible trials with samples as candidates (cand, cost, their pooled scores). */
static int leaders_gather(rt_tune_workload *twl, int *cand, double *cost, rt_leader *ld, int *n)
{
	*n = 0;
	for (int i = 0; i < twl->ntrials; i++) {
		const rt_tune_trial *t = &twl->trials[i];
		if (!t->feasible || !t->nsamples)
			continue;
		cand[*n] = i;
		cost[*n] = t->seconds;
		ld[*n] = (rt_leader){.v = as_scores(twl, t->samples, t->nsamples),
				     .n = (size_t)t->nsamples};
		if (!ld[*n].v)
			return RT_ENOMEM;
		rt_leader_summarize(&ld[(*n)++]);
	}
	double typical = typical_cost(cost, *n);
	for (int i = 0; i < *n; i++)
		cost[i] = cost[i] > 0 ? cost[i] : typical;
	return RT_OK;
}

/*
 * Time kept for the walk to the knee: two runs, unless the search measured
 * every feasible point (the walk then measures nothing).
 */
static double knee_reserve(const rt_tune_workload *twl, double typical)
{
	uint64_t feasible = rt_space_count_feasible(twl->space);
	return twl->result && (uint64_t)twl->result->ntrials >= feasible ? 0 : 2 * typical;
}

/*
 * A run of a user's command is one sample of the machine's mood: two points
 * whose CIs overlap after one run each are not told apart, and picking
 * between them is a coin toss. The leaders (the fastest, every point that
 * may tie with it or be the knee within 5% of it: search/leaders.h) are
 * measured again in interleaved rounds (A B C, C A B, ...), each run's
 * samples pooled with the point's earlier ones, until they are separated or
 * the budget is spent; then ranked by the pooled figures. It comes after
 * the search, which measured whole a space that fits the search's budget
 * (rt_search_run): those rounds never take the place of a point not yet
 * measured there. twl->leaders says what it did, for the reason.
 */
static int separate_leaders(tune_ctx *c, double deadline, char *err, size_t errlen)
{
	rt_tune_workload *twl = c->twl;
	if (!twl->target->confirm || !twl->result || twl->ntrials < 2)
		return RT_OK;
	int n = 0, rc = RT_ENOMEM;
	int *cand = malloc(sizeof *cand * (size_t)twl->ntrials);
	double *cost = malloc(sizeof *cost * (size_t)twl->ntrials);
	rt_leader *ld = calloc((size_t)twl->ntrials, sizeof *ld);
	if (cand && cost && ld)
		rc = leaders_gather(twl, cand, cost, ld, &n);
	leaders_ctx l = {.c = c, .cand = cand, .cost = cost, .err = err, .errlen = errlen};
	rt_leaders_opts lo = {.within = RT_KNEE_WITHIN,
			      .min_rounds = 2,
			      .clock = leaders_clock,
			      .cost = leaders_cost,
			      .measure = leaders_measure,
			      .user = &l};
	rt_leaders_result res = {0};
	if (rc == RT_OK && n >= 2) {
		lo.deadline = deadline - knee_reserve(twl, typical_cost(cost, n));
		rt_progress_note(c->progress, "%s: measuring its leaders again, interleaved, until "
					      "they are told apart",
				 twl->name);
		rc = rt_leaders_separate(ld, n, &lo, &res);
		twl->leaders = (rt_tune_leaders){.done = 1, .first = res.first_leaders,
						 .rounds = res.rounds, .runs = res.runs,
						 .separated = res.separated, .last = res.nleaders};
	}
	for (int i = 0; rc == RT_OK && i < n; i++)
		if (ld[i].again)
			take_pooled(twl, &twl->trials[cand[i]]);
	if (n)
		rt_leaders_free(ld, n);
	free(ld);
	free(cost);
	free(cand);
	return rt_tune_stop_requested() ? RT_OK : rc;
}

/*
 * When nothing measured beat the naive default beyond its noise and its
 * point of the space was not measured (the budget ran out), there is no
 * point to recommend but the naive default itself: the configuration says
 * so instead of recommending something slower. A point that cannot run here
 * (its pin binds the PUs of an earlier one, its precision is not offered)
 * was never going to be measured, whatever the budget: the pick stands.
 */
static void keep_naive_unbeaten(rt_tune_workload *twl)
{
	const rt_tune_trial *fastest, *rec;
	int kept;
	if (rt_tune_pick(twl, &fastest, &rec, &kept) || kept || !twl->naive.feasible ||
	    fastest->median > twl->naive.ci_hi || rt_tune_trial_at(twl, twl->naive_idx) ||
	    !rt_space_feasible(twl->space, twl->naive_idx))
		return;
	twl->status = RT_EINFEASIBLE;
	snprintf(twl->note, sizeof twl->note,
		 "nothing measured beat the naive default (%s %s, %d threads, no pinning: %.4g %s) "
		 "beyond the noise: keep it",
		 twl->naive.pt.backend, rt_precision_name(twl->naive.pt.precision),
		 twl->naive.pt.threads, twl->naive.median, twl->unit);
}

/*
 * Why a search found no feasible point, into its note (the configuration's
 * `none`, tune's message): each point measured with the cause it failed
 * with ("precision=fp64 threads=2: timeout"), as many as the note holds,
 * then how many more the journal has; or that none was measured, and why
 * the search stopped.
 */
static void note_infeasible(rt_tune_workload *twl)
{
	char *note = twl->note;
	size_t len = sizeof twl->note;
	int shown = 0;
	if (!twl->ntrials) {
		snprintf(note, len, "no point was measured (the search stopped: %s)",
			 twl->result && twl->result->stop ? twl->result->stop : "done");
		return;
	}
	snprintf(note, len, "every point measured was infeasible: ");
	for (; shown < twl->ntrials; shown++) {
		const rt_tune_trial *t = &twl->trials[shown];
		char what[160], one[220];
		rt_space_format(twl->space, t->idx, what, sizeof what);
		snprintf(one, sizeof one, "%s%s: %s%s", shown ? "; " : "", what,
			 rt_cause_name(t->cause), t->skipped ? " foreseen, not run" : "");
		if (strlen(note) + strlen(one) + sizeof " (and 9999 more)" > len)
			break;
		strcat(note, one);
	}
	if (shown < twl->ntrials)
		snprintf(note + strlen(note), len - strlen(note), " (and %d more)",
			 twl->ntrials - shown);
}

/* The search's result of the trials measured before it alone (an interrupted run). */
static int result_of_prior(tune_ctx *c)
{
	rt_search_result *r = rt_search_result_create(rt_space_nparams(c->twl->space));
	for (int i = 0; r && i < c->nprior; i++)
		if (rt_search_result_add(r, c->prior[i].idx, c->prior[i].value, c->prior[i].cause,
					 c->prior[i].cap_s)) {
			rt_search_result_destroy(r);
			r = NULL;
		}
	c->twl->result = r;
	return r ? RT_OK : RT_ENOMEM;
}

/*
 * The strategy's clock (rt_search_opts): the budget clock, run on to the end of
 * its budget once a trial did not fit what was left of the budget, so that
 * the strategy stops instead of proposing points that cannot run.
 */
static double search_clock(void *user)
{
	const tune_ctx *c = user;
	double now = rt_clock_now();
	return c->spent ? fmax(now, c->search_end) : now;
}

/* The recommendation against the naive default, for the progress. */
static void report_ratio(tune_ctx *c)
{
	const rt_tune_trial *fastest, *rec;
	int kept;
	if (rt_tune_pick(c->twl, &fastest, &rec, &kept))
		return;
	double ratio = rt_tune_naive_ratio(c->twl, rec);
	if (ratio > 0)
		rt_progress_note(c->progress, "%s: recommended %.4g %s, %.*fx the naive default's %.4g%s",
				 c->twl->name, rec->median, c->twl->unit, ratio < 10, ratio, c->twl->naive.median,
				 c->twl->naive.predicted ? " (predicted)" : "");
}

int rt_tune_search(tune_ctx *c, double budget, char *err, size_t errlen)
{
	rt_tune_workload *twl = c->twl;
	const rt_strategy *st = rt_strategy_find(c->run->strategy);
	RT_BUG_ON(!st); /* rt_tune refused an unknown one */
	rt_search_opts so;
	rt_search_opts_default(&so);
	so.trial_s = budget / 15 < 0.25 ? 0.25 : budget / 15 > 2.0 ? 2.0 : budget / 15;
	so.seed = c->o->seed;
	rt_space_set_feasible(twl->space, feasible, c);
	c->best_score = 0;
	snprintf(c->best, sizeof c->best, "-");
	rt_progress_note(c->progress, "tuning %s (%.0f s, %s)", twl->name, budget, st->name);
	double deadline = rt_clock_now() + budget;
	c->deadline = deadline;
	int rc = twl->target->before_search
			 ? twl->target->before_search(c, budget, so.trial_s, err, errlen)
			 : RT_OK;
	/* interrupted: the best so far is what was measured before the search */
	if (rc && rt_tune_stop_requested())
		return result_of_prior(c);
	so.prior = c->prior;
	so.nprior = c->nprior;
	so.start = c->have_start ? c->start : NULL;
	so.budget_s = (deadline - rt_clock_now()) * (twl->target->confirm ? 1 - CONFIRM_SHARE : 1);
	so.budget_s = fmax(so.budget_s / 2, so.budget_s - grow_reserve(twl, so.trial_s));
	so.clock = search_clock;
	so.clock_user = c;
	c->search_end = rt_clock_now() + so.budget_s;
	if (rc == RT_OK)
		rc = rt_search_run(st, twl->space, rt_tune_objective, c, &so, &twl->result, err, errlen);
	if (rc == RT_OK)
		rc = separate_leaders(c, deadline, err, errlen);
	if (rc == RT_OK)
		rc = grow_batch(c, deadline, so.trial_s);
	if (rc == RT_OK)
		rc = walk_to_knee(c, deadline, so.trial_s);
	if (rc == RT_EINFEASIBLE) {
		twl->status = rc;
		snprintf(twl->note, sizeof twl->note, "no feasible point in the space on this machine");
		return RT_OK;
	}
	if (rc && rt_tune_stop_requested())
		return RT_OK;
	if (rc && twl->note[0])
		rt_fail(err, errlen, rc, "%s", twl->note);
	twl->status = rc;
	if (rc == RT_OK && (!twl->result || twl->result->best < 0)) {
		twl->status = RT_EINFEASIBLE;
		note_infeasible(twl);
	}
	if (rc == RT_OK && twl->status == RT_OK)
		keep_naive_unbeaten(twl);
	if (rc == RT_OK && twl->status == RT_OK)
		report_ratio(c);
	return rc;
}

/* ---- the run ---- */

/*
 * Loads the trials of this host's journals for reuse (unless fresh), then
 * opens the newest journal again (resume) or starts a new one.
 */
static int open_journal(const rt_tune_opts *o, rt_tune_run *run, rt_journal **j,
			rt_journal_record **reuse, size_t *nreuse, char *err, size_t errlen)
{
	const char *host = run->machine.hostname;
	int dropped = 0, rc;
	if (!o->fresh &&
	    (rc = rt_journal_load_host(o->results_dir, host, reuse, nreuse, &dropped, err, errlen)))
		return rc;
	if (o->resume) {
		rc = rt_journal_latest(o->results_dir, host, run->journal_path,
				       sizeof run->journal_path, err, errlen);
		if (rc == RT_OK)
			rc = rt_journal_open(run->journal_path, run->fingerprint, j, NULL, err, errlen);
		return rc;
	}
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "rigtune tune (budget %.0f s)%s%.900s", o->budget_s,
		 o->cmd ? " --cmd " : "", o->cmd ? o->cmd->command : "");
	rc = rt_journal_create(o->results_dir, host, run->fingerprint, &run->machine, cmd, j,
			       err, errlen);
	if (rc == RT_OK)
		snprintf(run->journal_path, sizeof run->journal_path, "%s", rt_journal_path(*j));
	return rc;
}

/* The machine; a Python named by --python must run (its frameworks are probed next). */
static int probe(const rt_tune_opts *o, rt_tune_run *run, char *err, size_t errlen)
{
	int rc = rt_machine_probe(NULL, &run->machine, err, errlen);
	if (rc)
		return rc;
	rt_probe_accelerators(&run->machine);
	rt_machine_fingerprint(&run->machine, run->fingerprint);
	run->usable_cores = rt_machine_pcores(&run->machine);
	rc = o->python ? rt_frameworks_check(o->python, err, errlen) : RT_OK;
	return rc ? rt_fail(err, errlen, rc, "--python: %.400s", err) : RT_OK;
}

/*
 * Kernels narrower than the CPU's run every CPU trial below its speed: said
 * before them, and the kernel sets the CPU allows measured, or their figures
 * kept from an earlier tune reused (blas_cores.h), the fastest to be
 * recommended in the configuration's env.
 */
static void blas_kernels(rt_tune_run *run, rt_progress *progress)
{
	char note[RT_MF_TEXT_LEN], err[RT_ERRLEN], line[512] = "", when[600] = "";
	rt_blas_kernels_note(run->machine.blas_core, run->machine.vector_isa, note, sizeof note);
	if (!note[0])
		return;
	rt_progress_note(progress, "warning: %s", note);
	if (rt_blas_cores_get(&run->machine, BLAS_CORE_SECONDS, &run->blas, err, sizeof err)) {
		rt_progress_note(progress, "OpenBLAS's kernel sets not measured: %s", err);
		run->blas.n = 0;
		return;
	}
	for (int i = 0; i < run->blas.n; i++) {
		char one[64];
		snprintf(one, sizeof one, "%s %.1f", run->blas.core[i], run->blas.gflops[i]);
		rt_list_append(line, sizeof line, ", ", one);
	}
	if (run->blas.measured[0])
		snprintf(when, sizeof when, " (measured %s, kept in %s)", run->blas.measured,
			 run->blas.kept);
	const char *pick = rt_blas_cores_pick(&run->blas);
	rt_progress_note(progress,
			 "OpenBLAS's kernel sets, 1-thread SGEMM GFLOP/s%s: %s: %s%s (%.2fx)", when,
			 line, pick[0] ? "recommending OPENBLAS_CORETYPE=" : "none faster than ",
			 pick[0] ? pick : run->machine.blas_core, run->blas.ratio);
	if (run->blas.not_kept[0])
		rt_progress_note(progress, "the kernel sets' figures are not kept for the next tune: %s",
				 run->blas.not_kept);
}

/* What the probe times for the run's hints: SB3's vector step where a workload gives SB3 lines. */
static unsigned probe_timed(const rt_tune_run *run)
{
	for (int i = 0; i < run->nwl; i++)
		if (run->wl[i].w && rt_workload_hints_lib(run->wl[i].w, RT_HINT_SB3))
			return RT_FW_TIME_SB3_STEP;
	return 0;
}

/* The frameworks the hints follow, all probed within `seconds`, before the measuring. */
static void probe_frameworks(const rt_tune_opts *o, rt_tune_run *run, double seconds,
			     rt_progress *progress)
{
	char err[RT_ERRLEN];
	rt_progress_note(progress, "probing the ML frameworks of %s (%.0f s at most)",
			 o->python ? o->python : "python3", seconds);
	if (rt_frameworks_probe(o->python, seconds, probe_timed(run), &run->frameworks, err,
				sizeof err))
		snprintf(run->frameworks.note, sizeof run->frameworks.note, "%.280s", err);
}

/* What to search: the user's command, or the workloads on the backends. */
static int resolve(const rt_tune_opts *o, rt_tune_run *run, char *err, size_t errlen)
{
	if (!o->cmd)
		return rt_tune_workloads_resolve(o, run, err, errlen);
	rt_tune_workload *twl = &run->wl[run->nwl++];
	twl->target = &rt_tune_target_command;
	return rt_tune_command_setup(o, run, twl, err, errlen);
}

/* Every search's space against what its target takes, before anything is measured. */
static int check_spaces(const rt_tune_opts *o, rt_tune_run *run, char *err, size_t errlen)
{
	int rc = RT_OK;
	for (int i = 0; i < run->nwl && !rc; i++) {
		tune_ctx c = {.run = run, .twl = &run->wl[i], .o = o};
		if (c.twl->target->check_space)
			rc = c.twl->target->check_space(&c, err, errlen);
	}
	return rc;
}

int rt_tune(const rt_tune_opts *o, rt_tune_run *run, rt_progress *progress, char *err,
	    size_t errlen)
{
	memset(run, 0, sizeof *run);
	rt_tune_interrupt_clear();
	double t0 = rt_clock_now();
	run->strategy = o->strategy ? o->strategy : RT_STRATEGY_DEFAULT;
	if (!rt_strategy_find(run->strategy))
		return rt_fail(err, errlen, RT_EINVAL, "unknown strategy '%s'", run->strategy);
	rt_journal *journal = NULL;
	rt_journal_record *reuse = NULL;
	size_t nreuse = 0;
	int rc = probe(o, run, err, errlen);
	if (!rc)
		rc = resolve(o, run, err, errlen);
	if (!rc)
		rc = check_spaces(o, run, err, errlen);
	if (!rc && o->ready)
		rc = o->ready(o->ready_user, err, errlen);
	if (!rc)
		rc = open_journal(o, run, &journal, &reuse, &nreuse, err, errlen);
	if (rc)
		goto out;
	/* the kernel sets' benches run before the budget: it is the search's, as --budget says */
	double blas_t0 = rt_clock_now();
	blas_kernels(run, progress);
	t0 += rt_clock_now() - blas_t0;
	probe_frameworks(o, run, fmin(RT_FRAMEWORK_DEADLINE_S, PROBE_SHARE * o->budget_s), progress);
	double probed = rt_clock_now() - t0;
	/* the crossover's and the baseline rounds' shares are kept back; the workloads share what
	   the probes left */
	double xo_budget = rt_tune_crossover_reserve(o, run);
	double base_budget = !o->cmd && journal ? RT_TUNE_BASELINE_SHARE * o->budget_s : 0;
	double weights = 0;
	for (int i = 0; i < run->nwl; i++)
		weights += workload_weight(&run->wl[i]);
	hwloc_topology_t topo = NULL;
	if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo)) {
		hwloc_topology_destroy(topo);
		topo = NULL;
	}
	for (int i = 0; i < run->nwl && !rc && !rt_tune_stop_requested(); i++) {
		tune_ctx c = {.run = run, .twl = &run->wl[i], .o = o, .progress = progress,
			      .journal = journal, .reuse = reuse, .nreuse = nreuse, .topo = topo};
		double left = o->budget_s - xo_budget - base_budget - (rt_clock_now() - t0);
		double budget = left * workload_weight(c.twl) / weights;
		weights -= workload_weight(c.twl);
		if (budget < MIN_SEARCH_S) {
			c.twl->status = RT_EINFEASIBLE;
			snprintf(c.twl->note, sizeof c.twl->note, "no time left in the budget");
		} else {
			rc = rt_tune_search(&c, budget, err, errlen);
		}
	}
	double left = o->budget_s - base_budget - (rt_clock_now() - t0), fit_s = 0;
	rt_crossover_sweep_opts xo = {0};
	int swept = !rc && !rt_tune_stop_requested() && xo_budget > 0 && left >= MIN_SEARCH_S &&
		    rt_tune_crossover_sweep(o, run, left, progress, &xo);
	if (swept) /* what the sweep left of its fitting time */
		fit_s = fmax(0, o->budget_s - base_budget - (rt_clock_now() - t0));
	rt_tune_rounds rounds = {.o = o, .run = run, .journal = journal, .progress = progress,
				 .topo = topo, .xo = swept ? &xo : NULL,
				 .deadline = t0 + o->budget_s - fit_s, .stop = rt_tune_stop_requested};
	if (!rc && !rt_tune_stop_requested() && base_budget > 0) {
		rc = rt_tune_baseline(&rounds, err, errlen);
		if (rc && rt_tune_stop_requested()) /* interrupted: what was measured stands */
			rc = RT_OK;
	}
	if (swept)
		rt_tune_crossover_fit(run, progress);
	if (topo)
		hwloc_topology_destroy(topo);
	run->interrupted = rt_tune_stop_requested();
	rt_progress_note(progress, "%.1f s: %.1f s probing the machine and its frameworks, %.1f s "
				   "measuring",
			 rt_clock_now() - t0, probed, rt_clock_now() - t0 - probed);
out:
	rt_progress_done(progress);
	rt_journal_close(journal);
	rt_journal_records_free(reuse, nreuse);
	run->seconds = rt_clock_now() - t0;
	return rc;
}

void rt_tune_run_free(rt_tune_run *run)
{
	for (int i = 0; i < run->nwl; i++) {
		rt_space_destroy(run->wl[i].space);
		rt_search_result_destroy(run->wl[i].result);
		for (int t = 0; t < run->wl[i].ntrials; t++)
			free(run->wl[i].trials[t].samples);
		free(run->wl[i].trials);
		rt_tune_command_free(run->wl[i].cmd);
	}
	/* the analysis's fits point into the sweep's replay: free them first */
	if (run->xo_fitted)
		rt_crossover_analysis_free(&run->xo);
	rt_crossover_data_free(&run->crossover);
	memset(run, 0, sizeof *run);
}
