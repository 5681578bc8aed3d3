/*
 * workload.h: a synthetic ML workload that the harness can time.
 *
 * A workload is a table entry (FFTW-solver style): its name, the shape keys
 * it understands with their defaults and ranges, and check/setup/step/
 * teardown. The harness (tuner/measure.c) calls setup once per trial, step
 * many times, then teardown. Workloads know nothing of the tuner or search.
 * The entry also carries what the tuner needs to know of it (its share of a
 * tuning budget, the knob along which it saturates, its hints to a framework,
 * its derived figures, the GEMMs of its step), so that the tuner names no
 * workload.
 *
 * Adding one: its source file defining `const rt_workload rt_workload_NAME`,
 * its default search space configs/space-NAME.yaml, and one line
 * RT_WORKLOAD(NAME) in workloads/registry.h.
 *
 * A point is where the knobs are set (backend, precision, batch, threads,
 * workers, pin: the rows of RT_POINT_KNOBS below); a shape is the model
 * being trained (d_model, layers, ...).
 */
#ifndef RT_WORKLOAD_H
#define RT_WORKLOAD_H

#include "backend.h"

typedef enum rt_pin {
	RT_PIN_NONE = 0, /* let the OS place threads */
	RT_PIN_COMPACT,  /* fill cores one after another */
	RT_PIN_SPREAD,   /* one thread per core, spread across packages/NUMA */
	RT_PIN_PCORES,   /* performance cores only (hwloc's most efficient
			    cpukind; on a non-hybrid chip the same as compact) */
	RT_PIN_ECORES,   /* efficiency cores first (hwloc's least powerful cpukind) */
	RT_NPIN
} rt_pin;

/* A backend's name in a point: "cpu", "cuda", "hip". */
typedef char rt_backend_name[16];

/*
 * The knobs of a point, one row each (knobs.h reads the rows as its table):
 * X(name, ctype, kind, def, min, max, choices, flags, label, plural)
 *   ctype  the field's type in rt_point
 *   kind   RT_KNOB_INT, RT_KNOB_CHOICE (one of choices, max + 1 names),
 *          RT_KNOB_BACKEND (a backend rigtune knows)
 *   def    the default (a choice's index; a backend's default is the host, "cpu")
 *   flags  RT_KF_* (knobs.h): its role in the search, who reads it, when it is shown
 *   label  its key in a short label ("t" gives "t=4"), "" for the bare value
 *   plural a choice knob's values in a space file's messages ("pin policies")
 *
 * Adding a knob: its row here, the workload's use (RT_KNOB_BIT(NAME) in its
 * knobs, pt->NAME in its code) and its docs; the codec of knobs.h carries
 * it through arguments, space files, journals, configurations and labels.
 */
#define RT_POINT_KNOBS(X)                                                                     \
	X(backend, rt_backend_name, RT_KNOB_BACKEND, 0, 0, 0, NULL, RT_KF_ALL, "", NULL)        \
	X(device, int, RT_KNOB_INT, 0, 0, 64, NULL,                                           \
	  RT_KF_ALL | RT_KF_TERSE | RT_KF_QUIET | RT_KF_FIXED | RT_KF_JOINS, "dev", NULL)       \
	X(precision, rt_precision, RT_KNOB_CHOICE, RT_FP32, 0, RT_NPRECISION - 1,             \
	  rt_precision_names, RT_KF_ALL, "", "precisions")                                    \
	X(batch, int, RT_KNOB_INT, 32, 1, 1 << 24, NULL, RT_KF_LOG, "b", NULL)                \
	X(threads, int, RT_KNOB_INT, 1, 1, 4096, NULL,                                        \
	  RT_KF_ALL | RT_KF_LOG | RT_KF_CORES | RT_KF_RANGE | RT_KF_PEAKED, "t", NULL)          \
	X(workers, int, RT_KNOB_INT, 0, 0, 4096, NULL,                                        \
	  RT_KF_LOG | RT_KF_CORES | RT_KF_RANGE | RT_KF_PEAKED, "w", NULL)                      \
	X(pin, rt_pin, RT_KNOB_CHOICE, RT_PIN_COMPACT, 0, RT_NPIN - 1, rt_pin_names,          \
	  RT_KF_ALL | RT_KF_QUIET, "", "pin policies")

/* RT_K_batch, ...: a knob's row in the table. */
enum {
#define RT_KNOB_ID(name, ...) RT_K_##name,
	RT_POINT_KNOBS(RT_KNOB_ID)
#undef RT_KNOB_ID
	RT_NKNOBS
};

/* The bit of a knob a workload reads, for rt_workload.knobs: RT_KNOB_BIT(batch). */
#define RT_KNOB_BIT(name) (1u << RT_K_##name)

/* Where the knobs are set; a shape is the model being trained (d_model, layers, ...). */
typedef struct rt_point {
#define RT_KNOB_FIELD(name, ctype, ...) ctype name;
	RT_POINT_KNOBS(RT_KNOB_FIELD)
#undef RT_KNOB_FIELD
} rt_point;

/* Fills p with each knob's default: cpu, fp32, batch 32, threads 1, workers 0, compact. */
void rt_point_default(rt_point *p);
/* 1 when a and b set every knob alike (the journal's reuse and check's baseline match so). */
int rt_point_equal(const rt_point *a, const rt_point *b);

const char *rt_pin_name(rt_pin p);
int rt_pin_parse(const char *name); /* -1 if unknown */

#define RT_MAX_SHAPE_KEYS 12
#define RT_MAX_PHASES 8

typedef struct rt_shape_key {
	const char *name;
	long def, min, max;
	const char *help;
} rt_shape_key;

/* Values for a workload's shape keys, in the order of its key table. */
typedef struct rt_shape {
	int n;
	long v[RT_MAX_SHAPE_KEYS];
} rt_shape;

/* What one step did. */
typedef struct rt_step_result {
	double items;                 /* samples, env-steps, ... (unit of the workload) */
	double flops;                 /* floating-point operations done */
	double phase[RT_MAX_PHASES];  /* seconds per phase, in phase_names order */
} rt_step_result;

/* A figure derived from a measurement, for reports: tokens/s from samples/s. */
typedef struct rt_derived {
	const char *name;
	double value;
} rt_derived;

#define RT_MAX_DERIVED 4

/*
 * One GEMM of a training step whose rows grow with the batch: (batch x
 * rows_per_sample) x k times k x n, rows_per_sample given beside the list.
 */
typedef struct rt_gemm_dims {
	const char *name;  /* "ffn_up" */
	const char *label; /* short, for output keys: "ffn" */
	long k, n;
} rt_gemm_dims;

#define RT_MAX_STEP_GEMMS 4
/* Longest line of a framework hint, with its terminating NUL. */
#define RT_HINT_LEN 160

/* The libraries whose lines a workload's hints give (its data loading, its environments). */
typedef enum rt_hint_lib { RT_HINT_PYTORCH, RT_HINT_GYMNASIUM, RT_HINT_SB3 } rt_hint_lib;

/*
 * What the library costs a vector step of n environments in the user's own
 * Python, as fixed_us + n x per_env_us (the frameworks' probe times SB3's
 * PPO on an environment that costs nothing); fixed_us 0: not measured. And
 * the device the library's line names, chosen for the library's own step
 * (tuner/fwdevice.h), with a short why for the line; device "" or NULL: the
 * point's.
 */
typedef struct rt_hint_cost {
	double fixed_us, per_env_us;
	const char *device;
	const char *device_why;
} rt_hint_cost;

/*
 * The network a library runs once per environment step (the envs of a
 * vector step as its batch) and trains on minibatches: its layers' GEMMs
 * (k x n each, count of them alike; m = the batch), the envs a vector step
 * steps, the minibatch and the passes over each sample.
 */
#define RT_POLICY_MAX_LAYERS 4
typedef struct rt_policy {
	int nlayers;
	struct {
		long k, n;
		int count;
	} layer[RT_POLICY_MAX_LAYERS];
	long envs, minibatch, epochs;
} rt_policy;

typedef struct rt_workload {
	const char *name;
	const char *unit;             /* unit of items per second: "samples/s" */
	const char *summary;          /* what one step is, in a line, for --help */
	unsigned knobs;               /* RT_KNOB_BIT()s of the knobs it reads beyond those
					 every workload reads (RT_KF_ALL); others are ignored */
	/*
	 * Its share of a tuning budget against the other workloads' (1: as much
	 * as a search of gemm's few knobs needs; 0 counts as 1).
	 */
	double budget_weight;
	/*
	 * The knob or shape key along which throughput rises and levels off
	 * while memory grows ("batch", "num_envs"): a search space saturates
	 * along it and the recommendation's knee is taken along it. NULL: none.
	 */
	const char *knee;
	const rt_shape_key *keys;
	int nkeys;
	const char *const *phase_names;
	int nphases;
	/*
	 * The phases (bit i: phase_names[i]) that run on the host alone while
	 * the device waits (data preparation, environment steps): named when a
	 * utilization monitor reads the device far less busy than its events.
	 */
	unsigned host_phases;
	/*
	 * Validates shape and point without allocating: RT_EINVAL for a shape
	 * or knob that can never work (d_model % heads != 0), with the reason.
	 */
	int (*check)(const rt_point *pt, const rt_shape *sh, char *err, size_t errlen);
	/* Bytes of memory (device memory on a GPU) the point needs. */
	uint64_t (*mem_bytes)(const rt_point *pt, const rt_shape *sh);
	/*
	 * Allocates and initializes the workload from a seeded generator on the
	 * given backend (already init()ed). RT_EINFEASIBLE only when the point
	 * does not fit in memory ("needs N GiB, M available", an allocation that
	 * fails): the tuner then skips every larger batch of the same settings.
	 * RT_EUNAVAIL when the backend lacks what the point needs (a precision).
	 */
	int (*setup)(const rt_point *pt, const rt_shape *sh, const rt_backend_ops *be,
		     void **state, char *err, size_t errlen);
	int (*step)(void *state, rt_step_result *out, char *err, size_t errlen);
	void (*teardown)(void *state);
	/*
	 * Optional: the backend context a set-up state runs on, for what the
	 * harness reads of the device around the steps (its busy time from
	 * events, its monitor's samples, the GEMM implementation).
	 */
	rt_ctx *(*context)(void *state);
	/*
	 * Optional: figures derived from the median throughput and the median
	 * seconds per phase of one step, and one sentence about the bottleneck
	 * ("" if none) on a machine with usable_cores cores for compute (what
	 * more workers could use). Returns how many figures it wrote
	 * (<= RT_MAX_DERIVED).
	 */
	int (*derive)(const rt_point *pt, const rt_shape *sh, double items_per_s,
		      const double *phase_seconds, int usable_cores, rt_derived *out,
		      char *sentence, size_t len);
	/*
	 * Optional: what a script using lib must be told to train like pt and
	 * sh, beyond the threads and the precision that every workload shares
	 * (its data loading, its environments): up to max lines into lines;
	 * returns how many (0: lib has nothing to do with this workload). cost:
	 * what lib's own step costs where it was measured, else NULL.
	 */
	int (*hints)(rt_hint_lib lib, const rt_point *pt, const rt_shape *sh,
		     const rt_hint_cost *cost, char (*lines)[RT_HINT_LEN], int max);
	/*
	 * Optional: the policy lib runs per environment step to train like pt
	 * and sh (cost: lib's step, as for hints), for the device lib's lines
	 * name; RT_HINT_PYTORCH: a hand-written PyTorch loop's (CleanRL's
	 * style). Returns 0 when lib runs none for this workload, 1 with *out
	 * filled.
	 */
	int (*policy)(rt_hint_lib lib, const rt_point *pt, const rt_shape *sh,
		      const rt_hint_cost *cost, rt_policy *out);
	/*
	 * Optional: the GEMMs of one step whose rows grow with the batch, m =
	 * batch x *rows_per_sample, for the crossover's question "from which
	 * batch do they all run where the GPU wins". Returns how many it wrote
	 * (<= RT_MAX_STEP_GEMMS).
	 */
	int (*step_gemms)(const rt_shape *sh, rt_gemm_dims *out, long *rows_per_sample);
} rt_workload;

/* How many workloads the registry (workloads/registry.h) holds. */
enum {
	RT_NWORKLOADS = 0
#define RT_WORKLOAD(name) +1
#include "registry.h"
#undef RT_WORKLOAD
};

/*
 * The measuring workload of one GEMM: the crossover sweeps and bench's GEMM
 * peak time GEMMs through it.
 */
#define RT_GEMM_WORKLOAD "gemm"

/* The registry of workloads (workload.c, from registry.h). NULL if unknown. */
const rt_workload *rt_workload_find(const char *name);
const rt_workload *const *rt_workload_list(int *count);
/* "gemm, transformer, ppo": the names in registry order, cut to fit len. */
void rt_workload_names(char *buf, size_t len);

/* Fills sh with the workload's defaults. */
void rt_shape_default(const rt_workload *w, rt_shape *sh);
/* Index of a shape key, -1 if the workload has none by that name. */
int rt_shape_index(const rt_workload *w, const char *key);
/*
 * Index of a shape key that rigtune's own code names (gemm's "m"): the
 * workload has it, or rigtune is wrong (RT_BUG_ON). Input a user names is
 * rt_shape_index's, checked.
 */
int rt_shape_known(const rt_workload *w, const char *key);
/* A built-in workload rigtune's own code names ("gemm"): there, or rigtune is wrong (RT_BUG_ON). */
const rt_workload *rt_workload_builtin(const char *name);
/* 1 when a and b have the same keys' count and values. */
int rt_shape_equal(const rt_shape *a, const rt_shape *b);
/* 1 when w's hints give lines for lib (at its defaults): the libraries w is trained with. */
int rt_workload_hints_lib(const rt_workload *w, rt_hint_lib lib);

#endif
