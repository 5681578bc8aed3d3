/*
 * check_baseline.h: what `rigtune check` compares with.
 *
 * A baseline file is either
 *   - a configuration written by `rigtune tune`: its points are each
 *     workload's recommended and fastest points; their samples come from
 *     every trial of the point in the journal its search.journal names (looked up as written, then
 *     beside the configuration's directory), or, for a trial tune reused,
 *     from another journal of the host in that directory; or
 *   - a journal itself: each workload and shape's fastest feasible trial of
 *     the search (the naive default's, role: naive, is no candidate).
 * To these come a few sizes of the GEMM sweep per backend and precision
 * (the smallest, middle and largest of each curve), so that a crossover
 * that moved is seen: from the sweep a configuration names
 * (crossover.replay, found as its journal is) or the one saved beside the
 * journal (JOURNAL-crossover.csv for JOURNAL.yaml; both in the replay format
 * backend,precision,n,seconds) when there is one, else from the journal's
 * gemm trials of the search at square sizes, when a curve has three sizes
 * or more.
 *
 * A configuration of the user's own command (tune --cmd) gives its
 * recommended and fastest points and its runner-ups, each with the samples
 * of its trial in the journal (found by the command's hash and knobs), to
 * be run again through the same command and metric; a metric that is
 * minimized (a time) is compared as its inverse, so that higher is better
 * everywhere.
 *
 * The canary samples the tune took beside its journal (JOURNAL-canary.csv,
 * canary.h) come with it; a journal from before tune took them has none.
 *
 * Everything wrong with a baseline is bad input (RT_EINVAL, "FILE: ..."):
 * a file that is neither, malformed or truncated, a journal that ends in a
 * half-written trial, a configuration whose points are in no journal.
 */
#ifndef RT_CHECK_BASELINE_H
#define RT_CHECK_BASELINE_H

#include "../canary.h"
#include "../config.h"
#include "../cmdpoint.h"
#include "../yamlr.h"

/* Why a point is checked (a bit mask: a point can be recommended and fastest). */
enum { RT_BASE_RECOMMENDED = 1, RT_BASE_FASTEST = 2, RT_BASE_SWEEP = 4, RT_BASE_RUNNER_UP = 8 };

/*
 * A user's command (tune --cmd) as its configuration keeps it: how it ran
 * and how to read its metric. Strings point into the configuration. The
 * file's text is reported, never run: a configuration is data from anyone.
 * What runs is the command check was given on its own command line, when its
 * hash is the configuration's (rt_baseline_accept_command); without one the
 * command's points are not run again.
 */
typedef struct rt_base_command {
	const char *name, *text, *regex, *hash;
	char unit[72]; /* the metric's; "1/UNIT" for a minimized one (samples inverted) */
	int shell, minimize, warmup;
	const char *run; /* check --cmd, its hash this one's; NULL: not run again */
	int run_shell;   /* check --shell */
} rt_base_command;

typedef struct rt_base_point {
	const char *name;          /* the workload's or the command's */
	const char *unit;          /* of the samples: higher is better */
	const rt_workload *w;      /* a built-in workload; NULL for a command */
	rt_point pt;
	rt_shape sh;
	const rt_base_command *cmd; /* a command's point: */
	rt_cmd_point knobs;         /* its knobs, in the document's order */
	unsigned roles;
	char curve[64];  /* a sweep point's curve ("cpu:2t fp32"); "" for the others */
	double *samples; /* throughput, higher is better; owned */
	int nsamples;
	int trials;      /* the trials they came in (a sweep's size: its runs in the saved sweep) */
	int *trial_n;    /* the samples of each trial, in order; owned */
	double trial_s;  /* wall time of its newest baseline trial; 0 when not known */
	double contention; /* the share of its cores others took then (contention.h); 0 unknown */
} rt_base_point;

typedef struct rt_baseline {
	char path[1024];
	int is_journal;      /* the file is a journal, not a configuration */
	char journal[1024];  /* where the samples come from */
	char sweep[1024];    /* the crossover sweep read; "" when none */
	char fingerprint[17];
	char host[64];
	const rt_yr *mr;     /* reader of the machine's document */
	const rt_ynode *machine; /* the machine: mapping; NULL when the baseline has none */
	double tune_s;       /* seconds the tune took (search.seconds); 0 when not known */
	char sweep_note[512]; /* why GEMM sweep sizes cannot be compared; "" when they can */
	int npoints, cap;
	rt_base_point *points;
	rt_base_command cmds[RT_CONFIG_MAX_RECS]; /* the commands' points point here */
	int ncmds;
	char canary_file[1100]; /* JOURNAL-canary.csv (canary.h) */
	rt_canary_sample *canary; /* the machine's speed during the tune; NULL when not kept */
	size_t ncanary;
	int canary_older; /* the file is an older rigtune's canary: none kept (canary.h) */
	rt_config *cfg;      /* a configuration's document */
	rt_yr header;        /* a journal's header document */
} rt_baseline;

/* Reads the baseline at path into b; free with rt_baseline_free, also on failure. */
int rt_baseline_load(const char *path, rt_baseline *b, char *err, size_t errlen);
void rt_baseline_free(rt_baseline *b);

/*
 * The user's command (check --cmd TEXT, shell: --shell) for the commands of
 * b whose hash it has (rt_cmd_template_hash with each one's metric): their
 * points run it. RT_EINVAL naming the hashes when it is none of b's
 * commands, or TEXT is no command.
 */
int rt_baseline_accept_command(rt_baseline *b, const char *text, int shell, char *err,
			       size_t errlen);

/*
 * The points of an A/B check (check.h): those of the baseline at path, its
 * samples dropped (side A measures them now), or, with path NULL, gemm at
 * its default shape on the CPU with `threads` threads. As rt_baseline_load.
 */
int rt_baseline_load_points(const char *path, int threads, rt_baseline *b, char *err,
			    size_t errlen);

/* The median of its samples; NAN when it has none (an A/B check's side A that never ran). */
double rt_base_point_median(const rt_base_point *b);

/* "gemm cpu fp32 t=2 m=256 (sweep)": a point in a few words, its roles last. */
void rt_base_point_label(const rt_base_point *b, char *buf, size_t len);

#endif
