/*
 * The CPU reference kernels (math in kernels.h). Each kernel is a pool job
 * over a range of items (elements, rows or columns), written once in
 * cpu_kernels_t.h and instantiated here for float and double. Inner loops go
 * through VLOOP, which strip-mines a loop into blocks of VW iterations: gcc
 * -O2's cheap vectorizer cost model vectorizes a loop only when its trip
 * count is a known multiple of the vector width, which the blocks are. Sums
 * go through VSUM, which keeps VW partial sums so that the additions of a
 * row vectorize instead of waiting on one another (see there).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_ctx.h"
#include "kernels.h"

/* Below this many element-operations a job runs on the calling thread:
 * waking the pool costs a few microseconds, about this much work. */
#define PAR_MIN_WORK (1u << 15)
/* Rough cost of one item relative to a multiply-add, for PAR_MIN_WORK. */
#define COST_SIMPLE 1
#define COST_TRANSCENDENTAL 16
/*
 * Column tile of the column sums: doubles on each thread's stack (an array
 * shared by the threads put their neighbouring columns on one cache line,
 * written at every row), one pass down the rows per tile.
 */
#define COL_TILE 1024
/* mse_loss sums blocks of at least this many elements, at most MSE_BLOCKS. */
#define MSE_MIN_BLOCK 4096
#define MSE_BLOCKS 256

#define VW 16
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

/*
 * sum = the sum over i in [lo, hi) of (double)(expr), in double. One running
 * sum is a chain of dependent additions (4 cycles each, ~1000 cycles for a
 * row of 256), so the terms go to SW partial sums instead (a vector of
 * doubles), term i to partial (i - lo) % SW in index order, and the partials
 * are added pairwise at the end: independent additions that vectorize. The
 * order depends only on lo and hi, never on the thread count.
 */
#define SW 8
#define VSUM(sum, i, lo, hi, ...)                                               \
	do {                                                                    \
		double i##_p[SW] = {0};                                         \
		size_t i##_0 = (lo);                                           \
		const size_t i##_e = (hi);                                      \
		for (; i##_0 + SW <= i##_e; i##_0 += SW)                        \
			for (size_t i##_k = 0; i##_k < SW; i##_k++) {           \
				const size_t i = i##_0 + i##_k;                 \
				i##_p[i##_k] += (double)(__VA_ARGS__);          \
			}                                                       \
		for (size_t i = i##_0; i < i##_e; i++)                          \
			i##_p[i - i##_0] += (double)(__VA_ARGS__);              \
		(sum) = ((i##_p[0] + i##_p[1]) + (i##_p[2] + i##_p[3])) +       \
			((i##_p[4] + i##_p[5]) + (i##_p[6] + i##_p[7]));        \
	} while (0)
_Static_assert(SW == 8, "VSUM adds exactly eight partial sums");

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

static inline uint32_t f32_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

static inline float f32_from_bits(uint32_t u)
{
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/*
 * exp of float arguments, split for fast_tanhf and fast_expf below: for
 * y = k ln2 + r with |r| <= ln2 / 2, returns p = expm1(r) and sets *s = 2^k,
 * so that exp(y) = s p + s and expm1(y) = s p + (s - 1). k is y / ln2
 * rounded by adding 1.5 * 2^23 (the sum's low mantissa bits then hold k),
 * and 2^k is written into the exponent bits: no float-to-int conversion;
 * valid for -126 <= k <= 127. Cody-Waite: LN2_HI_F has trailing zero bits,
 * so k LN2_HI_F is exact for |k| <= 512. p is expm1's degree-7 Taylor
 * polynomial (truncation below 1.6e-8 relative); k = 0 leaves expm1(y) =
 * p(r), so small arguments keep their relative accuracy.
 */
#define LOG2E_F 1.44269504f
#define LN2_HI_F 0.693145751953125f /* 0x1.62e4p-1 */
#define LN2_LO_F 1.42860677e-6f      /* ln 2 - LN2_HI_F */
#define ROUND_MAGIC_F 12582912.0f   /* 1.5 * 2^23 */
#define ROUND_MAGIC_BITS 0x4b400000u
#define QNAN_BITS 0x7fc00000u

static inline float exp_split(float y, float *s)
{
	const float t = y * LOG2E_F + ROUND_MAGIC_F, kf = t - ROUND_MAGIC_F;
	const float r = (y - kf * LN2_HI_F) - kf * LN2_LO_F;
	*s = f32_from_bits((f32_bits(t) - ROUND_MAGIC_BITS + 127u) << 23);
	return r + r * r * (1.0f / 2 + r * (1.0f / 6 + r * (1.0f / 24 +
	       r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040))))));
}

/*
 * tanh in float, branch-free and without a libm call so that the loops that
 * use it vectorize (libm's tanhf is a scalar call of about 12 ns, which made
 * gelu and its backward ~40% of a transformer step). For y = 2|x| clamped to
 * TANH_CLAMP2, tanh|x| = e / (e + 2) with e = expm1(y) (exp_split), then the
 * sign of x is put back: odd, tanh(+-0) = +-0, +-1 exactly for |x| >= 9.1
 * (at the clamp e + 2 rounds to e; in float tanh rounds to 1 beyond 9.01),
 * and a NaN stays NaN.
 *
 * Written for gcc -O2 without -ffast-math: a float ?: (min, NaN test) lets
 * PRE fold the clamped path to a constant inside a branch, and with
 * -ftrapping-math the vectorizer will not if-convert that branch. So the
 * clamp is an integer min on the bits (non-negative floats order like their
 * bits) and the NaN is OR-ed in as a mask.
 *
 * Error against double tanh, measured on every float x in [-20, 20]: at
 * most 1.91e-7 |tanh x| (near x = 0.1746, where k = 1 and 2 p(r) + 1
 * cancels), 8.9e-8 absolute, 2.42 ulp of the float result; kernels.h states
 * the contract (2e-7 |tanh x| + 1e-7).
 */
#define TANH_CLAMP2 0x41a00000 /* bits of 20.0f: tanh(10) is 1 in float */

static inline float fast_tanhf(float x)
{
	const int32_t d = (int32_t)f32_bits(2 * fabsf(x)) - TANH_CLAMP2;
	const float y = f32_from_bits((uint32_t)(TANH_CLAMP2 + (d & -(int32_t)(d < 0))));
	float s;
	const float p = exp_split(y, &s);
	const float e = s * p + (s - 1);
	const uint32_t nan = -(uint32_t)(x != x) & QNAN_BITS;
	return f32_from_bits(f32_bits(copysignf(e / (e + 2), x)) | nan);
}

/*
 * exp(y) in float for y <= 0 (softmax's arguments, z - max z), vectorizable
 * for the same reasons as fast_tanhf (libm's expf is a scalar call, and was
 * most of softmax's time). |y| is clamped to EXP_CLAMP (so that k >= -126)
 * with an integer min; below -87, where exp(y) < 1.7e-38, the result is 0
 * (masked), and a NaN stays NaN. Error against double exp, measured on every
 * float y in [-87, 0]: kernels.h states the contract (RT_EXP_F32_RTOL).
 */
#define EXP_CLAMP 0x42ae0000 /* bits of 87.0f */
#define EXP_LEAST_F 87.0f

static inline float fast_expf(float y)
{
	const float a = fabsf(y);
	const int32_t d = (int32_t)f32_bits(a) - EXP_CLAMP;
	const float c = -f32_from_bits((uint32_t)(EXP_CLAMP + (d & -(int32_t)(d < 0))));
	float s;
	const float p = exp_split(c, &s);
	const uint32_t live = -(uint32_t)(a <= EXP_LEAST_F);
	const uint32_t nan = -(uint32_t)(y != y) & QNAN_BITS;
	return f32_from_bits((f32_bits(s * p + s) & live) | nan);
}

/*
 * The kernels' loops are compiled for AVX-512, AVX2 and the x86-64 baseline
 * (SSE2), and the widest the CPU runs is picked once at load time (an
 * ifunc): the fp32 tanh and exp loops are compute-bound (about 75
 * instructions per vector), and the sums and column sums gain too. Every
 * clone performs the same IEEE operations in the same order (no FMA: gcc's
 * ISO C mode compiles with -ffp-contract=off, clang is told below), so the
 * results are bit-identical on every x86-64 machine.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define VEC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef VEC_CLONES
#define VEC_CLONES
#endif

#define T float
#define FN(name) name##_f32
#define EXP fast_expf
#define TANH fast_tanhf
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

/*
 * fp32 -> bf16 rounding to nearest even on the 16 dropped bits, as a select
 * rather than a branch so that it vectorizes; a NaN keeps its top bits and
 * is made quiet instead of rounding into infinity. Static, as the other
 * clones: clang emits a target_clones dispatcher only where the TU calls it.
 */
VEC_CLONES static void round_bf16_span(uint16_t *dst, const float *src, size_t n)
{
	VLOOP(i, 0, n, {
		const uint32_t u = f32_bits(src[i]);
		const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
		const uint32_t quiet = (u >> 16) | 0x40u;
		dst[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
	});
}

void rt_cpu_round_bf16(uint16_t *dst, const float *src, size_t n)
{
	round_bf16_span(dst, src, n);
}

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

/* The reference of the fused kernel is its definition: the two kernels in turn. */
int rt_cpu_bias_gelu(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias, void *u,
		     void *a)
{
	int rc = rt_cpu_add_bias(ctx, t, rows, cols, bias, u);
	return rc ? rc : rt_cpu_gelu(ctx, t, (size_t)rows * (size_t)cols, u, a);
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

/*
 * dx by rows, then dgamma and dbeta by columns (both in one pass down the
 * rows), so no two threads add into one value.
 */
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
