/*
 * gpu_check: runs every operation of a GPU backend on seeded random data
 * and compares it with the CPU backend (the reference of kernels.h).
 *
 *   gpu_check [BACKEND [DEVICE]] [--bench]   BACKEND defaults to cuda, DEVICE to 0
 *
 * Where the plugin also exports rigtune_backend_plain() (the CUDA and HIP
 * plugins: the same table with the plain kernels of kernels_plain.cuh, the
 * specification of the fast ones), every elementwise case runs on both and
 * each is compared with the CPU. --bench instead times every elementwise
 * kernel, fast and plain, at the transformer's sizes of issue 45 (batch
 * 256: 32768 token rows of 512, 262144 attention rows of 128) and prints
 * the GB/s each moves (the bytes its buffers must cross: an input once, an
 * output once, an updated buffer twice).
 *
 * The GEMMs: single, strided-batched and, where the plugin has
 * gemm_batched2, two-level batches laid out as attention's heads x
 * sequences, every transpose, in every precision the device offers; where
 * it has linear_fwd, forward linear layers with their bias (and GELU) in
 * the GEMM's epilogue (cuBLASLt) against gemm, add_bias and gelu.
 *
 * Prints the device and what its GEMMs run on (gemm_impl), one line per
 * case with the max absolute error and the max error relative to the largest
 * reference value, PASS or FAIL against the tolerance of its precision, then
 * the device's busy time over the check from its own events beside its
 * monitor's samples, and the GEMM implementation each precision ended on
 * (a precision the vendor's library declined falls back to the own kernel).
 * RIGTUNE_GEMM=own checks the plugin's own tiled GEMM instead of the
 * vendor's. Exit: 0 all pass, 1 any fails, 2 bad usage,
 * 3 backend unavailable ("cuda: unavailable: <reason>") or a setup failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>

#include "../common/rng.h"
#include "../workloads/cpu_backend.h"
#include "../workloads/loader.h"

/* Tolerances on max |gpu - cpu| / max |cpu|, by GEMM precision. */
static const double tolerance[RT_NPRECISION] = {
	[RT_FP64] = 1e-10, [RT_FP32] = 1e-4, [RT_TF32] = 5e-3, [RT_BF16] = 3e-2, [RT_FP16] = 3e-2,
};

/* One backend, opened: the plugin under test or the CPU reference. */
typedef struct side {
	const rt_backend_ops *be;
	rt_ctx *ctx;
} side;

typedef struct checker {
	side gpu, cpu;
	const rt_backend_ops *plain; /* the plugin's plain kernels; NULL: it has none */
	const char *name;
	rt_rng rng;
	int passed, failed;
} checker;

/* Buffer lengths, in terms of the shape of an elementwise case. */
enum { L_N, L_RC, L_R, L_C, L_1 };
/* IN: random input; POS: positive random input; OUT: compared output;
 * INOUT: random input, compared; INPOS: positive input, compared. */
enum { IN, POS, OUT, INOUT, INPOS };

typedef struct shape {
	int rows, cols, block;
} shape;

#define MAX_BUFS 8

typedef struct ew_op {
	const char *name;
	int nbuf;
	int len[MAX_BUFS], kind[MAX_BUFS];
	int (*run)(const side *s, rt_dtype t, const shape *sh, void *const *b);
} ew_op;

static size_t nelem(const shape *sh) { return (size_t)sh->rows * sh->cols; }

static int run_fill(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->fill(s->ctx, t, b[0], nelem(sh), 0.37);
}

static int run_axpby(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->axpby(s->ctx, t, nelem(sh), 1.3, b[0], -0.6, b[1]);
}

static int run_add_bias(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->add_bias(s->ctx, t, sh->rows, sh->cols, b[0], b[1]);
}

static int run_sum_rows(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->sum_rows(s->ctx, t, sh->rows, sh->cols, b[0], b[1]);
}

/* The fused kernel where the table has it, else its definition: add_bias, then gelu. */
static int run_bias_gelu(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	if (s->be->bias_gelu)
		return s->be->bias_gelu(s->ctx, t, sh->rows, sh->cols, b[0], b[1], b[2]);
	int rc = s->be->add_bias(s->ctx, t, sh->rows, sh->cols, b[0], b[1]);
	return rc ? rc : s->be->gelu(s->ctx, t, nelem(sh), b[1], b[2]);
}

static int run_gelu(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->gelu(s->ctx, t, nelem(sh), b[0], b[1]);
}

static int run_gelu_backward(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->gelu_backward(s->ctx, t, nelem(sh), b[0], b[1], b[2]);
}

static int run_tanh(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->tanh_fwd(s->ctx, t, nelem(sh), b[0], b[1]);
}

static int run_tanh_backward(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->tanh_backward(s->ctx, t, nelem(sh), b[0], b[1], b[2]);
}

static int run_softmax(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->softmax(s->ctx, t, sh->rows, sh->cols, 0.7, sh->block, b[0], b[1]);
}

static int run_softmax_backward(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->softmax_backward(s->ctx, t, sh->rows, sh->cols, 0.7, b[0], b[1], b[2]);
}

static int run_layernorm(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->layernorm(s->ctx, t, sh->rows, sh->cols, b[0], b[1], b[2], b[3], b[4],
				b[5]);
}

static int run_layernorm_backward(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->layernorm_backward(s->ctx, t, sh->rows, sh->cols, b[0], b[1], b[2], b[3],
					 b[4], b[5], b[6], b[7]);
}

static int run_mse(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->mse_loss(s->ctx, t, nelem(sh), b[0], b[1], b[2], b[3]);
}

static int run_adam(const side *s, rt_dtype t, const shape *sh, void *const *b)
{
	return s->be->adam(s->ctx, t, nelem(sh), b[0], b[1], b[2], b[3], 1e-3, 0.9, 0.999, 1e-8,
			   3);
}

static const ew_op ew_ops[] = {
	{ "fill", 1, { L_N }, { OUT }, run_fill },
	{ "axpby", 2, { L_N, L_N }, { IN, INOUT }, run_axpby },
	{ "add_bias", 2, { L_C, L_RC }, { IN, INOUT }, run_add_bias },
	{ "bias_gelu", 3, { L_C, L_RC, L_RC }, { IN, INOUT, OUT }, run_bias_gelu },
	{ "sum_rows", 2, { L_RC, L_C }, { IN, OUT }, run_sum_rows },
	{ "gelu", 2, { L_N, L_N }, { IN, OUT }, run_gelu },
	{ "gelu_backward", 3, { L_N, L_N, L_N }, { IN, IN, OUT }, run_gelu_backward },
	{ "tanh", 2, { L_N, L_N }, { IN, OUT }, run_tanh },
	{ "tanh_backward", 3, { L_N, L_N, L_N }, { IN, IN, OUT }, run_tanh_backward },
	{ "softmax", 2, { L_RC, L_RC }, { IN, OUT }, run_softmax },
	{ "softmax_backward", 3, { L_RC, L_RC, L_RC }, { POS, IN, OUT }, run_softmax_backward },
	{ "layernorm", 6, { L_RC, L_C, L_C, L_RC, L_R, L_R }, { IN, IN, IN, OUT, OUT, OUT },
	  run_layernorm },
	{ "layernorm_backward", 8, { L_RC, L_C, L_R, L_R, L_RC, L_RC, L_C, L_C },
	  { IN, IN, IN, POS, IN, OUT, INOUT, INOUT }, run_layernorm_backward },
	{ "mse_loss", 4, { L_N, L_N, L_1, L_N }, { IN, IN, OUT, OUT }, run_mse },
	{ "adam", 4, { L_N, L_N, L_N, L_N }, { INOUT, IN, INOUT, INPOS }, run_adam },
};

/*
 * Odd sizes, a single element, a causal mask (block = cols), a wide row, and
 * more elements than a capped 1-D grid has threads (4096 blocks of 256: the
 * kernels' loops stride over the rest).
 */
static const shape ew_shapes[] = {
	{ 1, 1, 0 }, { 7, 33, 0 }, { 66, 33, 33 }, { 64, 1000, 0 }, { 300, 257, 0 }, { 1100, 1000, 0 },
};

static size_t buf_len(int code, const shape *sh)
{
	switch (code) {
	case L_RC:
	case L_N:
		return nelem(sh);
	case L_R:
		return (size_t)sh->rows;
	case L_C:
		return (size_t)sh->cols;
	default:
		return 1;
	}
}

/* Seeded data of one buffer as doubles: normal, or uniform in [0.5, 1.5). */
static void gen(rt_rng *r, double *x, size_t n, int positive)
{
	for (size_t i = 0; i < n; i++)
		x[i] = positive ? 0.5 + rt_rng_uniform(r) : rt_rng_normal(r);
}

/* Converts n doubles to dtype t in out (which has room for n doubles). */
static void to_dtype(rt_dtype t, const double *x, size_t n, void *out)
{
	if (t == RT_F64)
		memcpy(out, x, n * sizeof *x);
	else
		for (size_t i = 0; i < n; i++)
			((float *)out)[i] = (float)x[i];
}

static double elem(rt_dtype t, const void *x, size_t i)
{
	return t == RT_F64 ? ((const double *)x)[i] : ((const float *)x)[i];
}

/* Device buffers of one case on both sides, and their host images. */
typedef struct bufs {
	int n;
	size_t len[MAX_BUFS];
	void *host[MAX_BUFS];
	void *dev[2][MAX_BUFS]; /* [0] the GPU, [1] the CPU */
} bufs;

static void bufs_free(checker *c, bufs *b)
{
	for (int i = 0; i < b->n; i++) {
		if (b->dev[0][i])
			c->gpu.be->free(c->gpu.ctx, b->dev[0][i]);
		if (b->dev[1][i])
			c->cpu.be->free(c->cpu.ctx, b->dev[1][i]);
		free(b->host[i]);
	}
	memset(b, 0, sizeof *b);
}

/* Allocates buffer i of len elements on both sides, filled with the same data. */
static int bufs_add(checker *c, bufs *b, rt_dtype t, size_t len, int positive)
{
	int i = b->n++;
	size_t bytes = len * rt_dtype_size(t);
	double *tmp = malloc(len * sizeof *tmp);
	b->len[i] = len;
	b->host[i] = malloc(len * sizeof(double));
	if (!tmp || !b->host[i]) {
		free(tmp);
		return RT_ENOMEM;
	}
	gen(&c->rng, tmp, len, positive);
	to_dtype(t, tmp, len, b->host[i]);
	free(tmp);
	int rc = c->gpu.be->alloc(c->gpu.ctx, bytes, &b->dev[0][i]);
	if (!rc)
		rc = c->cpu.be->alloc(c->cpu.ctx, bytes, &b->dev[1][i]);
	if (!rc)
		rc = c->gpu.be->upload(c->gpu.ctx, b->dev[0][i], b->host[i], bytes);
	if (!rc)
		rc = c->cpu.be->upload(c->cpu.ctx, b->dev[1][i], b->host[i], bytes);
	return rc;
}

/* The GPU backend's own account of its last failure, if it keeps one. */
static const char *gpu_reason(const checker *c)
{
	return c->gpu.be->last_error ? c->gpu.be->last_error(c->gpu.ctx) : "";
}

/*
 * Downloads buffer i from both sides and folds its errors into *abs_err and
 * *ref_max. Returns 0 or the download's error code.
 */
static int compare(checker *c, bufs *b, rt_dtype t, int i, double *abs_err, double *ref_max)
{
	size_t bytes = b->len[i] * rt_dtype_size(t);
	void *g = malloc(bytes), *r = malloc(bytes);
	int rc = g && r ? 0 : RT_ENOMEM;
	if (!rc)
		rc = c->gpu.be->download(c->gpu.ctx, g, b->dev[0][i], bytes);
	if (!rc)
		rc = c->cpu.be->download(c->cpu.ctx, r, b->dev[1][i], bytes);
	for (size_t j = 0; !rc && j < b->len[i]; j++) {
		double d = fabs(elem(t, g, j) - elem(t, r, j)), m = fabs(elem(t, r, j));
		if (!(d <= *abs_err)) /* NaN sticks */
			*abs_err = d;
		if (m > *ref_max)
			*ref_max = m;
	}
	free(g);
	free(r);
	return rc;
}

/* Prints the verdict of one case and counts it. */
static void report(checker *c, const char *op, rt_precision p, const char *what, int rc,
		   double abs_err, double ref_max)
{
	double rel = abs_err / (ref_max > 0 ? ref_max : 1);
	int pass = rc == 0 && rel <= tolerance[p];
	if (rc)
		printf("%s %-18s %-5s %-22s FAIL (%s: %s)\n", c->name, op, rt_precision_name(p),
		       what, rt_strstatus(rc), gpu_reason(c));
	else
		printf("%s %-18s %-5s %-22s max abs %9.3e  rel %9.3e  %s\n", c->name, op,
		       rt_precision_name(p), what, abs_err, rel, pass ? "PASS" : "FAIL");
	if (pass)
		c->passed++;
	else
		c->failed++;
}

/*
 * Runs one elementwise op on one shape and dtype on both sides and compares;
 * with plain set, the GPU side runs the plugin's plain kernels.
 */
static void check_ew(checker *c, const ew_op *op, rt_dtype t, const shape *sh, int plain)
{
	const side gpu = {plain ? c->plain : c->gpu.be, c->gpu.ctx};
	bufs b = { 0 };
	double abs_err = 0, ref_max = 0;
	char what[48];
	int rc = 0;

	for (int i = 0; i < op->nbuf && !rc; i++)
		rc = bufs_add(c, &b, t, buf_len(op->len[i], sh),
			      op->kind[i] == POS || op->kind[i] == INPOS);
	if (!rc)
		rc = op->run(&gpu, t, sh, b.dev[0]);
	if (!rc)
		rc = c->gpu.be->synchronize(c->gpu.ctx);
	if (!rc)
		rc = op->run(&c->cpu, t, sh, b.dev[1]);
	for (int i = 0; i < op->nbuf && !rc; i++)
		if (op->kind[i] == OUT || op->kind[i] == INOUT || op->kind[i] == INPOS)
			rc = compare(c, &b, t, i, &abs_err, &ref_max);
	snprintf(what, sizeof what, "%dx%d%s%s", sh->rows, sh->cols, sh->block ? " causal" : "",
		 plain ? " plain" : "");
	report(c, op->name, t == RT_F64 ? RT_FP64 : RT_FP32, what, rc, abs_err, ref_max);
	bufs_free(c, &b);
}

typedef struct gemm_case {
	int m, n, k, count;
	double beta;
} gemm_case;

/* Odd sizes, a 1x1x1, a batch; leading dimensions are padded by 3. */
static const gemm_case gemm_cases[] = {
	{ 1, 1, 1, 1, 0.3 },   { 17, 33, 9, 1, 0.3 }, { 64, 64, 64, 1, 0.0 },
	{ 129, 67, 255, 1, 0.5 }, { 33, 17, 20, 3, 0.3 },
};

/*
 * One GEMM (batched when count > 1) in precision p on the GPU against the
 * CPU in fp32 (fp64 for fp64): the rounding of tf32/bf16/fp16 inputs is the
 * error being bounded.
 */
static void check_gemm(checker *c, const gemm_case *g, int ta, int tb, rt_precision p)
{
	rt_dtype t = rt_precision_dtype(p);
	int lda = (ta ? g->m : g->k) + 3, ldb = (tb ? g->k : g->n) + 3, ldc = g->n + 3;
	long sa = (long)(ta ? g->k : g->m) * lda + 5, sb = (long)(tb ? g->n : g->k) * ldb + 5;
	long sc = (long)g->m * ldc + 5;
	bufs b = { 0 };
	double abs_err = 0, ref_max = 0;
	char what[48];
	int rc = bufs_add(c, &b, t, (size_t)sa * g->count, 0);
	if (!rc)
		rc = bufs_add(c, &b, t, (size_t)sb * g->count, 0);
	if (!rc)
		rc = bufs_add(c, &b, t, (size_t)sc * g->count, 0);
	for (int s = 0; s < 2 && !rc; s++) {
		const side *sd = s == 0 ? &c->gpu : &c->cpu;
		rt_precision q = s == 0 ? p : (t == RT_F64 ? RT_FP64 : RT_FP32);
		if (g->count == 1)
			rc = sd->be->gemm(sd->ctx, t, q, ta, tb, g->m, g->n, g->k, 0.7, b.dev[s][0],
					  lda, b.dev[s][1], ldb, g->beta, b.dev[s][2], ldc);
		else
			rc = sd->be->gemm_batched(sd->ctx, t, q, ta, tb, g->m, g->n, g->k, 0.7,
						  b.dev[s][0], lda, sa, b.dev[s][1], ldb, sb,
						  g->beta, b.dev[s][2], ldc, sc, g->count);
		if (!rc)
			rc = sd->be->synchronize(sd->ctx);
	}
	if (!rc)
		rc = compare(c, &b, t, 2, &abs_err, &ref_max);
	snprintf(what, sizeof what, "%dx%dx%d%s %c%c", g->m, g->n, g->k,
		 g->count > 1 ? " x3" : "", ta ? 'T' : 'N', tb ? 'T' : 'N');
	report(c, g->count > 1 ? "gemm_batched" : "gemm", p, what, rc, abs_err, ref_max);
	bufs_free(c, &b);
}

/* A two-level batch: outer x inner GEMMs of m x n x k. */
typedef struct gemm2_case {
	int m, n, k, outer, inner;
	double beta;
} gemm2_case;

/* Attention's products (scores, context) and a batch of many small matrices. */
static const gemm2_case gemm2_cases[] = {
	{ 17, 17, 16, 4, 3, 0.0 }, { 33, 16, 33, 8, 2, 0.5 }, { 8, 8, 8, 16, 40, 0.0 },
};

/*
 * One gemm_batched2 in precision p on the GPU, its matrices laid out as
 * attention's heads x sequences (the outer ones side by side in the rows,
 * padded by 3; the inner ones a block further, padded by 5), against the
 * CPU's gemm_batched over the inner level for each outer index (the
 * entry's definition) in fp32 (fp64). A plugin without the entry is said
 * to have none and not counted: the transformer then loops the heads.
 */
static void check_gemm2(checker *c, const gemm2_case *g, int ta, int tb, rt_precision p)
{
	rt_dtype t = rt_precision_dtype(p);
	const size_t es = rt_dtype_size(t);
	const int ra = ta ? g->k : g->m, ca = ta ? g->m : g->k;
	const int rb = tb ? g->n : g->k, cb = tb ? g->k : g->n;
	const int lda = g->outer * ca + 3, ldb = g->outer * cb + 3, ldc = g->outer * g->n + 3;
	const rt_batch2 bt = {g->outer, g->inner, ca, (long)ra * lda + 5, cb, (long)rb * ldb + 5,
			      g->n, (long)g->m * ldc + 5};
	bufs b = { 0 };
	double abs_err = 0, ref_max = 0;
	char what[48];
	snprintf(what, sizeof what, "%dx%dx%d %dx%d %c%c", g->m, g->n, g->k, g->outer, g->inner,
		 ta ? 'T' : 'N', tb ? 'T' : 'N');
	if (!c->gpu.be->gemm_batched2) {
		printf("%s %-18s %-5s %-22s none in this plugin\n", c->name, "gemm_batched2",
		       rt_precision_name(p), what);
		return;
	}
	int rc = bufs_add(c, &b, t, (size_t)bt.a_inner * g->inner, 0);
	if (!rc)
		rc = bufs_add(c, &b, t, (size_t)bt.b_inner * g->inner, 0);
	if (!rc)
		rc = bufs_add(c, &b, t, (size_t)bt.c_inner * g->inner, 0);
	if (!rc)
		rc = c->gpu.be->gemm_batched2(c->gpu.ctx, t, p, ta, tb, g->m, g->n, g->k, 0.7,
					      b.dev[0][0], lda, b.dev[0][1], ldb, g->beta,
					      b.dev[0][2], ldc, &bt);
	if (!rc)
		rc = c->gpu.be->synchronize(c->gpu.ctx);
	const rt_precision q = t == RT_F64 ? RT_FP64 : RT_FP32;
	char *const *cpu = (char *const *)b.dev[1];
	for (int i = 0; !rc && i < g->outer; i++)
		rc = c->cpu.be->gemm_batched(c->cpu.ctx, t, q, ta, tb, g->m, g->n, g->k, 0.7,
					     cpu[0] + i * bt.a_outer * es, lda, bt.a_inner,
					     cpu[1] + i * bt.b_outer * es, ldb, bt.b_inner, g->beta,
					     cpu[2] + i * bt.c_outer * es, ldc, bt.c_inner,
					     g->inner);
	if (!rc)
		rc = compare(c, &b, t, 2, &abs_err, &ref_max);
	report(c, "gemm_batched2", p, what, rc, abs_err, ref_max);
	bufs_free(c, &b);
}

/*
 * Linear layers: one whose rows suit cuBLASLt's epilogues (multiples of 16
 * bytes), one odd, which the plugin runs as a GEMM and a kernel.
 */
static const shape linear_shapes[] = { { 256, 96, 64 }, { 33, 17, 9 } }; /* rows, n, k */

/*
 * linear_fwd in precision p on the GPU, with GELU and without, against the
 * CPU's gemm, then add_bias (and gelu), its specification: u and, with
 * GELU, a compared. A plugin without the entry is said to have none.
 */
static void check_linear(checker *c, const shape *sh, int gelu, rt_precision p)
{
	rt_dtype t = rt_precision_dtype(p);
	const int m = sh->rows, n = sh->cols, k = sh->block;
	bufs b = { 0 };
	double abs_err = 0, ref_max = 0;
	char what[48];
	snprintf(what, sizeof what, "%dx%dx%d%s", m, n, k, gelu ? " gelu" : "");
	if (!c->gpu.be->linear_fwd) {
		printf("%s %-18s %-5s %-22s none in this plugin\n", c->name, "linear_fwd",
		       rt_precision_name(p), what);
		return;
	}
	const size_t len[5] = { (size_t)m * k, (size_t)k * n, (size_t)n, (size_t)m * n,
				(size_t)m * n };
	int rc = 0;
	for (int i = 0; i < 5 && !rc; i++)
		rc = bufs_add(c, &b, t, len[i], 0);
	void *const *g = b.dev[0], *const *r = b.dev[1];
	if (!rc)
		rc = c->gpu.be->linear_fwd(c->gpu.ctx, t, p, m, n, k, g[0], g[1], g[2], g[3],
					   gelu ? g[4] : NULL);
	if (!rc)
		rc = c->gpu.be->synchronize(c->gpu.ctx);
	const side *cpu = &c->cpu;
	if (!rc)
		rc = cpu->be->gemm(cpu->ctx, t, t == RT_F64 ? RT_FP64 : RT_FP32, 0, 0, m, n, k, 1.0,
				   r[0], k, r[1], n, 0.0, r[3], n);
	if (!rc)
		rc = cpu->be->add_bias(cpu->ctx, t, m, n, r[2], r[3]);
	if (!rc && gelu)
		rc = cpu->be->gelu(cpu->ctx, t, (size_t)m * n, r[3], r[4]);
	if (!rc)
		rc = compare(c, &b, t, 3, &abs_err, &ref_max);
	if (!rc && gelu)
		rc = compare(c, &b, t, 4, &abs_err, &ref_max);
	report(c, "linear_fwd", p, what, rc, abs_err, ref_max);
	bufs_free(c, &b);
}

/* The benchmark's sizes: issue 45's transformer at batch 256 (softmax: its attention rows). */
static const shape bench_tokens = {32768, 512, 0}, bench_scores = {262144, 128, 128};
#define BENCH_REPS 20

/* Bytes op moves on shape sh: an input or output once, an updated buffer twice. */
static double bench_bytes(const ew_op *op, const shape *sh)
{
	double bytes = 0;
	for (int i = 0; i < op->nbuf; i++)
		bytes += (double)buf_len(op->len[i], sh) * sizeof(float) *
			 (op->kind[i] == INOUT || op->kind[i] == INPOS ? 2 : 1);
	return bytes;
}

/* Seconds per call of op on be, fp32 buffers b, after a warm-up call. */
static int bench_time(checker *c, const rt_backend_ops *be, const ew_op *op, const shape *sh,
		      void *const *b, double *seconds)
{
	const side s = {be, c->gpu.ctx};
	int rc = op->run(&s, RT_F32, sh, b);
	if (!rc)
		rc = be->synchronize(c->gpu.ctx);
	double t0 = rt_now();
	for (int i = 0; !rc && i < BENCH_REPS; i++)
		rc = op->run(&s, RT_F32, sh, b);
	if (!rc)
		rc = be->synchronize(c->gpu.ctx);
	*seconds = (rt_now() - t0) / BENCH_REPS;
	return rc;
}

/* One kernel, fast and plain, at its size of the benchmark: GB/s each and the ratio. */
static int bench_op(checker *c, const ew_op *op)
{
	const shape *sh = !strncmp(op->name, "softmax", 7) ? &bench_scores : &bench_tokens;
	void *b[MAX_BUFS] = {0};
	double fast = 0, plain = 0;
	int rc = 0;
	for (int i = 0; i < op->nbuf && !rc; i++) {
		size_t n = buf_len(op->len[i], sh);
		rc = c->gpu.be->alloc(c->gpu.ctx, n * sizeof(float), &b[i]);
		/* in (0, 1): every kernel's inputs are valid, v and rstd positive */
		if (!rc)
			rc = c->gpu.be->fill(c->gpu.ctx, RT_F32, b[i], n, 0.25 + 0.1 * i);
	}
	if (!rc)
		rc = bench_time(c, c->gpu.be, op, sh, b, &fast);
	if (!rc && c->plain)
		rc = bench_time(c, c->plain, op, sh, b, &plain);
	const double gb = bench_bytes(op, sh) * 1e-9;
	if (rc)
		printf("%s bench %-18s FAIL (%s: %s)\n", c->name, op->name, rt_strstatus(rc),
		       gpu_reason(c));
	else if (c->plain)
		printf("%s bench %-18s %dx%d fp32: fast %8.1f GB/s (%9.1f us), plain %8.1f GB/s "
		       "(%9.1f us), %.1fx\n",
		       c->name, op->name, sh->rows, sh->cols, gb / fast, fast * 1e6, gb / plain,
		       plain * 1e6, plain / fast);
	else
		printf("%s bench %-18s %dx%d fp32: %8.1f GB/s (%9.1f us)\n", c->name, op->name,
		       sh->rows, sh->cols, gb / fast, fast * 1e6);
	for (int i = 0; i < op->nbuf; i++)
		if (b[i])
			c->gpu.be->free(c->gpu.ctx, b[i]);
	return rc;
}

/* The GPU backend's device_time(), RT_EUNAVAIL where it has none. */
static int device_time(checker *c, int on, double *busy_s)
{
	if (!c->gpu.be->device_time)
		return RT_EUNAVAIL;
	return c->gpu.be->device_time(c->gpu.ctx, on, busy_s);
}

/* Loads, initializes and opens the backend name on device dev. */
static int open_side(side *s, const char *name, int dev, void **handle, char *err, size_t len)
{
	int rc = rt_backend_get(name, &s->be, handle, err, len);
	if (rc)
		return rc;
	rc = s->be->init(err, len);
	if (rc < 0)
		return rc;
	if (dev >= rc)
		return rt_fail(err, len, RT_EUNAVAIL, "no device %d (%d found)", dev, rc);
	return s->be->open(dev, 2, &s->ctx, err, len);
}

int main(int argc, char **argv)
{
	const int bench = argc > 1 && !strcmp(argv[argc - 1], "--bench");
	if (bench)
		argc--;
	checker c = { .name = argc > 1 ? argv[1] : "cuda" };
	int dev = argc > 2 ? atoi(argv[2]) : 0;
	void *gpu_lib = NULL, *cpu_lib = NULL;
	char err[RT_ERRLEN] = "";
	rt_device_info info;

	if (argc > 3 || (argc > 1 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: gpu_check [BACKEND [DEVICE]] [--bench]\n");
		return 2;
	}
	int rc = open_side(&c.gpu, c.name, dev, &gpu_lib, err, sizeof err);
	if (rc) {
		printf("%s: unavailable: %s\n", c.name, err);
		rt_backend_unload(gpu_lib);
		return 3;
	}
	rc = open_side(&c.cpu, "cpu", 0, &cpu_lib, err, sizeof err);
	if (!rc)
		rc = c.gpu.be->device_info(dev, &info);
	if (rc) {
		printf("%s: setup failed: %s\n", c.name, err);
		return 3;
	}
	printf("%s: device %d: %s, %s, %d compute units, %.1f GiB\n", c.name, dev, info.name,
	       info.driver, info.compute_units, info.mem_total / 1073741824.0);
	printf("%s: gemm_impl: %s\n", c.name, info.gemm_impl);
	const rt_backend_ops *(*plain_of)(void) = NULL;
	void *sym = gpu_lib ? dlsym(gpu_lib, "rigtune_backend_plain") : NULL;
	memcpy(&plain_of, &sym, sizeof sym);
	c.plain = plain_of ? plain_of() : NULL;
	printf("%s: plain kernels: %s\n", c.name,
	       c.plain ? "checked and timed beside the fast ones" : "none in this plugin");
	if (bench) {
		for (size_t i = 0; i < RT_COUNT(ew_ops); i++)
			c.failed += bench_op(&c, &ew_ops[i]) != 0;
		c.gpu.be->close(c.gpu.ctx);
		c.cpu.be->close(c.cpu.ctx);
		rt_backend_unload(gpu_lib);
		return c.failed ? 1 : 0;
	}
	printf("%s: a case passes when max |%s - cpu| / max |cpu| <= fp64 %g, fp32 %g, tf32 %g, "
	       "bf16 %g, fp16 %g\n",
	       c.name, c.name, tolerance[RT_FP64], tolerance[RT_FP32], tolerance[RT_TF32],
	       tolerance[RT_BF16], tolerance[RT_FP16]);
	rt_rng_seed(&c.rng, 20240611);
	double busy_s = 0, busy = 0, t0 = rt_now();
	int timed = device_time(&c, 1, &busy_s) == 0;
	if (c.gpu.be->utilization)
		c.gpu.be->utilization(c.gpu.ctx, &busy); /* opens the monitor's window */

	for (size_t i = 0; i < RT_COUNT(ew_ops); i++)
		for (int t = RT_F32; t <= RT_F64; t++)
			for (size_t s = 0; s < RT_COUNT(ew_shapes); s++)
				for (int plain = 0; plain <= (c.plain != NULL); plain++)
					check_ew(&c, &ew_ops[i], (rt_dtype)t, &ew_shapes[s], plain);
	for (int p = 0; p < RT_NPRECISION; p++) {
		if (!(info.precisions & RT_PREC_BIT(p)))
			continue;
		for (size_t g = 0; g < RT_COUNT(gemm_cases); g++)
			for (int tr = 0; tr < 4; tr++)
				check_gemm(&c, &gemm_cases[g], tr >> 1, tr & 1, (rt_precision)p);
		for (size_t g = 0; g < RT_COUNT(gemm2_cases); g++)
			for (int tr = 0; tr < 4; tr++)
				check_gemm2(&c, &gemm2_cases[g], tr >> 1, tr & 1, (rt_precision)p);
		for (size_t s = 0; s < RT_COUNT(linear_shapes); s++)
			for (int gelu = 0; gelu < 2; gelu++)
				check_linear(&c, &linear_shapes[s], gelu, (rt_precision)p);
	}
	double wall = rt_now() - t0;
	if (timed && device_time(&c, 0, &busy_s) == 0)
		printf("%s: device busy from events: %.3f s of %.3f s (%.0f%%)\n", c.name, busy_s,
		       wall, 100 * busy_s / wall);
	else
		printf("%s: device busy from events: unavailable %s\n", c.name, gpu_reason(&c));
	if (c.gpu.be->utilization && c.gpu.be->utilization(c.gpu.ctx, &busy) == 0)
		printf("%s: utilization sampled by %s during the check: %.0f%%\n", c.name,
		       info.monitor, busy * 100);
	else
		printf("%s: utilization unavailable: %s\n", c.name, gpu_reason(&c));
	for (int p = 0; c.gpu.be->gemm_impl && p < RT_NPRECISION; p++)
		if (info.precisions & RT_PREC_BIT(p))
			printf("%s: %s GEMMs ran on: %s\n", c.name, rt_precision_name((rt_precision)p),
			       c.gpu.be->gemm_impl(c.gpu.ctx, (rt_precision)p));
	printf("%s: %d passed, %d failed\n", c.name, c.passed, c.failed);

	c.gpu.be->close(c.gpu.ctx);
	c.cpu.be->close(c.cpu.ctx);
	rt_backend_unload(gpu_lib);
	rt_backend_unload(cpu_lib);
	return c.failed ? 1 : 0;
}
