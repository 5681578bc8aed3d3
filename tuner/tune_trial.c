/*
 * tune_trial.c: one trial of a search (tune_target.h), for the loop (tune.c)
 * and its targets alike: reused from this host's journals or measured by the
 * target and journaled, a contended one measured again, the canary ticked,
 * the progress told; and the flag an interruption raises.
 *
 * Below both the loop and the targets, so that they do not call each other
 * in a circle: the loop sets the targets up, the targets run trials here.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canary.h"
#include "../common/clock.h"
#include "journal.h"
#include "tune.h"
#include "tune_target.h"

static volatile sig_atomic_t interrupted;

void rt_tune_interrupt(void)
{
	interrupted = 1;
}

void rt_tune_interrupt_clear(void)
{
	interrupted = 0;
}

int rt_tune_stop_requested(void)
{
	return interrupted;
}

static rt_tune_trial *new_trial(rt_tune_workload *twl)
{
	if (twl->ntrials == twl->cap) {
		int cap = twl->cap ? 2 * twl->cap : 32;
		rt_tune_trial *t = realloc(twl->trials, (size_t)cap * sizeof *t);
		if (!t)
			return NULL;
		twl->trials = t;
		twl->cap = cap;
	}
	rt_tune_trial *t = &twl->trials[twl->ntrials++];
	memset(t, 0, sizeof *t);
	return t;
}

static void keep_measurement(const rt_tune_workload *twl, rt_tune_trial *t,
			     const rt_measurement *m)
{
	t->feasible = m->feasible;
	t->score = !twl->minimize ? m->median : m->median > 0 ? 1 / m->median : 0;
	t->cause = m->cause;
	snprintf(t->reason, sizeof t->reason, "%s", m->reason);
	t->median = m->median;
	t->ci_lo = m->ci_lo;
	t->ci_hi = m->ci_hi;
	t->cv = m->cv;
	t->step_seconds = m->step_seconds;
	t->setup_seconds = m->setup_seconds;
	t->seconds = m->seconds;
	t->contention = m->contention;
	memcpy(t->phase_frac, m->phase_frac, sizeof t->phase_frac);
	t->device_timed = m->device_timed;
	t->device_busy = m->device_busy;
	t->skipped = m->skipped;
}

/* A command's samples, kept for pooling its later runs with (separate_leaders). RT_ENOMEM. */
static int keep_samples(const rt_tune_workload *twl, rt_tune_trial *t, const rt_measurement *m)
{
	if (!twl->target->confirm || !m->feasible || !m->nsamples)
		return RT_OK;
	t->samples = malloc(sizeof *t->samples * (size_t)m->nsamples);
	if (!t->samples)
		return RT_ENOMEM;
	memcpy(t->samples, m->samples, sizeof *t->samples * (size_t)m->nsamples);
	t->nsamples = m->nsamples;
	return RT_OK;
}

/*
 * Whether an earlier trial that failed for this cause stands: a point that
 * did not fit, or whose backend or precision is not there, fails again; a
 * crash, a timeout or bad output may have been the machine's mood and is
 * measured again.
 */
static int failure_lasts(rt_cause cause)
{
	return cause == RT_CAUSE_MEMORY || cause == RT_CAUSE_UNAVAILABLE;
}

/*
 * The machine's own speed after each trial, beside the journal (canary.h):
 * what lets a check tell a slower machine from a slower component. A
 * baseline without it still checks, so a failure costs a note, not the tune;
 * the next trial's would fail alike (a file of an older rigtune's canary), so
 * none is tried after it.
 */
static void tick_canary(tune_ctx *c)
{
	char why[RT_ERRLEN];
	if (c->run->canary_failed)
		return;
	if (rt_canary_tick(rt_journal_path(c->journal), why, sizeof why)) {
		c->run->canary_failed = 1;
		rt_progress_note(c->progress, "no canary sample: %s; none more in this tune", why);
	}
}

int rt_tune_measure_fresh(tune_ctx *c, const rt_tune_trial *t, double cap, rt_measurement *m,
			 char *err, size_t errlen)
{
	int rc = c->twl->target->measure(c, t, cap, m, err, errlen);
	if (rc)
		return rc;
	if (interrupted) /* the signal reached the trial too: not a result */
		rc = rt_fail(err, errlen, RT_ERUNTIME, "interrupted");
	else if (c->journal && !m->skipped)
		rc = c->twl->target->append(c, t, m, err, errlen);
	if (rc == RT_OK && c->journal && !m->skipped)
		tick_canary(c);
	if (rc)
		rt_measurement_free(m);
	return rc;
}

/*
 * Measures (or reuses) one point; the journal gets every new trial. A trial
 * that other processes contended is measured once more.
 */
int rt_tune_run_trial(tune_ctx *c, rt_tune_trial *t, double cap, char *err, size_t errlen)
{
	rt_measurement m;
	const rt_journal_record *rec = c->twl->target->find(c, t);
	/* a crash or timeout may have been the machine's mood, a contended figure is low */
	if (rec && (rec->m.feasible ? rec->m.contended : !failure_lasts(rec->m.cause)))
		rec = NULL;
	if (rec) {
		if (rt_journal_record_measurement(rec, &m))
			return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		t->reused = 1;
	} else {
		int rc = rt_tune_measure_fresh(c, t, cap, &m, err, errlen);
		/*
		 * another process took the trial's CPUs: its figures are low; once
		 * more, where the budget has the time for it
		 */
		if (rc == RT_OK && m.contended && (c->deadline <= 0 || rt_clock_now() + m.seconds <= c->deadline)) {
			rt_progress_note(c->progress, "%s: %.0f%% of the trial's CPUs went to other "
						      "processes; measuring it again",
					 c->twl->name, 100 * m.contention);
			rt_measurement_free(&m);
			rc = rt_tune_measure_fresh(c, t, cap, &m, err, errlen);
		}
		if (rc)
			return rc;
	}
	keep_measurement(c->twl, t, &m);
	int rc = keep_samples(c->twl, t, &m);
	rt_measurement_free(&m);
	return rc ? rt_fail(err, errlen, rc, "out of memory") : RT_OK;
}

void rt_tune_trial_outcome(const tune_ctx *c, const rt_tune_trial *t, char *buf, size_t len)
{
	if (t->feasible)
		snprintf(buf, len, "%.4g %s%s", t->median, c->twl->unit,
			 t->reused ? " (reused)" : "");
	else
		snprintf(buf, len, "infeasible: %s", t->reason);
}

static void report_trial(tune_ctx *c, const rt_space *s, const rt_tune_trial *t)
{
	char what[256], outcome[300];
	int n = snprintf(what, sizeof what, "%s ", c->twl->name);
	rt_space_format(s, t->idx, what + n, sizeof what - (size_t)n);
	rt_tune_trial_outcome(c, t, outcome, sizeof outcome);
	if (t->feasible && t->score > c->best_score) {
		c->best_score = t->score;
		snprintf(c->best, sizeof c->best, "%.4g %s", t->median, c->twl->unit);
	}
	rt_progress_trial(c->progress, what, outcome, c->best);
}

int rt_tune_objective(const rt_space *s, const int *idx, double cap, void *user, double *value,
		     rt_cause *cause)
{
	tune_ctx *c = user;
	char err[RT_ERRLEN];
	if (interrupted)
		return RT_ERUNTIME;
	rt_tune_trial *t = new_trial(c->twl);
	if (!t)
		return RT_ENOMEM;
	memcpy(t->idx, idx, sizeof(int) * (size_t)rt_space_nparams(s));
	int rc = c->twl->target->point ? c->twl->target->point(c, t, err, sizeof err) : RT_OK;
	if (rc == RT_OK)
		rc = rt_tune_run_trial(c, t, cap, err, sizeof err);
	if (rc) {
		c->twl->ntrials--;
		snprintf(c->twl->note, sizeof c->twl->note, "%s", err);
		return rc;
	}
	c->twl->reused += t->reused;
	/*
	 * a trial that did not fit less than a cap (or its predicted run) left:
	 * no other will (search_clock)
	 */
	c->spent |= t->skipped == RT_SKIP_BUDGET && c->deadline - rt_clock_now() < fmax(cap, t->seconds);
	report_trial(c, s, t);
	*value = t->score;
	*cause = t->cause;
	return t->feasible ? RT_OK : RT_EINFEASIBLE;
}
