/*
 * crossover.h: where one configuration starts beating another.
 *
 * Sweeps: square GEMMs (n x n x n) over log-spaced n, per backend and
 * precision; on the CPU with every usable core (curve "cpu") and with one
 * thread ("cpu:1t"); on a GPU with data resident ("cuda") and with the
 * host -> device -> host transfers an eager framework pays ("cuda+xfer").
 * With a model shape, also the GEMMs of one training step of that workload
 * (its step_gemms: for the transformer m = batch * seq_len swept, k =
 * d_model, n = 3*d_model for QKV and d_ff for the MLP).
 *
 * Analysis (search/fit, rt_crossover_fit below): a robust fit t(n) = c + a n^b per curve; for every
 * pair of backends at one precision the crossover n*, its bootstrap 95% CI,
 * and the smallest batch of the user's model that puts every GEMM of a step
 * above it; for the CPU the size from which all cores beat one, and the best
 * thread count per size range.
 */
#ifndef RT_CROSSOVER_H
#define RT_CROSSOVER_H

#include <stdbool.h>

#include "../workloads/workload.h"
#include "machine.h"
#include "measure.h"
#include "replay.h"
#include "yamlr.h"
#include "yamlw.h"

/* A model: the workload, its shape and the GEMMs of its step. given 0: none. */
typedef struct rt_crossover_shape {
	int given;
	const rt_workload *w;
	rt_shape sh;
	long rows;                            /* m = batch * rows */
	int ngemm;
	rt_gemm_dims gemm[RT_MAX_STEP_GEMMS];
} rt_crossover_shape;

/*
 * The model of workload w at shape sh: its step's GEMMs (w->step_gemms).
 * RT_EINVAL when w lists none.
 */
int rt_crossover_shape_of(const rt_workload *w, const rt_shape *sh, rt_crossover_shape *out, char *err,
		   size_t errlen);

/* The observations behind an analysis: square sweeps and shaped ones. */
#define RT_CROSSOVER_MAX_IMPL 32

typedef struct rt_crossover_data {
	rt_replay *square;
	rt_replay *shaped[RT_MAX_STEP_GEMMS]; /* per step GEMM, n = m (rows); NULL: not measured */
	/* What the GEMMs of each measured curve ran on: "cuda/bf16" -> "cublas 13.0.2, ..." */
	int nimpl;
	struct {
		char curve[48];
		char impl[160];
	} impl[RT_CROSSOVER_MAX_IMPL];
	char replay[1024]; /* the file square's observations are saved in; "" when not saved */
} rt_crossover_data;

typedef struct rt_crossover_sweep_opts {
	const char *const *backends; /* NULL: every known backend */
	int nbackends;
	unsigned precisions;         /* RT_PREC_BIT mask */
	int usable_cores;
	double seconds_per_point;
	int max_samples;             /* of a size; 0: the harness's (measure.h) */
	double max_n;                /* largest square size */
	int quiet;                   /* no progress lines on stderr */
	double deadline;             /* rt_clock_now() after which no point starts; 0: none */
	int (*stop)(void);           /* asked before each point: nonzero ends the sweep */
	const rt_machine *machine;   /* its accelerators; NULL: probe them */
	/*
	 * How a size is measured: NULL, rt_measure (a forked trial); a test's
	 * simulated trials otherwise, with measure_user.
	 */
	int (*measure)(void *user, const rt_point *pt, const rt_shape *sh,
		       const rt_measure_opts *mo, rt_measurement *m, char *err, size_t errlen);
	void *measure_user;
} rt_crossover_sweep_opts;

/*
 * The order a square sweep of count sizes visits them in, coarse to fine
 * (the smallest, the largest, the middle, the middles of the halves, ...),
 * into order (count of them, at most RT_CROSSOVER_MAX_SIZES); returns how
 * many it wrote. A sweep measures every curve
 * at one size before any curve at the next, so that a deadline leaves every
 * curve three sizes across its range before any gets a fourth.
 */
#define RT_CROSSOVER_MAX_SIZES 64
int rt_crossover_size_order(int count, int *order);

/*
 * Measures the sweeps (each point a forked trial, see measure.h) into
 * data. Backends that are unavailable are skipped; their reasons are
 * appended to `skipped` ("cuda: no CUDA device; ..."). RT_ERUNTIME if no
 * curve could be measured at all, or when o->stop asked to stop (the data
 * of a cut sweep would misplace the crossovers). Past the deadline the
 * curves end where they are.
 */
int rt_crossover_sweep(const rt_crossover_sweep_opts *o, const rt_crossover_shape *shape, rt_crossover_data *data,
		char *skipped, size_t skippedlen, char *err, size_t errlen);

void rt_crossover_data_free(rt_crossover_data *d);

/*
 * The gemm point and shape that a square sweep measured for curve c at
 * size n (m = n = k): its backend (id.backend) at id.threads (1 when not
 * said), with the transfers when id.xfer, at c's precision, every other
 * knob at its default, as the sweep runs them (`rigtune check` measures a
 * saved sweep's points again). RT_EINVAL for a backend or a precision that
 * names nothing this rigtune knows.
 */
int rt_crossover_curve_point(const rt_replay_curve *c, long n, rt_point *pt, rt_shape *sh,
			     char *err, size_t errlen);

/*
 * Size n of square curve `curve` of r (one o's sweep measured) measured
 * again as the sweep measured it, its samples added to the curve (a tune's
 * baseline rounds: tune_baseline.h); *seconds is the trial's wall time. A
 * size that does not run now adds nothing (not an error).
 */
int rt_crossover_measure_again(const rt_crossover_sweep_opts *o, rt_replay *r, size_t curve,
			       long n, double *seconds, char *err, size_t errlen);

/*
 * The analysis, in three calls: rt_crossover_fit computes it (numbers only),
 * rt_crossover_emit writes it as the `crossover:` mapping (a configuration's, or
 * `rigtune crossover`'s output), rt_crossover_plot draws it. A reader that wants the
 * fits (the report page) takes them from rt_crossover_analysis, never from the YAML.
 */

/* The fits of every curve of one replay, in its order. */
typedef struct rt_crossover_fits {
	const rt_replay *r; /* NULL: not fitted */
	rt_fit *fit;
	bool **outlier;     /* per curve, per observation */
	char (*name)[64];   /* per curve: "cpu:2t/fp32" */
} rt_crossover_fits;

/* The smallest batch of the user's model that puts every GEMM of a step past a crossover. */
typedef struct rt_crossover_model {
	int given;               /* 0: no model shape, nothing here */
	int found;               /* 0: error says why */
	char error[256];
	long min_batch;
	const char *binding_gemm; /* the GEMM that needs the largest batch */
	char basis[64];           /* "transformer-shaped sweep", "square crossover, flop-equivalent" */
	char summary[256];
} rt_crossover_model;

/* Two backends at one precision (square curves i and j): where one overtakes the other. */
typedef struct rt_crossover_pair {
	size_t i, j;
	int solved;            /* 0: error says why */
	char error[256];
	rt_crossover cx;
	double n_star;         /* NAN when they do not cross */
	int has_ci;
	rt_crossover_ci ci;    /* bootstrap 95% CI of n_star, when has_ci */
	const char *faster;    /* the curve faster above n_star (a name of the fits) */
	const char *winner;    /* without a crossing: the curve faster throughout */
	char summary[256];
	rt_crossover_model model;
} rt_crossover_pair;

/* One backend at 1 thread (curve one) and at N (curve many): from which n N pays. */
typedef struct rt_crossover_threads {
	size_t one, many;
	char backend[16], precision[16];
	int threads;           /* N */
	int solved;            /* 0: error says why */
	char error[256];
	rt_crossover cx;
	double pays_from;      /* INFINITY: never in the measured range */
	int extrapolated;      /* pays_from lies outside the measured range */
	char summary[256];
	int has_best;
	size_t nbest;
	rt_thread_range best[8]; /* the best thread count per size range */
	rt_crossover_model model;
} rt_crossover_threads;

typedef struct rt_crossover_analysis {
	rt_crossover_fits square;
	rt_crossover_fits shaped[RT_MAX_STEP_GEMMS];
	size_t npairs, nthreads;
	rt_crossover_pair *pairs;
	rt_crossover_threads *threads;
} rt_crossover_analysis;

/*
 * Fits every curve of d (a robust t(n) = c + a n^b each), then solves every
 * pair of backends at one precision (n*, its bootstrap CI, the model's
 * smallest batch when shape->given) and every CPU thread comparison. a keeps
 * pointers into d's replays: free a before d. RT_EINVAL for a curve that
 * cannot be fitted (named), RT_ENOMEM; on failure a owns nothing.
 */
int rt_crossover_fit(const rt_crossover_data *d, const rt_crossover_shape *shape, rt_crossover_analysis *a, char *err,
	      size_t errlen);
void rt_crossover_analysis_free(rt_crossover_analysis *a); /* accepts NULL and a zeroed analysis */

/*
 * The analysis as a document (crossover_doc.c): its writer, and its reader
 * for what a configuration keeps of it.
 */

/* "in_range", "extrapolated", "none": how a pair's curves cross, as the YAML says it. */
const char *rt_crossover_kind_name(rt_cross_kind k);

/* The `crossover:` mapping value of a (after its key), with `replay:` naming d->replay. */
void rt_crossover_emit(rt_yw *w, const rt_crossover_analysis *a, const rt_crossover_data *d,
		const rt_crossover_shape *shape);

#define RT_CROSSOVER_DOC_MAX 16
#define RT_CROSSOVER_DOC_MAX_RANGES 8

/* A fitted curve as read back, with the observations it left out. */
typedef struct rt_crossover_doc_curve {
	const char *label, *precision; /* as the document says them ("cpu:2t", "fp32") */
	rt_curve id;                   /* what its label says */
	rt_fit fit;                    /* a, b, c; n_min, n_max: its range */
	int noutliers;
	double *outliers;              /* n, seconds pairs; owned */
} rt_crossover_doc_curve;

/* Where two curves cross: kind in_range, extrapolated or none; error when not solved. */
typedef struct rt_crossover_doc_pair {
	const char *a, *b; /* the curves' names ("cpu:2t/fp32") */
	const char *kind;  /* NULL with error */
	const char *summary, *error;
	double n_star, ci_lo, ci_hi; /* NAN when absent */
} rt_crossover_doc_pair;

/* The thread counts of a backend and precision: from which size more threads pay. */
typedef struct rt_crossover_doc_threads {
	const char *backend, *precision, *summary, *error;
	int threads;
	double pays_from; /* NAN: never in the measured range */
	int nbest;
	rt_thread_range best[RT_CROSSOVER_DOC_MAX_RANGES];
} rt_crossover_doc_threads;

/* What a reader shows of an analysis: what the document says, as it says it. */
typedef struct rt_crossover_doc {
	int ncurves, npairs, nthreads;
	rt_crossover_doc_curve curves[RT_CROSSOVER_DOC_MAX];
	rt_crossover_doc_pair pairs[RT_CROSSOVER_DOC_MAX];
	rt_crossover_doc_threads threads[RT_CROSSOVER_DOC_MAX];
} rt_crossover_doc;

/*
 * The `crossover:` mapping xo (rt_crossover_emit's) into x, strings
 * pointing into r's document: RT_EINVAL "PATH:LINE:COLUMN: problem" (into
 * r's error buffer) for a mapping that is not such an analysis or lists
 * more than RT_CROSSOVER_DOC_MAX of a kind, RT_ENOMEM. Free with
 * rt_crossover_doc_free, also on failure.
 */
int rt_crossover_read(const rt_yr *r, const rt_ynode *xo, rt_crossover_doc *x);
void rt_crossover_doc_free(rt_crossover_doc *x);

/*
 * Draws the square curves of a and their crossovers into svg (gnuplot; the
 * .dat and .gp beside it). note gets what to tell the user ("plot written to
 * ...", or how to draw it without gnuplot), or the error. RT_EIO, RT_ENOMEM.
 */
int rt_crossover_plot(const rt_crossover_analysis *a, const char *svg, char *note, size_t notelen);

#endif
