/*
 * tune_baseline.h: the tune's last measurements, for `rigtune check`.
 * Internal to the tuner.
 *
 * A check compares each workload's recommended and fastest points, and the
 * smallest, middle and largest size of each square crossover curve, with
 * their trials in the tune's journal (check_baseline.h). On a VM a point's
 * rate moves with the host's other tenants, by a fifth or more and for
 * seconds at a time (issue 33: a 2-thread transformer point ran at levels of
 * 190 to 350 samples/s on an idle 2-vCPU VM), so a point measured once is
 * one draw of the machine's state, and a check against it calls that draw's
 * difference a regression or an improvement (8 checks of an unchanged VM:
 * the sweep's 2-thread sizes "improved" 12-16% in 7, a transformer point
 * "regressed" 12% in 3). So the tune ends by measuring those points again,
 * in interleaved rounds (A B C, then C B A) after everything else, each run
 * a trial of its own: a workload's in the journal, a sweep size's samples
 * added to the sweep before it is saved. The check pools a point's trials.
 * A user's command is left out: its leaders are measured again already,
 * interleaved, before the pick (tune.c).
 */
#ifndef RT_TUNE_BASELINE_H
#define RT_TUNE_BASELINE_H

#include <hwloc.h>

#include "crossover.h"
#include "journal.h"
#include "progress.h"
#include "tune_run.h"

/* Of the budget, the share these rounds take (a tune of 60 s: 7 s). */
#define RT_TUNE_BASELINE_SHARE 0.12
/* The most rounds: with the search's trial, 3 draws of each point. */
#define RT_TUNE_BASELINE_ROUNDS 2

/* What the rounds measure with, and until when. */
typedef struct rt_tune_rounds {
	const rt_tune_opts *o;
	rt_tune_run *run;       /* its workloads' picks and its sweep */
	rt_journal *journal;    /* the workloads' runs are appended; NULL: not kept */
	rt_progress *progress;
	hwloc_topology_t topo;  /* may be NULL */
	const rt_crossover_sweep_opts *xo; /* how the sweep was measured; NULL: no sweep */
	double deadline;        /* rt_clock_now() past which no run is predicted to end */
	int (*stop)(void);      /* asked before each run: nonzero ends the rounds */
} rt_tune_rounds;

/*
 * Up to RT_TUNE_BASELINE_ROUNDS rounds of the points above; no run starts
 * that its point's last run predicts to end past the deadline. RT_OK also
 * when stopped; else a failure to measure or to journal.
 */
int rt_tune_baseline(const rt_tune_rounds *r, char *err, size_t errlen);

#endif
