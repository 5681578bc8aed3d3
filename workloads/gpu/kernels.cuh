/*
 * kernels.cuh: the elementwise kernels of backend.h as CUDA/HIP device code
 * at memory speed, shared by workloads/cuda/backend.cu and
 * workloads/hip/backend.hip. Their plain versions, the specification these
 * are checked against, are in kernels_plain.cuh.
 *
 * How they reach memory speed:
 *  - elementwise maps (k_map) load and store 16 bytes at a time (four
 *    floats, two doubles) where every operand is 16-byte aligned, with a
 *    scalar tail, in grid-stride loops over a grid sized by the SM count,
 *    with 32-bit indices when the sizes allow (no 64-bit division at all);
 *  - add_bias keeps a column's bias in registers and walks down the rows;
 *    bias_gelu does so and applies GELU in the same pass;
 *  - row kernels (softmax, layernorm, their backwards) give each row one
 *    warp, reduced with warp shuffles (warpSize-aware: 32 lanes on NVIDIA
 *    and RDNA, 64 on CDNA);
 *  - column sums (sum_rows, dgamma, dbeta) and the loss split the rows
 *    over many blocks into partial sums in double, then add the partials.
 *
 * The mathematics is the one of workloads/kernels.h: scalars rounded to T
 * once, arithmetic in T, row and column sums in double (in another order
 * than the CPU's, which kernels.h allows).
 *
 * The including file defines, before including this one:
 *   gpu_stream_t                       its stream type
 *   static gpu_stream_t gpu_stream(rt_ctx *ctx);
 *   static int gpu_launched(rt_ctx *ctx, const char *kernel);
 *       0 if the last launch succeeded, else an RT_E* code, with the
 *       runtime's error string recorded in ctx (last_error).
 *   static int gpu_sms(rt_ctx *ctx), gpu_warp(rt_ctx *ctx)
 *       the device's multiprocessors and warp width
 *   static int gpu_reduce_scratch(rt_ctx *ctx, size_t bytes, void **p)
 *       device memory for partial sums, valid until the next call
 *   store16(H *y, float x) for each 16-bit type H of GEMM inputs
 *   GPU_EMULATED (tests/cuda_emu.cpp) when it defines gpu_launch itself
 * and gets one static function per operation, gpu_fill ... gpu_adam and
 * gpu_bias_gelu, with the signatures of the rt_backend_ops entries.
 */
#ifndef RT_GPU_KERNELS_CUH
#define RT_GPU_KERNELS_CUH

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "../backend.h"
#include "../kernels.h"

#define GPU_THREADS 256     /* threads of a block: a multiple of every warp width */
#define GPU_MAX_WARPS 8     /* warps of a block at the narrowest warp (32) */
#define GPU_BLOCKS_PER_SM 8 /* blocks of a grid-stride launch per multiprocessor */
#define COLSUM_TILE 32      /* columns of a column-sum block */
#define COLSUM_SPLIT 8      /* its threads per column */
#define COLSUM_MIN_ROWS 64  /* rows a column-sum block takes at least */

/* The math functions by type, so that float stays in float. */
static __device__ __forceinline__ float dev_exp(float x) { return expf(x); }
static __device__ __forceinline__ double dev_exp(double x) { return exp(x); }
static __device__ __forceinline__ float dev_tanh(float x) { return tanhf(x); }
static __device__ __forceinline__ double dev_tanh(double x) { return tanh(x); }
static __device__ __forceinline__ float dev_sqrt(float x) { return sqrtf(x); }
static __device__ __forceinline__ double dev_sqrt(double x) { return sqrt(x); }

#define GRID_LOOP(i, n)                                                            \
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);  \
	     i += (size_t)blockDim.x * gridDim.x)

#ifndef GPU_EMULATED
/* Enqueues kernel k on ctx's stream (a launch through its pointer, as both runtimes allow). */
template <class... P, class... A>
static void gpu_launch(rt_ctx *ctx, dim3 grid, dim3 block, void (*k)(P...), A... a)
{
	k<<<grid, block, 0, gpu_stream(ctx)>>>(((P)a)...);
}
#endif

/* The full warp's shuffle: every lane takes v of lane ^ o. */
template <class A> static __device__ __forceinline__ A shfl_xor(A v, int o)
{
#if defined(GPU_EMULATED) || !defined(__HIPCC__)
	return __shfl_xor_sync(0xffffffffu, v, o);
#else
	return __shfl_xor(v, o);
#endif
}

/* Sum and maximum over the warp; every lane gets the result. */
template <class A> static __device__ A warp_sum(A v)
{
	for (int o = warpSize / 2; o > 0; o >>= 1)
		v += shfl_xor(v, o);
	return v;
}

template <class A> static __device__ A warp_max(A v)
{
	for (int o = warpSize / 2; o > 0; o >>= 1) {
		const A w = shfl_xor(v, o);
		v = w > v ? w : v;
	}
	return v;
}

/* Sum over the block (GPU_THREADS threads); thread 0 gets the result. */
static __device__ double block_sum0(double v)
{
	__shared__ double part[GPU_MAX_WARPS];
	const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
	v = warp_sum(v);
	if (lane == 0)
		part[warp] = v;
	__syncthreads();
	double s = 0;
	if (threadIdx.x == 0)
		for (int w = 0; w < (int)blockDim.x / warpSize; w++)
			s += part[w];
	return s;
}

/* Blocks of a grid-stride launch over `items`: enough to fill the device, no more. */
static unsigned grid_for(rt_ctx *ctx, size_t items)
{
	size_t b = (items + GPU_THREADS - 1) / GPU_THREADS;
	size_t cap = (size_t)gpu_sms(ctx) * GPU_BLOCKS_PER_SM;
	if (b > cap)
		b = cap;
	return (unsigned)(b < 1 ? 1 : b);
}

/* ---- elementwise maps ---- */

/* W elements of T moved as one access (16 bytes for W > 1). */
template <class T, int W> struct alignas(W > 1 ? 16 : sizeof(T)) pack {
	T v[W];
};

template <class T, int W> static __device__ __forceinline__ pack<T, W> load(const T *p)
{
	return *(const pack<T, W> *)p;
}

template <class T, int W> static __device__ __forceinline__ void store(T *p, const pack<T, W> &x)
{
	*(pack<T, W> *)p = x;
}

/*
 * Op on up to four arrays element by element: Op::reads and Op::writes
 * say (bit j: array j) which arrays it loads and stores, op(e0, e1, e2, e3)
 * updates one element of each. Packs of W elements over [0, n - n % W),
 * then the tail one element at a time; index type I (32 bits where n fits).
 */
template <class T, int W, class I, class Op>
__global__ void k_map(I n, Op op, T *a0, T *a1, T *a2, T *a3)
{
	T *const a[4] = {a0, a1, a2, a3};
	const I packs = n / W, stride = (I)blockDim.x * gridDim.x;
	const I first = (I)blockIdx.x * blockDim.x + threadIdx.x;
	for (I p = first; p < packs; p += stride) {
		pack<T, W> v[4];
#pragma unroll
		for (int j = 0; j < 4; j++)
			if (Op::reads & (1u << j))
				v[j] = load<T, W>(a[j] + (size_t)p * W);
#pragma unroll
		for (int e = 0; e < W; e++)
			op(v[0].v[e], v[1].v[e], v[2].v[e], v[3].v[e]);
#pragma unroll
		for (int j = 0; j < 4; j++)
			if (Op::writes & (1u << j))
				store<T, W>(a[j] + (size_t)p * W, v[j]);
	}
	const I i = packs * W + first;
	if (first < n - packs * W) {
		T v[4] = {0, 0, 0, 0};
		for (int j = 0; j < 4; j++)
			if (Op::reads & (1u << j))
				v[j] = a[j][i];
		op(v[0], v[1], v[2], v[3]);
		for (int j = 0; j < 4; j++)
			if (Op::writes & (1u << j))
				a[j][i] = v[j];
	}
}

/* 1 when p is 16-byte aligned (a NULL array, unused, is). */
static int aligned16(const void *p)
{
	return (uintptr_t)p % 16 == 0;
}

/* Launches k_map for op over n > 0 elements: packed where aligned, 32-bit where it fits. */
template <class T, class Op>
static int map_launch(rt_ctx *ctx, const char *name, size_t n, Op op, void *a0, void *a1 = NULL,
		      void *a2 = NULL, void *a3 = NULL)
{
	constexpr int W = 16 / sizeof(T);
	const int packed = aligned16(a0) && aligned16(a1) && aligned16(a2) && aligned16(a3);
	const size_t items = packed ? n / W + 1 : n;
	T *p0 = (T *)a0, *p1 = (T *)a1, *p2 = (T *)a2, *p3 = (T *)a3;
	if (n <= (size_t)INT_MAX && packed)
		gpu_launch(ctx, grid_for(ctx, items), GPU_THREADS, k_map<T, W, unsigned, Op>,
			   (unsigned)n, op, p0, p1, p2, p3);
	else if (n <= (size_t)INT_MAX)
		gpu_launch(ctx, grid_for(ctx, items), GPU_THREADS, k_map<T, 1, unsigned, Op>,
			   (unsigned)n, op, p0, p1, p2, p3);
	else if (packed)
		gpu_launch(ctx, grid_for(ctx, items), GPU_THREADS, k_map<T, W, size_t, Op>, n, op,
			   p0, p1, p2, p3);
	else
		gpu_launch(ctx, grid_for(ctx, items), GPU_THREADS, k_map<T, 1, size_t, Op>, n, op,
			   p0, p1, p2, p3);
	return gpu_launched(ctx, name);
}

template <class T> struct op_fill {
	static constexpr unsigned reads = 0, writes = 1;
	T v;
	__device__ void operator()(T &x, T &, T &, T &) const { x = v; }
};

/* y = a x (b == 0: y is not read, so it may hold NaN) */
template <class T> struct op_scale {
	static constexpr unsigned reads = 1, writes = 2;
	T a;
	__device__ void operator()(T &x, T &y, T &, T &) const { y = a * x; }
};

template <class T> struct op_axpby {
	static constexpr unsigned reads = 3, writes = 2;
	T a, b;
	__device__ void operator()(T &x, T &y, T &, T &) const { y = a * x + b * y; }
};

template <class T> static __device__ T gelu_u(T x)
{
	return (T)RT_GELU_K0 * (x + (T)RT_GELU_K1 * x * x * x);
}

template <class T> static __device__ T gelu_of(T x)
{
	return (T)0.5 * x * ((T)1 + dev_tanh(gelu_u(x)));
}

template <class T> struct op_gelu {
	static constexpr unsigned reads = 1, writes = 2;
	__device__ void operator()(T &x, T &y, T &, T &) const { y = gelu_of(x); }
};

template <class T> struct op_gelu_backward {
	static constexpr unsigned reads = 3, writes = 4;
	__device__ void operator()(T &x, T &dy, T &dx, T &) const
	{
		const T th = dev_tanh(gelu_u(x));
		const T du = (T)RT_GELU_K0 * ((T)1 + (T)3 * (T)RT_GELU_K1 * x * x);
		dx = dy * ((T)0.5 * ((T)1 + th) + (T)0.5 * x * ((T)1 - th * th) * du);
	}
};

template <class T> struct op_tanh {
	static constexpr unsigned reads = 1, writes = 2;
	__device__ void operator()(T &x, T &y, T &, T &) const { y = dev_tanh(x); }
};

template <class T> struct op_tanh_backward {
	static constexpr unsigned reads = 3, writes = 4;
	__device__ void operator()(T &y, T &dy, T &dx, T &) const { dx = dy * ((T)1 - y * y); }
};

template <class T> struct op_adam {
	static constexpr unsigned reads = 15, writes = 13; /* w g m v; g is only read */
	T lr, b1, b2, eps, c1, c2;
	__device__ void operator()(T &w, T &g, T &m, T &v) const
	{
		m = b1 * m + ((T)1 - b1) * g;
		v = b2 * v + ((T)1 - b2) * g * g;
		w -= lr * (m / c1) / (dev_sqrt(v / c2) + eps);
	}
};

/* Calls f<float> or f<double> by dtype; other dtypes are RT_EINVAL. */
#define GPU_DISPATCH(t, f, ...)                                                    \
	((t) == RT_F32 ? f<float>(__VA_ARGS__)                                     \
		       : (t) == RT_F64 ? f<double>(__VA_ARGS__) : RT_EINVAL)

template <class T> static int launch_fill(rt_ctx *ctx, void *x, size_t n, double v)
{
	return map_launch<T>(ctx, "fill", n, op_fill<T>{(T)v}, x);
}

static int gpu_fill(rt_ctx *ctx, rt_dtype t, void *x, size_t n, double value)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, launch_fill, ctx, x, n, value);
}

template <class T>
static int launch_axpby(rt_ctx *ctx, size_t n, double a, const void *x, double b, void *y)
{
	if ((T)b == (T)0)
		return map_launch<T>(ctx, "axpby", n, op_scale<T>{(T)a}, (void *)x, y);
	return map_launch<T>(ctx, "axpby", n, op_axpby<T>{(T)a, (T)b}, (void *)x, y);
}

static int gpu_axpby(rt_ctx *ctx, rt_dtype t, size_t n, double a, const void *x, double b,
		     void *y)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, launch_axpby, ctx, n, a, x, b, y);
}

template <class T> static int launch_gelu(rt_ctx *ctx, size_t n, const void *x, void *y)
{
	return map_launch<T>(ctx, "gelu", n, op_gelu<T>{}, (void *)x, y);
}

static int gpu_gelu(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, launch_gelu, ctx, n, x, y);
}

template <class T>
static int launch_gelu_backward(rt_ctx *ctx, size_t n, const void *x, const void *dy, void *dx)
{
	return map_launch<T>(ctx, "gelu_backward", n, op_gelu_backward<T>{}, (void *)x,
			     (void *)dy, dx);
}

static int gpu_gelu_backward(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, const void *dy,
			     void *dx)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, launch_gelu_backward, ctx, n, x, dy, dx);
}

template <class T> static int launch_tanh(rt_ctx *ctx, size_t n, const void *x, void *y)
{
	return map_launch<T>(ctx, "tanh", n, op_tanh<T>{}, (void *)x, y);
}

static int gpu_tanh_fwd(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, launch_tanh, ctx, n, x, y);
}

template <class T>
static int launch_tanh_backward(rt_ctx *ctx, size_t n, const void *y, const void *dy, void *dx)
{
	return map_launch<T>(ctx, "tanh_backward", n, op_tanh_backward<T>{}, (void *)y,
			     (void *)dy, dx);
}

static int gpu_tanh_backward(rt_ctx *ctx, rt_dtype t, size_t n, const void *y, const void *dy,
			     void *dx)
{
	return n == 0 ? 0 : GPU_DISPATCH(t, launch_tanh_backward, ctx, n, y, dy, dx);
}

template <class T>
static int launch_adam(rt_ctx *ctx, size_t n, void *w, const void *g, void *m, void *v,
		       double lr, double b1, double b2, double eps, int step)
{
	const op_adam<T> op = {(T)lr, (T)b1, (T)b2, (T)eps, (T)(1.0 - pow(b1, step)),
			       (T)(1.0 - pow(b2, step))};
	return map_launch<T>(ctx, "adam", n, op, w, (void *)g, m, v);
}

static int gpu_adam(rt_ctx *ctx, rt_dtype t, size_t n, void *w, const void *g, void *m,
		    void *v, double lr, double b1, double b2, double eps, int step)
{
	if (step < 1)
		return RT_EINVAL;
	return n == 0 ? 0
		      : GPU_DISPATCH(t, launch_adam, ctx, n, w, g, m, v, lr, b1, b2, eps, step);
}

/* 0 when a rows x cols call has nothing to do, RT_EINVAL for negative sizes, else 1. */
static int gpu_shape(int rows, int cols)
{
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	return rows > 0 && cols > 0;
}

/* ---- bias: a column's bias in registers, down the rows ---- */

/*
 * y[r][c] += bias[c] over packs of W columns (cols % W == 0), and with GELU
 * set a[r][c] = gelu(y[r][c]) too: thread x of the grid owns pack c, rows
 * blockIdx.y, + gridDim.y, ...
 */
template <class T, int W, bool GELU>
__global__ void k_add_bias(int rows, int cols, const T *bias, T *y, T *a)
{
	const int c = (blockIdx.x * blockDim.x + threadIdx.x) * W;
	if (c >= cols)
		return;
	const pack<T, W> b = load<T, W>(bias + c);
	for (int r = blockIdx.y; r < rows; r += gridDim.y) {
		const size_t at = (size_t)r * cols + c;
		pack<T, W> v = load<T, W>(y + at), g;
		for (int e = 0; e < W; e++) {
			v.v[e] += b.v[e];
			g.v[e] = GELU ? gelu_of(v.v[e]) : (T)0;
		}
		store<T, W>(y + at, v);
		if (GELU)
			store<T, W>(a + at, g);
	}
}

/* The grid of a column-major walk: column packs across, rows split to fill the device. */
static dim3 rows_grid(rt_ctx *ctx, int rows, int col_items)
{
	const unsigned across = (unsigned)((col_items + GPU_THREADS - 1) / GPU_THREADS);
	const unsigned want = (unsigned)gpu_sms(ctx) * GPU_BLOCKS_PER_SM;
	unsigned down = want / across;
	down = down < 1 ? 1 : down > (unsigned)rows ? (unsigned)rows : down;
	return dim3(across, down > 65535u ? 65535u : down);
}

/* y += bias by rows, then a = gelu(y) where a is not NULL; packed where cols and buffers allow. */
template <class T>
static int launch_add_bias(rt_ctx *ctx, int rows, int cols, const void *bias, void *y, void *a)
{
	constexpr int W = 16 / sizeof(T);
	const int packed = cols % W == 0 && aligned16(bias) && aligned16(y) && aligned16(a);
	const dim3 grid = rows_grid(ctx, rows, packed ? cols / W : cols);
	const T *b = (const T *)bias;
	if (packed && a)
		gpu_launch(ctx, grid, GPU_THREADS, k_add_bias<T, W, true>, rows, cols, b, (T *)y,
			   (T *)a);
	else if (a)
		gpu_launch(ctx, grid, GPU_THREADS, k_add_bias<T, 1, true>, rows, cols, b, (T *)y,
			   (T *)a);
	else if (packed)
		gpu_launch(ctx, grid, GPU_THREADS, k_add_bias<T, W, false>, rows, cols, b, (T *)y,
			   (T *)NULL);
	else
		gpu_launch(ctx, grid, GPU_THREADS, k_add_bias<T, 1, false>, rows, cols, b, (T *)y,
			   (T *)NULL);
	return gpu_launched(ctx, a ? "bias_gelu" : "add_bias");
}

static int gpu_add_bias(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias, void *y)
{
	int s = gpu_shape(rows, cols);
	return s <= 0 ? s : GPU_DISPATCH(t, launch_add_bias, ctx, rows, cols, bias, y, NULL);
}

static int gpu_bias_gelu(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias, void *u,
			 void *a)
{
	int s = gpu_shape(rows, cols);
	return s <= 0 ? s : GPU_DISPATCH(t, launch_add_bias, ctx, rows, cols, bias, u, a);
}

/* ---- column sums: partial sums of row chunks, then their sum ---- */

/*
 * Block (COLSUM_TILE, COLSUM_SPLIT)'s sums of its COLSUM_TILE columns over
 * rows [r0, r1) in double: thread y adds rows r0 + y, r0 + y + COLSUM_SPLIT,
 * ...; the threads of y == 0 return their column's total. With x non-NULL
 * the terms are dy * xh (xh from x, mean, rstd: layernorm's dgamma).
 */
template <class T>
static __device__ double colsum_tile(int r0, int r1, int cols, const T *dy, const T *x,
				     const T *mean, const T *rstd)
{
	__shared__ double sh[COLSUM_SPLIT][COLSUM_TILE];
	const int c = blockIdx.x * COLSUM_TILE + threadIdx.x;
	double acc = 0;
	for (int r = r0 + threadIdx.y; c < cols && r < r1; r += COLSUM_SPLIT) {
		const size_t i = (size_t)r * cols + c;
		if (x)
			acc += (double)(dy[i] * ((x[i] - mean[r]) * rstd[r]));
		else
			acc += (double)dy[i];
	}
	sh[threadIdx.y][threadIdx.x] = acc;
	__syncthreads();
	double s = 0;
	for (int j = 0; threadIdx.y == 0 && j < COLSUM_SPLIT; j++)
		s += sh[j][threadIdx.x];
	return s;
}

/* Block (blockIdx.x, blockIdx.y) sums rows [y chunk, (y + 1) chunk) into part[y][c]. */
template <class T>
__global__ void k_colsum_part(int rows, int cols, int chunk, const T *dy, const T *x,
			      const T *mean, const T *rstd, double *part)
{
	const int c = blockIdx.x * COLSUM_TILE + threadIdx.x;
	const int r0 = blockIdx.y * chunk;
	const int r1 = rows - r0 < chunk ? rows : r0 + chunk;
	const double s = colsum_tile(r0, r1, cols, dy, x, mean, rstd);
	if (threadIdx.y == 0 && c < cols)
		part[(size_t)blockIdx.y * cols + c] = s;
}

/* out[c] = (accumulate ? out[c] : 0) + sum over the chunks of part[k][c]. */
template <class T>
__global__ void k_colsum_total(int cols, int chunks, const double *part, T *out, int accumulate)
{
	const int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= cols)
		return;
	double s = 0;
	for (int k = 0; k < chunks; k++)
		s += part[(size_t)k * cols + c];
	out[c] = accumulate ? (T)((double)out[c] + s) : (T)s;
}

template <class T>
static int launch_colsum(rt_ctx *ctx, int rows, int cols, const void *dy, const void *x,
			 const void *mean, const void *rstd, void *out, int accumulate)
{
	const int tiles = (cols + COLSUM_TILE - 1) / COLSUM_TILE;
	const int want = gpu_sms(ctx) * GPU_BLOCKS_PER_SM;
	int chunks = want / tiles, most = (rows + COLSUM_MIN_ROWS - 1) / COLSUM_MIN_ROWS;
	chunks = chunks > most ? most : chunks;
	chunks = chunks < 1 ? 1 : chunks > 65535 ? 65535 : chunks;
	const int chunk = (int)(((long)rows + chunks - 1) / chunks);
	void *part = NULL;
	int rc = gpu_reduce_scratch(ctx, (size_t)chunks * cols * sizeof(double), &part);
	if (rc)
		return rc;
	gpu_launch(ctx, dim3((unsigned)tiles, (unsigned)chunks), dim3(COLSUM_TILE, COLSUM_SPLIT),
		   k_colsum_part<T>, rows, cols, chunk, (const T *)dy, (const T *)x,
		   (const T *)mean, (const T *)rstd, (double *)part);
	rc = gpu_launched(ctx, "column sum");
	if (rc)
		return rc;
	gpu_launch(ctx, (unsigned)((cols + GPU_THREADS - 1) / GPU_THREADS), GPU_THREADS,
		   k_colsum_total<T>, cols, chunks, (const double *)part, (T *)out, accumulate);
	return gpu_launched(ctx, "column sum total");
}

/* db = sum over rows of dy; with rows == 0, db is all zeros (an empty sum). */
static int gpu_sum_rows(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *dy, void *db)
{
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	if (cols == 0)
		return 0;
	return GPU_DISPATCH(t, launch_colsum, ctx, rows, cols, dy, NULL, NULL, NULL, db, 0);
}

/* ---- row kernels: one warp per row ---- */

/*
 * The row of the calling warp, and the stride to its next one: warps of
 * the whole grid take the rows in turn. Every lane of a warp sees the same
 * rows, so a warp's shuffles always have all its lanes.
 */
#define WARP_ROWS(r, rows)                                                              \
	for (int r = (int)((blockIdx.x * blockDim.x + threadIdx.x) / warpSize); r < (rows); \
	     r += (int)(gridDim.x * blockDim.x / warpSize))

/* Columns past last(r) (the causal mask) get +0. */
template <class T>
__global__ void k_softmax(int rows, int cols, T scale, int block, const T *x, T *y)
{
	const int lane = threadIdx.x % warpSize;
	WARP_ROWS(r, rows)
	{
		const T *xr = x + (size_t)r * cols;
		T *yr = y + (size_t)r * cols;
		const int last = block > 0 ? r % block : cols - 1;
		const int valid = last + 1 < cols ? last + 1 : cols;
		T mx = scale * xr[0];
		for (int c = lane; c < valid; c += warpSize)
			mx = scale * xr[c] > mx ? scale * xr[c] : mx;
		mx = warp_max(mx);
		double s = 0;
		for (int c = lane; c < valid; c += warpSize)
			s += (double)dev_exp(scale * xr[c] - mx);
		const T inv = (T)(1.0 / warp_sum(s));
		for (int c = lane; c < cols; c += warpSize)
			yr[c] = c < valid ? dev_exp(scale * xr[c] - mx) * inv : (T)0;
	}
}

template <class T>
__global__ void k_softmax_backward(int rows, int cols, T scale, const T *y, const T *dy, T *dx)
{
	const int lane = threadIdx.x % warpSize;
	WARP_ROWS(r, rows)
	{
		const size_t off = (size_t)r * cols;
		double dot = 0;
		for (int c = lane; c < cols; c += warpSize)
			dot += (double)(dy[off + c] * y[off + c]);
		const T d = (T)warp_sum(dot);
		for (int c = lane; c < cols; c += warpSize)
			dx[off + c] = scale * y[off + c] * (dy[off + c] - d);
	}
}

/* Two-pass mean and variance in double. */
template <class T>
__global__ void k_layernorm(int rows, int cols, const T *x, const T *gamma, const T *beta, T *y,
			    T *mean, T *rstd)
{
	const int lane = threadIdx.x % warpSize;
	WARP_ROWS(r, rows)
	{
		const size_t off = (size_t)r * cols;
		double s = 0, ss = 0;
		for (int c = lane; c < cols; c += warpSize)
			s += (double)x[off + c];
		const double mu = warp_sum(s) / (double)cols;
		for (int c = lane; c < cols; c += warpSize) {
			const double d = (double)x[off + c] - mu;
			ss += d * d;
		}
		const double var = warp_sum(ss) / (double)cols;
		const T m = (T)mu, rs = (T)(1.0 / sqrt(var + RT_LAYERNORM_EPS));
		if (lane == 0) {
			mean[r] = m;
			rstd[r] = rs;
		}
		for (int c = lane; c < cols; c += warpSize)
			y[off + c] = (x[off + c] - m) * rs * gamma[c] + beta[c];
	}
}

template <class T>
__global__ void k_layernorm_dx(int rows, int cols, const T *x, const T *gamma, const T *mean,
			       const T *rstd, const T *dy, T *dx)
{
	const int lane = threadIdx.x % warpSize;
	WARP_ROWS(r, rows)
	{
		const size_t off = (size_t)r * cols;
		const T m = mean[r], rs = rstd[r];
		double sg = 0, sgx = 0;
		for (int c = lane; c < cols; c += warpSize) {
			const T g = dy[off + c] * gamma[c];
			sg += (double)g;
			sgx += (double)(g * ((x[off + c] - m) * rs));
		}
		const T mg = (T)(warp_sum(sg) / (double)cols);
		const T mgx = (T)(warp_sum(sgx) / (double)cols);
		for (int c = lane; c < cols; c += warpSize)
			dx[off + c] = rs * (dy[off + c] * gamma[c] - mg - (x[off + c] - m) * rs * mgx);
	}
}

/* Blocks for one warp per row of `rows`, capped at what fills the device. */
static unsigned row_blocks(rt_ctx *ctx, int rows)
{
	const int per_block = GPU_THREADS / gpu_warp(ctx);
	return grid_for(ctx, ((size_t)rows + per_block - 1) / per_block * GPU_THREADS);
}

template <class T>
static int launch_softmax(rt_ctx *ctx, int rows, int cols, double scale, int block,
			  const void *x, void *y)
{
	gpu_launch(ctx, row_blocks(ctx, rows), GPU_THREADS, k_softmax<T>, rows, cols, (T)scale,
		   block, (const T *)x, (T *)y);
	return gpu_launched(ctx, "softmax");
}

static int gpu_softmax(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale,
		       int causal_block, const void *x, void *y)
{
	int s = gpu_shape(rows, cols);
	if (causal_block < 0)
		return RT_EINVAL;
	return s <= 0 ? s
		      : GPU_DISPATCH(t, launch_softmax, ctx, rows, cols, scale, causal_block,
				     x, y);
}

template <class T>
static int launch_softmax_backward(rt_ctx *ctx, int rows, int cols, double scale,
				   const void *y, const void *dy, void *dx)
{
	gpu_launch(ctx, row_blocks(ctx, rows), GPU_THREADS, k_softmax_backward<T>, rows, cols,
		   (T)scale, (const T *)y, (const T *)dy, (T *)dx);
	return gpu_launched(ctx, "softmax_backward");
}

static int gpu_softmax_backward(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale,
				const void *y, const void *dy, void *dx)
{
	int s = gpu_shape(rows, cols);
	return s <= 0 ? s
		      : GPU_DISPATCH(t, launch_softmax_backward, ctx, rows, cols, scale, y, dy,
				     dx);
}

template <class T>
static int launch_layernorm(rt_ctx *ctx, int rows, int cols, const void *x, const void *gamma,
			    const void *beta, void *y, void *mean, void *rstd)
{
	gpu_launch(ctx, row_blocks(ctx, rows), GPU_THREADS, k_layernorm<T>, rows, cols,
		   (const T *)x, (const T *)gamma, (const T *)beta, (T *)y, (T *)mean, (T *)rstd);
	return gpu_launched(ctx, "layernorm");
}

static int gpu_layernorm(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
			 const void *gamma, const void *beta, void *y, void *mean, void *rstd)
{
	int s = gpu_shape(rows, cols);
	return s <= 0 ? s
		      : GPU_DISPATCH(t, launch_layernorm, ctx, rows, cols, x, gamma, beta, y,
				     mean, rstd);
}

template <class T>
static int launch_layernorm_backward(rt_ctx *ctx, int rows, int cols, const void *x,
				     const void *gamma, const void *mean, const void *rstd,
				     const void *dy, void *dx, void *dgamma, void *dbeta)
{
	gpu_launch(ctx, row_blocks(ctx, rows), GPU_THREADS, k_layernorm_dx<T>, rows, cols,
		   (const T *)x, (const T *)gamma, (const T *)mean, (const T *)rstd,
		   (const T *)dy, (T *)dx);
	int rc = gpu_launched(ctx, "layernorm_backward");
	if (rc == 0)
		rc = launch_colsum<T>(ctx, rows, cols, dy, x, mean, rstd, dgamma, 1);
	if (rc == 0)
		rc = launch_colsum<T>(ctx, rows, cols, dy, NULL, NULL, NULL, dbeta, 1);
	return rc;
}

static int gpu_layernorm_backward(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
				  const void *gamma, const void *mean, const void *rstd,
				  const void *dy, void *dx, void *dgamma, void *dbeta)
{
	int s = gpu_shape(rows, cols);
	return s <= 0 ? s
		      : GPU_DISPATCH(t, launch_layernorm_backward, ctx, rows, cols, x, gamma,
				     mean, rstd, dy, dx, dgamma, dbeta);
}

/* ---- GEMM inputs rounded to 16 bits (store16() is the includer's, per 16-bit type) ---- */

/* A strided batch of stored rows x cols fp32 matrices: row stride ld, matrix i at i * stride. */
typedef struct round_mats {
	int count, rows, cols, ld;
	long stride;
} round_mats;

/* y = x rounded to 16 bits over n contiguous floats: W read as one access, then the tail. */
template <class H, int W> __global__ void k_round16(size_t n, const float *x, H *y)
{
	const size_t packs = n / W;
	GRID_LOOP(p, packs)
	{
		const pack<float, W> v = load<float, W>(x + p * W);
#pragma unroll
		for (int e = 0; e < W; e++)
			store16(&y[p * W + e], v.v[e]);
	}
	GRID_LOOP(t, n - packs * W)
	store16(&y[packs * W + t], x[packs * W + t]);
}

/*
 * The same over the matrices m only, at their offsets: block row y takes
 * the matrix rows blockIdx.y, + gridDim.y, ... (one division a row), its
 * threads the columns.
 */
template <class H> __global__ void k_round16_rows(round_mats m, const float *x, H *y)
{
	const long total = (long)m.count * m.rows;
	for (long r = blockIdx.y; r < total; r += gridDim.y) {
		const long b = r / m.rows;
		const size_t row = (size_t)(b * m.stride + (r - b * m.rows) * (long)m.ld);
		for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < m.cols;
		     c += blockDim.x * gridDim.x)
			store16(&y[row + c], x[row + c]);
	}
}

/* Rounds n contiguous floats, four at a time where x is aligned for it. */
template <class H> static void round16_run(rt_ctx *ctx, size_t n, const float *x, H *y)
{
	if (aligned16(x))
		gpu_launch(ctx, grid_for(ctx, n / 4 + 1), GPU_THREADS, k_round16<H, 4>, n, x, y);
	else
		gpu_launch(ctx, grid_for(ctx, n), GPU_THREADS, k_round16<H, 1>, n, x, y);
}

/* Rounds m: as one run of floats where the matrices are dense and adjacent, else by rows. */
template <class H>
static void round16_launch(rt_ctx *ctx, const round_mats *m, const float *x, H *y)
{
	const int dense = m->ld == m->cols && (m->count == 1 || m->stride == (long)m->rows * m->ld);
	if (dense) {
		round16_run(ctx, (size_t)m->count * m->rows * m->cols, x, y);
		return;
	}
	/* a block as wide as the rows need, in whole 64-thread steps (any warp width) */
	const int threads = m->cols >= GPU_THREADS ? GPU_THREADS : (m->cols + 63) / 64 * 64;
	const unsigned across = (unsigned)((m->cols + threads - 1) / threads);
	const long total = (long)m->count * m->rows;
	long down = (long)gpu_sms(ctx) * GPU_BLOCKS_PER_SM * (GPU_THREADS / threads) / across;
	down = down < 1 ? 1 : down > total ? total : down > 65535 ? 65535 : down;
	gpu_launch(ctx, dim3(across, (unsigned)down), (unsigned)threads, k_round16_rows<H>, *m, x,
		   y);
}

/* ---- the loss: partial sums per block, then one block adds them ---- */

template <class T>
__global__ void k_mse_part(size_t n, const T *p, const T *target, T *dp, double *part)
{
	const T k = (T)(2.0 / (double)n);
	double s = 0;
	GRID_LOOP(i, n)
	{
		const T d = p[i] - target[i];
		s += (double)(d * d);
		dp[i] = k * d;
	}
	s = block_sum0(s);
	if (threadIdx.x == 0)
		part[blockIdx.x] = s;
}

template <class T> __global__ void k_mse_total(size_t n, int nparts, const double *part, T *loss)
{
	double s = 0;
	for (int i = threadIdx.x; i < nparts; i += blockDim.x)
		s += part[i];
	s = block_sum0(s);
	if (threadIdx.x == 0)
		loss[0] = (T)(s / (double)n);
}

template <class T>
static int launch_mse(rt_ctx *ctx, size_t n, const void *p, const void *target, void *loss,
		      void *dp)
{
	const unsigned blocks = grid_for(ctx, n);
	void *part = NULL;
	int rc = gpu_reduce_scratch(ctx, blocks * sizeof(double), &part);
	if (rc)
		return rc;
	gpu_launch(ctx, blocks, GPU_THREADS, k_mse_part<T>, n, (const T *)p, (const T *)target,
		   (T *)dp, (double *)part);
	rc = gpu_launched(ctx, "mse_loss");
	if (rc)
		return rc;
	gpu_launch(ctx, 1, GPU_THREADS, k_mse_total<T>, n, (int)blocks, (const double *)part,
		   (T *)loss);
	return gpu_launched(ctx, "mse_loss total");
}

static int gpu_mse_loss(rt_ctx *ctx, rt_dtype t, size_t n, const void *p, const void *target,
			void *loss, void *dp)
{
	return n == 0 ? RT_EINVAL : GPU_DISPATCH(t, launch_mse, ctx, n, p, target, loss, dp);
}

#endif
