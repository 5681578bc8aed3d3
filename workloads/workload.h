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
 * workers, pin: the rows of knobs.h); a shape is the model being trained
 * (d_model, layers, ...).
 */
#ifndef RT_WORKLOAD_H
#define RT_WORKLOAD_H

#include "backend.h"
#include "knobs.h"

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
	 * returns how many (0: lib has nothing to do with this workload).
	 */
	int (*hints)(rt_hint_lib lib, const rt_point *pt, const rt_shape *sh,
		     char (*lines)[RT_HINT_LEN], int max);
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
/* 1 when a and b have the same keys' count and values. */
int rt_shape_equal(const rt_shape *a, const rt_shape *b);

#endif
