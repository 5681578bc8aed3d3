/*
 * tune_run.h: what one `rigtune tune` is asked (rt_tune_opts) and what it
 * found (rt_tune_run: per workload its trials and its search), with what
 * its readers ask of it: the recommendation, the runner-ups, a user's
 * command at a point. tune.c fills a run (tune.h); the configuration's
 * writer (config.c) and the loop's targets (tune_target.h) read one.
 *
 * A header of its own, apart from the loop, so that the writer of the
 * configuration does not sit above the tune loop, and the loop and its
 * targets do not include each other.
 */
#ifndef RT_TUNE_RUN_H
#define RT_TUNE_RUN_H

#include <stdint.h>

#include "blas_cores.h"
#include "../search/space.h"
#include "../search/strategy.h"
#include "../workloads/loader.h"
#include "crossover.h"
#include "frameworks.h"
#include "machine.h"

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
	/*
	 * Called once the run's input is checked (the spaces, the command, the
	 * backends), before anything is journaled or measured: a nonzero code
	 * stops the tune with it and err (cmd_tune.c: the file at the output
	 * path cannot take this tune's recommendations). NULL: none.
	 */
	int (*ready)(void *user, char *err, size_t errlen);
	void *ready_user;
} rt_tune_opts;

/* What one trial of a workload measured, kept for the recommendation. */
typedef struct rt_tune_trial {
	rt_point pt;
	rt_shape sh;
	int idx[RT_SPACE_MAX_PARAMS];
	int feasible, reused;
	int naive;               /* the naive default (naive.h): journaled as such, never ranked */
	int again;               /* a copy measured again for a check's baseline (tune_baseline.h) */
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
	double *samples;         /* a command's every run, pooled (tune_target.h: confirm); owned */
	int nsamples;
	char reason[256];
} rt_tune_trial;

/* A command's leaders measured again before the pick (tune.c, search/leaders.h). */
typedef struct rt_tune_leaders {
	int done;       /* the leaders were looked at (a command with two feasible points or more) */
	int first;      /* leaders after the search, the fastest among them */
	int rounds;     /* interleaved rounds run */
	int runs;       /* runs in them */
	int separated;  /* told apart (or one leader) at the end; 0: the budget ran out first */
	int last;       /* leaders at the end */
} rt_tune_leaders;

/* The search of one workload, or of the user's command. */
/* The most values a choice knob has (its names: precision, pin). */
#define RT_TUNE_MAX_CHOICES 8

/*
 * A parameter of a built-in workload's space as its point has it, typed
 * once when the space is checked (tune_workload.c): its knob's row, or the
 * index of its shape key, and a choice knob's values as their indices.
 */
typedef struct rt_tune_param {
	const struct rt_knob *knob; /* NULL: the shape key `shape` */
	int shape;
	int choice[RT_TUNE_MAX_CHOICES];
} rt_tune_param;

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
	rt_tune_param params[RT_SPACE_MAX_PARAMS]; /* a workload's space, typed (above) */
	rt_tune_leaders leaders; /* a command's: its best points told apart */
	char unscreened[512]; /* backend x precision points not screened, with why */
	/*
	 * The batch may grow past the space's top while it still gains (tune.c:
	 * a default space's; a --space file is searched as written), and what
	 * the growing found: "batch 1024 gained 1.2% over 512, ..." ("": none).
	 */
	int grow;
	char grown[256];
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
	rt_crossover_data crossover;      /* the sweep's observations; square NULL when not measured */
	int xo_fitted;             /* xo is the analysis of crossover (fitted within the budget) */
	double xo_sweep_s;         /* the sweep's time */
	char xo_note[512];         /* curves left out, or why none was kept (tune_crossover.c); "" */
	rt_crossover_analysis xo;
	rt_frameworks frameworks;  /* of the Python the hints are for */
	int canary_failed;         /* a canary sample failed: none more is taken (canary.h) */
	rt_blas_cores blas;        /* OpenBLAS's kernel sets measured (blas_cores.h); n 0: none */
} rt_tune_run;

/* The pick of a finished search (tune_pick.c): */
/* the trial of twl at point idx of its space, or NULL; */
const rt_tune_trial *rt_tune_trial_at(const rt_tune_workload *twl, const int *idx);

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

/*
 * The precisions of a built-in workload's search (tune_precisions.c), per
 * backend it measured: what the backend's device offers, which were tried
 * (measured, whether they ran or failed), why each offered one was not
 * ("not in the space", a trial's reason for not running, "not reached
 * within the budget"), and the fastest point of each over the fastest
 * fp32 point.
 */
typedef struct rt_tune_precisions {
	char backend[16];
	unsigned offered, tried;              /* RT_PREC_BIT masks */
	char why_not[RT_NPRECISION][128];     /* offered, not tried: why; "" otherwise */
	double vs_fp32[RT_NPRECISION];        /* 0: not both measured */
} rt_tune_precisions;

/* Fills up to max entries, in the order of twl's trials; returns how many (0 for a command). */
int rt_tune_precisions_of(const rt_tune_run *run, const rt_tune_workload *twl,
			  rt_tune_precisions *out, int max);
/*
 * What a loop in fp32 leaves unused on e's backend, for the reason: "on
 * sim, the fastest tf32 point gave 6.2x the fastest fp32 point's samples/s,
 * bf16 9.3x"; "" when no precision beats fp32 by more than 5%.
 */
void rt_tune_precisions_gain(const rt_tune_precisions *e, const char *unit, char *buf,
			     size_t len);

/* Whether any workload of the run got a recommendation. */
int rt_tune_recommends(const rt_tune_run *run);

/* What the recommendation says of a command (config.c), from tune_usercmd.c: */
struct rt_usercmd_env; /* usercmd_knobs.h */
/* the hash that keys its trials in the journal; */
const char *rt_tune_command_hash(const struct rt_tune_command *cmd);
/* the command line at point idx of space s, quoted for a shell; */
int rt_tune_command_argv(const struct rt_tune_command *cmd, const rt_space *s, const int *idx,
			 char *buf, size_t len);
/* the environment it ran with at that point. */
void rt_tune_command_env(const rt_space *s, const int *idx, const rt_machine *m,
			 struct rt_usercmd_env *env);

#endif
