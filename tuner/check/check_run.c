/*
 * check_run.c: the run of `rigtune check` (check.h, check_run.h): baseline,
 * machine diff, interleaved adaptive measurement with the canary (or the
 * sides of an A/B check), verdicts, notes and suggestions.
 */
#include "check_run.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../backends.h"
#include "../contention.h"
#include "../measure.h"
#include "../progress.h"
#include "check_likely.h"
#include "check_pairs.h"

/*
 * A slowdown or speedup holds in most trials now and in two at least, and
 * in the last CONFIRM_TRIALS trials, which end confirm_s or more after the
 * first began: a host can slow a VM's cores for seconds (a neighbour, a
 * migration), and a check that lasted less would call that a regression.
 * confirm_s is CONFIRM_SHARE of the budget, at most CONFIRM_MAX_S.
 */
#define CONFIRM_TRIALS 2
#define CONFIRM_SHARE 0.5
#define CONFIRM_MAX_S 20.0
/* What a trial costs when neither the baseline nor this run has timed one. */
#define UNKNOWN_TRIAL_S 1.0
#define BOOTSTRAP_REPS 2000
/* The budget for a baseline that does not say how long its tune took. */
#define DEFAULT_BUDGET_S 60.0
/*
 * The least default budget: the one whose share is the whole CONFIRM_MAX_S,
 * since a tune of a few seconds would leave a check no time to see a
 * slowdown hold. An unchanged machine's check ends long before; only a
 * point that looks changed takes it.
 */
#define MIN_DEFAULT_BUDGET_S (CONFIRM_MAX_S / CONFIRM_SHARE)

void rt_check_opts_default(rt_check_opts *o)
{
	*o = (rt_check_opts){.budget_s = 0, .threshold = 0.05, .alpha = 0.01, .seed = 1};
}

static void add_line(char lines[][640], int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_line(char lines[][640], int *n, const char *fmt, ...)
{
	if (*n == RT_CHECK_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(lines[(*n)++], 640, fmt, ap);
	va_end(ap);
}

/* ---- this machine, and what changed ---- */

/* This machine, probed: the other side of the diff. */
static int probe_now(rt_check_run *run, char *err, size_t errlen)
{
	int rc = rt_machine_probe(NULL, &run->machine, err, errlen);
	if (rc)
		return rc;
	rt_probe_accelerators(&run->machine);
	rt_machine_fingerprint(&run->machine, run->fingerprint);
	return RT_OK;
}

/* RT_EINVAL naming the hardware fields that differ, unless forced. */
static int refuse_other_hardware(const rt_check_run *run, const rt_check_opts *o, char *err,
				 size_t errlen)
{
	char fields[512] = "";
	size_t used = 0;
	for (size_t i = 0; i < run->diff.n; i++) {
		const rt_mdiff_entry *e = &run->diff.v[i];
		if (rt_mdiff_is_hardware(e) && used < sizeof fields)
			used += (size_t)snprintf(fields + used, sizeof fields - used,
						 "%s%s %s -> %s", used ? ", " : "", e->field,
						 e->before ? e->before : "(none)",
						 e->after ? e->after : "(none)");
	}
	if (!fields[0] || o->force)
		return RT_OK;
	return rt_fail(err, errlen, RT_EINVAL,
		       "%s was measured on other hardware (%s): its numbers say nothing about "
		       "this machine; --force compares anyway",
		       run->base.path, fields);
}

static int diff_machine(rt_check_run *run, const rt_check_opts *o, char *err, size_t errlen)
{
	const rt_baseline *b = &run->base;
	if (!b->machine) {
		add_line(run->notes, &run->nnotes,
			 "%s keeps no machine description (a journal from before the header had "
			 "one): only its fingerprint is compared (%s, now %s)",
			 b->path, b->fingerprint, run->fingerprint);
		return RT_OK;
	}
	rt_yr r = rt_yr_with_err(b->mr, err, errlen);
	int rc = rt_machine_read(&r, b->machine, &run->then, NULL);
	if (rc)
		return rc;
	if ((rc = rt_mdiff_compute(&run->then, &run->machine, &run->diff)))
		return rt_fail(err, errlen, rc, "out of memory");
	return refuse_other_hardware(run, o, err, errlen);
}

/* ---- measuring ---- */

static rt_canary_use canary_use(const rt_check_opts *o)
{
	return o->ab ? RT_CANARY_AB : o->no_canary ? RT_CANARY_OFF : RT_CANARY_USE;
}

static int compare_canary(rt_check_run *run, const rt_check_opts *o, char *err, size_t errlen)
{
	return rt_check_canary_compare(&run->canary, &run->base, canary_use(o), o->seed, err,
				       errlen);
}

/* The trial's samples and its median; p->trials counts it already. */
static int keep_samples(rt_check_point *p, const rt_measurement *m)
{
	double *med = realloc(p->medians, sizeof(double) * (size_t)p->trials);
	if (!med)
		return RT_ENOMEM;
	p->medians = med;
	int *tn = realloc(p->trial_n, sizeof(int) * (size_t)p->trials);
	if (!tn)
		return RT_ENOMEM;
	p->trial_n = tn;
	p->medians[p->trials - 1 - p->failures] = m->median;
	p->trial_n[p->trials - 1 - p->failures] = m->nsamples;
	if (p->nsamples + m->nsamples > p->cap) {
		int cap = 2 * (p->nsamples + m->nsamples);
		double *v = realloc(p->samples, sizeof(double) * (size_t)cap);
		if (!v)
			return RT_ENOMEM;
		p->samples = v;
		p->cap = cap;
	}
	memcpy(p->samples + p->nsamples, m->samples, sizeof(double) * (size_t)m->nsamples);
	p->nsamples += m->nsamples;
	return RT_OK;
}

/*
 * The trials' medians against the baseline's: how many were past the
 * threshold, each way (in all, and among the last CONFIRM_TRIALS), and their
 * range.
 */
static void count_trials(rt_check_point *p, double threshold)
{
	/* every baseline trial, as a change must hold against them all (rt_compare: kept_only) */
	double base = rt_base_point_median(p->base);
	int ran = p->trials - p->failures;
	p->slow_trials = p->fast_trials = p->slow_last = p->fast_last = 0;
	for (int i = 0; i < ran; i++) {
		double m = p->medians[i];
		int slow = m <= base * (1 - threshold), fast = m >= base * (1 + threshold);
		int last = i >= ran - CONFIRM_TRIALS;
		p->slow_trials += slow;
		p->fast_trials += fast;
		p->slow_last += slow && last;
		p->fast_last += fast && last;
		p->trial_lo = i ? fmin(p->trial_lo, m) : m;
		p->trial_hi = i ? fmax(p->trial_hi, m) : m;
	}
}

/* A/B: side A's trial gives the point's baseline samples, measured now too. */
static int keep_side_a(rt_check_run *run, rt_check_point *p, const rt_measurement *m)
{
	rt_base_point *b = &run->base.points[p - run->points];
	p->a_last = m->feasible ? m->median : NAN;
	if (!m->feasible) {
		snprintf(p->a_infeasible, sizeof p->a_infeasible, "%s", m->reason);
		p->a_failures++;
		return RT_OK;
	}
	double *v = realloc(b->samples, sizeof(double) * (size_t)(b->nsamples + m->nsamples));
	if (!v)
		return RT_ENOMEM;
	memcpy(v + b->nsamples, m->samples, sizeof(double) * (size_t)m->nsamples);
	b->samples = v;
	b->nsamples += m->nsamples;
	b->contention = fmax(b->contention, m->contention);
	p->a_infeasible[0] = '\0';
	return RT_OK;
}

/* This side's trial, begun at t0: samples now, or why it did not run. */
static int keep_now(rt_check_point *p, const rt_measurement *m, double t0)
{
	int rc = RT_OK;
	p->b_last = m->feasible ? m->median : NAN;
	if (!p->trials)
		p->first_s = t0;
	p->last_s = rt_now();
	p->trials++;
	p->trial_s = fmax(p->trial_s, m->seconds);
	p->contention = fmax(p->contention, m->contention);
	if (m->feasible) {
		rc = keep_samples(p, m);
		p->infeasible[0] = '\0';
	} else {
		snprintf(p->infeasible, sizeof p->infeasible, "%s", m->reason);
		p->cause = m->cause;
		p->failures++;
	}
	return rc;
}

static void note_trial(const rt_check_point *p, const rt_check_opts *o, int side,
		       const rt_measurement *m, rt_progress *progress)
{
	char what[256], side_name[8] = "";
	rt_base_point_label(p->base, what, sizeof what);
	if (o->ab)
		snprintf(side_name, sizeof side_name, " %c", side ? 'B' : 'A');
	double left = progress->budget_s - (rt_clock_now() - progress->start);
	if (m->feasible)
		rt_progress_note(progress, "check trial %d%s (%.0f s left): %s: %.4g %s%s",
				 progress->trials + 1, side_name, left > 0 ? left : 0, what,
				 m->median, p->base->unit,
				 m->contended ? " (other processes took its cores: set aside)" : "");
	else
		rt_progress_note(progress, "check trial %d%s: %s: infeasible: %s",
				 progress->trials + 1, side_name, what, m->reason);
}

/*
 * A trial other processes contended is set aside, as tune measures such a
 * trial again: its figures are low by the others' share, and kept they read
 * as a regression on an unchanged machine. The point stays undecided, so the
 * next round measures it again.
 */
static void set_aside(rt_check_point *p, int side, const rt_measurement *m)
{
	if (side == 0)
		p->a_last = NAN;
	else
		p->b_last = NAN;
	p->set_aside++;
	p->set_aside_contention = fmax(p->set_aside_contention, m->contention);
	p->trial_s = fmax(p->trial_s, m->seconds);
}

/* One trial of p: now's side (0 and 1 in A/B: A, the baseline's side, and B). */
static int run_trial(rt_check_run *run, rt_check_point *p, int side, const rt_check_opts *o,
		     rt_progress *progress, char *err, size_t errlen)
{
	rt_measurement m;
	double t0 = rt_now();
	int rc = rt_check_trial(p->base, o->ab ? &o->side[side] : NULL, o->rigtune, run->lockdir,
				&run->machine, &m, err, errlen);
	if (rc)
		return rc;
	int b_side = !o->ab || side == 1;
	if (m.feasible && m.contended)
		set_aside(p, b_side, &m);
	else
		rc = b_side ? keep_now(p, &m, t0) : keep_side_a(run, p, &m);
	if (!o->quiet)
		note_trial(p, o, side, &m, progress);
	progress->trials++;
	rt_measurement_free(&m);
	if (rc == RT_ENOMEM)
		rt_fail(err, errlen, rc, "out of memory");
	return rc;
}

static double confirm_s_of(double budget_s)
{
	return fmin(CONFIRM_MAX_S, CONFIRM_SHARE * budget_s);
}

/*
 * Whether the slowdown or speedup that the samples show held in most trials
 * now, and in two at least: one trial slowed by a burst of other work is
 * not a regression, nor is a point whose trials disagree.
 */
static int held_in_trials(const rt_check_point *p)
{
	int past = p->cmp.change == RT_CHANGE_SLOWER ? p->slow_trials : p->fast_trials;
	return past >= CONFIRM_TRIALS && 2 * past > p->trials;
}

/* Whether it held in the last trials too: still there when measured again later. */
static int held_at_last(const rt_check_point *p)
{
	int last = p->cmp.change == RT_CHANGE_SLOWER ? p->slow_last : p->fast_last;
	return last == CONFIRM_TRIALS;
}

/* Whether the trials now span confirm_s (confirm_s_of). */
static int spanned(const rt_check_point *p, double confirm_s)
{
	return p->last_s - p->first_s >= confirm_s;
}

/* A change called: held in most trials, in the last ones, over confirm_s. */
static int confirmed(const rt_check_point *p, double confirm_s)
{
	return held_in_trials(p) && held_at_last(p) && spanned(p, confirm_s);
}

/*
 * now against the baseline, as measured (the canary decides nothing:
 * check_canary.h). Each trial is one draw of the machine's state, on either
 * side (rt_trials), and a trial of the slower half slower than its side's
 * fastest by more than half the threshold is left out as one the host slowed
 * (keep_within): within half, the trials kept cannot carry the CI past the
 * threshold between them.
 */
static int compare_point(rt_check_point *p, const rt_check_opts *o)
{
	rt_compare_opts co = {.alpha = o->alpha, .threshold = o->threshold,
			      .reps = BOOTSTRAP_REPS, .seed = o->seed,
			      .base_trials = {p->base->trial_n, (size_t)p->base->trials},
			      .now_trials = {p->trial_n, (size_t)(p->trials - p->failures)},
			      .keep_within = o->threshold / 2};
	int rc = rt_compare(p->base->samples, (size_t)p->base->nsamples, p->samples,
			    (size_t)p->nsamples, &co, &p->cmp);
	p->base_median = p->cmp.base_median;
	p->now_median = p->cmp.now_median;
	count_trials(p, o->threshold);
	return rc;
}

/* A/B: the pairs of trials (check_pairs.h); the pooled samples give the medians shown. */
static int compare_pairs(rt_check_point *p, const rt_check_opts *o)
{
	rt_compare_opts co = {.alpha = o->alpha, .threshold = o->threshold,
			      .reps = BOOTSTRAP_REPS, .seed = o->seed};
	rt_comparison pooled;
	int rc = rt_compare(p->base->samples, (size_t)p->base->nsamples, p->samples,
			    (size_t)p->nsamples, &co, &pooled);
	if (rc == RT_OK)
		rt_compare_pairs(p->pairs, (size_t)p->npairs, &pooled.test, &co, &p->cmp);
	p->base_median = pooled.base_median;
	p->now_median = pooled.now_median;
	return rc;
}

/* After each trial: the comparison so far, and whether the point needs no more. */
static int judge(const rt_check_run *run, rt_check_point *p, const rt_check_opts *o,
		 char *err, size_t errlen)
{
	if (p->infeasible[0]) {
		/* as tune's reuse: a crash or a timeout may be the machine's mood */
		int transient = p->cause == RT_CAUSE_CRASH || p->cause == RT_CAUSE_TIMEOUT;
		p->verdict = RT_VERDICT_INFEASIBLE;
		p->done = !transient || p->failures >= CONFIRM_TRIALS;
		return RT_OK;
	}
	if (p->base->nsamples == 0) { /* A/B: side A did not run */
		p->verdict = RT_VERDICT_INCONCLUSIVE;
		p->done = p->a_failures >= CONFIRM_TRIALS;
		return RT_OK;
	}
	if (p->nsamples == 0) { /* every trial now was set aside: measure again */
		p->verdict = RT_VERDICT_INCONCLUSIVE;
		p->done = 0;
		return RT_OK;
	}
	int rc = o->ab ? compare_pairs(p, o) : compare_point(p, o);
	if (rc == RT_EINVAL) {
		char what[256];
		rt_base_point_label(p->base, what, sizeof what);
		return rt_fail(err, errlen, rc, "the baseline's samples of %s have a median of 0",
			       what);
	}
	if (rc)
		return rt_fail(err, errlen, rc, "out of memory");
	switch (p->cmp.change) {
	case RT_CHANGE_SAME:
		p->verdict = RT_VERDICT_UNCHANGED;
		p->done = 1;
		break;
	case RT_CHANGE_SLOWER:
	case RT_CHANGE_FASTER: {
		/* A/B: the pairs are the trials, interleaved; each one already counts */
		int called = o->ab || confirmed(p, run->confirm_s);
		p->done = called;
		p->verdict = !called				     ? RT_VERDICT_INCONCLUSIVE
			     : p->cmp.change == RT_CHANGE_SLOWER ? RT_VERDICT_REGRESSION
								  : RT_VERDICT_IMPROVEMENT;
		break;
	}
	default:
		/* A/B: side A gains samples too, so more trials can always decide */
		p->verdict = RT_VERDICT_INCONCLUSIVE;
		/* kept_only: a later trial at the baseline's rate can decide it */
		p->done = !o->ab && !p->cmp.kept_only &&
			  p->trials >= CONFIRM_TRIALS && p->cmp.more_samples == 0;
	}
	return RT_OK;
}

static double expected_trial_s(const rt_check_point *p)
{
	if (p->trial_s > 0)
		return p->trial_s;
	return p->base->trial_s > 0 ? p->base->trial_s : UNKNOWN_TRIAL_S;
}

/* A/B: the round's two trials as one pair, when both ran. */
static int keep_pair(rt_check_point *p, char *err, size_t errlen)
{
	if (!(p->a_last > 0 && p->b_last > 0))
		return RT_OK;
	double *v = realloc(p->pairs, sizeof(double) * (size_t)(p->npairs + 1));
	if (!v)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	p->pairs = v;
	p->pairs[p->npairs++] = log(p->b_last / p->a_last);
	return RT_OK;
}

/*
 * One trial of p, then canary samples when the baseline has a canary to
 * show beside it (after the trial, as the tune took its own: the same place
 * between trials, so that the two series are measured alike), and the point
 * judged on what is known so far. A/B: a trial on each side, A first in even
 * rounds and B first in odd ones, so that a drift of the machine falls on
 * both alike.
 */
static int measure_once(rt_check_run *run, rt_check_point *p, int round, const rt_check_opts *o,
			rt_progress *progress, char *err, size_t errlen)
{
	int rc = RT_OK;
	if (o->ab)
		rc = run_trial(run, p, round % 2, o, progress, err, errlen);
	if (rc == RT_OK)
		rc = run_trial(run, p, o->ab ? !(round % 2) : 0, o, progress, err, errlen);
	if (rc == RT_OK && o->ab)
		rc = keep_pair(p, err, errlen);
	if (rc == RT_OK && rt_check_canary_wanted(&run->base, canary_use(o)))
		rc = rt_check_canary_tick(&run->canary, err, errlen);
	return rc == RT_OK ? judge(run, p, o, err, errlen) : rc;
}

/* What p's next trial is expected to take (both sides' in A/B). */
static double next_trial_s(const rt_check_point *p, const rt_check_opts *o)
{
	return expected_trial_s(p) * (o->ab ? 2 : 1);
}

/*
 * Whether p is measured before the others: a slowdown that its samples so
 * far put wholly past the threshold (the CI's upper end too) and that is not
 * called yet. Its next trials are what decide it; a runner-up's repeats can
 * wait (issue 46: a library 9x slower ended a check undecided after one
 * trial of it, the budget spent on other points).
 */
static int pressing(const rt_check_point *p, const rt_check_opts *o)
{
	return !p->done && p->nsamples > 0 && p->verdict == RT_VERDICT_INCONCLUSIVE &&
	       p->cmp.ci_hi < 1 - o->threshold;
}

/* The classes of next_point, in its order. */
enum { NEXT_FIRST, NEXT_PRESSING, NEXT_AGAIN };

/* Whether p is of the class, and its trial fits the budget but for a first one. */
static int next_in_class(const rt_check_point *p, int class, const rt_check_opts *o, double now,
			 double deadline)
{
	if (p->done)
		return 0;
	if (class == NEXT_FIRST)
		return !p->rounds;
	int fits = now + next_trial_s(p, o) <= deadline;
	return fits && (class == NEXT_PRESSING ? pressing(p, o) : p->rounds > 0);
}

/*
 * The next point to measure, NULL when none is left that fits the budget;
 * in each class the points in turn, from the one after *turn (which moves
 * to the point picked):
 *   1. a point not yet measured (its first trial runs whatever the budget);
 *   2. a pressing point, while its trial fits;
 *   3. the other undecided points, each while its trial fits.
 * A change is still called only when it held over confirm_s of trials
 * (confirmed), so measuring a pressing point first changes which trials fill
 * that time, not how long a host's spell must last to be called.
 */
static rt_check_point *next_point(rt_check_run *run, const rt_check_opts *o, double deadline,
				  int *turn)
{
	double now = rt_clock_now();
	for (int class = NEXT_FIRST; class <= NEXT_AGAIN; class++)
		for (int k = 1; k <= run->npoints; k++) {
			int i = (*turn + k) % run->npoints;
			if (next_in_class(&run->points[i], class, o, now, deadline)) {
				*turn = i;
				return &run->points[i];
			}
		}
	return NULL;
}

/*
 * Trials of the undecided points, one at a time as next_point picks them,
 * until every point is decided or no next trial fits the budget (a point's
 * first trial runs whatever the budget).
 */
static int measure_points(rt_check_run *run, const rt_check_opts *o, char *err, size_t errlen)
{
	rt_progress progress;
	rt_progress_init(&progress, run->budget_s, o->quiet);
	double deadline = progress.start + run->budget_s;
	int rc = RT_OK, turn = -1;
	for (rt_check_point *p; rc == RT_OK && (p = next_point(run, o, deadline, &turn));)
		rc = measure_once(run, p, p->rounds++, o, &progress, err, errlen);
	rt_progress_done(&progress);
	run->seconds = rt_clock_now() - progress.start;
	return rc;
}

/* ---- verdicts in words ---- */

/* The change in words. */
static void say_change(const rt_check_point *p, char *buf, size_t len)
{
	const rt_comparison *c = &p->cmp;
	double pct = 100 * (c->ratio - 1);
	snprintf(buf, len, "%.1f%% %s (95%% CI %+.1f%% to %+.1f%%), p = %.2g", fabs(pct),
		 pct < 0 ? "slower" : "faster", 100 * (c->ci_lo - 1), 100 * (c->ci_hi - 1),
		 c->test.p);
}

/* A change the samples show that did not hold as confirmed() asks: why not. */
static void explain_unconfirmed(rt_check_point *p, const char *change, double confirm_s)
{
	int past = p->cmp.change == RT_CHANGE_SLOWER ? p->slow_trials : p->fast_trials;
	size_t len = sizeof p->reason;
	int n = snprintf(p->reason, len,
			 "%s; %d of %d trials now past the threshold (trial medians %.4g to %.4g "
			 "%s)",
			 change, past, p->trials, p->trial_lo, p->trial_hi, p->base->unit);
	if (n < 0 || (size_t)n >= len)
		return;
	char *tail = p->reason + n;
	len -= (size_t)n;
	if (!held_in_trials(p))
		snprintf(tail, len, ": it must hold in most trials, and two at least; the machine "
			 "is busy or this point is unstable: check again when it is quiet");
	else if (!held_at_last(p))
		snprintf(tail, len, ", but not the last two: a slowdown that passed is the "
			 "machine's (a host can slow a VM's cores for seconds), not the component's");
	else
		snprintf(tail, len, ", over %.1f s only: a change is called when it still holds "
			 "%.0f s after the point's first trial (a host can slow a VM's cores for "
			 "seconds); a longer --budget gives it that time",
			 p->last_s - p->first_s, confirm_s);
}

static void explain_inconclusive(rt_check_point *p, const rt_check_opts *o, const char *change,
				 double t, double confirm_s)
{
	const rt_comparison *c = &p->cmp;
	if (c->kept_only)
		snprintf(p->reason, sizeof p->reason,
			 "unknown: %s against the baseline's fastest trials, not all of them: its "
			 "slower ones (left out) may be the host's usual state, not a spell; check "
			 "again when it is quiet or with a longer --budget, or A/B in one session "
			 "(--a, --b)",
			 change);
	else if (c->change == RT_CHANGE_UNDECIDED && o->ab)
		snprintf(p->reason, sizeof p->reason,
			 "unknown, needs about %ld more pairs of trials (a longer --budget; %d so "
			 "far): %s",
			 c->more_samples, p->npairs, change);
	else if (c->change != RT_CHANGE_UNDECIDED)
		explain_unconfirmed(p, change, confirm_s);
	else if (c->more_samples > 0)
		snprintf(p->reason, sizeof p->reason,
			 "unknown, needs about %ld more samples (a longer --budget): %s",
			 c->more_samples,
			 change);
	else
		snprintf(p->reason, sizeof p->reason,
			 "unknown, cannot be decided: the change now is within the baseline's own "
			 "spread (+-%.1f%%, %zu samples) of the %.3g%% threshold; tune again "
			 "for a baseline with more samples (%s)",
			 100 * c->base_halfwidth, c->base_n, t, change);
}

/* The trials set aside, after the reason: what the verdict did not count. */
static void say_set_aside(rt_check_point *p)
{
	size_t n = strlen(p->reason);
	if (p->set_aside && n < sizeof p->reason)
		snprintf(p->reason + n, sizeof p->reason - n,
			 "; %d trial%s set aside, other processes took up to %.0f%% of %s cores",
			 p->set_aside, p->set_aside == 1 ? "" : "s", 100 * p->set_aside_contention,
			 p->set_aside == 1 ? "its" : "their");
}

/* The trials the comparison left out (keep_within), after the reason. */
static void say_left_out(rt_check_point *p, double threshold)
{
	const rt_comparison *c = &p->cmp;
	size_t n = strlen(p->reason);
	if (!rt_check_point_compared(p) || !(c->base_left_out + c->now_left_out) ||
	    n >= sizeof p->reason)
		return;
	snprintf(p->reason + n, sizeof p->reason - n,
		 "; left out as slowed by the host, more than %.3g%% below their side's fastest "
		 "trial: %zu of %d in the baseline, %zu of %d now",
		 100 * threshold / 2, c->base_left_out, p->base->trials, c->now_left_out,
		 p->trials - p->failures);
}

/* A likely regression: what every sample showed, then why it was not decided. */
static void explain_likely(rt_check_point *p, const rt_check_opts *o, const char *change,
			   double t, double confirm_s)
{
	explain_inconclusive(p, o, change, t, confirm_s);
	char undecided[sizeof p->reason];
	snprintf(undecided, sizeof undecided, "%s", p->reason);
	/* the undecided reason cut to what fits after the rule's own words */
	snprintf(p->reason, sizeof p->reason,
		 "every one of the %d samples %s (%d trial%s) is more than %.3g%% slower than "
		 "%s median (of %d), too many to fall so by chance (p <= %.2g); not decided: "
		 "%.300s",
		 p->nsamples, o->ab ? "of B" : "now", p->trials - p->failures,
		 p->trials - p->failures == 1 ? "" : "s", t, o->ab ? "A's" : "the baseline's",
		 p->base->nsamples,
		 rt_check_below_chance(p->base->samples, (size_t)p->base->nsamples,
				       (size_t)p->nsamples, o->threshold),
		 undecided);
}

static void explain_verdict(rt_check_point *p, const rt_check_opts *o, double confirm_s)
{
	char change[224];
	double t = 100 * o->threshold;
	if (p->verdict == RT_VERDICT_NOT_RUN) {
		snprintf(p->reason, sizeof p->reason,
			 "not run: check runs a configuration's command only when given it "
			 "(--cmd, as tune had it), never the text of the file");
		return;
	}
	if (p->base->nsamples == 0 && p->verdict != RT_VERDICT_INFEASIBLE) {
		snprintf(p->reason, sizeof p->reason, "A does not run (%d trials): %s",
			 p->a_failures, p->a_infeasible);
		return;
	}
	if (p->nsamples == 0 && p->verdict != RT_VERDICT_INFEASIBLE) {
		snprintf(p->reason, sizeof p->reason,
			 "unknown: other processes took the cores of every trial; check again "
			 "when the machine is quiet");
		return;
	}
	if (p->verdict != RT_VERDICT_INFEASIBLE)
		say_change(p, change, sizeof change);
	switch (p->verdict) {
	case RT_VERDICT_INFEASIBLE:
		snprintf(p->reason, sizeof p->reason,
			 "ran %s (%d samples), does not run %s (%s, %d of %d trials): %s",
			 o->ab ? "on A" : "in the baseline", p->base->nsamples,
			 o->ab ? "on B" : "now", rt_cause_name(p->cause), p->failures, p->trials,
			 p->infeasible);
		break;
	case RT_VERDICT_UNCHANGED:
		snprintf(p->reason, sizeof p->reason, "within %.3g%%: %s", t, change);
		break;
	case RT_VERDICT_REGRESSION:
	case RT_VERDICT_IMPROVEMENT: {
		int past = p->verdict == RT_VERDICT_REGRESSION ? p->slow_trials : p->fast_trials;
		if (o->ab)
			snprintf(p->reason, sizeof p->reason,
				 "%s, over %d pairs of trials (A B, B A, ...)", change, p->npairs);
		else
			snprintf(p->reason, sizeof p->reason,
				 "%s, in %d of %d trials over %.0f s, the last ones too", change,
				 past, p->trials, p->last_s - p->first_s);
		break;
	}
	case RT_VERDICT_LIKELY_REGRESSION:
		explain_likely(p, o, change, t, confirm_s);
		break;
	default:
		explain_inconclusive(p, o, change, t, confirm_s);
	}
}

static void explain(rt_check_point *p, const rt_check_opts *o, double confirm_s)
{
	explain_verdict(p, o, confirm_s);
	say_left_out(p, o->threshold);
	say_set_aside(p);
}

/* ---- suggestions: what in the diff may explain a change ---- */

typedef struct hint {
	const char *prefix, *suffix; /* the fields it is about */
	const char *what, *advice;   /* NULL: no suggestion (the field restates another) */
} hint;

static const hint hints[] = {
	{"blas.core", "", "OpenBLAS kernel core",
	 "OpenBLAS now runs other GEMM kernels on this CPU (a new OpenBLAS detects the CPU "
	 "otherwise); every GEMM-bound point follows. Compare `rigtune probe` before and after, "
	 "and tune again"},
	{"blas.version", "", "BLAS version",
	 "a new OpenBLAS brings other kernels and thread handling; pin the old package "
	 "(apt-cache policy libopenblas0) to confirm, or tune again"},
	{"blas.library", "", "BLAS library", "another BLAS computes every GEMM; tune again"},
	{"blas.threading", "", "BLAS threading layer",
	 "an OpenMP OpenBLAS obeys OMP_NUM_THREADS and OMP_PROC_BIND, a pthreads one "
	 "OPENBLAS_NUM_THREADS: check the env the configuration exports"},
	{"cpu.governor", "", "CPU frequency governor",
	 "a governor other than performance can cost a CPU-bound run tens of percent "
	 "(cpupower frequency-set -g performance restores it)"},
	{"cpu.freq_mhz", "", "CPU frequency range",
	 "the cores may no longer reach the baseline's clock (BIOS, power limits)"},
	{"cpu.microcode", "", "CPU microcode",
	 "microcode updates bring mitigations that can cost throughput"},
	{"os.kernel", "", "kernel",
	 "scheduler, mitigation and driver changes come with a kernel (boot the old one to "
	 "confirm)"},
	/* the CPU backend's driver and GEMM are its BLAS: the blas. fields' hints say it */
	{"accelerators[cpu", "", NULL, NULL},
	{"accelerators[", ".driver", "GPU driver",
	 "a driver update changes GPU kernels and clocks; the GPU points follow it"},
	{"accelerators[", ".available", "backend availability",
	 "a backend that no longer loads makes its points infeasible (rigtune probe says why)"},
	{"memory_gib.total", "", "memory", "less memory can make large batches infeasible"},
};

static int hint_matches(const hint *h, const char *field)
{
	size_t np = strlen(h->prefix), nf = strlen(field), ns = strlen(h->suffix);
	return !strncmp(field, h->prefix, np) && nf >= ns && !strcmp(field + nf - ns, h->suffix);
}

/*
 * The load of other processes, where the trials measured it, explains a
 * slowdown better than a guess; with neither that nor a diff, the guess.
 */
static void suggest_load(rt_check_run *run)
{
	int slowed = 0, contended = 0;
	double most = 0;
	for (int i = 0; i < run->npoints; i++) {
		const rt_check_point *p = &run->points[i];
		if (p->verdict != RT_VERDICT_REGRESSION)
			continue;
		slowed++;
		contended += p->set_aside > 0;
		most = fmax(most, p->set_aside_contention);
	}
	if (contended)
		add_line(run->suggestions, &run->nsuggestions,
			 "other processes took up to %.0f%% of the cores of some trials of %d of "
			 "the %d slowed point%s (the kernel's CPU time, steal included; those "
			 "trials were set aside, but a busy machine slows the others too, through "
			 "memory and caches): that load, not an upgrade, may be the slowdown; "
			 "check again when the machine is quiet",
			 100 * most, contended, slowed, slowed == 1 ? "" : "s");
	else if (slowed && !run->nsuggestions && run->base.machine)
		add_line(run->suggestions, &run->nsuggestions,
			 "nothing in the machine's description changed and no other process "
			 "measurably took the trials' cores: is the CPU throttled (temperature, "
			 "power limit), or another process using memory bandwidth?");
}

/*
 * A regression on a machine whose canary read slower, not enough to be taken
 * out: the canary cannot veto it (it reads so in checks of a real slowdown
 * too), but the host is a suspect that an exit 1 should name.
 */
static void suggest_spell(rt_check_run *run)
{
	char says[640];
	if (run->counts[RT_VERDICT_REGRESSION] &&
	    rt_check_canary_suspect(&run->canary, says, sizeof says))
		add_line(run->suggestions, &run->nsuggestions, "%s", says);
}

static void suggest(rt_check_run *run)
{
	int changed = run->counts[RT_VERDICT_REGRESSION] + run->counts[RT_VERDICT_IMPROVEMENT] +
		      run->counts[RT_VERDICT_INFEASIBLE];
	if (!changed)
		return;
	/* a field on one side only may be a newer probe's, not a change of the machine */
	for (size_t i = 0; i < run->diff.n; i++) {
		const rt_mdiff_entry *e = &run->diff.v[i];
		for (size_t h = 0; h < RT_COUNT(hints) && e->before && e->after; h++)
			if (hint_matches(&hints[h], e->field)) {
				if (hints[h].what)
					add_line(run->suggestions, &run->nsuggestions,
						 "%s changed (%s) %s -> %s: %s", hints[h].what,
						 e->field, e->before, e->after, hints[h].advice);
				break;
			}
	}
	suggest_load(run);
	suggest_spell(run);
}

/* ---- the run ---- */

/*
 * Whether p can run on every side: a command's point runs only the command
 * check was given (--cmd, a side's cmd:), never its configuration's text.
 */
static int runnable(const rt_check_point *p, const rt_check_opts *o)
{
	const rt_base_command *c = p->base->cmd;
	if (!c || c->run)
		return 1;
	return o->ab && o->side[0].command && o->side[1].command;
}

static int init_points(rt_check_run *run, const rt_check_opts *o)
{
	run->npoints = run->base.npoints;
	run->points = calloc((size_t)run->npoints, sizeof *run->points);
	if (!run->points)
		return RT_ENOMEM;
	for (int i = 0; i < run->npoints; i++) {
		rt_check_point *p = &run->points[i];
		p->base = &run->base.points[i];
		if (!runnable(p, o)) {
			p->verdict = RT_VERDICT_NOT_RUN;
			p->done = 1;
		}
	}
	return RT_OK;
}

/* A baseline trial that other processes contended has low figures: say which. */
static void note_contended_baseline(rt_check_run *run)
{
	char which[400] = "";
	int n = 0;
	double most = 0;
	for (int i = 0; i < run->npoints; i++) {
		const rt_base_point *b = run->points[i].base;
		if (run->points[i].verdict != RT_VERDICT_NOT_RUN && b->contention > rt_contended_share()) {
			char what[256];
			rt_base_point_label(b, what, sizeof what);
			rt_list_append(which, sizeof which, "; ", what);
			most = fmax(most, b->contention);
			n++;
		}
	}
	if (n)
		add_line(run->notes, &run->nnotes,
			 "the baseline's trial%s of %s %s contended (other processes took up to "
			 "%.0f%% of its cores): its figures are low, and an improvement there may "
			 "be that",
			 n == 1 ? "" : "s", which, n == 1 ? "was" : "were", 100 * most);
}

/*
 * An undecided point that every sample puts past the threshold below the
 * baseline's (side A's) median, with enough samples (check_likely.h).
 */
static int likely_regression(const rt_check_point *p, const rt_check_opts *o)
{
	return p->verdict == RT_VERDICT_INCONCLUSIVE && p->nsamples > 0 &&
	       rt_check_every_sample_slower(p->base->samples, (size_t)p->base->nsamples, p->samples,
					    (size_t)p->nsamples, o->threshold, o->alpha);
}

/*
 * The verdicts against the machine's change over the whole check: a point
 * decided early was judged with the canary of then.
 */
static int conclude(rt_check_run *run, const rt_check_opts *o, char *err, size_t errlen)
{
	int rc = compare_canary(run, o, err, errlen);
	for (int i = 0; rc == RT_OK && i < run->npoints; i++) {
		rt_check_point *p = &run->points[i];
		if (p->trials)
			rc = judge(run, p, o, err, errlen);
		if (rc == RT_OK && likely_regression(p, o))
			p->verdict = RT_VERDICT_LIKELY_REGRESSION;
		explain(p, o, run->confirm_s);
		run->counts[p->verdict]++;
	}
	if (rc)
		return rc;
	if (run->base.sweep_note[0] && !o->ab) /* A/B uses none of the baseline's samples */
		add_line(run->notes, &run->nnotes, "%s", run->base.sweep_note);
	if (!o->ab) /* A/B: both sides met the same load */
		note_contended_baseline(run);
	if (!o->ab) /* A/B: one machine, no diff to explain anything */
		suggest(run);
	return RT_OK;
}

/*
 * The budget given, else the time the baseline's tune took (MIN_DEFAULT_BUDGET_S
 * at least), else DEFAULT_BUDGET_S.
 */
static double budget_of(const rt_check_opts *o, const rt_baseline *b)
{
	if (o->budget_s > 0)
		return o->budget_s;
	return b->tune_s > 0 ? fmax(b->tune_s, MIN_DEFAULT_BUDGET_S) : DEFAULT_BUDGET_S;
}

/*
 * A/B: the points, measured on both sides now; the machine is the same for
 * both, so there is nothing to diff.
 */
static int prepare_ab(const rt_check_opts *o, rt_check_run *run, char *err, size_t errlen)
{
	int rc = probe_now(run, err, errlen);
	if (rc == RT_OK)
		rc = rt_baseline_load_points(o->baseline, rt_machine_pcores(&run->machine), &run->base, err,
					     errlen);
	if (rc == RT_OK && o->command)
		rc = rt_baseline_accept_command(&run->base, o->command, o->shell, err, errlen);
	run->budget_s = o->budget_s > 0 ? o->budget_s : DEFAULT_BUDGET_S;
	return rc;
}

int rt_check_prepare(const rt_check_opts *o, rt_check_run *run, char *err, size_t errlen)
{
	memset(run, 0, sizeof *run);
	run->ab = o->ab;
	if (o->ab)
		return prepare_ab(o, run, err, errlen);
	int rc = rt_baseline_load(o->baseline, &run->base, err, errlen);
	run->budget_s = budget_of(o, &run->base);
	if (rc == RT_OK && o->command)
		rc = rt_baseline_accept_command(&run->base, o->command, o->shell, err, errlen);
	if (rc == RT_OK)
		rc = probe_now(run, err, errlen);
	if (rc == RT_OK)
		rc = diff_machine(run, o, err, errlen);
	return rc;
}

/* A/B: a lock directory for the sides' bench children, which measure under ours. */
static int make_lockdir(rt_check_run *run, char *err, size_t errlen)
{
	snprintf(run->lockdir, sizeof run->lockdir, "/tmp/rigtune-check-XXXXXX");
	if (mkdtemp(run->lockdir))
		return RT_OK;
	run->lockdir[0] = '\0';
	return rt_fail(err, errlen, RT_ERUNTIME, "cannot make a directory in /tmp: %s",
		       strerror(errno));
}

static void remove_lockdir(rt_check_run *run)
{
	if (!run->lockdir[0])
		return;
	DIR *d = opendir(run->lockdir);
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(run->lockdir);
	run->lockdir[0] = '\0';
}

int rt_check_measure(const rt_check_opts *o, rt_check_run *run, char *err, size_t errlen)
{
	int rc = init_points(run, o);
	if (rc)
		return rt_fail(err, errlen, rc, "out of memory");
	run->confirm_s = confirm_s_of(run->budget_s);
	if (o->ab)
		rc = make_lockdir(run, err, errlen);
	if (rc == RT_OK)
		rc = measure_points(run, o, err, errlen);
	remove_lockdir(run);
	return rc == RT_OK ? conclude(run, o, err, errlen) : rc;
}

void rt_check_run_free(rt_check_run *run)
{
	for (int i = 0; i < run->npoints; i++) {
		free(run->points[i].samples);
		free(run->points[i].medians);
		free(run->points[i].trial_n);
		free(run->points[i].pairs);
	}
	free(run->points);
	rt_check_canary_free(&run->canary);
	rt_mdiff_free(&run->diff);
	rt_baseline_free(&run->base);
	memset(run, 0, sizeof *run);
}

int rt_check_point_compared(const rt_check_point *p)
{
	return p->nsamples > 0 && p->verdict != RT_VERDICT_INFEASIBLE;
}

double rt_check_point_base_median(const rt_check_point *p)
{
	return rt_check_point_compared(p) ? p->base_median : rt_base_point_median(p->base);
}

int rt_check_regressed(const rt_check_run *run)
{
	return rt_verdict_regressions(run->counts) > 0;
}
