/*
 * tune.h: `rigtune tune`: search each workload's knobs on every available
 * backend within a time budget, and recommend what to train with.
 *
 * For each workload: its space (embedded default or --space), constrained to
 * what this machine has (available backends, the precisions each offers,
 * threads + workers <= usable cores, the backend's memory); a strategy from
 * search/strategy.h proposes points; each point is a forked trial
 * (measure.h) appended to the results journal as it finishes; trials
 * already in a journal of this machine (same fingerprint, workload, shape
 * and point) are reused unless fresh. The recommendation per workload is the
 * knee (smallest batch, then fewest threads and workers, within 5% of the
 * best: rt_knee_point) with the fastest point beside it.
 * Before the search (tune_workload.c): every backend x precision is
 * screened at a cheap common point, and the naive default (naive.h) is
 * measured, journaled with role: naive, with its nearest point of the space
 * as a candidate; the search starts from the best of them, and no
 * recommendation falls below the naive default beyond its noise
 * (rt_tune_pick). A trial predicted to overrun its cap is skipped. The
 * crossover sweep at the end is saved beside the journal (crossover.replay).
 */
#ifndef RT_TUNE_H
#define RT_TUNE_H

#include <stdint.h>

#include "progress.h"
#include "tune_run.h" /* the options and the run, and what its readers ask of it */

void rt_tune_opts_default(rt_tune_opts *o);

/*
 * Runs the whole tuning. Returns 0 (run filled; individual workloads may
 * have no feasible point), RT_EINVAL for bad options or space files,
 * RT_ERUNTIME when nothing at all could run. An interrupted run (SIGINT,
 * SIGTERM: see rt_tune_interrupt) returns 0 with run->interrupted set and
 * whatever was measured so far.
 */
int rt_tune(const rt_tune_opts *o, rt_tune_run *run, rt_progress *progress, char *err,
	    size_t errlen);
void rt_tune_run_free(rt_tune_run *run);

/* Asks a running rt_tune to stop after the current trial (async-signal-safe). */
void rt_tune_interrupt(void);
/* Whether rt_tune_interrupt() was called during this run. */
int rt_tune_stop_requested(void);

#endif
