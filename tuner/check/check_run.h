/*
 * check_run.h: one run of `rigtune check` (check.h says what it does): its
 * options, its points as they are measured, and the calls that prepare,
 * measure and decide. Inside the check family; code outside includes check.h.
 */
#ifndef RT_CHECK_RUN_H
#define RT_CHECK_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "../../search/stats.h"
#include "check_baseline.h"
#include "check_canary.h"
#include "check_trial.h"
#include "machdiff.h"
#include "verdict.h"
#include "../machine.h"

typedef struct rt_check_opts {
	const char *baseline; /* NULL in an A/B check without one: gemm at its default */
	int ab;               /* A/B: side[0] is the baseline's side, side[1] now's */
	rt_check_side side[2];
	const char *rigtune;  /* the binary a side's bench runs; NULL: this one */
	double budget_s;  /* seconds for the repeats; 0: the baseline tune's time, else 60 */
	double threshold; /* 0.05 */
	double alpha;     /* 0.01 */
	int force;        /* compare with a baseline from other hardware */
	int no_canary;    /* compare the points as measured, the machine's change in them */
	int quiet;        /* no progress on stderr */
	const char *command; /* --cmd: a configuration's command, run when its hash matches */
	int shell;           /* --shell: sh -c runs it (and a side's cmd:) */
	uint64_t seed;    /* of the bootstrap */
} rt_check_opts;

void rt_check_opts_default(rt_check_opts *o);

typedef struct rt_check_point {
	const rt_base_point *base;
	double *samples; /* now; owned */
	int nsamples, cap;
	double *medians; /* the median of each trial now that ran; owned */
	int *trial_n;    /* and its samples, in the order of samples; owned */
	int trials;
	int slow_trials, fast_trials; /* trials whose median is past the threshold */
	int slow_last, fast_last;     /* of them, among the last two */
	double first_s, last_s;       /* rt_now() at the start of its first trial now, the
					 end of its last */
	double contention;            /* the most other processes took of a kept trial's cores */
	int set_aside;                /* trials they contended (contention.h): not kept */
	double set_aside_contention;  /* the most they took of a set-aside trial's cores */
	double trial_lo, trial_hi;    /* the lowest and highest median of a trial now */
	double trial_s;  /* the longest trial now */
	int done;
	int rounds;           /* times measure_once ran it (A/B: which side goes first) */
	char infeasible[256]; /* why its last trial did not run; "" when it ran */
	rt_cause cause;       /* and the kind of failure */
	int failures;         /* trials that did not run */
	char a_infeasible[256]; /* A/B: why side A's last trial did not run; "" when it ran */
	int a_failures;
	double a_last, b_last;  /* A/B: the medians of the round's trials; NAN: did not run */
	double *pairs;          /* A/B: log(B / A) of each round where both ran (check_pairs.h) */
	int npairs;
	rt_comparison cmp;    /* now against the baseline */
	double base_median, now_median; /* of the trials compared (cmp's left_out) */
	rt_verdict verdict;
	char reason[512];
} rt_check_point;

#define RT_CHECK_MAX_NOTES 8

typedef struct rt_check_run {
	rt_baseline base;
	rt_machine machine;
	char fingerprint[17];
	rt_machine then; /* the baseline's machine, as its document keeps it */
	rt_mdiff diff;   /* empty when the baseline keeps no machine */
	int npoints;
	rt_check_point *points;
	rt_check_canary canary;   /* the machine's own change (check_canary.h) */
	int ab;                   /* an A/B check: baseline is side A, now side B */
	char lockdir[64];         /* A/B: where a side's bench takes its lock; "" else */
	double budget_s; /* the budget in force */
	double confirm_s; /* how long a change must hold (check_run.c: confirmed) */
	double seconds;
	int counts[RT_NVERDICT];
	int nnotes, nsuggestions;
	char notes[RT_CHECK_MAX_NOTES][640];
	char suggestions[RT_CHECK_MAX_NOTES][640];
} rt_check_run;

/*
 * The check in two steps, so that the machine diff can be shown before the
 * measuring starts; run is freed with rt_check_run_free whatever the result.
 * rt_check_prepare reads the baseline, probes this machine and diffs the
 * two: RT_EINVAL for a baseline that cannot be used (the message names the
 * file and the problem), or one from other hardware without force (the
 * message names the fields; run->diff has them all); RT_ERUNTIME when the
 * machine cannot be probed. rt_check_measure measures and decides:
 * RT_ERUNTIME when a trial cannot be started.
 */
int rt_check_prepare(const rt_check_opts *o, rt_check_run *run, char *err, size_t errlen);
int rt_check_measure(const rt_check_opts *o, rt_check_run *run, char *err, size_t errlen);
void rt_check_run_free(rt_check_run *run);

/* Whether the check found a regression (exit status 1). */
int rt_check_regressed(const rt_check_run *run);

/* Whether the point has a comparison to show: it ran now, at least once. */
int rt_check_point_compared(const rt_check_point *p);

/* The baseline's median shown: of the trials compared once it ran now, else of all. */
double rt_check_point_base_median(const rt_check_point *p);

#endif
