/*
 * workload.h: a synthetic ML workload that the harness can time.
 *
 * A workload is a table entry (FFTW-solver style): its name, the shape keys
 * it understands with their defaults and ranges, and check/setup/step/
 * teardown. The harness (tuner/measure.c) calls setup once per trial, step
 * many times, then teardown. Workloads know nothing of the tuner or search.
 *
 * A point is where the knobs are set (backend, precision, batch, threads,
 * workers, pin); a shape is the model being trained (d_model, layers, ...).
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
	RT_NPIN
} rt_pin;

const char *rt_pin_name(rt_pin p);
int rt_pin_parse(const char *name); /* -1 if unknown */

typedef struct rt_point {
	char backend[16];     /* "cpu", "cuda", "hip" */
	int device;           /* device index within the backend */
	rt_precision precision;
	int batch;
	int threads;          /* host compute threads (BLAS + own kernels) */
	int workers;          /* data / environment worker threads; 0 = inline */
	rt_pin pin;
} rt_point;

/* Fills p with the defaults: cpu, fp32, batch 32, threads 1, workers 0, compact. */
void rt_point_default(rt_point *p);

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

/* The point knobs a workload reads (backend, precision, threads, pin always). */
enum { RT_KNOB_BATCH = 1u << 0, RT_KNOB_WORKERS = 1u << 1 };

typedef struct rt_workload {
	const char *name;
	const char *unit;             /* unit of items per second: "samples/s" */
	unsigned knobs;               /* RT_KNOB_* it reads; others are ignored */
	const rt_shape_key *keys;
	int nkeys;
	const char *const *phase_names;
	int nphases;
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
	 * Optional: figures derived from the median throughput and the median
	 * seconds per phase of one step, and one sentence about the bottleneck
	 * ("" if none). Returns how many figures it wrote (<= RT_MAX_DERIVED).
	 */
	int (*derive)(const rt_point *pt, const rt_shape *sh, double items_per_s,
		      const double *phase_seconds, rt_derived *out, char *sentence,
		      size_t len);
} rt_workload;

/* The registry of workloads (workloads/registry.c). NULL if unknown. */
const rt_workload *rt_workload_find(const char *name);
const rt_workload *const *rt_workload_list(int *count);

/* Fills sh with the workload's defaults. */
void rt_shape_default(const rt_workload *w, rt_shape *sh);
/* Index of a shape key, -1 if the workload has none by that name. */
int rt_shape_index(const rt_workload *w, const char *key);

#endif
