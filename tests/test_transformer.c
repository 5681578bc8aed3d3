/*
 * test_transformer.c: the transformer workload against a plain fp64
 * reference (forward loss, every gradient by central differences), training
 * progress, reproducibility across threads and workers, and its checks.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../workloads/cpu_backend.h"
#include "../workloads/kernels.h"
#include "../workloads/transformer.h"

/* ---- Reference: a straightforward fp64 forward pass, no backend ---- */

struct ref_dims {
	int B, T, D, H, F, L;
};

/* Returns the next n parameters of the flat vector (order of transformer.h). */
static const double *next(const double **cur, size_t n)
{
	const double *p = *cur;
	*cur += n;
	return p;
}

static void ref_layernorm(const double *x, const double *g, const double *b, double *y,
			  int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		const double *xr = x + (size_t)r * cols;
		double mean = 0, var = 0;
		for (int c = 0; c < cols; c++)
			mean += xr[c];
		mean /= cols;
		for (int c = 0; c < cols; c++)
			var += (xr[c] - mean) * (xr[c] - mean);
		var /= cols;
		for (int c = 0; c < cols; c++)
			y[(size_t)r * cols + c] =
				(xr[c] - mean) / sqrt(var + RT_LAYERNORM_EPS) * g[c] + b[c];
	}
}

/* y[rows][n] = x[rows][k] w[k][n] + b */
static void ref_linear(const double *x, const double *w, const double *b, double *y,
		       int rows, int k, int n)
{
	for (int r = 0; r < rows; r++)
		for (int j = 0; j < n; j++) {
			double acc = b[j];
			for (int i = 0; i < k; i++)
				acc += x[(size_t)r * k + i] * w[(size_t)i * n + j];
			y[(size_t)r * n + j] = acc;
		}
}

static double ref_gelu(double x)
{
	return 0.5 * x * (1 + tanh(RT_GELU_K0 * (x + RT_GELU_K1 * x * x * x)));
}

/* Causal multi-head attention: ctx[N][D] from qkv[N][3D]. */
static void ref_attention(const struct ref_dims *d, const double *qkv, double *ctx)
{
	int D = d->D, dh = D / d->H;
	double *p = malloc((size_t)d->T * sizeof *p);
	for (int b = 0; b < d->B; b++)
		for (int h = 0; h < d->H; h++)
			for (int i = 0; i < d->T; i++) {
				const double *q = qkv + ((size_t)b * d->T + i) * 3 * D + h * dh;
				double max = -INFINITY, sum = 0;
				for (int j = 0; j <= i; j++) {
					const double *k = qkv + ((size_t)b * d->T + j) * 3 * D +
							  D + h * dh;
					double dot = 0;
					for (int c = 0; c < dh; c++)
						dot += q[c] * k[c];
					p[j] = dot / sqrt((double)dh);
					max = p[j] > max ? p[j] : max;
				}
				for (int j = 0; j <= i; j++)
					sum += p[j] = exp(p[j] - max);
				double *out = ctx + ((size_t)b * d->T + i) * D + h * dh;
				for (int c = 0; c < dh; c++) {
					double acc = 0;
					for (int j = 0; j <= i; j++)
						acc += p[j] / sum *
						       qkv[((size_t)b * d->T + j) * 3 * D + 2 * D +
							   h * dh + c];
					out[c] = acc;
				}
			}
	free(p);
}

/* The MSE loss of the model with parameters w on input x against target. */
static double ref_loss(const struct ref_dims *d, const double *w, const double *x,
		       const double *target)
{
	size_t N = (size_t)d->B * d->T, D = (size_t)d->D, F = (size_t)d->F;
	double *cur = malloc(N * D * sizeof *cur), *h = malloc(N * D * sizeof *h);
	double *qkv = malloc(N * 3 * D * sizeof *qkv), *ctx = malloc(N * D * sizeof *ctx);
	double *u = malloc(N * F * sizeof *u), *o = malloc(N * D * sizeof *o);
	memcpy(cur, x, N * D * sizeof *cur);
	for (int l = 0; l < d->L; l++) {
		const double *ln1_g = next(&w, D), *ln1_b = next(&w, D);
		const double *w_qkv = next(&w, D * 3 * D), *b_qkv = next(&w, 3 * D);
		const double *w_o = next(&w, D * D), *b_o = next(&w, D);
		const double *ln2_g = next(&w, D), *ln2_b = next(&w, D);
		const double *w_1 = next(&w, D * F), *b_1 = next(&w, F);
		const double *w_2 = next(&w, F * D), *b_2 = next(&w, D);
		ref_layernorm(cur, ln1_g, ln1_b, h, (int)N, d->D);
		ref_linear(h, w_qkv, b_qkv, qkv, (int)N, d->D, 3 * d->D);
		ref_attention(d, qkv, ctx);
		ref_linear(ctx, w_o, b_o, o, (int)N, d->D, d->D);
		for (size_t i = 0; i < N * D; i++)
			cur[i] += o[i];
		ref_layernorm(cur, ln2_g, ln2_b, h, (int)N, d->D);
		ref_linear(h, w_1, b_1, u, (int)N, d->D, d->F);
		for (size_t i = 0; i < N * F; i++)
			u[i] = ref_gelu(u[i]);
		ref_linear(u, w_2, b_2, o, (int)N, d->F, d->D);
		for (size_t i = 0; i < N * D; i++)
			cur[i] += o[i];
	}
	const double *lnf_g = next(&w, D), *lnf_b = next(&w, D);
	const double *w_out = next(&w, D * D), *b_out = next(&w, D);
	ref_layernorm(cur, lnf_g, lnf_b, h, (int)N, d->D);
	ref_linear(h, w_out, b_out, o, (int)N, d->D, d->D);
	double loss = 0;
	for (size_t i = 0; i < N * D; i++)
		loss += (o[i] - target[i]) * (o[i] - target[i]);
	free(cur), free(h), free(qkv), free(ctx), free(u), free(o);
	return loss / (double)(N * D);
}

/* Parameters of the reference layout for d (must equal the workload's). */
static size_t ref_nparams(const struct ref_dims *d)
{
	size_t D = (size_t)d->D, F = (size_t)d->F;
	size_t block = 4 * D + 3 * D * D + 3 * D + D * D + D + D * F + F + F * D + D;
	return d->L * block + 2 * D + D * D + D;
}

/* ---- Helpers ---- */

static const rt_backend_ops *cpu(void)
{
	const rt_backend_ops *be = rt_cpu_backend();
	char err[RT_ERRLEN] = "";
	assert_true(be->init(err, sizeof err) >= 1);
	return be;
}

static rt_shape shape(long d_model, long heads, long seq, long d_ff, long layers, long prep)
{
	rt_shape sh = {.n = 6, .v = {d_model, heads, seq, d_ff, layers, prep}};
	assert_int_equal(rt_workload_transformer.nkeys, 6);
	return sh;
}

static rt_point point(rt_precision prec, int batch, int threads, int workers)
{
	rt_point pt;
	rt_point_default(&pt);
	pt.precision = prec;
	pt.batch = batch;
	pt.threads = threads;
	pt.workers = workers;
	return pt;
}

static void *setup_ok(const rt_point *pt, const rt_shape *sh)
{
	void *st = NULL;
	char err[RT_ERRLEN] = "";
	int rc = rt_workload_transformer.setup(pt, sh, cpu(), &st, err, sizeof err);
	if (rc)
		fail_msg("setup: %s", err);
	assert_non_null(st);
	return st;
}

/* The losses of `steps` training steps (the loss before each update). */
static void train(const rt_point *pt, const rt_shape *sh, int steps, double *loss)
{
	void *st = setup_ok(pt, sh);
	char err[RT_ERRLEN] = "";
	for (int i = 0; i < steps; i++) {
		rt_step_result r;
		if (rt_workload_transformer.step(st, &r, err, sizeof err))
			fail_msg("step: %s", err);
		assert_int_equal(rt_transformer_last_loss(st, &loss[i], err, sizeof err), 0);
	}
	rt_workload_transformer.teardown(st);
}

/* ---- Tests ---- */

static const struct ref_dims tiny = {.B = 3, .T = 4, .D = 8, .H = 2, .F = 16, .L = 2};

struct tiny_run {
	size_t np, nx;
	double loss, *w, *g, *x, *y;
};

/* One fp64 forward and backward pass of the tiny shape, copied out. */
static void tiny_pass(struct tiny_run *r)
{
	rt_shape sh = shape(tiny.D, tiny.H, tiny.T, tiny.F, tiny.L, 5);
	rt_point pt = point(RT_FP64, tiny.B, 1, 0);
	void *st = setup_ok(&pt, &sh);
	r->np = rt_transformer_nparams(st);
	assert_int_equal(r->np, ref_nparams(&tiny));
	r->nx = (size_t)tiny.B * tiny.T * tiny.D;
	r->w = malloc(r->np * sizeof(double));
	r->g = malloc(r->np * sizeof(double));
	r->x = malloc(r->nx * sizeof(double));
	r->y = malloc(r->nx * sizeof(double));
	char err[RT_ERRLEN] = "";
	int rc = rt_transformer_loss_and_grads(st, &r->loss, r->w, r->g, r->x, r->y, err,
					       sizeof err);
	if (rc)
		fail_msg("loss_and_grads: %s", err);
	rt_workload_transformer.teardown(st);
}

static void tiny_free(struct tiny_run *r)
{
	free(r->w), free(r->g), free(r->x), free(r->y);
}

static void test_forward_matches_reference(void **state)
{
	(void)state;
	struct tiny_run r;
	tiny_pass(&r);
	double ref = ref_loss(&tiny, r.w, r.x, r.y);
	assert_true(r.loss > 0.1); /* an untrained model is far from the targets */
	assert_true(fabs(r.loss - ref) <= 1e-12 * ref);
	tiny_free(&r);
}

static void test_gradients_match_finite_differences(void **state)
{
	(void)state;
	struct tiny_run r;
	tiny_pass(&r);
	const double h = 1e-5;
	int bad = 0;
	for (size_t i = 0; i < r.np; i++) {
		double w0 = r.w[i];
		r.w[i] = w0 + h;
		double lp = ref_loss(&tiny, r.w, r.x, r.y);
		r.w[i] = w0 - h;
		double lm = ref_loss(&tiny, r.w, r.x, r.y);
		r.w[i] = w0;
		double fd = (lp - lm) / (2 * h);
		if (fabs(r.g[i] - fd) > 1e-8 + 1e-5 * fabs(fd)) {
			if (bad++ < 5)
				print_error("parameter %zu: gradient %.10g, finite difference %.10g\n",
					    i, r.g[i], fd);
		}
	}
	assert_int_equal(bad, 0);
	tiny_free(&r);
}

static void test_loss_falls(void **state)
{
	(void)state;
	rt_shape sh = shape(32, 4, 8, 64, 2, 0);
	rt_point pt = point(RT_FP32, 16, 1, 0);
	double loss[50];
	train(&pt, &sh, 50, loss);
	print_message("# loss %.4f -> %.4f over 50 steps\n", loss[0], loss[49]);
	assert_true(loss[49] < 0.7 * loss[0]);
}

static void test_same_loss_for_one_and_two_threads(void **state)
{
	(void)state;
	rt_shape sh = shape(64, 4, 16, 128, 2, 0);
	double a[5], b[5];
	rt_point p1 = point(RT_FP32, 8, 1, 0), p2 = point(RT_FP32, 8, 2, 0);
	train(&p1, &sh, 5, a);
	train(&p2, &sh, 5, b);
	for (int i = 0; i < 5; i++)
		assert_true(fabs(a[i] - b[i]) <= 1e-4 * a[i]);
}

/* Workers prepare exactly the batches the inline pipeline does, in order. */
static void test_workers_give_the_same_data(void **state)
{
	(void)state;
	rt_shape sh = shape(16, 2, 8, 32, 1, 10);
	double a[6], b[6];
	rt_point p0 = point(RT_FP64, 4, 1, 0), p3 = point(RT_FP64, 4, 1, 3);
	train(&p0, &sh, 6, a);
	train(&p3, &sh, 6, b);
	for (int i = 0; i < 6; i++)
		assert_true(fabs(a[i] - b[i]) <= 1e-12 * a[i]);
	assert_true(a[0] != a[1]); /* consecutive batches differ */
}

static void test_step_reports_work_and_phases(void **state)
{
	(void)state;
	long D = 32, T = 8, F = 64, L = 2, B = 4;
	rt_shape sh = shape(D, 4, T, F, L, 50);
	rt_point pt = point(RT_FP32, (int)B, 1, 0);
	void *st = setup_ok(&pt, &sh);
	rt_step_result r;
	char err[RT_ERRLEN] = "";
	double t0 = rt_now();
	assert_int_equal(rt_workload_transformer.step(st, &r, err, sizeof err), 0);
	double wall = rt_now() - t0;
	rt_workload_transformer.teardown(st);
	double N = B * T;
	double fwd = L * (2 * N * (4 * D * D + 2 * D * F) + 4.0 * B * T * T * D) + 2 * N * D * D;
	assert_true(r.items == B);
	assert_true(fabs(r.flops - (3 * fwd + 2 * N * D * D)) < 1e-6 * r.flops);
	double sum = 0;
	for (int i = 0; i < rt_workload_transformer.nphases; i++) {
		assert_true(r.phase[i] > 0);
		sum += r.phase[i];
	}
	assert_true(sum <= wall * 1.01);
	/* inline data preparation of 4 samples at 50 us each */
	assert_true(r.phase[4] >= 4 * 50e-6 * 0.5);
	assert_string_equal(rt_workload_transformer.phase_names[4], "data");
}

/*
 * A CPU backend with phase marks, as a GPU plugin has: each mark of phase p
 * charges p a scripted MARK_S seconds at the closing mark, and the test
 * counts the marks, the closings and the synchronize() calls.
 */
#define MARK_S 1e-3
static int marks_of[RT_PHASE_MARKS_MAX], marks_closed, syncs;

/*
 * Uploads that land late, as a copy beside the kernels does: upload_async
 * only notes the copy, which the next wait (synchronize, the closing mark)
 * makes. A step that read the batch early, or a pipeline that refilled its
 * slot before the wait, would train on other data than the plain backend.
 */
#define MAX_PENDING 4
static struct {
	void *dst;
	const void *src;
	size_t bytes;
} pending[MAX_PENDING];
static int npending, async_uploads;

static void copies_land(void)
{
	for (int i = 0; i < npending; i++)
		memcpy(pending[i].dst, pending[i].src, pending[i].bytes);
	npending = 0;
}

static int late_upload(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	(void)ctx;
	assert_true(npending < MAX_PENDING);
	pending[npending].dst = dst;
	pending[npending].src = src;
	pending[npending++].bytes = bytes;
	async_uploads++;
	return 0;
}

static int heap_alloc(rt_ctx *ctx, size_t bytes, void **ptr)
{
	(void)ctx;
	*ptr = malloc(bytes);
	return *ptr ? 0 : RT_ENOMEM;
}

static void heap_free(rt_ctx *ctx, void *ptr)
{
	(void)ctx;
	free(ptr);
}

static int counting_sync(rt_ctx *ctx)
{
	syncs++;
	copies_land();
	return cpu()->synchronize(ctx);
}

static int recording_mark(rt_ctx *ctx, int ph, double *seconds, int n)
{
	(void)ctx;
	if (ph != RT_PHASE_END) {
		assert_true(ph >= 0 && ph < RT_PHASE_MARKS_MAX);
		marks_of[ph]++;
		return 0;
	}
	marks_closed++;
	copies_land();
	for (int i = 0; i < n && i < RT_PHASE_MARKS_MAX; i++)
		seconds[i] += MARK_S * marks_of[i];
	memset(marks_of, 0, sizeof marks_of);
	return 0;
}

/*
 * On a backend with phase marks (and the fused bias and GELU) the device
 * phases come from the marks, with one wait per step, and the arithmetic
 * is the plain CPU backend's.
 */
static void test_marked_phases_need_no_waits(void **state)
{
	(void)state;
	rt_backend_ops marked = *cpu();
	marked.synchronize = counting_sync;
	marked.phase_mark = recording_mark;
	marked.bias_gelu = rt_cpu_bias_gelu; /* the fused path, too */
	rt_shape sh = shape(32, 4, 8, 64, 2, 20);
	rt_point pt = point(RT_FP32, 4, 1, 0);
	void *plain = setup_ok(&pt, &sh), *st = NULL;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_workload_transformer.setup(&pt, &sh, &marked, &st, err, sizeof err), 0);
	rt_step_result r, rp;
	syncs = marks_closed = 0;
	memset(marks_of, 0, sizeof marks_of);
	assert_int_equal(rt_workload_transformer.step(st, &r, err, sizeof err), 0);
	/* no wait inside the step; one closing mark at the end */
	assert_int_equal(syncs, 0);
	assert_int_equal(marks_closed, 1);
	int data = 4;
	assert_string_equal(rt_workload_transformer.phase_names[data], "data");
	assert_true(r.phase[data] > 0);
	for (int i = 0; i < rt_workload_transformer.nphases; i++) {
		if (i == data)
			continue;
		/* whole marks: a phase entered k times has k * MARK_S */
		double k = r.phase[i] / MARK_S;
		assert_true(k >= 1 && fabs(k - round(k)) < 1e-9);
	}
	/* marks change no arithmetic */
	assert_int_equal(rt_workload_transformer.step(plain, &rp, err, sizeof err), 0);
	double a, b;
	assert_int_equal(rt_transformer_last_loss(st, &a, err, sizeof err), 0);
	assert_int_equal(rt_transformer_last_loss(plain, &b, err, sizeof err), 0);
	assert_true(a == b);
	rt_workload_transformer.teardown(st);
	rt_workload_transformer.teardown(plain);
}

/*
 * With uploads that overlap the step (each batch copied during the step
 * before, landing at that step's closing wait), every step trains on the
 * batch the plain backend does, inline and with workers.
 */
static void test_overlapped_uploads_keep_the_batches(void **state)
{
	(void)state;
	rt_backend_ops late = *cpu();
	late.synchronize = counting_sync;
	late.phase_mark = recording_mark;
	late.host_alloc = heap_alloc;
	late.host_free = heap_free;
	late.upload_async = late_upload;
	rt_shape sh = shape(32, 4, 8, 64, 2, 5);
	for (int workers = 0; workers <= 2; workers += 2) {
		rt_point pt = point(RT_FP32, 3, 1, workers);
		void *plain = setup_ok(&pt, &sh), *st = NULL;
		char err[RT_ERRLEN] = "";
		assert_int_equal(rt_workload_transformer.setup(&pt, &sh, &late, &st, err, sizeof err),
				 0);
		async_uploads = syncs = 0;
		for (int step = 0; step < 5; step++) {
			rt_step_result r, rp;
			double a, b;
			assert_int_equal(rt_workload_transformer.step(st, &r, err, sizeof err), 0);
			assert_int_equal(rt_workload_transformer.step(plain, &rp, err, sizeof err), 0);
			assert_int_equal(rt_transformer_last_loss(st, &a, err, sizeof err), 0);
			assert_int_equal(rt_transformer_last_loss(plain, &b, err, sizeof err), 0);
			assert_true(a == b);
		}
		/* the next batch went up during each step, and no step waited inside */
		assert_int_equal(async_uploads, 5);
		assert_int_equal(syncs, 0);
		rt_workload_transformer.teardown(st);
		rt_workload_transformer.teardown(plain);
	}
}

/* Calls of the CPU backend's gemm_batched and gemm_batched2 through the counting wrappers. */
static int batched_calls, batched2_calls;

static int counting_batched(rt_ctx *ctx, rt_dtype t, rt_precision prec, int ta, int tb, int m,
			    int n, int k, double alpha, const void *a, int lda, long sa,
			    const void *b, int ldb, long sb, double beta, void *c, int ldc, long sc,
			    int count)
{
	batched_calls++;
	return rt_cpu_backend()->gemm_batched(ctx, t, prec, ta, tb, m, n, k, alpha, a, lda, sa, b,
					      ldb, sb, beta, c, ldc, sc, count);
}

static int counting_batched2(rt_ctx *ctx, rt_dtype t, rt_precision prec, int ta, int tb, int m,
			     int n, int k, double alpha, const void *a, int lda, const void *b,
			     int ldb, double beta, void *c, int ldc, const rt_batch2 *bt)
{
	batched2_calls++;
	return rt_cpu_backend()->gemm_batched2(ctx, t, prec, ta, tb, m, n, k, alpha, a, lda, b,
					       ldb, beta, c, ldc, bt);
}

/* The loss and gradients of one fp32 pass on be; np parameters. */
static double *pass_grads(const rt_backend_ops *be, size_t *np, double *loss)
{
	rt_shape sh = shape(32, 4, 8, 64, 2, 7);
	rt_point pt = point(RT_FP32, 3, 1, 0);
	void *st = NULL;
	char err[RT_ERRLEN] = "";
	if (rt_workload_transformer.setup(&pt, &sh, be, &st, err, sizeof err))
		fail_msg("setup: %s", err);
	*np = rt_transformer_nparams(st);
	double *g = malloc(*np * sizeof *g);
	assert_non_null(g);
	if (rt_transformer_loss_and_grads(st, loss, NULL, g, NULL, NULL, err, sizeof err))
		fail_msg("loss_and_grads: %s", err);
	rt_workload_transformer.teardown(st);
	return g;
}

/* One pass on x and one on y give the same loss and gradients, bitwise. */
static void expect_same_pass(const rt_backend_ops *x, const rt_backend_ops *y)
{
	size_t n1 = 0, n2 = 0;
	double l1 = 0, l2 = 0;
	double *g1 = pass_grads(x, &n1, &l1), *g2 = pass_grads(y, &n2, &l2);
	assert_int_equal(n1, n2);
	assert_true(l1 > 0.1);
	assert_true(l1 == l2);
	assert_memory_equal(g1, g2, n1 * sizeof *g1);
	free(g1), free(g2);
}

/*
 * Attention over all heads in one gemm_batched2 call per GEMM (6 a layer)
 * gives the step the loss and gradients of the per-head loop (6 x heads
 * gemm_batched calls a layer): the same GEMMs, bitwise.
 */
static void test_two_level_batch_keeps_the_step(void **state)
{
	(void)state;
	rt_backend_ops with = *cpu(), without = *cpu();
	with.gemm_batched = without.gemm_batched = counting_batched;
	with.gemm_batched2 = counting_batched2;
	without.gemm_batched2 = NULL;
	batched_calls = batched2_calls = 0;
	expect_same_pass(&with, &without);
	assert_int_equal(batched2_calls, 6 * 2);     /* all of them on `with` */
	assert_int_equal(batched_calls, 6 * 2 * 4); /* all of them on `without` */
}

/* Calls of linear_fwd, with GELU and without. */
static int linear_calls, linear_gelu_calls;

/* A linear_fwd as its specification gives it: gemm, then add_bias or bias_gelu (CPU's). */
static int composed_linear(rt_ctx *ctx, rt_dtype t, rt_precision prec, int m, int n, int k,
			   const void *x, const void *w, const void *bias, void *u, void *a)
{
	const rt_backend_ops *cpu_be = rt_cpu_backend();
	int rc = cpu_be->gemm(ctx, t, prec, 0, 0, m, n, k, 1.0, x, k, w, n, 0.0, u, n);
	if (rc)
		return rc;
	if (!a) {
		linear_calls++;
		return cpu_be->add_bias(ctx, t, m, n, bias, u);
	}
	linear_gelu_calls++;
	return rt_cpu_bias_gelu(ctx, t, m, n, bias, u, a);
}

/*
 * On a backend with linear_fwd, each layer's QKV projection and the output
 * head go through it without GELU, each MLP's up-projection with GELU, and
 * the step's loss and gradients are those of the separate calls.
 */
static void test_fused_linear_keeps_the_step(void **state)
{
	(void)state;
	rt_backend_ops fused = *cpu(), plain = *cpu();
	fused.linear_fwd = composed_linear;
	plain.linear_fwd = NULL;
	plain.bias_gelu = rt_cpu_bias_gelu;
	linear_calls = linear_gelu_calls = 0;
	expect_same_pass(&fused, &plain);
	assert_int_equal(linear_calls, 2 + 1); /* only `fused` has the entry */
	assert_int_equal(linear_gelu_calls, 2);
}

static void expect_einval(const rt_point *pt, const rt_shape *sh, const char *word)
{
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_workload_transformer.check(pt, sh, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, word));
}

static void test_check_rejects_bad_shapes_and_points(void **state)
{
	(void)state;
	rt_point pt = point(RT_FP32, 8, 1, 0);
	rt_shape sh = shape(256, 4, 64, 1024, 2, 20);
	assert_int_equal(rt_workload_transformer.check(&pt, &sh, NULL, 0), 0);
	sh.v[0] = 250;
	expect_einval(&pt, &sh, "multiple of heads");
	for (int k = 0; k < 5; k++) {
		sh = shape(256, 4, 64, 1024, 2, 20);
		sh.v[k] = 0;
		expect_einval(&pt, &sh, rt_workload_transformer.keys[k].name);
	}
	sh = shape(256, 4, 64, 1024, 2, 20);
	rt_point bad = pt;
	bad.batch = 0;
	expect_einval(&bad, &sh, "batch");
	bad = pt;
	bad.threads = 0;
	expect_einval(&bad, &sh, "threads");
	bad = pt;
	bad.workers = -1;
	expect_einval(&bad, &sh, "workers");
}

/* The CPU backend with a machine of 1 GiB free. */
static rt_backend_ops small_cpu;

static int small_mem_info(rt_ctx *ctx, uint64_t *total, uint64_t *free_bytes)
{
	(void)ctx;
	*total = 2ull << 30;
	*free_bytes = 1ull << 30;
	return 0;
}

static void test_huge_batch_is_infeasible(void **state)
{
	(void)state;
	small_cpu = *cpu();
	small_cpu.mem_info = small_mem_info;
	rt_shape sh = shape(256, 4, 64, 1024, 2, 20);
	rt_point pt = point(RT_FP32, 1 << 16, 1, 0);
	uint64_t need = rt_workload_transformer.mem_bytes(&pt, &sh);
	assert_true(need > (8ull << 30));
	void *st = (void *)&st;
	char err[RT_ERRLEN] = "";
	int rc = rt_workload_transformer.setup(&pt, &sh, &small_cpu, &st, err, sizeof err);
	assert_int_equal(rc, RT_EINFEASIBLE);
	assert_null(st);
	assert_non_null(strstr(err, "GiB available"));
	/* memory grows with the batch and covers params, grads and moments */
	rt_point one = point(RT_FP32, 1, 1, 0), two = point(RT_FP32, 2, 1, 0);
	struct ref_dims d = {1, 64, 256, 4, 1024, 2};
	uint64_t m1 = rt_workload_transformer.mem_bytes(&one, &sh);
	assert_true(m1 > 4 * ref_nparams(&d) * sizeof(float));
	assert_true(rt_workload_transformer.mem_bytes(&two, &sh) > m1);
}

/*
 * What the tuner reads from the descriptor: the GEMMs of a step whose rows
 * grow with the batch (QKV: k = d_model, n = 3 d_model; the MLP's
 * up-projection: n = d_ff; m = batch x seq_len), the DataLoader hint, the
 * knee along batch.
 */
static void test_descriptor_for_the_tuner(void **state)
{
	(void)state;
	const rt_workload *w = &rt_workload_transformer;
	rt_shape sh = shape(768, 12, 60, 3072, 2, 20);
	rt_gemm_dims g[RT_MAX_STEP_GEMMS];
	long rows = 0;
	assert_int_equal(w->step_gemms(&sh, g, &rows), 2);
	assert_int_equal(rows, 60);
	assert_string_equal(g[0].name, "qkv");
	assert_true(g[0].k == 768 && g[0].n == 2304);
	assert_string_equal(g[1].name, "ffn_up");
	assert_string_equal(g[1].label, "ffn");
	assert_true(g[1].k == 768 && g[1].n == 3072);
	char lines[2][RT_HINT_LEN];
	rt_point pt = point(RT_FP32, 64, 2, 0);
	assert_int_equal(w->hints(RT_HINT_PYTORCH, &pt, &sh, NULL, lines, 2), 1);
	assert_string_equal(lines[0], "DataLoader(batch_size=64, num_workers=0)");
	pt.workers = 2;
	assert_int_equal(w->hints(RT_HINT_PYTORCH, &pt, &sh, NULL, lines, 2), 1);
	assert_string_equal(lines[0],
			    "DataLoader(batch_size=64, num_workers=2, persistent_workers=True)");
	assert_int_equal(w->hints(RT_HINT_SB3, &pt, &sh, NULL, lines, 2), 0); /* no environments */
	assert_string_equal(w->knee, "batch");
	rt_derived d[RT_MAX_DERIVED];
	char sentence[64] = "x";
	assert_int_equal(w->derive(&pt, &sh, 100.0, NULL, 4, d, sentence, sizeof sentence), 1);
	assert_string_equal(d[0].name, "tokens_per_s");
	assert_float_equal(d[0].value, 6000.0, 1e-9);
	assert_string_equal(sentence, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forward_matches_reference),
		cmocka_unit_test(test_gradients_match_finite_differences),
		cmocka_unit_test(test_loss_falls),
		cmocka_unit_test(test_same_loss_for_one_and_two_threads),
		cmocka_unit_test(test_workers_give_the_same_data),
		cmocka_unit_test(test_step_reports_work_and_phases),
		cmocka_unit_test(test_marked_phases_need_no_waits),
		cmocka_unit_test(test_overlapped_uploads_keep_the_batches),
		cmocka_unit_test(test_two_level_batch_keeps_the_step),
		cmocka_unit_test(test_fused_linear_keeps_the_step),
		cmocka_unit_test(test_check_rejects_bad_shapes_and_points),
		cmocka_unit_test(test_huge_batch_is_infeasible),
		cmocka_unit_test(test_descriptor_for_the_tuner),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
