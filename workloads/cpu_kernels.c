/*
 * The CPU reference kernels (math in kernels.h). Each kernel is a pool job
 * over a range of items (elements, rows or columns), written once in
 * cpu_kernels_t.h and instantiated here for float and double. Inner loops go
 * through VLOOP, which strip-mines a loop into blocks of VW iterations: gcc
 * -O2's cheap vectorizer cost model vectorizes a loop only when its trip
 * count is a known multiple of the vector width, which the blocks are.
 */
#include <math.h>
#include <stdlib.h>

#include "cpu_backend.h"
#include "kernels.h"

/* Below this many element-operations a job runs on the calling thread:
 * waking the pool costs a few microseconds, about this much work. */
#define PAR_MIN_WORK (1u << 15)
/* Rough cost of one item relative to a multiply-add, for PAR_MIN_WORK. */
#define COST_SIMPLE 1
#define COST_TRANSCENDENTAL 16
/* Column tile of the column sums (doubles on the stack). */
#define COL_TILE 256
/* mse_loss sums blocks of at least this many elements, at most MSE_BLOCKS. */
#define MSE_MIN_BLOCK 4096
#define MSE_BLOCKS 256

#define VW 8
#define VLOOP(i, lo, hi, ...)                                                   \
	do {                                                                    \
		size_t i##_0 = (lo);                                           \
		const size_t i##_e = (hi);                                      \
		for (; i##_0 + VW <= i##_e; i##_0 += VW)                        \
			for (size_t i##_k = 0; i##_k < VW; i##_k++) {           \
				const size_t i = i##_0 + i##_k;                 \
				__VA_ARGS__;                                    \
			}                                                       \
		for (size_t i = i##_0; i < i##_e; i++) {                        \
			__VA_ARGS__;                                            \
		}                                                               \
	} while (0)

/* The arguments of every kernel job; each kernel uses the fields it names. */
typedef struct kargs {
	const void *x, *dy, *gamma, *beta; /* inputs (x also: bias, y of a backward, p, g) */
	void *y;                           /* the output (also dx, db, dp, w) */
	void *mean, *rstd;                 /* layernorm's per-row statistics */
	void *dgamma, *dbeta;
	void *m, *v;                       /* adam's moments */
	double *partial;                   /* mse_loss's per-block sums */
	size_t n, rows, cols;
	long block;                        /* softmax's causal block, mse's block size */
	double s[6];                       /* scalars, in the order of the ABI call */
} kargs;

#define T float
#define FN(name) name##_f32
#define EXP expf
#define TANH tanhf
#define SQRT sqrtf
#include "cpu_kernels_t.h"
#undef T
#undef FN
#undef EXP
#undef TANH
#undef SQRT

#define T double
#define FN(name) name##_f64
#define EXP exp
#define TANH tanh
#define SQRT sqrt
#include "cpu_kernels_t.h"
#undef T
#undef FN
#undef EXP
#undef TANH
#undef SQRT

/* The float and double instances of a job, indexed by rt_dtype. */
#define JOBS(name) ((const rt_pool_fn[2]){name##_f32, name##_f64})

/*
 * Runs jobs[t] over nitems items on the context's pool, or inline when the
 * work (items x cost) is too small to pay for waking the pool. RT_EINVAL for
 * an unknown dtype.
 */
static int launch(rt_ctx *ctx, rt_dtype t, const rt_pool_fn jobs[2], kargs *a, size_t nitems,
		  size_t cost)
{
	if (t != RT_F32 && t != RT_F64)
		return RT_EINVAL;
	if (nitems == 0)
		return 0;
	if (nitems * cost < PAR_MIN_WORK)
		jobs[t](a, 0, nitems);
	else
		rt_pool_run(rt_cpu_ctx_pool(ctx), jobs[t], a, nitems);
	return 0;
}

int rt_cpu_fill(rt_ctx *ctx, rt_dtype t, void *x, size_t n, double value)
{
	kargs a = {.y = x, .s = {value}};
	return launch(ctx, t, JOBS(fill), &a, n, COST_SIMPLE);
}

int rt_cpu_axpby(rt_ctx *ctx, rt_dtype t, size_t n, double ca, const void *x, double cb,
		 void *y)
{
	kargs a = {.x = x, .y = y, .s = {ca, cb}};
	return launch(ctx, t, JOBS(axpby), &a, n, COST_SIMPLE);
}

int rt_cpu_add_bias(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias, void *y)
{
	kargs a = {.x = bias, .y = y, .rows = (size_t)rows, .cols = (size_t)cols};
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	return launch(ctx, t, JOBS(add_bias), &a, a.rows, a.cols * COST_SIMPLE);
}

int rt_cpu_sum_rows(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *dy, void *db)
{
	kargs a = {.x = dy, .y = db, .rows = (size_t)rows, .cols = (size_t)cols};
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	return launch(ctx, t, JOBS(sum_rows), &a, a.cols, a.rows * COST_SIMPLE);
}

int rt_cpu_gelu(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y)
{
	kargs a = {.x = x, .y = y};
	return launch(ctx, t, JOBS(gelu), &a, n, COST_TRANSCENDENTAL);
}

int rt_cpu_gelu_backward(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, const void *dy,
			 void *dx)
{
	kargs a = {.x = x, .dy = dy, .y = dx};
	return launch(ctx, t, JOBS(gelu_backward), &a, n, COST_TRANSCENDENTAL);
}

int rt_cpu_tanh_fwd(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y)
{
	kargs a = {.x = x, .y = y};
	return launch(ctx, t, JOBS(tanh_fwd), &a, n, COST_TRANSCENDENTAL);
}

int rt_cpu_tanh_backward(rt_ctx *ctx, rt_dtype t, size_t n, const void *y, const void *dy,
			 void *dx)
{
	kargs a = {.x = y, .dy = dy, .y = dx};
	return launch(ctx, t, JOBS(tanh_backward), &a, n, COST_SIMPLE);
}

int rt_cpu_softmax(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale, int causal_block,
		   const void *x, void *y)
{
	kargs a = {.x = x, .y = y, .rows = (size_t)rows, .cols = (size_t)cols,
		   .block = causal_block, .s = {scale}};
	if (rows < 0 || cols < 0 || causal_block < 0)
		return RT_EINVAL;
	if (cols == 0)
		return 0;
	return launch(ctx, t, JOBS(softmax), &a, a.rows, a.cols * COST_TRANSCENDENTAL);
}

int rt_cpu_softmax_backward(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale,
			    const void *y, const void *dy, void *dx)
{
	kargs a = {.x = y, .dy = dy, .y = dx, .rows = (size_t)rows, .cols = (size_t)cols,
		   .s = {scale}};
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	return launch(ctx, t, JOBS(softmax_backward), &a, a.rows, a.cols * COST_SIMPLE);
}

int rt_cpu_layernorm(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
		     const void *gamma, const void *beta, void *y, void *mean, void *rstd)
{
	kargs a = {.x = x, .gamma = gamma, .beta = beta, .y = y, .mean = mean, .rstd = rstd,
		   .rows = (size_t)rows, .cols = (size_t)cols};
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	if (cols == 0)
		return 0; /* no mean of nothing */
	return launch(ctx, t, JOBS(layernorm), &a, a.rows, a.cols * 3 * COST_SIMPLE);
}

/* dx by rows, then dgamma and dbeta by columns, so no two threads add into one value. */
int rt_cpu_layernorm_backward(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
			      const void *gamma, const void *mean, const void *rstd,
			      const void *dy, void *dx, void *dgamma, void *dbeta)
{
	kargs a = {.x = x, .gamma = gamma, .dy = dy, .y = dx, .mean = (void *)mean,
		   .rstd = (void *)rstd, .dgamma = dgamma, .dbeta = dbeta,
		   .rows = (size_t)rows, .cols = (size_t)cols};
	int rc;
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	rc = launch(ctx, t, JOBS(layernorm_dx), &a, a.rows, a.cols * 3 * COST_SIMPLE);
	if (rc)
		return rc;
	return launch(ctx, t, JOBS(layernorm_dparams), &a, a.cols, a.rows * 2 * COST_SIMPLE);
}

/*
 * The loss is a sum over fixed blocks (their size depends on n only, never
 * on the thread count) added in block order, so it is the same for every
 * thread budget.
 */
int rt_cpu_mse_loss(rt_ctx *ctx, rt_dtype t, size_t n, const void *p, const void *target,
		    void *loss, void *dp)
{
	double partial[MSE_BLOCKS], sum = 0;
	size_t bs = (n + MSE_BLOCKS - 1) / MSE_BLOCKS, nblocks;
	kargs a = {.x = p, .dy = target, .y = dp, .partial = partial, .n = n};
	int rc;

	if (n == 0)
		return RT_EINVAL;
	if (bs < MSE_MIN_BLOCK)
		bs = MSE_MIN_BLOCK;
	nblocks = (n + bs - 1) / bs;
	a.block = (long)bs;
	rc = launch(ctx, t, JOBS(mse), &a, nblocks, bs * 2 * COST_SIMPLE);
	if (rc)
		return rc;
	for (size_t i = 0; i < nblocks; i++)
		sum += partial[i];
	if (t == RT_F64)
		*(double *)loss = sum / (double)n;
	else
		*(float *)loss = (float)(sum / (double)n);
	return 0;
}

int rt_cpu_adam(rt_ctx *ctx, rt_dtype t, size_t n, void *w, const void *g, void *m, void *v,
		double lr, double b1, double b2, double eps, int step)
{
	kargs a = {.y = w, .x = g, .m = m, .v = v,
		   .s = {lr, b1, b2, eps, 1.0 - pow(b1, step), 1.0 - pow(b2, step)}};
	if (step < 1)
		return RT_EINVAL;
	return launch(ctx, t, JOBS(adam), &a, n, 4 * COST_SIMPLE);
}
