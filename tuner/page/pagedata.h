/*
 * pagedata.h: what `rigtune report` shows, gathered from its inputs: the
 * configuration `tune` wrote (config.h), the journals of its trials
 * (journal.h), the crossover's observations (replay.h) and a check's result
 * (check/check_result.h). page.h draws it; nothing here knows HTML.
 *
 * Which trials a workload's chart shows: those of the configuration's
 * machine (same fingerprint) and model shape (every shape key but the one
 * its chart sweeps), the newest one per point when a point was measured
 * more than once. The others are counted, and the page says so.
 */
#ifndef RT_PAGEDATA_H
#define RT_PAGEDATA_H

#include "../../search/fit.h"
#include "../check/check_result.h"
#include "../config.h"
#include "../crossover.h"
#include "../journal.h"
#include "../machine.h"
#include "../replay.h"
#include "../watch/watch.h"

#define RT_PG_MAX_ROWS 12
#define RT_PG_MAX_HINTS 8
#define RT_PG_MAX_CURVES RT_CROSSOVER_DOC_MAX /* as many as a configuration's analysis holds */
#define RT_PG_MAX_PAIRS RT_CROSSOVER_DOC_MAX
#define RT_PG_MAX_NOTES 8
#define RT_PG_MAX_JOURNALS 64

/* One line of the machine's summary: "Caches", "L1d 48 KiB, ..." */
typedef struct rt_pg_row {
	char label[32];
	char value[512];
} rt_pg_row;

typedef struct rt_pg_accel {
	char backend[16];
	int available;
	char detail[512]; /* its devices, or why it has none */
} rt_pg_accel;

/* A kind of core: "performance", 8 cores, 16 PUs, "Core, 5.0 GHz". */
typedef struct rt_pg_kind {
	char role[16];
	char label[64];
	int cores, pus;
} rt_pg_kind;

typedef struct rt_pg_machine {
	int known; /* from a configuration; 0 when only journals were given */
	char problem[RT_ERRLEN]; /* why the configuration's machine: cannot be read; "" */
	int usable_cores;
	int nrows, nkinds, naccel;
	rt_pg_row rows[RT_PG_MAX_ROWS];
	rt_pg_kind kinds[RT_MAX_KINDS];
	rt_pg_accel accel[RT_MAX_ACCEL];
} rt_pg_machine;

/* A point the configuration names (recommended, fastest), with what it measured. */
typedef struct rt_pg_mark {
	int set;
	rt_point pt;
	rt_shape sh;
	double median, ci_lo, ci_hi;
} rt_pg_mark;

typedef struct rt_pg_workload {
	const char *name;
	const rt_workload *w; /* NULL for an entry that is no built-in workload (a --cmd) */
	const char *xkey;     /* its chart's axis: the knee's key (batch, num_envs), else threads */
	rt_shape shape;       /* the model shape shown */
	/* from the configuration (unset without one) */
	const rt_config_rec *cfg; /* the configuration's entry: none, reason, env, points */
	rt_pg_mark rec, fastest;  /* its points decoded (unset for a --cmd entry) */
	int nhints[2];            /* PyTorch, JAX */
	const char *hints[2][RT_PG_MAX_HINTS];
	/* from the journals */
	const rt_journal_record **trials; /* newest per point, in the order measured */
	size_t ntrials;
	size_t other_shape;                 /* trials of this machine at another shape */
	const rt_journal_record *rec_trial; /* the trial at the recommended point, or NULL */
	int naive_known; /* naive_pt/sh are set (the usable cores are known, or a trial is marked) */
	rt_point naive_pt;
	rt_shape naive_sh;
	const rt_journal_record *naive_trial;
} rt_pg_workload;

/* A fitted crossover curve and, when recorded, its observations. */
typedef struct rt_pg_curve {
	char label[64]; /* "cpu:2t/fp32" */
	const char *name, *precision; /* its label ("cpu:2t") and precision, as the analysis has them */
	rt_curve id;                  /* what its label says */
	rt_fit fit;
	const rt_replay_curve *obs; /* NULL when the observations are not available */
	int noutliers;
	double *outliers; /* n, seconds pairs */
} rt_pg_curve;

/* A crossover of two curves, and the thread counts of a curve: as crossover.h reads them. */
typedef rt_crossover_doc_pair rt_pg_pair;
typedef rt_crossover_doc_threads rt_pg_threads;

typedef struct rt_pg_crossover {
	int present;
	char source[1100];   /* where the fits come from */
	char obs_note[1200]; /* why there are no observations, "" when there are */
	char obs_file[1024]; /* the CSV the observations come from, "" when none */
	int ncurves, npairs, nthreads;
	rt_pg_curve curves[RT_PG_MAX_CURVES];
	rt_pg_pair pairs[RT_PG_MAX_PAIRS];
	rt_pg_threads threads[RT_PG_MAX_PAIRS];
} rt_pg_crossover;

/* The journals read: their records, in the order of the files. */
typedef struct rt_pg_journal {
	char path[1024];
	rt_journal_record *records;
	size_t n;
} rt_pg_journal;

typedef struct rt_page {
	char host[64], fingerprint[17];
	const char *generated, *unavailable;
	const char *config_path; /* NULL without a configuration */
	int partial;
	rt_pg_machine machine;
	int nwl;
	rt_pg_workload wl[RT_CONFIG_MAX_RECS];
	rt_pg_crossover xo;
	const rt_checkdoc *check; /* NULL without --check */
	const rt_watch_run *watch; /* NULL without --watch */
	int nnotes;
	char notes[RT_PG_MAX_NOTES][512]; /* what was left out, and why */
	int njournals;
	rt_pg_journal journals[RT_PG_MAX_JOURNALS];
	/* owned */
	int has_config, has_check, has_watch;
	rt_config config;
	rt_checkdoc checkdoc;
	rt_watch_run watchrun;
	rt_crossover_analysis xo_fit; /* the fits of --crossover FILE.csv */
	rt_replay *replay;
} rt_page;

/* Where the page's data comes from. */
typedef struct rt_page_inputs {
	const char *config;          /* a configuration, or NULL */
	const char *const *journals; /* njournals files; none: the configuration's */
	int njournals;
	const char *crossover; /* a replay CSV (crossover --save), or NULL */
	const char *check;     /* a check's result, or NULL */
	const char *watch;     /* a watch result (rigtune watch -o), or NULL */
} rt_page_inputs;

/*
 * Reads every input into pg (a configuration or at least one journal is
 * needed). Without journals given, the configuration's (search.journal) and
 * the older journals of its host in the same directory, whose trials the
 * run reused. The crossover comes from the configuration's analysis, its
 * observations from the CSV it names (crossover.replay) when there is one,
 * or from in->crossover, fitted here.
 *
 * RT_EINVAL with "FILE:LINE[:COLUMN]: problem" for an input that cannot be
 * read, is malformed or of another kind; RT_ENOMEM. On failure pg owns
 * nothing. Free with rt_page_free.
 */
int rt_page_load(rt_page *pg, const rt_page_inputs *in, char *err, size_t errlen);
void rt_page_free(rt_page *pg);

/* The value of the chart's axis key at a point: batch, threads or a shape key. */
long rt_pg_x(const rt_pg_workload *wl, const rt_point *pt, const rt_shape *sh);

/*
 * The bars of a workload's phase chart, top first: the trial at the
 * recommended point (without a configuration: the fastest trial of the
 * search, never the naive default's) and the naive default's, those that
 * were measured and feasible. Returns how many (0 to 2), with a label for
 * each ("recommended", "naive default").
 */
int rt_pg_phase_rows(const rt_pg_workload *wl, const rt_journal_record *rows[2],
                     const char *labels[2]);

/* How a phase counts for a utilization monitor. */
typedef enum rt_phase_kind {
	RT_PHASE_COMPUTE,  /* forward/backward or inference on the device */
	RT_PHASE_UPDATE,   /* the optimizer step, on the device */
	RT_PHASE_TRANSFER, /* host <-> device copies */
	RT_PHASE_HOST,     /* data preparation, environment steps: the CPU's work */
	RT_NPHASE_KIND
} rt_phase_kind;

const char *rt_phase_kind_name(rt_phase_kind k); /* "compute", ..., "data / env" */
rt_phase_kind rt_phase_kind_of(const char *phase_name);

/*
 * The shares of step time per kind of a measurement's phases (summing to
 * its phases' total), and the device-busy share, compute + update: what a
 * GPU utilization monitor reads while the step runs on a GPU.
 */
double rt_pg_phase_split(const rt_workload *w, const rt_measurement *m,
                         double share[RT_NPHASE_KIND]);

#endif
