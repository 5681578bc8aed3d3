/*
 * tune_crossover.c: the crossover sweep at the end of a tune (tune_target.h):
 * the time kept for it, planned so that every curve gets the three sizes a
 * fit needs; the sweep, every curve at one size before any at the next
 * (crossover.h); the curves that still have fewer sizes left out, or, when
 * too few are left, the configuration told why and what budget gives them
 * (run->xo_note); the observations saved beside the journal and fitted.
 *
 * A 60 s tune on an H200 dropped its crossover (issue 45): 7 s were left,
 * the CPU's two curves took them size after size, and cuda/fp32 had one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "backends.h"
#include "journal.h"
#include "output.h"
#include "tune.h"
#include "tune_target.h"

#define CROSSOVER_SHARE 0.12 /* the crossover's share of the budget, at least */
#define XO_MAX_SHARE 0.25    /* and at most, whatever its plan asks */
/*
 * Of the crossover's time, the share kept for fitting its observations:
 * the bootstrap CIs of four curves' pairs took 4.4 s of CPU (11.6 s on a
 * busy 2-core machine) for 315 observations.
 */
#define XO_FIT_SHARE 0.4
#define XO_MIN_SIZES 3       /* what a curve's fit needs (rt_replay_check) */
#define XO_WARMUP_S 0.05     /* crossover.c's warm-up of a size */
#define XO_MIN_POINT_S 0.05  /* a size's measuring, at least */
/*
 * A size's samples at most: the fit's bootstrap takes longer with more
 * observations (760 of them took 10 s on a busy 2-core machine, a third of
 * a 30 s tune), and a fit of t(n) gains little from more than these.
 */
#define XO_MAX_SAMPLES 8
/*
 * A size is a forked trial: what it costs before it measures, until the
 * tune's own trials of the backend measured it (their smallest set-up): a
 * process and a GEMM's buffers on the CPU; on a device its context and its
 * BLAS handle too, which take about a second on a busy machine (an estimate).
 */
#define XO_SETUP_CPU_S 0.1
#define XO_SETUP_DEVICE_S 1.0
#define MAX_SWEEP_NAMES 100 /* names tried for the crossover's observations */

/* The smallest set-up the run's trials of backend measured, else the estimate. */
static double setup_of(const rt_tune_run *run, const char *backend)
{
	double s = INFINITY;
	for (int w = 0; w < run->nwl; w++)
		for (int i = 0; i < run->wl[w].ntrials; i++) {
			const rt_tune_trial *t = &run->wl[w].trials[i];
			if (t->setup_seconds > 0 && !strcmp(t->pt.backend, backend))
				s = fmin(s, t->setup_seconds);
		}
	if (isfinite(s))
		return s;
	return rt_backend_on_host(backend) ? XO_SETUP_CPU_S : XO_SETUP_DEVICE_S;
}

/*
 * The sweep's curves (crossover.c: the CPU at every core and at one thread,
 * a device resident and with its transfers; fp32 alone) and what a size of
 * them costs before it measures, summed over the curves.
 */
static int sweep_curves(const rt_tune_opts *o, const rt_tune_run *run, double *setup_s)
{
	int n = 0;
	*setup_s = 0;
	for (int b = 0; b < run->machine.naccel; b++) {
		const rt_accel *a = &run->machine.accel[b];
		if (!a->available || !rt_tune_backend_wanted(o, a->backend) || !a->ndevices ||
		    !(a->dev[0].precisions & RT_PREC_BIT(RT_FP32)))
			continue;
		int k = rt_backend_on_host(a->backend) && run->usable_cores <= 1 ? 1 : 2;
		n += k;
		*setup_s += k * (setup_of(run, a->backend) + XO_WARMUP_S);
	}
	return n;
}

/* The sweep's time that gives every curve XO_MIN_SIZES sizes measured for point_s each. */
static double sweep_needs(int curves, double setup_s, double point_s)
{
	return XO_MIN_SIZES * (setup_s + curves * point_s);
}

double rt_tune_crossover_reserve(const rt_tune_opts *o, const rt_tune_run *run)
{
	double setup;
	if (!o->crossover || o->cmd)
		return 0;
	int curves = sweep_curves(o, run, &setup);
	double plan = sweep_needs(curves, setup, XO_MIN_POINT_S) / (1 - XO_FIT_SHARE);
	return fmin(XO_MAX_SHARE, fmax(CROSSOVER_SHARE, plan / o->budget_s)) * o->budget_s;
}

double rt_tune_crossover_point_s(const rt_tune_opts *o, const rt_tune_run *run, double sweep_s)
{
	double setup;
	int curves = sweep_curves(o, run, &setup);
	double point = curves ? (sweep_s / XO_MIN_SIZES - setup) / curves : 0;
	return fmax(XO_MIN_POINT_S, fmin(o->budget_s / 40, point));
}

int rt_tune_crossover_sweep(const rt_tune_opts *o, rt_tune_run *run, double budget,
			    rt_progress *progress, rt_crossover_sweep_opts *xo)
{
	double sweep_s = (1 - XO_FIT_SHARE) * budget;
	void *measure_user = xo->measure_user;
	int (*measure)(void *, const rt_point *, const rt_shape *, const rt_measure_opts *,
		       rt_measurement *, char *, size_t) = xo->measure;
	*xo = (rt_crossover_sweep_opts){.measure = measure,
					.measure_user = measure_user,.backends = o->nbackends ? o->backends : NULL,
					.nbackends = o->nbackends,
					.precisions = RT_PREC_BIT(RT_FP32),
					.usable_cores = run->usable_cores,
					.seconds_per_point = rt_tune_crossover_point_s(o, run, sweep_s),
					.max_samples = XO_MAX_SAMPLES,
					.max_n = 1024,
					.quiet = 1,
					.deadline = rt_clock_now() + sweep_s,
					.stop = rt_tune_stop_requested,
					.machine = &run->machine};
	rt_crossover_shape shape = {0};
	char skipped[1024], err[RT_ERRLEN];
	rt_progress_note(progress, "measuring the CPU/GPU and thread crossovers (%.0f s)", budget);
	double t0 = rt_clock_now();
	if (rt_crossover_sweep(xo, &shape, &run->crossover, skipped, sizeof skipped, err, sizeof err)) {
		rt_progress_note(progress, "crossover skipped: %s", err);
		snprintf(run->xo_note, sizeof run->xo_note, "not measured: %.400s", err);
		return 0;
	}
	run->xo_sweep_s = rt_clock_now() - t0;
	return 1;
}

/* How many distinct sizes curve c has. */
static size_t distinct_sizes(const rt_replay_curve *c)
{
	double picked[RT_REPLAY_CHECK_SIZES];
	size_t npicked, distinct = 0;
	if (rt_replay_check_sizes(c->n, c->count, picked, &npicked, &distinct))
		return 0;
	return distinct;
}

/* A copy of r's curves of XO_MIN_SIZES sizes or more, NULL when out of memory. */
static rt_replay *fitted_curves(const rt_replay *r)
{
	rt_replay *kept = rt_replay_new();
	for (size_t i = 0; kept && i < r->ncurves; i++) {
		const rt_replay_curve *c = &r->curves[i];
		for (size_t k = 0; distinct_sizes(c) >= XO_MIN_SIZES && k < c->count; k++)
			if (rt_replay_add_curve(kept, &c->id, c->precision, c->n[k], c->seconds[k],
						NULL, 0)) {
				rt_replay_free(kept);
				return NULL;
			}
	}
	return kept;
}

/*
 * The budget that gives every curve XO_MIN_SIZES sizes, from what this
 * sweep's sizes cost (its time over the sizes it measured), rounded up to
 * 10 s.
 */
static double budget_for_sizes(const rt_tune_run *run, int curves, size_t measured)
{
	double per_size = measured ? run->xo_sweep_s / (double)measured : XO_SETUP_DEVICE_S;
	double sweep = XO_MIN_SIZES * curves * per_size;
	return 10 * ceil(sweep / (1 - XO_FIT_SHARE) / XO_MAX_SHARE / 10);
}

/*
 * The curves the deadline left with fewer than XO_MIN_SIZES sizes: left
 * out when two full curves remain (run->xo_note names them), else the sweep
 * is not kept and the note says why and what budget would keep it. 1 when
 * what remains can be saved and fitted.
 */
static int keep_fitted(rt_tune_run *run)
{
	rt_replay *r = run->crossover.square;
	char shortest[160] = "";
	size_t measured = 0, full = 0;
	for (size_t i = 0; i < r->ncurves; i++) {
		size_t d = distinct_sizes(&r->curves[i]);
		measured += d;
		full += d >= XO_MIN_SIZES;
		if (d < XO_MIN_SIZES) {
			char one[64];
			snprintf(one, sizeof one, "%s/%s (%zu size%s)", r->curves[i].backend,
				 r->curves[i].precision, d, d == 1 ? "" : "s");
			rt_list_append(shortest, sizeof shortest, ", ", one);
		}
	}
	if (!shortest[0])
		return 1;
	if (full < 2) {
		snprintf(run->xo_note, sizeof run->xo_note,
			 "not kept: %s of the %d sizes a fit needs in the %.1f s the sweep had; a "
			 "tune of --budget %.0f or more gives every curve %d",
			 shortest, XO_MIN_SIZES, run->xo_sweep_s,
			 budget_for_sizes(run, (int)r->ncurves, measured), XO_MIN_SIZES);
		return 0;
	}
	rt_replay *kept = fitted_curves(r);
	if (!kept)
		return 0;
	snprintf(run->xo_note, sizeof run->xo_note,
		 "left out for want of sizes: %s; a tune of --budget %.0f or more gives every curve %d",
		 shortest, budget_for_sizes(run, (int)r->ncurves, measured), XO_MIN_SIZES);
	rt_replay_free(r);
	run->crossover.square = kept;
	return 1;
}

/*
 * Saves the sweep's square observations beside the journal, under the first
 * of its names (rt_journal_sweep_path) that nothing has: what `rigtune
 * report` draws and `rigtune check` measures again. The configuration names
 * the file (crossover.replay).
 */
static int save_sweep(rt_tune_run *run, char *err, size_t errlen)
{
	char *text = NULL, path[sizeof run->crossover.replay];
	size_t len;
	int taken = 1, rc = rt_replay_check(run->crossover.square, err, errlen);
	if (rc == RT_OK)
		rc = rt_replay_text(run->crossover.square, &text, &len, err, errlen);
	for (int seq = 1; rc == RT_OK && taken && seq <= MAX_SWEEP_NAMES; seq++) {
		if (rt_journal_sweep_path(run->journal_path, seq, path, sizeof path))
			rc = rt_fail(err, errlen, RT_EINVAL, "no file name for it beside %s",
				     run->journal_path);
		else
			rc = rt_write_new_file(path, text, len, &taken, err, errlen);
	}
	if (rc == RT_OK && taken)
		rc = rt_fail(err, errlen, RT_EIO, "%d names beside %s are taken", MAX_SWEEP_NAMES,
			     run->journal_path);
	if (rc == RT_OK)
		snprintf(run->crossover.replay, sizeof run->crossover.replay, "%s", path);
	free(text);
	return rc;
}

void rt_tune_crossover_fit(rt_tune_run *run, rt_progress *progress)
{
	rt_crossover_shape shape = {0};
	char err[RT_ERRLEN];
	int whole = keep_fitted(run);
	if (run->xo_note[0])
		rt_progress_note(progress, "crossover: %s", run->xo_note);
	if (!whole)
		return;
	if (save_sweep(run, err, sizeof err)) {
		rt_progress_note(progress, "the crossover's observations are not saved: %s", err);
		snprintf(run->xo_note, sizeof run->xo_note, "not saved: %.400s", err);
	}
	/* the analysis the configuration gives, fitted now: its time is the budget's */
	run->xo_fitted = rt_crossover_fit(&run->crossover, &shape, &run->xo, err, sizeof err) == RT_OK;
	if (!run->xo_fitted)
		snprintf(run->xo_note, sizeof run->xo_note, "not fitted: %.400s", err);
}
