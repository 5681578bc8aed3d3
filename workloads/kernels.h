/*
 * kernels.h: the exact mathematics of the elementwise kernels of backend.h,
 * and the CPU reference implementation of them (workloads/cpu_kernels.c).
 *
 * The GPU plugins implement the same formulas; tests/gpu_check.sh compares
 * them with these functions. What every implementation must agree on:
 *
 * Types. T is the storage type of the call (float for RT_F32, double for
 * RT_F64). Scalar arguments (double in the ABI) are rounded to T once, then
 * the arithmetic is done in T, except for sums over a row or a column, which
 * accumulate in double (any order; the CPU adds a column's terms in row
 * order, and a row's terms in eight interleaved partial sums added pairwise
 * at the end) and are rounded to T where they are stored. Results may differ
 * from this reference by rounding only: a few ulps of T per operation, or of
 * the sum's size. (The Metal plugin sums in float, Metal having no double,
 * in a fixed order: its fp32 sums differ by float rounding of the sum; its
 * fp64 calls run this reference.)
 *
 * tanh (in gelu, gelu_backward and tanh_fwd) and exp (in softmax) are the
 * approximated functions. For double they are libm's (the fp64 reference
 * that gradient checks use). For tanh in float the CPU uses a vectorizable
 * approximation (see fast_tanhf in cpu_kernels.c) whose error for every
 * float x is at most RT_TANH_F32_RTOL |tanh x| + RT_TANH_F32_ATOL (measured
 * on every float in [-20, 20]: 1.91e-7 relative, 8.9e-8 absolute, 2.4 ulp),
 * that is odd (tanh(-x) = -tanh(x), tanh(+-0) = +-0), is +-1 exactly for
 * |x| >= 9.1 and keeps NaN. CUDA's tanhf (the GPU plugins) is documented to
 * a few ulp, so CPU and GPU fp32 agree far inside tests/gpu_check.c's 1e-4
 * relative tolerance. For exp in float, a vectorizable one too (fast_expf)
 * within RT_EXP_F32_RTOL exp(y) of exp(y) for every float y in [-87, 0]
 * (measured: 8.9e-8 relative, 1.02 ulp), and 0 below -87, where exp(y) <
 * 1.7e-38 (softmax's arguments are <= 0).
 *
 * Shapes. A tensor of rows x cols is row-major and dense (row stride cols).
 * rows, cols >= 0 and n >= 0; zero-sized calls do nothing and succeed
 * (except mse_loss, which needs n >= 1). Negative sizes or an unknown dtype
 * are RT_EINVAL. The buffers of one call must not overlap (the CPU
 * kernels are compiled with restrict pointers).
 *
 * The kernels, index i over [0, n), r over rows, c over cols:
 *
 * fill:            x[i] = value
 * axpby:           y[i] = a x[i] + b y[i]; with b == 0, y[i] = a x[i] and y
 *                  is not read (so it may hold garbage, NaN included)
 * add_bias:        y[r][c] += bias[c]
 * sum_rows:        db[c] = sum_r dy[r][c]            (db overwritten)
 * gelu:            y = 0.5 x (1 + tanh(u)),  u = K0 (x + K1 x^3)
 * gelu_backward:   dx = dy (0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) K0 (1 + 3 K1 x^2))
 * bias_gelu:       u[r][c] += bias[c]; a[r][c] = gelu(u[r][c]) (add_bias, then gelu)
 * tanh_fwd:        y = tanh(x)
 * tanh_backward:   dx = dy (1 - y^2)                  (y the forward output)
 * softmax:         z[c] = scale x[r][c] for c <= last(r), where last(r) =
 *                  r mod causal_block when causal_block > 0, else cols - 1;
 *                  y[r][c] = exp(z[c] - max z) / sum_{c' <= last} exp(z[c'] - max z)
 *                  for c <= last, and y[r][c] = 0 exactly (+0.0) for c > last.
 *                  (The mask is r mod block, so rows x cols = (B block) x block
 *                  masks each of B stacked attention matrices; causal_block < 0
 *                  is RT_EINVAL.)
 * softmax_backward: dx[r][c] = scale y[r][c] (dy[r][c] - sum_c' dy[r][c'] y[r][c'])
 *                  (masked entries have y = 0, so dx = 0 there)
 * layernorm:       mean[r] = sum_c x / cols; var = sum_c (x - mean)^2 / cols
 *                  (biased, two-pass); rstd[r] = 1 / sqrt(var + RT_LAYERNORM_EPS);
 *                  mean and rstd are stored as T, and y uses the stored values:
 *                  y[r][c] = (x[r][c] - mean[r]) rstd[r] gamma[c] + beta[c]
 * layernorm_backward: with xh = (x - mean[r]) rstd[r], g = dy gamma[c]:
 *                  dx[r][c] = rstd[r] (g - sum_c' g / cols - xh sum_c' g xh / cols)
 *                  dgamma[c] += sum_r dy[r][c] xh[r][c];  dbeta[c] += sum_r dy[r][c]
 * mse_loss:        loss[0] = sum_i (p[i] - target[i])^2 / n  (one T, device memory);
 *                  dp[i] = 2 (p[i] - target[i]) / n
 * adam:            (step >= 1, else RT_EINVAL) c1 = 1 - b1^step, c2 = 1 - b2^step
 *                  (computed in double, then rounded to T);
 *                  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
 *                  w -= lr (m / c1) / (sqrt(v / c2) + eps)
 *
 * The functions below have exactly the signatures of the rt_backend_ops
 * entries of the same name; ctx must be an open CPU backend context (its
 * thread pool runs the kernels; small tensors run on the calling thread).
 * Results do not depend on the thread count: every output element is
 * computed by one thread in the same order whatever the split.
 */
#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include "backend.h"

#define RT_LAYERNORM_EPS 1e-5
#define RT_GELU_K0 0.7978845608028654 /* sqrt(2 / pi) */
#define RT_GELU_K1 0.044715
/* The fp32 tanh's error bound, see above. */
#define RT_TANH_F32_RTOL 2e-7
#define RT_TANH_F32_ATOL 1e-7
/* The fp32 exp's error bound (softmax), see above. */
#define RT_EXP_F32_RTOL 1e-7

#ifdef __cplusplus
extern "C" {
#endif

int rt_cpu_fill(rt_ctx *ctx, rt_dtype t, void *x, size_t n, double value);
int rt_cpu_axpby(rt_ctx *ctx, rt_dtype t, size_t n, double a, const void *x, double b,
		 void *y);
int rt_cpu_add_bias(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias, void *y);
int rt_cpu_sum_rows(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *dy, void *db);
int rt_cpu_gelu(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y);
int rt_cpu_bias_gelu(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias, void *u,
		     void *a);
int rt_cpu_gelu_backward(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, const void *dy,
			 void *dx);
int rt_cpu_tanh_fwd(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y);
int rt_cpu_tanh_backward(rt_ctx *ctx, rt_dtype t, size_t n, const void *y, const void *dy,
			 void *dx);
int rt_cpu_softmax(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale, int causal_block,
		   const void *x, void *y);
int rt_cpu_softmax_backward(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale,
			    const void *y, const void *dy, void *dx);
int rt_cpu_layernorm(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
		     const void *gamma, const void *beta, void *y, void *mean, void *rstd);
int rt_cpu_layernorm_backward(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
			      const void *gamma, const void *mean, const void *rstd,
			      const void *dy, void *dx, void *dgamma, void *dbeta);
int rt_cpu_mse_loss(rt_ctx *ctx, rt_dtype t, size_t n, const void *p, const void *target,
		    void *loss, void *dp);
int rt_cpu_adam(rt_ctx *ctx, rt_dtype t, size_t n, void *w, const void *g, void *m, void *v,
		double lr, double b1, double b2, double eps, int step);

#ifdef __cplusplus
}
#endif

#endif
