/*
 * The GPU plugins' kernels without a GPU: the fast kernels of
 * workloads/gpu/kernels.cuh and their plain versions (kernels_plain.cuh),
 * compiled as C++ and run on the CPU by tests/cuda_emu.cpp, each against
 * the other and both against the CPU reference (workloads/kernels.h), in
 * fp32 and fp64, at warp widths 32 and 64, on sizes that leave tails (n not
 * a multiple of 4, rows not a multiple of a block's warps, columns under
 * and over a warp), on buffers that start off 16-byte alignment (the
 * scalar paths) and on grids smaller than the work (the grid-stride loops);
 * the own tiled GEMM over strided and two-level batches, and the pointer
 * arrays of a two-level batch against the addresses they must hold.
 * What nvcc, hipcc and a device make of them is tests/gpu_check.c's.
 * beside: others (the emulated kernels against their references)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/rng.h"
#include "../workloads/cpu_backend.h"
#include "../workloads/kernels.h"
#include "cuda_emu.h"

/* Enough for every case: rows x cols and n at most this many elements per buffer. */
#define EMU_MAX_ELEMS 40000
#define NBUF 8

/* Where a call's buffers live; off shifts every buffer by one element (unaligned). */
typedef struct bufs {
	rt_dtype t;
	int off;
	double *mem[NBUF];
	void *b[NBUF];
} bufs;

static const rt_backend_ops *cpu_be;
static rt_ctx *cpu_ctx;

static int setup(void **state)
{
	char err[RT_ERRLEN] = "";
	(void)state;
	cpu_be = rt_cpu_backend();
	if (cpu_be->init(err, sizeof err) < 1 || cpu_be->open(0, 1, &cpu_ctx, err, sizeof err))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cpu_be->close(cpu_ctx);
	return 0;
}

static void bufs_init(bufs *x, rt_dtype t, int off)
{
	x->t = t;
	x->off = off;
	for (int i = 0; i < NBUF; i++) {
		x->mem[i] = calloc(EMU_MAX_ELEMS + 2, sizeof(double));
		assert_non_null(x->mem[i]);
		x->b[i] = t == RT_F32 ? (void *)((float *)x->mem[i] + off)
				      : (void *)((double *)x->mem[i] + off);
	}
}

static void bufs_free(bufs *x)
{
	for (int i = 0; i < NBUF; i++)
		free(x->mem[i]);
}

static double get(const bufs *x, int i, size_t k)
{
	return x->t == RT_F32 ? ((const float *)x->b[i])[k] : ((const double *)x->b[i])[k];
}

static void set(bufs *x, int i, size_t k, double v)
{
	if (x->t == RT_F32)
		((float *)x->b[i])[k] = (float)v;
	else
		((double *)x->b[i])[k] = v;
}

/* Buffer i of x, of dst too, gets n values: seeded normals * scale + shift. */
static void fill_same(bufs *dst[3], int i, size_t n, uint64_t seed, double scale, double shift)
{
	rt_rng r;
	rt_rng_seed(&r, seed);
	for (size_t k = 0; k < n; k++) {
		double v = shift + scale * rt_rng_normal(&r);
		for (int j = 0; j < 3; j++)
			set(dst[j], i, k, v);
	}
}

/* Buffers out[] of n elements agree between a and ref within tolerance. */
static void expect_close(const bufs *a, const bufs *ref, int i, size_t n, const char *what,
			 const char *who)
{
	const double rtol = a->t == RT_F32 ? 2e-5 : 1e-11, atol = a->t == RT_F32 ? 2e-6 : 1e-13;
	for (size_t k = 0; k < n; k++) {
		double x = get(a, i, k), y = get(ref, i, k);
		if (!(fabs(x - y) <= rtol * fabs(y) + atol) && !(isnan(x) && isnan(y)))
			fail_msg("%s (%s, %s, buffer %d) [%zu]: %.9g, reference %.9g", what, who,
				 a->t == RT_F32 ? "fp32" : "fp64", i, k, x, y);
	}
}

/* One kernel call on a backend's table and context, with buffers b. */
typedef int (*call_fn)(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int rows, int cols);

/*
 * A kernel's case: per buffer its size (n: rows x cols, r: rows, c: cols,
 * 1: one) and its role (i: input; o: output, NaN before the call; b: both;
 * p: both, positive values; the outputs and both are compared).
 */
typedef struct kcase {
	const char *name;
	call_fn call;
	const char *sizes, *roles;
} kcase;

#define N(r, c) ((size_t)(r) * (size_t)(c))

static int c_fill(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->fill(ctx, b->t, b->b[0], N(r, c), 0.37);
}
static int c_axpby(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->axpby(ctx, b->t, N(r, c), 1.5, b->b[0], -0.25, b->b[1]);
}
static int c_scale(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->axpby(ctx, b->t, N(r, c), 1.5, b->b[0], 0.0, b->b[1]);
}
static int c_add_bias(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->add_bias(ctx, b->t, r, c, b->b[0], b->b[1]);
}
static int c_sum_rows(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->sum_rows(ctx, b->t, r, c, b->b[0], b->b[1]);
}
/* the fused kernel where the table has it, else its definition (the plain table's NULL) */
static int c_bias_gelu(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	if (be->bias_gelu)
		return be->bias_gelu(ctx, b->t, r, c, b->b[0], b->b[1], b->b[2]);
	if (be == cpu_be)
		return rt_cpu_bias_gelu(ctx, b->t, r, c, b->b[0], b->b[1], b->b[2]);
	RT_TRY(be->add_bias(ctx, b->t, r, c, b->b[0], b->b[1]));
	return be->gelu(ctx, b->t, N(r, c), b->b[1], b->b[2]);
}
static int c_gelu(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->gelu(ctx, b->t, N(r, c), b->b[0], b->b[1]);
}
static int c_gelu_bwd(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->gelu_backward(ctx, b->t, N(r, c), b->b[0], b->b[1], b->b[2]);
}
static int c_tanh(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->tanh_fwd(ctx, b->t, N(r, c), b->b[0], b->b[1]);
}
static int c_tanh_bwd(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->tanh_backward(ctx, b->t, N(r, c), b->b[0], b->b[1], b->b[2]);
}
static int c_softmax(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->softmax(ctx, b->t, r, c, 0.7, 0, b->b[0], b->b[1]);
}
static int c_softmax_causal(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->softmax(ctx, b->t, r, c, 0.7, c, b->b[0], b->b[1]);
}
static int c_softmax_bwd(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->softmax_backward(ctx, b->t, r, c, 0.7, b->b[0], b->b[1], b->b[2]);
}
static int c_layernorm(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->layernorm(ctx, b->t, r, c, b->b[0], b->b[1], b->b[2], b->b[3], b->b[4],
			     b->b[5]);
}
/* x, gamma, dy; mean and rstd from the CPU's layernorm of x (its y into dx's buffer first) */
static int c_layernorm_bwd(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	RT_TRY(cpu_be->layernorm(cpu_ctx, b->t, r, c, b->b[0], b->b[1], b->b[1], b->b[5], b->b[3],
				 b->b[4]));
	return be->layernorm_backward(ctx, b->t, r, c, b->b[0], b->b[1], b->b[3], b->b[4],
				      b->b[2], b->b[5], b->b[6], b->b[7]);
}
static int c_mse(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->mse_loss(ctx, b->t, N(r, c), b->b[0], b->b[1], b->b[2], b->b[3]);
}
static int c_adam(const rt_backend_ops *be, rt_ctx *ctx, bufs *b, int r, int c)
{
	return be->adam(ctx, b->t, N(r, c), b->b[0], b->b[1], b->b[2], b->b[3], 1e-3, 0.9,
			0.999, 1e-8, 3);
}

static const kcase cases[] = {
	{"fill", c_fill, "n", "o"},
	{"axpby", c_axpby, "nn", "ib"},
	{"axpby b=0", c_scale, "nn", "io"},
	{"add_bias", c_add_bias, "cn", "ib"},
	{"bias_gelu", c_bias_gelu, "cnn", "ibo"},
	{"sum_rows", c_sum_rows, "nc", "io"},
	{"gelu", c_gelu, "nn", "io"},
	{"gelu_backward", c_gelu_bwd, "nnn", "iio"},
	{"tanh_fwd", c_tanh, "nn", "io"},
	{"tanh_backward", c_tanh_bwd, "nnn", "iio"},
	{"softmax", c_softmax, "nn", "io"},
	{"softmax causal", c_softmax_causal, "nn", "io"},
	{"softmax_backward", c_softmax_bwd, "nnn", "iio"},
	{"layernorm", c_layernorm, "nccnrr", "iiiooo"},
	{"layernorm_backward", c_layernorm_bwd, "ncnrrncc", "iiiiiobb"},
	{"mse_loss", c_mse, "nn1n", "iioo"},
	{"adam", c_adam, "nnnn", "bibp"},
};

/* rows x cols: single elements, tails under a pack, rows under and over a warp and a block. */
static const int shapes[][2] = {{1, 1}, {3, 5}, {37, 33}, {67, 20}, {5, 1000}};

static size_t size_of(char k, int rows, int cols)
{
	return k == 'n' ? N(rows, cols) : k == 'r' ? (size_t)rows : k == 'c' ? (size_t)cols : 1;
}

/* The same inputs into the three buffer sets; NaN in the pure outputs. */
static void prepare(const kcase *k, bufs *sets[3], int rows, int cols)
{
	for (int i = 0; k->roles[i]; i++) {
		size_t n = size_of(k->sizes[i], rows, cols);
		char role = k->roles[i];
		fill_same(sets, i, n, 1000u + (uint64_t)i * 77u + (uint64_t)rows * 7u + (uint64_t)cols,
			  role == 'p' ? 0.3 : 1.0, role == 'p' ? 1.0 : 0.0);
		for (size_t e = 0; role == 'o' && e < n; e++)
			for (int j = 0; j < 3; j++)
				set(sets[j], i, e, NAN);
	}
}

static void compare(const kcase *k, const bufs *a, const bufs *ref, int rows, int cols,
		    const char *who)
{
	char what[96];
	snprintf(what, sizeof what, "%s %dx%d", k->name, rows, cols);
	for (int i = 0; k->roles[i]; i++)
		if (k->roles[i] != 'i')
			expect_close(a, ref, i, size_of(k->sizes[i], rows, cols), what, who);
}

/* Case k on every shape: fast and plain kernels against the CPU and each other. */
static void run_case(const kcase *k, rt_dtype t, int warp, int off)
{
	rt_ctx *emu = cuda_emu_open(1, warp); /* one SM: grids smaller than the work */
	assert_non_null(emu);
	bufs ref, fast, plain;
	bufs *set[3] = {&ref, &fast, &plain};
	bufs_init(&ref, t, 0);
	bufs_init(&fast, t, off);
	bufs_init(&plain, t, off);
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		int rows = shapes[s][0], cols = shapes[s][1];
		prepare(k, set, rows, cols);
		assert_int_equal(k->call(cpu_be, cpu_ctx, &ref, rows, cols), 0);
		assert_int_equal(k->call(cuda_emu_ops(0), emu, &fast, rows, cols), 0);
		compare(k, &fast, &ref, rows, cols, "fast vs CPU");
		if (warp == 32 && t == RT_F32) { /* the plain kernels once: they use no warp width */
			assert_int_equal(k->call(cuda_emu_ops(1), emu, &plain, rows, cols), 0);
			compare(k, &plain, &ref, rows, cols, "plain vs CPU");
			compare(k, &fast, &plain, rows, cols, "fast vs plain");
		}
	}
	assert_true(cuda_emu_launches(emu) > 0);
	bufs_free(&ref);
	bufs_free(&fast);
	bufs_free(&plain);
	cuda_emu_close(emu);
}

static void test_every_kernel_fp32_warp32(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i], RT_F32, 32, 0);
}

static void test_every_kernel_fp64_warp64_unaligned(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i], RT_F64, 64, 1);
}

static void test_every_kernel_fp32_warp64_unaligned(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i], RT_F32, 64, 1);
}

static void test_every_kernel_fp64_warp32(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i], RT_F64, 32, 0);
}

/* bfloat16 of x by its definition: the top 16 bits, rounded to nearest, ties to even. */
static uint16_t bf16_of(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	uint32_t keep = u >> 16, dropped = u & 0xffffu;
	if (dropped > 0x8000u || (dropped == 0x8000u && (keep & 1u)))
		keep++;
	return (uint16_t)keep;
}

/*
 * The rounding of bf16 GEMM inputs: dense runs (aligned and not), and the
 * matrices of one head inside a wider tensor, whose other columns it must
 * leave alone (the GEMM reads only the head's).
 */
static void test_round16_rounds_only_the_matrices(void **state)
{
	(void)state;
	static const struct {
		int count, rows, cols, ld;
		long stride;
		int off;
	} cases[] = {
		{1, 7, 9, 9, 0, 0},       {1, 7, 9, 9, 0, 1},      {3, 5, 8, 8, 40, 0},
		{4, 6, 5, 24, 150, 2},    {2, 3, 300, 310, 1000, 0}, {5, 9, 64, 192, 9 * 192, 64},
	};
	for (int warp = 32; warp <= 64; warp += 32) {
		rt_ctx *emu = cuda_emu_open(1, warp);
		for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
			const size_t n = (size_t)(cases[k].count - 1) * cases[k].stride +
					 (size_t)(cases[k].rows - 1) * cases[k].ld + cases[k].cols;
			float *x = malloc((n + 1) * sizeof *x);
			uint16_t *y = malloc((n + 1) * sizeof *y);
			rt_rng r;
			rt_rng_seed(&r, 7u + k);
			for (size_t i = 0; i <= n; i++) {
				x[i] = (float)rt_rng_normal(&r);
				y[i] = 0xffffu;
			}
			assert_int_equal(cuda_emu_round16(emu, cases[k].count, cases[k].rows,
							  cases[k].cols, cases[k].ld, cases[k].stride,
							  x + cases[k].off % 2, y), 0);
			for (size_t i = 0; i < n; i++) {
				size_t in_mat = i % (cases[k].stride ? (size_t)cases[k].stride : n + 1);
				int inside = i / (cases[k].stride ? (size_t)cases[k].stride : n + 1) <
						     (size_t)cases[k].count &&
					     in_mat / cases[k].ld < (size_t)cases[k].rows &&
					     in_mat % cases[k].ld < (size_t)cases[k].cols;
				uint16_t want = inside ? bf16_of(x[i + cases[k].off % 2]) : 0xffffu;
				if (y[i] != want)
					fail_msg("round16 case %zu (warp %d) [%zu]: %#x, want %#x", k,
						 warp, i, y[i], want);
			}
			free(x);
			free(y);
		}
		cuda_emu_close(emu);
	}
}

/*
 * The pointer arrays of a two-level batch (gemm_batch2.cuh): every entry,
 * A's then B's then C's, is the address of matrix (i, j) = (z / count,
 * z % count) with the element sizes of each operand, and nothing past them
 * is written; at warp 32 and 64, on a batch within one block, one that
 * leaves a block's tail, and one larger than the grid (one multiprocessor:
 * 8 blocks of 256).
 */
static void test_batch_pointers(void **state)
{
	(void)state;
	static const int shapes[][2] = {{1, 1}, {3, 7}, {8, 37}, {5, 700}};
	for (int warp = 32; warp <= 64; warp += 32)
		for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
			rt_ctx *emu = cuda_emu_open(1, warp);
			colmajor_gemm c;
			memset(&c, 0, sizeof c);
			c.outer = shapes[s][0], c.count = shapes[s][1];
			c.a = (const void *)(uintptr_t)0x100000, c.oa = 64, c.sa = 128 * 192;
			c.b = (const void *)(uintptr_t)0x9000000, c.ob = 3, c.sb = 5000;
			c.c = (void *)(uintptr_t)0x40000000, c.oc = 16384, c.sc = 128;
			const int total = c.outer * c.count;
			void **out = malloc((3 * (size_t)total + 1) * sizeof *out);
			for (int i = 0; i <= 3 * total; i++)
				out[i] = (void *)(uintptr_t)0xdead;
			assert_int_equal(cuda_emu_batch_ptrs(emu, &c, 2, 4, out), 0);
			for (int i = 0; i < c.outer; i++)
				for (int j = 0; j < c.count; j++) {
					const int z = i * c.count + j;
					uintptr_t a = 0x100000 + 2 * (uintptr_t)(i * 64 + j * 128 * 192);
					uintptr_t b = 0x9000000 + 2 * (uintptr_t)(i * 3 + j * 5000);
					uintptr_t cc = 0x40000000 + 4 * (uintptr_t)(i * 16384 + j * 128);
					if ((uintptr_t)out[z] != a || (uintptr_t)out[total + z] != b ||
					    (uintptr_t)out[2 * total + z] != cc)
						fail_msg("warp %d, %dx%d: matrix (%d, %d) at %p %p %p", warp,
							 c.outer, c.count, i, j, out[z], out[total + z],
							 out[2 * total + z]);
				}
			assert_ptr_equal(out[3 * total], (void *)(uintptr_t)0xdead);
			free(out);
			cuda_emu_close(emu);
		}
}

/* Element (r, c) of op(X), X row-major with row stride ld. */
static double op_at(const double *x, int trans, int ld, int r, int c)
{
	return trans ? x[(long)c * ld + r] : x[(long)r * ld + c];
}

/*
 * The own tiled GEMM (gemm_tiled.cuh) over attention's two-level layout
 * (outer matrices side by side in the rows, inner ones a block further) and
 * over a strided batch, every transpose, fp64, against a row-major loop;
 * the batches span several launches (4 matrices each here), and C's
 * elements between the matrices stay as they were.
 */
static void test_tiled_gemm_batches(void **state)
{
	(void)state;
	const int m = 70, n = 9, k = 20, outer = 3, count = 2;
	for (int two = 0; two < 2; two++)
		for (int ta = 0; ta < 2; ta++)
			for (int tb = 0; tb < 2; tb++) {
				const int ca = ta ? m : k, cb = tb ? k : n;
				rt_gemm_args g;
				memset(&g, 0, sizeof g);
				g.t = RT_F64, g.prec = RT_FP64, g.transa = ta, g.transb = tb;
				g.m = m, g.n = n, g.k = k, g.alpha = 0.5, g.beta = two ? 0.0 : 2.0;
				g.outer = two ? outer : 1, g.count = two ? count : outer * count;
				g.lda = outer * ca + 1, g.ldb = outer * cb + 1, g.ldc = outer * n + 1;
				g.oa = two ? ca : 0, g.ob = two ? cb : 0, g.oc = two ? n : 0;
				g.sa = (long)(ta ? k : m) * g.lda, g.sb = (long)(tb ? n : k) * g.ldb;
				g.sc = (long)m * g.ldc;
				const long na = g.sa * outer * count, nb = g.sb * outer * count;
				const long nc = g.sc * outer * count;
				double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
				double *c = malloc(nc * sizeof *c), *want = malloc(nc * sizeof *want);
				rt_rng r;
				rt_rng_seed(&r, 50u + 4u * two + 2u * ta + tb);
				for (long i = 0; i < na; i++)
					a[i] = rt_rng_normal(&r);
				for (long i = 0; i < nb; i++)
					b[i] = rt_rng_normal(&r);
				for (long i = 0; i < nc; i++)
					c[i] = want[i] = rt_rng_normal(&r);
				for (int o = 0; o < g.outer; o++)
					for (int z = 0; z < g.count; z++)
						for (int i = 0; i < m; i++)
							for (int j = 0; j < n; j++) {
								const double *ab = a + o * g.oa + z * g.sa;
								const double *bb = b + o * g.ob + z * g.sb;
								double sum = 0;
								for (int p = 0; p < k; p++)
									sum += op_at(ab, ta, g.lda, i, p) *
									       op_at(bb, tb, g.ldb, p, j);
								double *w = want + o * g.oc + z * g.sc +
									    (long)i * g.ldc + j;
								*w = g.alpha * sum + g.beta * *w;
							}
				g.a = a, g.b = b, g.c = c;
				rt_ctx *emu = cuda_emu_open(2, 32);
				assert_int_equal(cuda_emu_tiled_gemm(emu, &g), 0);
				/* 6 matrices of 2 x 1 tiles, 4 matrices a launch */
				assert_int_equal(cuda_emu_launches(emu), 2);
				cuda_emu_close(emu);
				for (long i = 0; i < nc; i++)
					if (fabs(c[i] - want[i]) > 1e-12 * (1 + fabs(want[i])))
						fail_msg("%s %c%c: C[%ld] = %.17g, want %.17g",
							 two ? "two-level" : "strided", ta ? 'T' : 'N',
							 tb ? 'T' : 'N', i, c[i], want[i]);
				free(a), free(b), free(c), free(want);
			}
}

/* Sizes the reference refuses are refused alike; empty calls launch nothing. */
static void test_bad_and_empty_calls(void **state)
{
	(void)state;
	rt_ctx *emu = cuda_emu_open(2, 32);
	float x[4] = {0}, y[4] = {0};
	for (int plain = 0; plain < 2; plain++) {
		const rt_backend_ops *be = cuda_emu_ops(plain);
		assert_int_equal(be->softmax(emu, RT_F32, -1, 4, 1.0, 0, x, y), RT_EINVAL);
		assert_int_equal(be->softmax(emu, RT_F32, 1, 4, 1.0, -1, x, y), RT_EINVAL);
		assert_int_equal(be->adam(emu, RT_F32, 4, x, y, x, y, 1e-3, 0.9, 0.999, 1e-8, 0),
				 RT_EINVAL);
		assert_int_equal(be->mse_loss(emu, RT_F32, 0, x, y, x, y), RT_EINVAL);
		assert_int_equal(be->gelu(emu, (rt_dtype)7, 4, x, y), RT_EINVAL);
		assert_int_equal(be->fill(emu, RT_F32, x, 0, 1.0), 0);
		assert_int_equal(be->layernorm(emu, RT_F32, 0, 4, x, y, y, x, y, y), 0);
	}
	assert_int_equal(cuda_emu_launches(emu), 0);
	cuda_emu_close(emu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kernel_fp32_warp32),
		cmocka_unit_test(test_every_kernel_fp64_warp64_unaligned),
		cmocka_unit_test(test_every_kernel_fp32_warp64_unaligned),
		cmocka_unit_test(test_every_kernel_fp64_warp32),
		cmocka_unit_test(test_round16_rounds_only_the_matrices),
		cmocka_unit_test(test_batch_pointers),
		cmocka_unit_test(test_tiled_gemm_batches),
		cmocka_unit_test(test_bad_and_empty_calls),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
