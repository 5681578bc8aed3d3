/*
 * cuda_emu.cpp: runs the GPU plugins' kernels (workloads/gpu/kernels.cuh,
 * the fast ones, and kernels_plain.cuh, their specification; the own tiled
 * GEMM of gemm_tiled.cuh and the pointer arrays of gemm_batch2.cuh) on the
 * CPU.
 * The kernels and their launchers are compiled as C++ against a shim of
 * CUDA's names (tests/cuda_shim/cuda_emu_shim.h); a launch runs as a GPU
 * runs it in the one respect the kernels rely on: blockDim threads run
 * each block together, with the block's barrier (__syncthreads) and one
 * barrier per warp (the shuffles' exchange), the blocks one after another.
 * What this shows is the kernels' logic (indices, tails, packs, grids,
 * reductions, the warp width: 32 as NVIDIA's and RDNA's, 64 as CDNA's)
 * against the CPU reference; not nvcc or hipcc, the device's libm or its
 * memory model.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../common/platform.h"
}
#include "cuda_emu.h"

#include <cuda_emu_shim.h> /* tests/cuda_shim/ */

#define EMU_MAX_THREADS 1024

struct rt_ctx {
	int sms, warp;
	void *scratch;
	size_t scratch_bytes;
	long launches;
	int refused; /* the last launch was one the hardware refuses */
	char err[RT_ERRLEN]; /* the tiled GEMM's message of a precision it has no kernel for */
};

thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
int warpSize = 32;

/* The launch being run: its barriers and the warps' exchange. */
static rt_barrier block_bar, warp_bar[EMU_MAX_THREADS / 32];
static uint64_t exchange[EMU_MAX_THREADS];

void __syncthreads()
{
	rt_barrier_wait(&block_bar);
}

static unsigned linear_thread(void)
{
	return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

void emu_exchange(const void *mine, void *theirs, size_t bytes, unsigned lane)
{
	const unsigned me = linear_thread();
	rt_barrier *w = &warp_bar[me / (unsigned)warpSize];
	memcpy(&exchange[me], mine, bytes);
	rt_barrier_wait(w);
	memcpy(theirs, &exchange[lane], bytes);
	rt_barrier_wait(w);
}

typedef void (*body_fn)(void *);

struct launch {
	body_fn body;
	void *arg;
};

struct thread_arg {
	const launch *l;
	unsigned id;
};

/* One thread of every block in turn; the block's barrier ends each block. */
static void *run_thread(void *p)
{
	const thread_arg *t = (const thread_arg *)p;
	threadIdx = dim3(t->id % blockDim.x, t->id / blockDim.x % blockDim.y,
			 t->id / (blockDim.x * blockDim.y));
	for (unsigned z = 0; z < gridDim.z; z++)
		for (unsigned y = 0; y < gridDim.y; y++)
			for (unsigned x = 0; x < gridDim.x; x++) {
				blockIdx = dim3(x, y, z);
				t->l->body(t->l->arg);
				rt_barrier_wait(&block_bar);
			}
	return nullptr;
}

/* What a GPU refuses to launch. */
static int refused(dim3 grid, dim3 block, int warp)
{
	const unsigned threads = block.x * block.y * block.z;
	return grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 || grid.z > 65535 ||
	       threads == 0 || threads > EMU_MAX_THREADS || threads % (unsigned)warp != 0;
}

static void run(rt_ctx *ctx, dim3 grid, dim3 block, const launch *l)
{
	ctx->launches++;
	ctx->refused = refused(grid, block, ctx->warp);
	if (ctx->refused)
		return;
	const unsigned n = block.x * block.y * block.z, warps = n / (unsigned)ctx->warp;
	pthread_t id[EMU_MAX_THREADS];
	thread_arg a[EMU_MAX_THREADS];
	gridDim = grid;
	blockDim = block;
	warpSize = ctx->warp;
	if (rt_barrier_init(&block_bar, n))
		abort();
	for (unsigned w = 0; w < warps; w++)
		if (rt_barrier_init(&warp_bar[w], (unsigned)ctx->warp))
			abort();
	pthread_attr_t small; /* a kernel's thread needs little stack; creating 1024 stays cheap */
	if (pthread_attr_init(&small) || pthread_attr_setstacksize(&small, 256 << 10))
		abort();
	for (unsigned t = 0; t < n; t++) {
		a[t] = thread_arg{l, t};
		/* a thread that did not start would leave the others at the barrier */
		if (pthread_create(&id[t], &small, run_thread, &a[t]))
			abort();
	}
	pthread_attr_destroy(&small);
	for (unsigned t = 0; t < n; t++)
		pthread_join(id[t], nullptr);
	for (unsigned w = 0; w < warps; w++)
		rt_barrier_destroy(&warp_bar[w]);
	rt_barrier_destroy(&block_bar);
}

template <class F> static void call_body(void *f)
{
	(*(F *)f)();
}

/* The plugins' gpu_launch, here: the kernel called by every thread of every block. */
template <class... P, class... A>
static void gpu_launch(rt_ctx *ctx, dim3 grid, dim3 block, void (*k)(P...), A... a)
{
	auto body = [&]() { k(((P)a)...); };
	const launch l = {call_body<decltype(body)>, &body};
	run(ctx, grid, block, &l);
}

typedef int gpu_stream_t;

static int gpu_launched(rt_ctx *ctx, const char *kernel)
{
	(void)kernel;
	return ctx->refused ? RT_ERUNTIME : 0;
}

static int gpu_sms(rt_ctx *ctx)
{
	return ctx->sms;
}

static int gpu_warp(rt_ctx *ctx)
{
	return ctx->warp;
}

static int gpu_reduce_scratch(rt_ctx *ctx, size_t bytes, void **p)
{
	if (bytes > ctx->scratch_bytes) {
		free(ctx->scratch);
		ctx->scratch = malloc(bytes);
		ctx->scratch_bytes = ctx->scratch ? bytes : 0;
	}
	*p = ctx->scratch;
	return ctx->scratch ? 0 : RT_ENOMEM;
}

/* bfloat16 as its bits, for the rounding of GEMM inputs (the plugins' store16). */
struct emu_bf16 {
	uint16_t bits;
};

/* Rounds to nearest even; NaN stays a quiet NaN. */
static void store16(emu_bf16 *y, float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		y->bits = (uint16_t)((u >> 16) | 0x40u);
	else
		y->bits = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* IEEE half as its bits, for the tiled GEMM's fp16 inputs. */
struct emu_fp16 {
	uint16_t bits;
};

static float to_acc(emu_bf16 x)
{
	const uint32_t u = (uint32_t)x.bits << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static float to_acc(emu_fp16 x)
{
	const int e = (x.bits >> 10) & 0x1f, m = x.bits & 0x3ff;
	const float v = e == 0    ? ldexpf((float)m, -24)
			: e == 31 ? (m ? NAN : INFINITY)
				  : ldexpf((float)(m | 0x400), e - 25);
	return x.bits & 0x8000 ? -v : v;
}

typedef emu_bf16 gpu_bf16_t;
typedef emu_fp16 gpu_fp16_t;

/* Small chunks of the tiled GEMM's batch, so that a test's batch spans several launches. */
#define GEMM_MAX_Z 4

#include "../workloads/gpu/kernels.cuh"
#include "../workloads/gpu/kernels_plain.cuh"
#include "../workloads/gpu/gemm_tiled.cuh"
#include "../workloads/gpu/gemm_batch2.cuh"

extern "C" rt_ctx *cuda_emu_open(int sms, int warp)
{
	if (warp != 32 && warp != 64)
		return nullptr;
	rt_ctx *c = (rt_ctx *)calloc(1, sizeof *c);
	if (c) {
		c->sms = sms;
		c->warp = warp;
	}
	return c;
}

extern "C" void cuda_emu_close(rt_ctx *ctx)
{
	if (ctx)
		free(ctx->scratch);
	free(ctx);
}

extern "C" long cuda_emu_launches(const rt_ctx *ctx)
{
	return ctx->launches;
}

static rt_backend_ops table(int plain)
{
	rt_backend_ops o;
	memset(&o, 0, sizeof o);
	o.abi = RT_BACKEND_ABI;
	o.name = plain ? "emu_plain" : "emu";
	o.fill = plain ? plain_fill : gpu_fill;
	o.axpby = plain ? plain_axpby : gpu_axpby;
	o.add_bias = plain ? plain_add_bias : gpu_add_bias;
	o.sum_rows = plain ? plain_sum_rows : gpu_sum_rows;
	o.gelu = plain ? plain_gelu : gpu_gelu;
	o.gelu_backward = plain ? plain_gelu_backward : gpu_gelu_backward;
	o.tanh_fwd = plain ? plain_tanh_fwd : gpu_tanh_fwd;
	o.tanh_backward = plain ? plain_tanh_backward : gpu_tanh_backward;
	o.softmax = plain ? plain_softmax : gpu_softmax;
	o.softmax_backward = plain ? plain_softmax_backward : gpu_softmax_backward;
	o.layernorm = plain ? plain_layernorm : gpu_layernorm;
	o.layernorm_backward = plain ? plain_layernorm_backward : gpu_layernorm_backward;
	o.mse_loss = plain ? plain_mse_loss : gpu_mse_loss;
	o.adam = plain ? plain_adam : gpu_adam;
	o.bias_gelu = plain ? NULL : gpu_bias_gelu; /* plain: add_bias, then gelu */
	return o;
}

/* Made when the library loads (a function's static would need C++'s runtime for its guard). */
static const rt_backend_ops fast_ops = table(0), plain_ops = table(1);

extern "C" const rt_backend_ops *cuda_emu_ops(int plain)
{
	return plain ? &plain_ops : &fast_ops;
}

extern "C" int cuda_emu_round16(rt_ctx *ctx, int count, int rows, int cols, int ld, long stride,
				const float *x, uint16_t *y)
{
	const round_mats m = {count, rows, cols, ld, stride};
	static_assert(sizeof(emu_bf16) == sizeof(uint16_t), "bf16 is its bits");
	round16_launch(ctx, &m, x, (emu_bf16 *)y);
	return gpu_launched(ctx, "fp32 to 16-bit");
}

extern "C" int cuda_emu_batch_ptrs(rt_ctx *ctx, const colmajor_gemm *c, int es_ab, int es_c,
				   void **out)
{
	return batch_ptrs_launch(ctx, c, es_ab, es_c, out);
}

extern "C" int cuda_emu_tiled_gemm(rt_ctx *ctx, const rt_gemm_args *g)
{
	return tiled_gemm(ctx, g, g->a, g->b);
}
