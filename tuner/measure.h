/*
 * measure.h: the measurement harness. One trial = one point of one workload,
 * run in a forked child with a wall-clock timeout, so that a crash, a hang or
 * an allocation failure marks the point infeasible and the caller carries on.
 * The parent process never initializes a backend.
 *
 * Inside the child: bind to the point's PUs, open the backend, set up the
 * workload, warm up, then take samples of at least min_sample_s of steps
 * each until the 95% CI of the median throughput is within rel_ci of the
 * median (at least min_samples), or the next sample would end past
 * time_cap_s of sampling (one sample at least), or max_samples. A step that
 * takes a quarter of the cap is warmed up once, so that a trial's warm-up
 * and samples overrun its cap by one step at most (or warmup_s, for short
 * steps; setup aside); a first step that took the whole cap is the trial's
 * one sample.
 * Around the samples, on a backend that offers them, the device's own busy
 * time (events around every kernel and copy) and its vendor monitor's
 * utilization samples are taken, and the GEMM implementation is noted.
 */
#ifndef RT_MEASURE_H
#define RT_MEASURE_H

#include "../workloads/workload.h"

typedef struct rt_measure_opts {
	double warmup_s;      /* at least this long, and 2 steps, before sampling */
	double min_sample_s;  /* a sample is at least this many seconds of steps */
	double rel_ci;        /* stop when CI half-width / median <= rel_ci */
	int min_samples, max_samples;
	double time_cap_s;    /* sampling stops after this */
	double timeout_s;     /* the child is killed after this (setup included) */
	int one_step;         /* the first step is the one sample (a step too long for two) */
	uint64_t mem_cap;     /* a CPU trial's address space in bytes; 0: the memory
				 available when it starts, plus slack for reservations
				 (none in an AddressSanitizer build) */
} rt_measure_opts;

/*
 * The address space a CPU trial gets by default: the memory available now,
 * plus slack for what runtimes reserve and never touch; 0 when unknown.
 * $RIGTUNE_MEMWATCH_MIB, a test hook, replaces it (memwatch.h).
 */
uint64_t rt_measure_mem_cap(void);

/* warm-up 0.2 s, samples of 10 ms, CI within 2%, 8..200 samples, 5 s cap, 60 s timeout, warm. */
void rt_measure_defaults(rt_measure_opts *o);

/* A coefficient of variation above this flags a measurement as unstable. */
#define RT_UNSTABLE_CV 0.05

/*
 * Why a trial was not run (rt_measurement.skipped): a step predicted over
 * its cap, or the trial predicted to end past the budget.
 */
enum { RT_SKIP_CAP = 1, RT_SKIP_BUDGET = 2 };

typedef struct rt_measurement {
	int feasible;
	rt_cause cause;        /* why not, when !feasible (never RT_CAUSE_NONE then) */
	char reason[256];      /* "infeasible: ..." explanation when !feasible */
	int nsamples;
	double *samples;       /* items per second, one per sample; owned */
	double median, ci_lo, ci_hi, cv;
	int unstable;          /* cv > 5% */
	double gflops;         /* achieved, at the median */
	int nphases;
	double phase_frac[RT_MAX_PHASES]; /* share of step time per phase */
	double step_seconds;   /* median seconds per step */
	double setup_seconds;  /* the trial's start until its warm-up (backend, workload setup) */
	double seconds;        /* wall time of the whole trial */
	int skipped;           /* not run (RT_SKIP_CAP, RT_SKIP_BUDGET: the reason says), else 0 */
	double contention;     /* share of its CPUs' time other processes took (contention.h) */
	int contended;         /* contention above rt_contended_share(): the figures are low */
	char gemm_impl[160];   /* what the GEMMs ran on, "" if the backend does not say */
	/* The device's busy share of the sampled steps, from its own events. */
	int device_timed;
	double device_busy;
	/* The same as the vendor's monitor sampled it at its own rate. */
	int device_sampled;
	double device_busy_sampled;
	char monitor[16];      /* "nvml", "rocm_smi" */
} rt_measurement;

/*
 * Runs one trial. Returns 0 with out filled (out->feasible may be 0: the
 * point is infeasible, not an error), or a negative code when the harness
 * itself fails (fork, pipe). Input is the caller's to check (w->check)
 * before: any failure inside the child, whatever its code, makes the point
 * infeasible with the child's reason and a cause: RT_EINFEASIBLE or
 * RT_ENOMEM from the workload -> memory, RT_EUNAVAIL (backend, device,
 * precision) -> unavailable, any other code, a signal or an early exit ->
 * crash, no report before timeout_s -> timeout. Free with
 * rt_measurement_free().
 */
int rt_measure(const rt_workload *w, const rt_point *pt, const rt_shape *sh,
	       const rt_measure_opts *o, rt_measurement *out, char *err, size_t errlen);

/* Fills the statistics fields from out->samples. */
void rt_measurement_summarize(rt_measurement *out);

void rt_measurement_free(rt_measurement *m);

#endif
