/*
 * sweep.h: a hyper-parameter sweep made from a recommendation (`rigtune
 * sweep`). The hardware knobs stay where `rigtune tune` put them; the batch
 * (the workload's knee key: batch, num_envs) runs from the knee to the
 * largest value that fits in memory; the user's own hyper-parameters come
 * from a --params file; the sweep is written for a real engine (Optuna,
 * Ray Tune, W&B, Hydra's Optuna sweeper) or as JSON Lines.
 *
 * Three steps, each its own file:
 *   sweep_params.c   the --params file into rt_sweep_params
 *   sweep_plan.c     the configuration (and its journal) into rt_sweep_plan:
 *                    fixed knobs, environment, PUs, batch values with their
 *                    throughput, memory verdict and time per trial
 *   sweep_formats.c  the table of output formats (sweep_script.c: the
 *                    Optuna and Ray Tune study scripts)
 *
 * --params schema: a mapping of names (a letter or _, then letters, digits,
 * _) to one of
 *   {values: [a, b, ...]}                       a choice among scalars
 *   {low: L, high: H, scale: log|linear, type: float|int}
 * (scale defaults to linear, type to float; log needs low > 0; int needs
 * whole numbers). Anything else is RT_EINVAL "FILE:LINE:COLUMN: problem".
 */
#ifndef RT_SWEEP_H
#define RT_SWEEP_H

#include <stdio.h>

#include "../config.h"

#define RT_SWEEP_MAX_PARAMS 32
#define RT_SWEEP_MAX_VALUES 64
#define RT_SWEEP_MAX_BATCH 32
#define RT_SWEEP_MAX_PUS 256
/* Share of the memory a batch estimated from the memory model may use. */
#define RT_SWEEP_MEM_SHARE 0.8

/* ---- the user's hyper-parameters (--params) ------------------------------ */

typedef enum rt_sweep_vtype { RT_SV_INT, RT_SV_FLOAT, RT_SV_BOOL, RT_SV_STR } rt_sweep_vtype;

/* One scalar of a values: list, or a bound of a range. */
typedef struct rt_sweep_value {
	rt_sweep_vtype type;
	double num;        /* INT, FLOAT, BOOL (0 or 1) */
	const char *str;   /* STR: points into the params document */
} rt_sweep_value;

typedef struct rt_sweep_param {
	const char *name;
	int is_range;
	/* values: */
	int nvalues;
	rt_sweep_value values[RT_SWEEP_MAX_VALUES];
	/* range: */
	double low, high;
	int log, integer;
} rt_sweep_param;

typedef struct rt_sweep_params {
	rt_yr yr; /* the document the strings point into */
	int n;
	rt_sweep_param p[RT_SWEEP_MAX_PARAMS];
} rt_sweep_params;

/*
 * Reads the --params file at path. reserved[0..nreserved) are names the
 * sweep sets itself (the batch key, the fixed knobs): a parameter by one of
 * them is an error. RT_EIO when the file cannot be read; RT_EINVAL
 * "PATH:LINE:COLUMN: problem". On failure p owns nothing.
 */
int rt_sweep_params_load(const char *path, const char *const *reserved, int nreserved,
			 rt_sweep_params *p, char *err, size_t errlen);
/* The same from memory; name is what messages call the text. */
int rt_sweep_params_parse(const char *name, const char *text, size_t len,
			  const char *const *reserved, int nreserved, rt_sweep_params *p,
			  char *err, size_t errlen);
void rt_sweep_params_free(rt_sweep_params *p); /* accepts one that failed to load */

/* ---- the plan ------------------------------------------------------------ */

/* Where a batch value's figure comes from. */
typedef enum rt_sweep_source {
	RT_SRC_MEASURED,     /* tune measured this value */
	RT_SRC_INTERPOLATED, /* between two measured values (linear in log2 batch) */
	RT_SRC_EXTRAPOLATED, /* past the largest measured: held at its throughput */
} rt_sweep_source;

const char *rt_sweep_source_name(rt_sweep_source s);

typedef struct rt_sweep_batch {
	long value;
	double throughput;       /* items/s of the workload's unit */
	rt_sweep_source source;
	int fit_measured;        /* 1: this or a larger value ran in tune; 0: memory model */
	double mem_gib;          /* the memory model's need at this value */
	double seconds;          /* per trial: steps * value / throughput */
} rt_sweep_batch;

typedef struct rt_sweep_plan {
	const rt_config *cfg;
	const rt_config_rec *rec;
	const rt_workload *w;
	const char *axis;         /* the knee key: "batch", "num_envs" */
	rt_point point;           /* the recommended point (the knee) */
	rt_shape shape;
	long knee;                /* the knee's value of axis */
	const rt_config_kvs *fixed; /* the recommended point's keys; axis excluded when used */
	const rt_config_kvs *env;   /* the variables to export */
	int npus;                 /* PUs for the binding; 0: none (another host, pin none) */
	int pus[RT_SWEEP_MAX_PUS];
	double steps;             /* steps per trial */
	int trials;
	int nbatch;
	rt_sweep_batch batch[RT_SWEEP_MAX_BATCH];
	/* why the list stops where it stops, one sentence */
	char limit[256];
	/* what was said about the inputs along the way (journal unreadable, ...) */
	char notes[512];
} rt_sweep_plan;

typedef struct rt_sweep_opts {
	const char *workload;
	double steps_per_trial; /* > 0 */
	int trials;             /* > 0 */
} rt_sweep_opts;

/*
 * Makes the plan of workload o->workload from the loaded configuration c
 * (kept by pointer: c must outlive the plan). Reads c's journal when it can
 * (search.journal, as written or beside the configuration); a missing or
 * unreadable journal is a note, not an error: memory is then estimated
 * above the knee. RT_EINVAL "PATH: ..." when c has no usable entry for the
 * workload or the workload is not a built-in one with a knee key.
 */
int rt_sweep_plan_make(const rt_config *c, const rt_sweep_opts *o, rt_sweep_plan *plan,
		       char *err, size_t errlen);

/* The mean seconds per trial over the batch values (each tried equally often). */
double rt_sweep_mean_seconds(const rt_sweep_plan *plan);

/*
 * What the sweep holds fixed (knobs, environment, binding), the batch values
 * with their throughput, its source, memory and time per trial, the time of
 * the whole sweep and the notes: lines for people, each behind prefix.
 */
void rt_sweep_describe(FILE *f, const rt_sweep_plan *plan, const char *prefix);

/* "3 h 20 min", "45 s": a duration for people. */
void rt_sweep_duration(double seconds, char *buf, size_t len);

/* ---- the output ---------------------------------------------------------- */

typedef enum rt_sweep_direction { RT_SWEEP_MINIMIZE, RT_SWEEP_MAXIMIZE } rt_sweep_direction;

/* What the user's training is and how its result is read. */
typedef struct rt_sweep_objective {
	const char *cmd;        /* --cmd: a template with {param} placeholders, or NULL */
	const char *regex;      /* --objective: one capture group, the number */
	const char *function;   /* --function module:name, or NULL */
	const char *metric;     /* the metric's name (W&B logs it by name) */
	rt_sweep_direction direction;
} rt_sweep_objective;

typedef struct rt_sweep_format {
	const char *name;
	const char *summary;
	int uses_objective; /* whether --cmd, --objective, --function mean anything to it */
	/*
	 * Checks what this format needs from the objective: RT_EINVAL with the
	 * problem, naming the option.
	 */
	int (*check)(const rt_sweep_objective *obj, char *err, size_t errlen);
	/* Writes the sweep to f. RT_EINVAL for an objective it cannot express. */
	int (*emit)(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		    const rt_sweep_objective *obj, char *err, size_t errlen);
} rt_sweep_format;

/* The format called name, NULL if none. */
const rt_sweep_format *rt_sweep_format_find(const char *name);
/* The i-th format of the table, NULL past its end. */
const rt_sweep_format *rt_sweep_format_at(int i);
/* "optuna, ray, wandb, hydra, grid" */
void rt_sweep_format_names(char *buf, size_t len);
/* The workloads a sweep takes, those with a knee: "transformer (batch), ppo (num_envs)". */
void rt_sweep_workload_names(char *buf, size_t len);

/*
 * Checks the objective against the sweep's names: every {placeholder} of
 * cmd names a parameter, the batch key or a fixed knob; regex is a POSIX
 * extended expression with exactly one group that Python's re reads alike;
 * function is module:name. RT_EINVAL "--cmd: ..." / "--objective: ...".
 */
int rt_sweep_objective_check(const rt_sweep_objective *obj, const rt_sweep_plan *plan,
			     const rt_sweep_params *params, char *err, size_t errlen);

/*
 * The whole sweep in format fmt into *text (malloc'd, NUL-terminated, *len
 * bytes). RT_EINVAL from the format's check, RT_ENOMEM.
 */
int rt_sweep_write(const rt_sweep_format *fmt, const rt_sweep_plan *plan,
		   const rt_sweep_params *params, const rt_sweep_objective *obj, char **text,
		   size_t *len, char *err, size_t errlen);

#endif
