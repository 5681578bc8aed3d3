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
 * frameworks are probed first and the crossover sweep at the end is saved
 * beside the journal (crossover.replay) and fitted, all within the budget.
 */
#ifndef RT_TUNE_H
#define RT_TUNE_H

#include <stdint.h>

#include "../search/space.h"
#include "../search/strategy.h"
#include "../workloads/loader.h"
#include "crossover.h"
#include "frameworks.h"
#include "machine.h"
#include "measure.h"
#include "progress.h"

/* tune --cmd: the user's own command instead of the built-in workloads. */
typedef struct rt_tune_cmd {
	const char *command;  /* the template: "python3 train.py --batch {batch}" (usercmd.h) */
	const char *metric;   /* POSIX ERE with one capture group around the number */
	const char *unit;     /* of the metric; NULL: the words before the group */
	const char *name;     /* recommendations.<name>; NULL: "command" */
	int minimize;         /* lower is better (seconds per step) */
	int shell;            /* run with /bin/sh -c */
	int warmup;           /* matches to skip in each run */
	double timeout_s;     /* one run; 0: the whole budget */
} rt_tune_cmd;

typedef struct rt_tune_opts {
	const char *workloads[RT_NWORKLOADS]; /* names; nworkloads 0: all */
	int nworkloads;
	const char *backends[RT_MAX_BACKENDS]; /* nbackends 0: every available backend */
	int nbackends;
	double budget_s;
	const char *strategy;    /* NULL: the default */
	const char *space_file;  /* NULL: embedded defaults */
	const char *shape;       /* "k=v,..." applied to the workloads that have the keys */
	int resume, fresh, quiet, crossover;
	const char *results_dir;
	uint64_t seed;
	const rt_tune_cmd *cmd;  /* NULL: the workloads */
	const char *python;      /* whose frameworks the hints follow; NULL: frameworks.h's default */
} rt_tune_opts;

void rt_tune_opts_default(rt_tune_opts *o);

/* What one trial of a workload measured, kept for the recommendation. */
typedef struct rt_tune_trial {
	rt_point pt;
	rt_shape sh;
	int idx[RT_SPACE_MAX_PARAMS];
	int feasible, reused;
	int naive;               /* the naive default (naive.h): journaled as such, never ranked */
	int skipped;             /* not run: predicted over its cap (reason says) */
	int predicted;           /* the naive default not measured: median, step_seconds predicted */
	rt_cause cause;          /* why not, when !feasible */
	double score;            /* what the search maximizes: median, 1/median when minimizing */
	double median, ci_lo, ci_hi, cv, step_seconds;
	double setup_seconds;    /* of the trial before its warm-up (measure.h); 0 if reused */
	double seconds;          /* the trial's wall time */
	double contention;       /* others' share of its CPUs (measure.h) */
	double phase_frac[RT_MAX_PHASES];
	int device_timed;        /* device_busy was measured (measure.h) */
	double device_busy;
	char reason[256];
} rt_tune_trial;

/* The search of one workload, or of the user's command. */
typedef struct rt_tune_workload {
	const rt_workload *w;            /* NULL for the user's command */
	const char *name, *unit;         /* the workload's, or the command's */
	const struct rt_tune_target *target; /* how its points run (tune_target.h) */
	struct rt_tune_command *cmd;     /* the user's command (tune_usercmd.c); NULL for a workload */
	int minimize;                    /* a lower median is better */
	rt_shape shape;
	rt_space *space;
	rt_search_result *result;
	rt_tune_trial *trials;
	int ntrials, cap;
	int reused;
	rt_tune_trial naive;  /* the naive default as measured; naive.feasible 0: none */
	int naive_idx[RT_SPACE_MAX_PARAMS]; /* its nearest point of the space, a candidate */
	char unscreened[512]; /* backend x precision points not screened, with why */
	int status;           /* RT_OK, or why it has no recommendation */
	char note[RT_ERRLEN];
} rt_tune_workload;

typedef struct rt_tune_run {
	rt_machine machine;
	char fingerprint[17];
	int usable_cores;
	char journal_path[1024];
	char unavailable[1024];    /* "cuda: ...; hip: ..." */
	int nwl;
	rt_tune_workload wl[RT_NWORKLOADS];
	double seconds;
	int interrupted;
	const char *strategy;
	rt_xo_data crossover;      /* the sweep's observations; square NULL when not measured */
	int xo_fitted;             /* xo is the analysis of crossover (fitted within the budget) */
	rt_xo_analysis xo;
	rt_frameworks frameworks;  /* of the Python the hints are for */
} rt_tune_run;

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

/*
 * The up to n feasible trials of twl with the highest scores, best first, as
 * indices into twl->trials, leaving out the nskip indices of skip.
 */
int rt_tune_top_trials(const rt_tune_workload *twl, const int *skip, int nskip, int *out, int n);

/*
 * The recommendation of twl (status RT_OK, a feasible best): *fastest the
 * best trial; *rec the knee (rt_knee_point), unless the naive default
 * (twl->naive) is not beaten beyond its noise (the fastest's median within
 * its CI), where *rec is the trial of its nearest point of the space and
 * *naive_kept is 1, or the knee falls below the naive default's median,
 * where *rec is the fastest. RT_EINVAL when twl has nothing to recommend.
 */
int rt_tune_pick(const rt_tune_workload *twl, const rt_tune_trial **fastest,
		 const rt_tune_trial **rec, int *naive_kept);

/*
 * How many times the naive default's throughput rec gives (its median over
 * the naive default's, measured or predicted); 0 when there is no naive
 * figure (a user's command, a backend not here).
 */
double rt_tune_naive_ratio(const rt_tune_workload *twl, const rt_tune_trial *rec);

/* Whether any workload of the run got a recommendation. */
int rt_tune_recommends(const rt_tune_run *run);

/* Asks a running rt_tune to stop after the current trial (async-signal-safe). */
void rt_tune_interrupt(void);
/* Whether rt_tune_interrupt() was called during this run. */
int rt_tune_stop_requested(void);

#endif
