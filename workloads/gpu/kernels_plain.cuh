/*
 * kernels_plain.cuh: the elementwise kernels of backend.h in their plain
 * form, one thread per element and one block per row: the specification
 * the fast ones (kernels.cuh) are checked against, on the CPU
 * (tests/test_gpu_emu.c through tests/cuda_emu.cpp) and on a device
 * (tests/gpu_check.c, whose benchmark times each kernel both ways). The
 * plugin's second table, rigtune_backend_plain(), runs them.
 *
 * The mathematics is the one of workloads/kernels.h, mirrored closely:
 * scalars rounded to T once, arithmetic in T, row and column sums in double.
 * kernels.cuh, included first, gives the launch and the names both use.
 */
#ifndef RT_GPU_KERNELS_PLAIN_CUH
#define RT_GPU_KERNELS_PLAIN_CUH

#include "kernels.cuh"

#define PLAIN_THREADS 256     /* threads of a 1-D launch and of a row block */
#define PLAIN_MAX_BLOCKS 4096 /* grid-stride loops cover the rest */

#define PLAIN_LOOP(i, n)                                                                           \
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                    \
	     i += (size_t)blockDim.x * gridDim.x)

/* Blocks for a 1-D grid-stride launch over n > 0 items. */
static unsigned plain_blocks(size_t n)
{
	size_t b = (n + PLAIN_THREADS - 1) / PLAIN_THREADS;
	return (unsigned)(b < PLAIN_MAX_BLOCKS ? b : PLAIN_MAX_BLOCKS);
}

/*
 * Sum or maximum of v over the block (blockDim.x == PLAIN_THREADS, a power of
 * two); every thread gets the result. sh has PLAIN_THREADS elements and may be
 * reused right after the call.
 */
template <class A> static __device__ A plain_block_sum(A v, A *sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (unsigned s = PLAIN_THREADS / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	A r = sh[0];
	__syncthreads();
	return r;
}

template <class A> static __device__ A plain_block_max(A v, A *sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (unsigned s = PLAIN_THREADS / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s && sh[threadIdx.x + s] > sh[threadIdx.x])
			sh[threadIdx.x] = sh[threadIdx.x + s];
		__syncthreads();
	}
	A r = sh[0];
	__syncthreads();
	return r;
}

template <class T> __global__ void kp_fill(T *x, size_t n, T v)
{
	PLAIN_LOOP(i, n)
	x[i] = v;
}

/* With b == 0, y is not read (it may hold NaN). */
template <class T> __global__ void kp_axpby(size_t n, T a, const T *x, T b, T *y)
{
	PLAIN_LOOP(i, n)
	y[i] = b == (T)0 ? a * x[i] : a * x[i] + b * y[i];
}

template <class T> __global__ void kp_add_bias(size_t n, size_t cols, const T *bias, T *y)
{
	PLAIN_LOOP(i, n)
	y[i] += bias[i % cols];
}

template <class T> __global__ void kp_gelu(size_t n, const T *x, T *y)
{
	PLAIN_LOOP(i, n)
	y[i] = (T)0.5 * x[i] * ((T)1 + dev_tanh(gelu_u(x[i])));
}

template <class T> __global__ void kp_gelu_backward(size_t n, const T *x, const T *dy, T *dx)
{
	PLAIN_LOOP(i, n)
	{
		const T v = x[i], th = dev_tanh(gelu_u(v));
		const T du = (T)RT_GELU_K0 * ((T)1 + (T)3 * (T)RT_GELU_K1 * v * v);
		dx[i] = dy[i] * ((T)0.5 * ((T)1 + th) + (T)0.5 * v * ((T)1 - th * th) * du);
	}
}

template <class T> __global__ void kp_tanh(size_t n, const T *x, T *y)
{
	PLAIN_LOOP(i, n)
	y[i] = dev_tanh(x[i]);
}

template <class T> __global__ void kp_tanh_backward(size_t n, const T *y, const T *dy, T *dx)
{
	PLAIN_LOOP(i, n)
	dx[i] = dy[i] * ((T)1 - y[i] * y[i]);
}

/*
 * Column sums over every row, one block per COLSUM_TILE columns (the
 * fast kernels' colsum_tile, over rows [0, rows)): few blocks, each
 * walking all the rows. out is overwritten, or added to when accumulate is
 * set.
 */
template <class T>
__global__ void kp_colsum(int rows, int cols, const T *dy, const T *x, const T *mean, const T *rstd,
                          T *out, int accumulate)
{
	const int c = blockIdx.x * COLSUM_TILE + threadIdx.x;
	const double s = colsum_tile(0, rows, cols, dy, x, mean, rstd);
	if (threadIdx.y == 0 && c < cols)
		out[c] = accumulate ? (T)((double)out[c] + s) : (T)s;
}

/* One block per row; columns past last(r) (the causal mask) get +0. */
template <class T> __global__ void kp_softmax(int cols, T scale, int block, const T *x, T *y)
{
	__shared__ double shd[PLAIN_THREADS];
	__shared__ T sht[PLAIN_THREADS];
	const size_t r = blockIdx.x;
	const T *xr = x + r * cols;
	T *yr = y + r * cols;
	const int last = block > 0 ? (int)(r % (size_t)block) : cols - 1;
	const int valid = last + 1 < cols ? last + 1 : cols;

	T mx = scale * xr[0];
	for (int c = threadIdx.x; c < valid; c += blockDim.x)
		mx = scale * xr[c] > mx ? scale * xr[c] : mx;
	mx = plain_block_max(mx, sht);
	double s = 0;
	for (int c = threadIdx.x; c < valid; c += blockDim.x)
		s += (double)dev_exp(scale * xr[c] - mx);
	s = plain_block_sum(s, shd);
	const T inv = (T)(1.0 / s);
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		yr[c] = c < valid ? dev_exp(scale * xr[c] - mx) * inv : (T)0;
}

template <class T>
__global__ void kp_softmax_backward(int cols, T scale, const T *y, const T *dy, T *dx)
{
	__shared__ double sh[PLAIN_THREADS];
	const size_t off = (size_t)blockIdx.x * cols;
	double dot = 0;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		dot += (double)(dy[off + c] * y[off + c]);
	const T d = (T)plain_block_sum(dot, sh);
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		dx[off + c] = scale * y[off + c] * (dy[off + c] - d);
}

/* One block per row: two-pass mean and variance in double. */
template <class T>
__global__ void kp_layernorm(int cols, const T *x, const T *gamma, const T *beta, T *y, T *mean,
                             T *rstd)
{
	__shared__ double sh[PLAIN_THREADS];
	const size_t r = blockIdx.x, off = r * cols;
	double s = 0, ss = 0;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		s += (double)x[off + c];
	const double mu = plain_block_sum(s, sh) / (double)cols;
	for (int c = threadIdx.x; c < cols; c += blockDim.x) {
		const double d = (double)x[off + c] - mu;
		ss += d * d;
	}
	const double var = plain_block_sum(ss, sh) / (double)cols;
	const T m = (T)mu, rs = (T)(1.0 / sqrt(var + RT_LAYERNORM_EPS));
	if (threadIdx.x == 0) {
		mean[r] = m;
		rstd[r] = rs;
	}
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		y[off + c] = (x[off + c] - m) * rs * gamma[c] + beta[c];
}

template <class T>
__global__ void kp_layernorm_dx(int cols, const T *x, const T *gamma, const T *mean, const T *rstd,
                                const T *dy, T *dx)
{
	__shared__ double sh[PLAIN_THREADS];
	const size_t r = blockIdx.x, off = r * cols;
	const T m = mean[r], rs = rstd[r];
	double sg = 0, sgx = 0;
	for (int c = threadIdx.x; c < cols; c += blockDim.x) {
		const T g = dy[off + c] * gamma[c];
		sg += (double)g;
		sgx += (double)(g * ((x[off + c] - m) * rs));
	}
	const T mg = (T)(plain_block_sum(sg, sh) / (double)cols);
	const T mgx = (T)(plain_block_sum(sgx, sh) / (double)cols);
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		dx[off + c] = rs * (dy[off + c] * gamma[c] - mg - (x[off + c] - m) * rs * mgx);
}

/* One block: the sum is small work next to the GEMMs that produced p. */
template <class T> __global__ void kp_mse(size_t n, const T *p, const T *target, T *loss, T *dp)
{
	__shared__ double sh[PLAIN_THREADS];
	const T k = (T)(2.0 / (double)n);
	double s = 0;
	for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
		const T d = p[i] - target[i];
		s += (double)(d * d);
		dp[i] = k * d;
	}
	s = plain_block_sum(s, sh);
	if (threadIdx.x == 0)
		loss[0] = (T)(s / (double)n);
}

template <class T>
__global__ void kp_adam(size_t n, T *w, const T *g, T *m, T *v, T lr, T b1, T b2, T eps, T c1, T c2)
{
	PLAIN_LOOP(i, n)
	{
		const T gi = g[i];
		const T mi = b1 * m[i] + ((T)1 - b1) * gi;
		const T vi = b2 * v[i] + ((T)1 - b2) * gi * gi;
		m[i] = mi;
		v[i] = vi;
		w[i] -= lr * (mi / c1) / (dev_sqrt(vi / c2) + eps);
	}
}

template <class T> static int plain_launch_fill(rt_ctx *ctx, void *x, size_t n, double v)
{
	gpu_launch(ctx, plain_blocks(n), PLAIN_THREADS, kp_fill<T>, (T *)x, n, (T)v);
	return gpu_launched(ctx, "fill");
}

static int plain_fill(rt_ctx *ctx, rt_dtype t, void *x, size_t n, double value)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, plain_launch_fill, ctx, x, n, value);
}

template <class T>
static int plain_launch_axpby(rt_ctx *ctx, size_t n, double a, const void *x, double b, void *y)
{
	gpu_launch(ctx, plain_blocks(n), PLAIN_THREADS, kp_axpby<T>, n, (T)a, (const T *)x, (T)b,
	           (T *)y);
	return gpu_launched(ctx, "axpby");
}

static int plain_axpby(rt_ctx *ctx, rt_dtype t, size_t n, double a, const void *x, double b,
                       void *y)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, plain_launch_axpby, ctx, n, a, x, b, y);
}

/* 0 when a rows x cols call has nothing to do, RT_EINVAL for negative sizes, else 1. */
static int plain_shape(int rows, int cols)
{
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	return rows > 0 && cols > 0;
}

template <class T>
static int plain_launch_add_bias(rt_ctx *ctx, int rows, int cols, const void *bias, void *y)
{
	const size_t n = (size_t)rows * cols;
	gpu_launch(ctx, plain_blocks(n), PLAIN_THREADS, kp_add_bias<T>, n, (size_t)cols,
	           (const T *)bias, (T *)y);
	return gpu_launched(ctx, "add_bias");
}

static int plain_add_bias(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias, void *y)
{
	int s = plain_shape(rows, cols);
	return s <= 0 ? s : GPU_DISPATCH(t, plain_launch_add_bias, ctx, rows, cols, bias, y);
}

template <class T>
static int plain_launch_colsum(rt_ctx *ctx, int rows, int cols, const void *dy, const void *x,
                               const void *mean, const void *rstd, void *out, int accumulate)
{
	dim3 grid((unsigned)((cols + COLSUM_TILE - 1) / COLSUM_TILE)),
	    block(COLSUM_TILE, COLSUM_SPLIT);
	gpu_launch(ctx, grid, block, kp_colsum<T>, rows, cols, (const T *)dy, (const T *)x,
	           (const T *)mean, (const T *)rstd, (T *)out, accumulate);
	return gpu_launched(ctx, "column sum");
}

/* db = sum over rows of dy; with rows == 0, db is all zeros (an empty sum). */
static int plain_sum_rows(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *dy, void *db)
{
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	if (cols == 0)
		return 0;
	return GPU_DISPATCH(t, plain_launch_colsum, ctx, rows, cols, dy, NULL, NULL, NULL, db, 0);
}

template <class T> static int plain_launch_gelu(rt_ctx *ctx, size_t n, const void *x, void *y)
{
	gpu_launch(ctx, plain_blocks(n), PLAIN_THREADS, kp_gelu<T>, n, (const T *)x, (T *)y);
	return gpu_launched(ctx, "gelu");
}

static int plain_gelu(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, plain_launch_gelu, ctx, n, x, y);
}

template <class T>
static int plain_launch_gelu_backward(rt_ctx *ctx, size_t n, const void *x, const void *dy,
                                      void *dx)
{
	gpu_launch(ctx, plain_blocks(n), PLAIN_THREADS, kp_gelu_backward<T>, n, (const T *)x,
	           (const T *)dy, (T *)dx);
	return gpu_launched(ctx, "gelu_backward");
}

static int plain_gelu_backward(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, const void *dy,
                               void *dx)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, plain_launch_gelu_backward, ctx, n, x, dy, dx);
}

template <class T> static int plain_launch_tanh(rt_ctx *ctx, size_t n, const void *x, void *y)
{
	gpu_launch(ctx, plain_blocks(n), PLAIN_THREADS, kp_tanh<T>, n, (const T *)x, (T *)y);
	return gpu_launched(ctx, "tanh");
}

static int plain_tanh_fwd(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, plain_launch_tanh, ctx, n, x, y);
}

template <class T>
static int plain_launch_tanh_backward(rt_ctx *ctx, size_t n, const void *y, const void *dy,
                                      void *dx)
{
	gpu_launch(ctx, plain_blocks(n), PLAIN_THREADS, kp_tanh_backward<T>, n, (const T *)y,
	           (const T *)dy, (T *)dx);
	return gpu_launched(ctx, "tanh_backward");
}

static int plain_tanh_backward(rt_ctx *ctx, rt_dtype t, size_t n, const void *y, const void *dy,
                               void *dx)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, plain_launch_tanh_backward, ctx, n, y, dy, dx);
}

template <class T>
static int plain_launch_softmax(rt_ctx *ctx, int rows, int cols, double scale, int block,
                                const void *x, void *y)
{
	gpu_launch(ctx, (unsigned)rows, PLAIN_THREADS, kp_softmax<T>, cols, (T)scale, block,
	           (const T *)x, (T *)y);
	return gpu_launched(ctx, "softmax");
}

static int plain_softmax(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale,
                         int causal_block, const void *x, void *y)
{
	int s = plain_shape(rows, cols);
	if (causal_block < 0)
		return RT_EINVAL;
	return s <= 0 ? s
	              : GPU_DISPATCH(t, plain_launch_softmax, ctx, rows, cols, scale, causal_block,
	                             x, y);
}

template <class T>
static int plain_launch_softmax_backward(rt_ctx *ctx, int rows, int cols, double scale,
                                         const void *y, const void *dy, void *dx)
{
	gpu_launch(ctx, (unsigned)rows, PLAIN_THREADS, kp_softmax_backward<T>, cols, (T)scale,
	           (const T *)y, (const T *)dy, (T *)dx);
	return gpu_launched(ctx, "softmax_backward");
}

static int plain_softmax_backward(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale,
                                  const void *y, const void *dy, void *dx)
{
	int s = plain_shape(rows, cols);
	return s <= 0 ? s
	              : GPU_DISPATCH(t, plain_launch_softmax_backward, ctx, rows, cols, scale, y,
	                             dy, dx);
}

template <class T>
static int plain_launch_layernorm(rt_ctx *ctx, int rows, int cols, const void *x, const void *gamma,
                                  const void *beta, void *y, void *mean, void *rstd)
{
	gpu_launch(ctx, (unsigned)rows, PLAIN_THREADS, kp_layernorm<T>, cols, (const T *)x,
	           (const T *)gamma, (const T *)beta, (T *)y, (T *)mean, (T *)rstd);
	return gpu_launched(ctx, "layernorm");
}

static int plain_layernorm(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
                           const void *gamma, const void *beta, void *y, void *mean, void *rstd)
{
	int s = plain_shape(rows, cols);
	return s <= 0 ? s
	              : GPU_DISPATCH(t, plain_launch_layernorm, ctx, rows, cols, x, gamma, beta, y,
	                             mean, rstd);
}

template <class T>
static int plain_launch_layernorm_backward(rt_ctx *ctx, int rows, int cols, const void *x,
                                           const void *gamma, const void *mean, const void *rstd,
                                           const void *dy, void *dx, void *dgamma, void *dbeta)
{
	gpu_launch(ctx, (unsigned)rows, PLAIN_THREADS, kp_layernorm_dx<T>, cols, (const T *)x,
	           (const T *)gamma, (const T *)mean, (const T *)rstd, (const T *)dy, (T *)dx);
	int rc = gpu_launched(ctx, "layernorm_backward");
	if (rc == 0)
		rc = plain_launch_colsum<T>(ctx, rows, cols, dy, x, mean, rstd, dgamma, 1);
	if (rc == 0)
		rc = plain_launch_colsum<T>(ctx, rows, cols, dy, NULL, NULL, NULL, dbeta, 1);
	return rc;
}

static int plain_layernorm_backward(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
                                    const void *gamma, const void *mean, const void *rstd,
                                    const void *dy, void *dx, void *dgamma, void *dbeta)
{
	int s = plain_shape(rows, cols);
	return s <= 0 ? s
	              : GPU_DISPATCH(t, plain_launch_layernorm_backward, ctx, rows, cols, x, gamma,
	                             mean, rstd, dy, dx, dgamma, dbeta);
}

template <class T>
static int plain_launch_mse(rt_ctx *ctx, size_t n, const void *p, const void *target, void *loss,
                            void *dp)
{
	gpu_launch(ctx, 1, PLAIN_THREADS, kp_mse<T>, n, (const T *)p, (const T *)target, (T *)loss,
	           (T *)dp);
	return gpu_launched(ctx, "mse_loss");
}

static int plain_mse_loss(rt_ctx *ctx, rt_dtype t, size_t n, const void *p, const void *target,
                          void *loss, void *dp)
{
	return n == 0 ? RT_EINVAL : GPU_DISPATCH(t, plain_launch_mse, ctx, n, p, target, loss, dp);
}

template <class T>
static int plain_launch_adam(rt_ctx *ctx, size_t n, void *w, const void *g, void *m, void *v,
                             double lr, double b1, double b2, double eps, int step)
{
	const T c1 = (T)(1.0 - pow(b1, step)), c2 = (T)(1.0 - pow(b2, step));
	gpu_launch(ctx, plain_blocks(n), PLAIN_THREADS, kp_adam<T>, n, (T *)w, (const T *)g, (T *)m,
	           (T *)v, (T)lr, (T)b1, (T)b2, (T)eps, c1, c2);
	return gpu_launched(ctx, "adam");
}

static int plain_adam(rt_ctx *ctx, rt_dtype t, size_t n, void *w, const void *g, void *m, void *v,
                      double lr, double b1, double b2, double eps, int step)
{
	if (step < 1)
		return RT_EINVAL;
	return n == 0
	           ? 0
	           : GPU_DISPATCH(t, plain_launch_adam, ctx, n, w, g, m, v, lr, b1, b2, eps, step);
}

#endif
