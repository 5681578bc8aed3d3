/*
 * tune_target.h: what one search of `rigtune tune` measures, for tune.c's
 * loop: a built-in workload (tune_workload.c) or the user's command
 * (tune_usercmd.c).
 * Internal to the tuner.
 *
 * The loop owns the strategy, the budget, the journal's reuse and resume,
 * re-measuring a contended trial, the progress and interruption; a target
 * says whether a point may run here, what a point is, how to measure it and
 * how the journal keys it.
 */
#ifndef RT_TUNE_TARGET_H
#define RT_TUNE_TARGET_H

#include <hwloc.h>

#include "journal.h"
#include "progress.h"
#include "tune_run.h"

/* Screening points (a backend x precision each) and the naive default's point. */
#define RT_TUNE_MAX_PRIOR (RT_MAX_BACKENDS * RT_NPRECISION + 1)

/* The state of one search, shared by the loop and the target. */
typedef struct tune_ctx {
	rt_tune_run *run;
	rt_tune_workload *twl;
	const rt_tune_opts *o;
	rt_progress *progress;
	rt_journal *journal;
	const rt_journal_record *reuse; /* earlier trials of this host; none with --fresh */
	size_t nreuse;
	hwloc_topology_t topo;          /* to tell pin policies apart; NULL if unknown */
	char best[96];
	double best_score;
	double deadline;                /* rt_clock_now() at which this search's budget ends */
	double search_end;              /* rt_clock_now() at which the strategy's budget ends */
	int spent;                      /* a trial did not fit what was left: the search ends */
	/* What the target measured before the search (before_search): */
	rt_trial prior[RT_TUNE_MAX_PRIOR]; /* the search takes them as visited */
	int nprior;
	int start[RT_SPACE_MAX_PARAMS];    /* where the search starts, when have_start */
	int have_start;
} tune_ctx;

typedef struct rt_tune_target {
	/*
	 * Nonzero when point idx may run on this machine; *cpus gets how many
	 * CPUs its pin policy binds (for telling policies apart).
	 */
	int (*feasible)(const tune_ctx *c, const int *idx, int *cpus);
	/*
	 * Fills t's point from t->idx; RT_EINVAL when a value is not one the
	 * target takes. NULL: t->idx is all there is.
	 */
	int (*point)(const tune_ctx *c, rt_tune_trial *t, char *err, size_t errlen);
	/* The journal's earlier trial of t's point, or NULL. */
	const rt_journal_record *(*find)(const tune_ctx *c, const rt_tune_trial *t);
	/*
	 * Measures t's point within about cap seconds into m: 0 (m->feasible
	 * may be 0, with its cause), RT_EINVAL when the point can never run
	 * (the user's command cannot be started), or another failure.
	 */
	int (*measure)(const tune_ctx *c, const rt_tune_trial *t, double cap, rt_measurement *m,
		       char *err, size_t errlen);
	/* Appends a new trial to the journal. */
	int (*append)(const tune_ctx *c, const rt_tune_trial *t, const rt_measurement *m,
		      char *err, size_t errlen);
	/*
	 * Optional: checks every value of the space against what the target
	 * takes (RT_EINVAL naming the file); NULL: checked as it was read.
	 */
	int (*check_space)(tune_ctx *c, char *err, size_t errlen);
	/*
	 * Optional: measures what comes before the search, within about half
	 * of `budget`, each trial within cap (tune_workload.c: the screening of
	 * every backend and the naive default), through the loop's objective;
	 * fills c->prior and c->start for the search.
	 */
	int (*before_search)(tune_ctx *c, double budget, double cap, char *err, size_t errlen);
	/*
	 * A trial is one run with no repetition of its own (a user's command):
	 * its samples are kept (rt_tune_trial.samples) and the leaders are
	 * measured again, interleaved, until told apart, before the pick
	 * (tune.c, search/leaders.h).
	 */
	int confirm;
} rt_tune_target;

/* What a search's trials are, for the loop and its targets alike (tune_trial.c): */
/* the search's objective (strategy.h) on a tune_ctx: a new trial of twl; */
int rt_tune_objective(const rt_space *s, const int *idx, double cap, void *user, double *value,
		      rt_cause *cause);
/* one trial of t's point, reused from the journals or measured and journaled; */
int rt_tune_run_trial(tune_ctx *c, rt_tune_trial *t, double cap, char *err, size_t errlen);
/* what a trial gave, for the progress: "812.4 samples/s (reused)", "infeasible: why"; */
void rt_tune_trial_outcome(const tune_ctx *c, const rt_tune_trial *t, char *buf, size_t len);
/* t's point measured now, whatever the journals hold: the journal gets it, the canary a sample; */
int rt_tune_measure_fresh(tune_ctx *c, const rt_tune_trial *t, double cap, rt_measurement *m,
			  char *err, size_t errlen);
/* no interruption yet (rt_tune_interrupt sets it, rt_tune_stop_requested reads it: tune.h). */
void rt_tune_interrupt_clear(void);

/*
 * tune.c: the search of c->twl within budget seconds: what its target
 * measures before it, the strategy, a command's leaders told apart, the walk
 * to the knee; the result in c->twl (status, note, result, trials). What
 * rt_tune runs for each workload, and what a test drives with a fake target.
 */
int rt_tune_search(tune_ctx *c, double budget, char *err, size_t errlen);

/*
 * tune_crossover.c: the crossover sweep at the end of a tune. The seconds
 * kept for it: CROSSOVER_SHARE of the budget, more (up to XO_MAX_SHARE)
 * where its curves need it for three sizes each; 0 when not asked
 * (--no-crossover, a command).
 */
double rt_tune_crossover_reserve(const rt_tune_opts *o, const rt_tune_run *run);
/* What each size measures for, so that every curve gets three within sweep_s. */
double rt_tune_crossover_point_s(const rt_tune_opts *o, const rt_tune_run *run, double sweep_s);
/*
 * The sweep within budget seconds (the fitting's share kept back) into
 * run->crossover; xo says how it was measured (the baseline rounds measure
 * some of its sizes again): its measure and measure_user as the caller set
 * them (a test's simulated sizes), the rest the plan's. 0 when nothing was
 * measured (run->xo_note says why).
 */
int rt_tune_crossover_sweep(const rt_tune_opts *o, rt_tune_run *run, double budget,
			    rt_progress *progress, rt_crossover_sweep_opts *xo);
/*
 * The sweep's curves of fewer than three sizes left out (run->xo_note), the
 * rest saved beside the journal and fitted (run->xo_fitted), or the note
 * says why none is kept and what budget would keep it.
 */
void rt_tune_crossover_fit(rt_tune_run *run, rt_progress *progress);

/* tune_workload.c: whether o asks for backend name (--backend; all when it names none); */
int rt_tune_backend_wanted(const rt_tune_opts *o, const char *name);
/* a built-in workload. */
extern const rt_tune_target rt_tune_target_workload;
/*
 * The workloads o names (all by default) as run->wl, each with its shape
 * (--shape) and space; RT_ERUNTIME when no backend can run, RT_EINVAL for
 * an unknown workload or shape key.
 */
int rt_tune_workloads_resolve(const rt_tune_opts *o, rt_tune_run *run, char *err, size_t errlen);

/* tune_usercmd.c: the user's command. */
extern const rt_tune_target rt_tune_target_command;

/*
 * Sets up the search of the user's command o->cmd as twl: its template,
 * metric and space (--space, else threads and blas_threads from 1 to the
 * usable cores), checked against each other. RT_EINVAL with the reason
 * (a placeholder with no knob, a regex without one capture group, ...).
 */
int rt_tune_command_setup(const rt_tune_opts *o, const rt_tune_run *run,
			  rt_tune_workload *twl, char *err, size_t errlen);
void rt_tune_command_free(struct rt_tune_command *cmd); /* accepts NULL */

#endif
