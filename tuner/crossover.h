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
 * Analysis (search/fit): a robust fit t(n) = c + a n^b per curve; for every
 * pair of backends at one precision the crossover n*, its bootstrap 95% CI,
 * and the smallest batch of the user's model that puts every GEMM of a step
 * above it; for the CPU the size from which all cores beat one, and the best
 * thread count per size range.
 */
#ifndef RT_CROSSOVER_H
#define RT_CROSSOVER_H

#include "../workloads/workload.h"
#include "machine.h"
#include "replay.h"
#include "../workloads/workload.h"
#include "yamlw.h"

/* A model: the workload, its shape and the GEMMs of its step. given 0: none. */
typedef struct rt_xo_shape {
	int given;
	const rt_workload *w;
	rt_shape sh;
	long rows;                            /* m = batch * rows */
	int ngemm;
	rt_gemm_dims gemm[RT_MAX_STEP_GEMMS];
} rt_xo_shape;

/*
 * The model of workload w at shape sh: its step's GEMMs (w->step_gemms).
 * RT_EINVAL when w lists none.
 */
int rt_xo_shape_of(const rt_workload *w, const rt_shape *sh, rt_xo_shape *out, char *err,
		   size_t errlen);

/* The observations behind an analysis: square sweeps and shaped ones. */
#define RT_XO_MAX_IMPL 32

typedef struct rt_xo_data {
	rt_replay *square;
	rt_replay *shaped[RT_MAX_STEP_GEMMS]; /* per step GEMM, n = m (rows); NULL: not measured */
	/* What the GEMMs of each measured curve ran on: "cuda/bf16" -> "cublas 13.0.2, ..." */
	int nimpl;
	struct {
		char curve[48];
		char impl[160];
	} impl[RT_XO_MAX_IMPL];
	char replay[1024]; /* the file square's observations are saved in; "" when not saved */
} rt_xo_data;

typedef struct rt_xo_sweep_opts {
	const char *const *backends; /* NULL: every known backend */
	int nbackends;
	unsigned precisions;         /* RT_PREC_BIT mask */
	int usable_cores;
	double seconds_per_point;
	double max_n;                /* largest square size */
	int quiet;                   /* no progress lines on stderr */
	double deadline;             /* rt_now() after which no point starts; 0: none */
	int (*stop)(void);           /* asked before each point: nonzero ends the sweep */
	const rt_machine *machine;   /* its accelerators; NULL: probe them */
} rt_xo_sweep_opts;

/*
 * Measures the sweeps (each point a forked trial, see measure.h) into
 * data. Backends that are unavailable are skipped; their reasons are
 * appended to `skipped` ("cuda: no CUDA device; ..."). RT_ERUNTIME if no
 * curve could be measured at all, or when o->stop asked to stop (the data
 * of a cut sweep would misplace the crossovers). Past the deadline the
 * curves end where they are.
 */
int rt_xo_sweep(const rt_xo_sweep_opts *o, const rt_xo_shape *shape, rt_xo_data *data,
		char *skipped, size_t skippedlen, char *err, size_t errlen);

void rt_xo_data_free(rt_xo_data *d);

/*
 * The gemm point and shape that a square sweep measured for curve `label`
 * at precision and size n (m = n = k): "cpu:2t" is the CPU with 2 threads,
 * "cuda" a GPU with data resident, "cuda+xfer" one with the transfers,
 * every other knob at its default, as the sweep runs them (`rigtune check`
 * measures a saved sweep's points again). RT_EINVAL for a label or a
 * precision that names nothing this rigtune knows.
 */
int rt_xo_curve_point(const char *label, const char *precision, long n, rt_point *pt,
		      rt_shape *sh, char *err, size_t errlen);

/*
 * Fits and emits the `crossover:` mapping value into w, with `replay:`
 * naming d->replay when the observations are saved there. plot_svg, when not
 * NULL, also draws the square curves and their crossovers; *plot_note gets
 * what to tell the user about the plot ("" if nothing). Returns 0, or an
 * error of the fit (RT_EINVAL for unusable data: nothing is emitted then)
 * or of the plot (RT_EIO).
 */
int rt_xo_analyze(rt_yw *w, const rt_xo_data *d, const rt_xo_shape *shape,
		  const char *plot_svg, char *plot_note, size_t notelen, char *err,
		  size_t errlen);

#endif
