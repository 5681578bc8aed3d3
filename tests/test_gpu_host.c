/*
 * The GPU plugins' host code, without a GPU: the row-major to column-major
 * GEMM mapping against a CPU model of column-major BLAS (every transpose,
 * padded leading dimensions, strided batches), rocBLAS reached through its
 * table of entry points against a fake librocblas (dispatch by precision and
 * batch, the declined and failing statuses, a library that is not there or
 * lacks a symbol), and the monitors against a fake libnvidia-ml (samples of
 * a window, the device by bus id, not found) and a fake librocm_smi64 (the
 * poller's windows, the device by PCI address).
 * The fakes are built by the Makefile from tests/fakes into
 * $BUILD_DIR/tests/fakes and named through the plugins' path overrides.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Before cmocka.h, whose fail() macro is not the plugins' business. */
#include "../workloads/gpu/blas_map.h"
#include "../workloads/devmon.h"
#include "../workloads/gpu/rocblas_api.h"
#include "../workloads/kernels.h"
#include "colmajor_model.h"

#include <cmocka.h>

#include "../common/rng.h"

static char fakes[1024];

/* $BUILD_DIR/tests/fakes/lib<name>_fake.so into buf. */
static const char *fake_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/lib%s_fake.so", fakes, name);
	return buf;
}

/* Row-major reference of one matrix: C = alpha op(A) op(B) + beta C, sums in increasing p. */
static void rowmajor_one(const rt_gemm_args *g, const double *a, const double *b, double *c)
{
	for (int i = 0; i < g->m; i++)
		for (int j = 0; j < g->n; j++) {
			double sum = 0;
			for (int p = 0; p < g->k; p++) {
				double x = g->transa ? a[(long)p * g->lda + i] : a[(long)i * g->lda + p];
				double y = g->transb ? b[(long)j * g->ldb + p] : b[(long)p * g->ldb + j];
				sum += x * y;
			}
			double *cij = c + (long)i * g->ldc + j;
			*cij = g->beta == 0 ? g->alpha * sum : g->alpha * sum + g->beta * *cij;
		}
}

/* The same over every matrix (o, z) of g's batch, at o * outer stride + z * stride. */
static void rowmajor_gemm_ref(const rt_gemm_args *g, const double *a, const double *b, double *c)
{
	for (int o = 0; o < g->outer; o++)
		for (int z = 0; z < g->count; z++)
			rowmajor_one(g, a + o * g->oa + z * g->sa, b + o * g->ob + z * g->sb,
				     c + o * g->oc + z * g->sc);
}

/* A GEMM case: operands with padded rows and batch strides, seeded values. */
typedef struct gcase {
	rt_gemm_args g;
	long na, nb, nc;
	double *a, *b, *c;
} gcase;

/* The shape of a case: fp64, alpha 0.75, one batch level (outer 1). */
static void gcase_shape(gcase *t, int ta, int tb, int m, int n, int k, int count, double beta)
{
	rt_gemm_args *g = &t->g;
	memset(t, 0, sizeof *t);
	g->t = RT_F64;
	g->prec = RT_FP64;
	g->transa = ta, g->transb = tb, g->m = m, g->n = n, g->k = k, g->count = count;
	g->outer = 1;
	g->alpha = 0.75, g->beta = beta;
}

/* Operands over the spans of g's strides, seeded values. */
static void gcase_fill(gcase *t, uint64_t seed)
{
	rt_gemm_args *g = &t->g;
	const int ta = g->transa, tb = g->transb, m = g->m, n = g->n, k = g->k;
	t->na = (long)rt_gemm_span2(ta ? k : m, ta ? m : k, g->lda, g->sa, g->count, g->oa,
				    g->outer);
	t->nb = (long)rt_gemm_span2(tb ? n : k, tb ? k : n, g->ldb, g->sb, g->count, g->ob,
				    g->outer);
	t->nc = (long)rt_gemm_span2(m, n, g->ldc, g->sc, g->count, g->oc, g->outer);
	t->a = malloc(sizeof(double) * (size_t)t->na);
	t->b = malloc(sizeof(double) * (size_t)t->nb);
	t->c = malloc(sizeof(double) * (size_t)t->nc);
	assert_non_null(t->a), assert_non_null(t->b), assert_non_null(t->c);
	rt_rng r;
	rt_rng_seed(&r, seed);
	for (long i = 0; i < t->na; i++)
		t->a[i] = rt_rng_normal(&r);
	for (long i = 0; i < t->nb; i++)
		t->b[i] = rt_rng_normal(&r);
	for (long i = 0; i < t->nc; i++)
		t->c[i] = rt_rng_normal(&r);
	g->a = t->a, g->b = t->b, g->c = t->c;
}

/* A strided batch (count 1: one matrix) with rows and matrices padded by pad. */
static void gcase_make(gcase *t, int ta, int tb, int m, int n, int k, int count, int pad,
		       double beta, uint64_t seed)
{
	rt_gemm_args *g = &t->g;
	gcase_shape(t, ta, tb, m, n, k, count, beta);
	g->lda = (ta ? m : k) + pad;
	g->ldb = (tb ? k : n) + pad;
	g->ldc = n + pad;
	g->sa = count > 1 ? (long)(ta ? k : m) * g->lda + 2 * pad : 0;
	g->sb = count > 1 ? (long)(tb ? n : k) * g->ldb + 2 * pad : 0;
	g->sc = count > 1 ? (long)m * g->ldc + 2 * pad : 0;
	gcase_fill(t, seed);
}

/*
 * A two-level batch laid out as attention's: the outer level's matrices
 * side by side in the rows of one tensor (outer stride: a matrix's width),
 * the inner level one tensor block further (its rows, padded by pad); rows
 * padded by pad too. No single stride reaches them all.
 */
static void gcase_make2(gcase *t, int ta, int tb, int m, int n, int k, int outer, int count,
			int pad, double beta, uint64_t seed)
{
	rt_gemm_args *g = &t->g;
	gcase_shape(t, ta, tb, m, n, k, count, beta);
	g->outer = outer;
	g->oa = ta ? m : k;
	g->ob = tb ? k : n;
	g->oc = n;
	g->lda = outer * (int)g->oa + pad;
	g->ldb = outer * (int)g->ob + pad;
	g->ldc = outer * n + pad;
	g->sa = (long)(ta ? k : m) * g->lda + pad;
	g->sb = (long)(tb ? n : k) * g->ldb + pad;
	g->sc = (long)m * g->ldc + pad;
	gcase_fill(t, seed);
}

static void gcase_free(gcase *t)
{
	free(t->a), free(t->b), free(t->c);
}

/*
 * colmajor_of(): for every transpose pair, single and strided-batched,
 * tight and padded leading dimensions, beta 0 and not, the column-major
 * model run on the mapped call writes exactly the row-major result, and
 * leaves the padding between rows and matrices alone.
 */
static void test_colmajor_mapping(void **state)
{
	(void)state;
	static const int dims[][3] = {{1, 1, 1}, {5, 3, 7}, {4, 9, 2}, {16, 16, 16}};
	int cases = 0;
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++)
			for (int count = 1; count <= 3; count += 2)
				for (int pad = 0; pad <= 3; pad += 3)
					for (size_t d = 0; d < RT_COUNT(dims); d++) {
						gcase t;
						double beta = d % 2 ? 0.0 : -0.5;
						gcase_make(&t, ta, tb, dims[d][0], dims[d][1], dims[d][2],
							   count, pad, beta, 7 + d);
						double *want = malloc(sizeof(double) * (size_t)t.nc);
						memcpy(want, t.c, sizeof(double) * (size_t)t.nc);
						rowmajor_gemm_ref(&t.g, t.a, t.b, want);
						colmajor_gemm c = colmajor_of(&t.g);
						assert_int_equal(c.m, t.g.n);
						assert_int_equal(c.n, t.g.m);
						colmajor_gemm_model(c.transa, c.transb, c.m, c.n, c.k,
								    t.g.alpha, (const double *)c.a,
								    c.lda, c.sa, (const double *)c.b,
								    c.ldb, c.sb, t.g.beta,
								    (double *)c.c, c.ldc, c.sc,
								    c.count);
						assert_memory_equal(t.c, want,
								    sizeof(double) * (size_t)t.nc);
						free(want);
						gcase_free(&t);
						cases++;
					}
	assert_int_equal(cases, 2 * 2 * 2 * 2 * (int)RT_COUNT(dims));
}

/*
 * Runs the column-major model matrix by matrix over the pointers
 * colmajor_matrix() gives for the mapped call c (elements of es bytes), as
 * a batched BLAS call over pointer arrays runs it.
 */
static void model_over_pointers(const colmajor_gemm *c, double alpha, double beta, int es)
{
	for (int z = 0; z < c->outer * c->count; z++)
		colmajor_gemm_model(c->transa, c->transb, c->m, c->n, c->k, alpha,
				    (const double *)colmajor_matrix(c, 0, z, es, es), c->lda, 0,
				    (const double *)colmajor_matrix(c, 1, z, es, es), c->ldb, 0, beta,
				    (double *)colmajor_matrix(c, 2, z, es, es), c->ldc, 0, 1);
}

/*
 * A two-level batch (gemm_batched2, laid out as attention's heads x
 * sequences): colmajor_of() maps the outer strides with the operands, and
 * the column-major model run matrix by matrix at the addresses
 * colmajor_matrix() gives writes exactly the row-major result, leaving the
 * padding alone; every transpose, tight and padded, beta 0 and not.
 */
static void test_colmajor_two_level(void **state)
{
	(void)state;
	static const int dims[][5] = {{5, 3, 7, 2, 3}, {4, 9, 2, 3, 2}, {1, 1, 1, 2, 2}};
	int cases = 0;
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++)
			for (int pad = 0; pad <= 3; pad += 3)
				for (size_t d = 0; d < RT_COUNT(dims); d++) {
					gcase t;
					const int *x = dims[d];
					gcase_make2(&t, ta, tb, x[0], x[1], x[2], x[3], x[4], pad,
						    d % 2 ? 0.0 : -0.5, 21 + d);
					double *want = malloc(sizeof(double) * (size_t)t.nc);
					memcpy(want, t.c, sizeof(double) * (size_t)t.nc);
					rowmajor_gemm_ref(&t.g, t.a, t.b, want);
					rt_gemm_args flat = t.g;
					rt_gemm_flatten(&flat);
					assert_int_equal(flat.outer, x[3]); /* no one stride reaches them */
					colmajor_gemm c = colmajor_of(&t.g);
					assert_int_equal(c.outer, x[3]);
					assert_int_equal(c.oa, t.g.ob);
					assert_int_equal(c.ob, t.g.oa);
					assert_int_equal(c.oc, t.g.oc);
					model_over_pointers(&c, t.g.alpha, t.g.beta, sizeof(double));
					assert_memory_equal(t.c, want, sizeof(double) * (size_t)t.nc);
					free(want);
					gcase_free(&t);
					cases++;
				}
	assert_int_equal(cases, 2 * 2 * 2 * (int)RT_COUNT(dims));
}

/*
 * rt_gemm_flatten(): a two-level batch of one inner matrix, or whose inner
 * batches lie end to end in A, B and C alike, is the strided batch it
 * covers (and computes its result); one operand out of step keeps it two.
 */
static void test_flatten_two_level(void **state)
{
	(void)state;
	gcase t;
	gcase_make(&t, 1, 0, 4, 3, 5, 6, 2, 0.5, 31);
	double *want = malloc(sizeof(double) * (size_t)t.nc);
	memcpy(want, t.c, sizeof(double) * (size_t)t.nc);
	rowmajor_gemm_ref(&t.g, t.a, t.b, want);

	rt_gemm_args g = t.g; /* the 6 matrices as 3 x 2 */
	g.outer = 3, g.count = 2;
	g.oa = 2 * g.sa, g.ob = 2 * g.sb, g.oc = 2 * g.sc;
	rt_gemm_args out_of_step = g;
	out_of_step.oc += 1;
	rt_gemm_flatten(&out_of_step);
	assert_int_equal(out_of_step.outer, 3);
	assert_int_equal(out_of_step.count, 2);
	rt_gemm_flatten(&g);
	assert_int_equal(g.outer, 1);
	assert_int_equal(g.count, 6);
	assert_true(g.sa == t.g.sa && g.sb == t.g.sb && g.sc == t.g.sc);
	assert_true(g.oa == 0 && g.ob == 0 && g.oc == 0);

	rt_gemm_args one = t.g; /* the 6 matrices as 6 x 1, the stride on the outer level */
	one.outer = 6, one.count = 1;
	one.oa = t.g.sa, one.ob = t.g.sb, one.oc = t.g.sc;
	one.sa = one.sb = one.sc = 12345; /* never used with one inner matrix */
	rt_gemm_flatten(&one);
	assert_int_equal(one.outer, 1);
	assert_int_equal(one.count, 6);
	colmajor_gemm c = colmajor_of(&one);
	colmajor_gemm_model(c.transa, c.transb, c.m, c.n, c.k, one.alpha, (const double *)c.a,
			    c.lda, c.sa, (const double *)c.b, c.ldb, c.sb, one.beta, (double *)c.c,
			    c.ldc, c.sc, c.count);
	assert_memory_equal(t.c, want, sizeof(double) * (size_t)t.nc);
	free(want);
	gcase_free(&t);
}

static double gelu_ref(double x)
{
	return 0.5 * x * (1 + tanh(RT_GELU_K0 * (x + RT_GELU_K1 * x * x * x)));
}

/*
 * colmajor_linear_of(): an epilogue as cuBLASLt's BIAS and GELU_AUX_BIAS
 * are documented (bias[i] added to row i of D, i < bias_len, over every
 * column; the biased value to aux, its GELU to D), run on the mapped call,
 * gives the row-major linear layer: u = x w + bias, and a = gelu(u) with
 * GELU; without GELU, D is u.
 */
static void test_linear_epilogue_mapping(void **state)
{
	(void)state;
	enum { M = 5, N = 7, K = 3 };
	double x[M * K], w[K * N], bias[N], u[M * N], a[M * N], want[M * N];
	rt_rng r;
	rt_rng_seed(&r, 61);
	for (int i = 0; i < M * K; i++)
		x[i] = rt_rng_normal(&r);
	for (int i = 0; i < K * N; i++)
		w[i] = rt_rng_normal(&r);
	for (int i = 0; i < N; i++)
		bias[i] = rt_rng_normal(&r);
	rt_gemm_args g = {RT_F64, RT_FP64, 0, 0, M, N, K, 1.0, 0.0, x, w, u,
	                  K,      N,       N, 0, 0, 0, 1, 1,   0,   0, 0};
	memset(want, 0, sizeof want);
	rowmajor_gemm_ref(&g, x, w, want);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++)
			want[i * N + j] += bias[j];
	for (int gelu = 0; gelu < 2; gelu++) {
		memset(u, 0, sizeof u);
		memset(a, 0, sizeof a);
		const colmajor_linear l = colmajor_linear_of(&g, gelu ? a : NULL);
		const colmajor_gemm *c = &l.g;
		double *d = c->c, *aux = l.aux;
		assert_int_equal(l.bias_len, N);
		assert_ptr_equal(d, gelu ? a : u);
		assert_ptr_equal(aux, gelu ? u : NULL);
		colmajor_gemm_model(c->transa, c->transb, c->m, c->n, c->k, 1.0, c->a, c->lda, 0,
				    c->b, c->ldb, 0, 0.0, d, c->ldc, 0, 1);
		for (int j = 0; j < c->n; j++)
			for (int i = 0; i < l.bias_len; i++) {
				double v = d[i + (long)j * c->ldc] + bias[i];
				if (aux)
					aux[i + (long)j * c->ldc] = v;
				d[i + (long)j * c->ldc] = aux ? gelu_ref(v) : v;
			}
		for (int i = 0; i < M * N; i++) {
			assert_float_equal(u[i], want[i], 1e-12);
			if (gelu)
				assert_float_equal(a[i], gelu_ref(want[i]), 1e-12);
		}
	}
}

/* What the fake rocBLAS records of each GEMM call. */
struct fake_rocblas_call {
	int calls, batched;
	int trans_a, trans_b, m, n, k, a_type, c_type, compute_type, lda, ldb, ldc, count;
	long stride_a, stride_b, stride_c;
	void *stream;
};

/* The call the fake received is the row-major g swapped: B first, n and m exchanged. */
static void expect_mapped_call(const struct fake_rocblas_call *log, const rt_gemm_args *g)
{
	assert_int_equal(log->trans_a, g->transb ? RB_OP_TRANSPOSE : RB_OP_NONE);
	assert_int_equal(log->trans_b, g->transa ? RB_OP_TRANSPOSE : RB_OP_NONE);
	assert_int_equal(log->m, g->n);
	assert_int_equal(log->n, g->m);
	assert_int_equal(log->k, g->k);
	assert_int_equal(log->lda, g->ldb);
	assert_int_equal(log->ldb, g->lda);
	assert_int_equal(log->ldc, g->ldc);
}

/* The fake rocBLAS loaded through rocblas_load(), its call log and status, and a handle. */
static rb_handle open_fake_rocblas(rocblas_api *api, struct fake_rocblas_call **log, int **status)
{
	char path[1100], why[RT_ERRLEN] = "";
	rb_handle h = NULL;
	setenv("RIGTUNE_ROCBLAS", fake_path("rocblas", path, sizeof path), 1);
	assert_int_equal(rocblas_load(api, why, sizeof why), 0);
	*log = dlsym(api->lib, "fake_rocblas_log");
	*status = dlsym(api->lib, "fake_rocblas_status");
	assert_non_null(*log);
	assert_non_null(*status);
	**status = 0;
	assert_int_equal(api->create_handle(&h), 0);
	return h;
}

/* The fake rocBLAS opened for a test: its table, call log, status to return, a handle. */
typedef struct fake_rb {
	rocblas_api api;
	struct fake_rocblas_call *log;
	int *status;
	rb_handle h;
	char err[RT_ERRLEN];
} fake_rb;

static void fake_rb_open(fake_rb *f)
{
	memset(f, 0, sizeof *f);
	f->h = open_fake_rocblas(&f->api, &f->log, &f->status);
}

/* fp32 copies of a case's operands, as the plugin holds fp32 tensors. */
static float *to_f32(const double *x, long n)
{
	float *f = malloc(sizeof *f * (size_t)n);
	assert_non_null(f);
	for (long i = 0; i < n; i++)
		f[i] = (float)x[i];
	return f;
}

/*
 * rocblas_gemm() through the fake: fp64 and fp32 (one matrix through
 * gemm_ex, a batch through gemm_strided_batched_ex) compute the row-major
 * product; the call carries the mapped arguments and the types of each
 * precision (bf16 inputs with fp32 C and compute).
 */
static void test_rocblas_dispatch(void **state)
{
	(void)state;
	rocblas_api api;
	struct fake_rocblas_call *log;
	int *status;
	char err[RT_ERRLEN] = "";
	rb_handle h = open_fake_rocblas(&api, &log, &status);
	assert_string_equal(api.version, "9.9.9.fake");
	char impl[192], text[192];
	rocblas_unload(&api);
	assert_int_equal(rocblas_open_lib(&api, impl, sizeof impl), 1);
	assert_string_equal(impl, "rocblas 9.9.9.fake");
	gemm_impl_text(0, 1, impl, "", text, sizeof text);
	assert_string_equal(text, "rocblas 9.9.9.fake");
	assert_int_equal(api.create_handle(&h), 0); /* the library was loaded again */
	log = dlsym(api.lib, "fake_rocblas_log");
	status = dlsym(api.lib, "fake_rocblas_status");
	assert_non_null(log);
	assert_int_equal(*status, 0);
	assert_int_equal(api.set_stream(h, (void *)&h), 0);
	assert_ptr_equal(log->stream, (void *)&h);

	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++)
			for (int count = 1; count <= 3; count += 2) {
				gcase t;
				gcase_make(&t, ta, tb, 6, 5, 4, count, 2, 0.25, 11);
				double *want = malloc(sizeof(double) * (size_t)t.nc);
				memcpy(want, t.c, sizeof(double) * (size_t)t.nc);
				rowmajor_gemm_ref(&t.g, t.a, t.b, want);
				colmajor_gemm c = colmajor_of(&t.g);
				int calls = log->calls;
				assert_int_equal(rocblas_gemm(&api, h, RT_FP64, &c, t.g.alpha,
							      t.g.beta, err, sizeof err),
						 0);
				assert_int_equal(log->calls, calls + 1);
				assert_int_equal(log->batched, count > 1);
				expect_mapped_call(log, &t.g);
				assert_int_equal(log->a_type, RB_F64);
				assert_int_equal(log->compute_type, RB_F64);
				if (count > 1) {
					assert_int_equal(log->stride_a, t.g.sb);
					assert_int_equal(log->stride_b, t.g.sa);
					assert_int_equal(log->stride_c, t.g.sc);
				}
				for (long i = 0; i < t.nc; i++)
					assert_float_equal(t.c[i], want[i], 1e-12);

				/* fp32: the same product in single precision */
				float *a = to_f32(t.a, t.na), *b = to_f32(t.b, t.nb);
				float *cf = to_f32(t.c, t.nc); /* beta 0: C is not read */
				memcpy(want, t.c, sizeof(double) * (size_t)t.nc);
				t.g.a = a, t.g.b = b, t.g.c = cf, t.g.beta = 0;
				c = colmajor_of(&t.g);
				rowmajor_gemm_ref(&t.g, t.a, t.b, want);
				assert_int_equal(rocblas_gemm(&api, h, RT_FP32, &c, t.g.alpha, 0,
							      err, sizeof err),
						 0);
				assert_int_equal(log->a_type, RB_F32);
				assert_int_equal(log->c_type, RB_F32);
				for (long i = 0; i < t.nc; i++)
					assert_float_equal(cf[i], want[i],
							   1e-5 * (1 + fabs(want[i])));
				free(a), free(b), free(cf), free(want);
				gcase_free(&t);
			}

	/* bf16: 16-bit inputs, fp32 C and compute */
	uint16_t one = 0x3f80; /* 1.0 in bf16 */
	float out = 5;
	rt_gemm_args g = {RT_F32, RT_BF16, 0, 0, 1, 1, 1, 2.0, 0.0, &one,
	                  &one,   &out,    1, 1, 1, 0, 0, 0,   1, 1, 0, 0, 0};
	colmajor_gemm c = colmajor_of(&g);
	assert_int_equal(rocblas_gemm(&api, h, RT_BF16, &c, 2.0, 0.0, err, sizeof err), 0);
	assert_int_equal(log->a_type, RB_BF16);
	assert_int_equal(log->c_type, RB_F32);
	assert_int_equal(log->compute_type, RB_F32);
	assert_float_equal(out, 2.0, 0);
	assert_int_equal(api.destroy_handle(h), 0);
	rocblas_unload(&api);
}

/* The pointer arrays of the mapped call c (A's, B's, C's) on the host, elements of es bytes. */
static void **host_pointers(const colmajor_gemm *c, int es)
{
	const int total = c->outer * c->count;
	void **p = malloc(3 * (size_t)total * sizeof *p);
	assert_non_null(p);
	for (int q = 0; q < 3; q++)
		for (int z = 0; z < total; z++)
			p[q * total + z] = colmajor_matrix(c, q, z, es, es);
	return p;
}

/*
 * rocblas_gemm_ptrs() through the fake's rocblas_gemm_batched_ex: a
 * two-level batch of every transpose in fp64 and fp32 is one call over
 * outer x count pointers with the mapped arguments and computes the
 * row-major product; a failing status keeps its kind and names the call;
 * tf32 is not asked for.
 */
static void test_rocblas_two_level(void **state)
{
	(void)state;
	fake_rb f;
	fake_rb_open(&f);
	struct fake_rocblas_call *log = f.log;
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++) {
			gcase t;
			gcase_make2(&t, ta, tb, 6, 5, 4, 3, 2, 1, 0.25, 41);
			double *want = malloc(sizeof(double) * (size_t)t.nc);
			memcpy(want, t.c, sizeof(double) * (size_t)t.nc);
			rowmajor_gemm_ref(&t.g, t.a, t.b, want);
			colmajor_gemm c = colmajor_of(&t.g);
			void **ptrs = host_pointers(&c, sizeof(double));
			int calls = log->calls;
			assert_int_equal(rocblas_gemm_ptrs(&f.api, f.h, RT_FP64, &c, ptrs, t.g.alpha,
							   t.g.beta, f.err, sizeof f.err),
					 0);
			assert_int_equal(log->calls, calls + 1);
			assert_int_equal(log->batched, 2);
			assert_int_equal(log->count, 6);
			expect_mapped_call(log, &t.g);
			assert_int_equal(log->ldc, t.g.ldc);
			assert_int_equal(log->compute_type, RB_F64);
			assert_memory_equal(t.c, want, sizeof(double) * (size_t)t.nc);
			free(ptrs);

			/* fp32: the same product in single precision (beta 0: C is not read) */
			float *a = to_f32(t.a, t.na), *b = to_f32(t.b, t.nb), *cf = to_f32(t.c, t.nc);
			t.g.a = a, t.g.b = b, t.g.c = cf, t.g.beta = 0;
			memcpy(want, t.c, sizeof(double) * (size_t)t.nc);
			rowmajor_gemm_ref(&t.g, t.a, t.b, want);
			c = colmajor_of(&t.g);
			ptrs = host_pointers(&c, sizeof(float));
			assert_int_equal(rocblas_gemm_ptrs(&f.api, f.h, RT_FP32, &c, ptrs, t.g.alpha, 0,
							   f.err, sizeof f.err),
					 0);
			assert_int_equal(log->a_type, RB_F32);
			assert_int_equal(log->c_type, RB_F32);
			for (long i = 0; i < t.nc; i++)
				assert_float_equal(cf[i], want[i], 1e-5 * (1 + fabs(want[i])));
			*f.status = RB_MEMORY_ERROR;
			assert_int_equal(rocblas_gemm_ptrs(&f.api, f.h, RT_FP32, &c, ptrs, 1, 0, f.err,
							   sizeof f.err),
					 RT_ENOMEM);
			assert_string_equal(f.err,
					    "rocblas_gemm_batched_ex(fp32): rocblas_status_memory_error");
			*f.status = 0;
			calls = log->calls;
			assert_int_equal(rocblas_gemm_ptrs(&f.api, f.h, RT_TF32, &c, ptrs, 1, 0, f.err,
							   sizeof f.err),
					 RT_EUNAVAIL);
			assert_int_equal(log->calls, calls);
			free(ptrs);
			free(a), free(b), free(cf), free(want);
			gcase_free(&t);
		}
	rocblas_unload(&f.api);
}

/*
 * A precision rocBLAS declines is RT_EUNAVAIL (the plugin then falls back
 * to its own kernel) with rocBLAS's words; memory and size failures keep
 * their kind; tf32 is never asked for.
 */
static void test_rocblas_errors(void **state)
{
	(void)state;
	rocblas_api api;
	struct fake_rocblas_call *log;
	int *status;
	char err[RT_ERRLEN] = "";
	rb_handle h = open_fake_rocblas(&api, &log, &status);
	uint16_t x = 0x3c00;
	float y = 0;
	rt_gemm_args g = {RT_F32, RT_FP16, 0, 0, 1, 1, 1, 1.0, 0.0, &x,
	                  &x,     &y,      1, 1, 1, 0, 0, 0,   1, 1, 0, 0, 0};
	colmajor_gemm c = colmajor_of(&g);
	assert_int_equal(rocblas_gemm(&api, h, RT_FP16, &c, 1, 0, err, sizeof err), RT_EUNAVAIL);
	assert_string_equal(err, "rocblas_gemm_ex(fp16): rocblas_status_not_implemented");
	char impl[192];
	gemm_impl_declined("rocblas 9.9.9.fake", RT_FP16, err, impl, sizeof impl);
	assert_string_equal(impl, "own-tiled, rocblas 9.9.9.fake declined fp16: "
				  "rocblas_gemm_ex(fp16): rocblas_status_not_implemented");
	*status = RB_MEMORY_ERROR;
	c.count = 2;
	assert_int_equal(rocblas_gemm(&api, h, RT_FP32, &c, 1, 0, err, sizeof err), RT_ENOMEM);
	assert_string_equal(err,
			    "rocblas_gemm_strided_batched_ex(fp32): rocblas_status_memory_error");
	*status = RB_INVALID_SIZE;
	assert_int_equal(rocblas_gemm(&api, h, RT_FP64, &c, 1, 0, err, sizeof err), RT_EINVAL);
	*status = 0;
	int calls = log->calls;
	assert_int_equal(rocblas_gemm(&api, h, RT_TF32, &c, 1, 0, err, sizeof err), RT_EUNAVAIL);
	assert_string_equal(err, "rocBLAS has no tf32 GEMM");
	assert_int_equal(log->calls, calls);
	rocblas_unload(&api);
}

/* No library at the path, or one without rocBLAS's symbols: unavailable, with why. */
static void test_rocblas_not_found(void **state)
{
	(void)state;
	rocblas_api api;
	char why[RT_ERRLEN] = "", path[1100];
	setenv("RIGTUNE_ROCBLAS", "/nonexistent/librocblas.so", 1);
	assert_int_equal(rocblas_load(&api, why, sizeof why), RT_EUNAVAIL);
	assert_non_null(strstr(why, "/nonexistent/librocblas.so"));
	assert_null(api.lib);
	/* what probe and every measurement then say the GEMMs ran on */
	char impl[192], text[192];
	assert_int_equal(rocblas_open_lib(&api, impl, sizeof impl), 0);
	assert_true(!strncmp(impl, "rocBLAS not found (/nonexistent/librocblas.so: ", 46));
	gemm_impl_text(0, 0, "", impl, text, sizeof text);
	assert_true(!strncmp(text, "own-tiled, rocBLAS not found (", 30));
	assert_non_null(strstr(text, "): the crossover understates this GPU"));
	gemm_impl_text(1, 1, "rocblas 9.9.9.fake", "", text, sizeof text);
	assert_string_equal(text, "own-tiled (RIGTUNE_GEMM=own)");
	fake_path("nvml", path, sizeof path);
	setenv("RIGTUNE_ROCBLAS", path, 1);
	assert_int_equal(rocblas_load(&api, why, sizeof why), RT_EUNAVAIL);
	char want[1200];
	snprintf(want, sizeof want, "%s: no symbol rocblas_create_handle", path);
	assert_string_equal(why, want);
	assert_null(api.lib);
	unsetenv("RIGTUNE_ROCBLAS");
}

/* The fake library at path, and its symbol name (it is the monitor's: dlopen counts). */
static void *fake_symbol(const char *path, const char *name)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL), *sym = lib ? dlsym(lib, name) : NULL;
	assert_non_null(sym);
	dlclose(lib); /* the monitor holds it open */
	return sym;
}

/*
 * The NVML monitor over the fake, as a plugin reads it: a window without
 * samples says so; the mean of the samples added since the last read, each
 * counted once.
 */
static void test_nvml_monitor(void **state)
{
	(void)state;
	char why[RT_ERRLEN] = "", path[1100];
	double busy = -1;
	int n = -1;
	setenv("RIGTUNE_NVML", fake_path("nvml", path, sizeof path), 1);
	rt_devmon *m = rt_devmon_open(&rt_devmon_nvml, "0000:01:00.0", why, sizeof why);
	if (!m)
		fail_msg("%s", why);
	assert_int_equal(rt_devmon_ndevices(m), 1);
	assert_string_equal(rt_devmon_label(m), "NVML");
	void (*add)(unsigned int) = NULL;
	void *sym = fake_symbol(path, "fake_nvml_add");
	memcpy(&add, &sym, sizeof add);

	rt_devmon_window_start(m);
	assert_int_equal(rt_devmon_window_read(m, &busy, &n, why, sizeof why), RT_EUNAVAIL);
	assert_string_equal(why, "no sample in the window");
	assert_int_equal(n, 0);
	add(10);
	add(30);
	assert_int_equal(rt_devmon_window_read(m, &busy, &n, why, sizeof why), 0);
	assert_int_equal(n, 2);
	assert_float_equal(busy, 0.20, 1e-12);
	add(90);
	assert_int_equal(rt_devmon_window_read(m, &busy, &n, why, sizeof why), 0);
	assert_int_equal(n, 1);
	assert_float_equal(busy, 0.90, 1e-12);
	/* a new window forgets what came before it */
	add(50);
	rt_devmon_window_start(m);
	assert_int_equal(rt_devmon_window_read(m, &busy, &n, why, sizeof why), RT_EUNAVAIL);
	rt_devmon_close(m);

	assert_null(rt_devmon_open(&rt_devmon_nvml, "0000:02:00.0", why, sizeof why));
	assert_string_equal(why, "nvmlDeviceGetHandleByPciBusId_v2(0000:02:00.0): Not Found");
	setenv("RIGTUNE_NVML", fake_path("rocblas", path, sizeof path), 1);
	assert_null(rt_devmon_open(&rt_devmon_nvml, "0000:01:00.0", why, sizeof why));
	assert_string_equal(why, "libnvidia-ml.so.1: no symbol nvmlInit_v2");
	setenv("RIGTUNE_NVML", "/nonexistent/libnvidia-ml.so.1", 1);
	assert_null(rt_devmon_open(&rt_devmon_nvml, "0000:01:00.0", why, sizeof why));
	assert_non_null(strstr(why, "/nonexistent/libnvidia-ml.so.1"));
	unsetenv("RIGTUNE_NVML");
}

/*
 * A plugin's utilization() over the fake: the first call opens the
 * monitor and has no sample yet; the next reads what came since; a monitor
 * that cannot open is not tried again.
 */
static void test_plugin_utilization(void **state)
{
	(void)state;
	char why[RT_ERRLEN] = "", path[1100];
	rt_devmon *m = NULL;
	int failed = 0;
	double busy = -1;
	setenv("RIGTUNE_NVML", fake_path("nvml", path, sizeof path), 1);
	assert_int_equal(rt_devmon_utilization(&m, &failed, &rt_devmon_nvml, "0000:01:00.0", &busy,
	                                       why, sizeof why),
	                 RT_EUNAVAIL);
	assert_non_null(m);
	void (*add)(unsigned int) = NULL;
	void *sym = fake_symbol(path, "fake_nvml_add");
	memcpy(&add, &sym, sizeof add);
	add(70);
	assert_int_equal(rt_devmon_utilization(&m, &failed, &rt_devmon_nvml, "0000:01:00.0", &busy,
	                                       why, sizeof why),
	                 0);
	assert_float_equal(busy, 0.70, 1e-12);
	rt_devmon_close(m);
	m = NULL;
	setenv("RIGTUNE_NVML", "/nonexistent/libnvidia-ml.so.1", 1);
	assert_int_equal(rt_devmon_utilization(&m, &failed, &rt_devmon_nvml, "0000:01:00.0", &busy,
	                                       why, sizeof why),
	                 RT_EUNAVAIL);
	assert_int_equal(failed, 1);
	assert_null(m);
	why[0] = '\0';
	unsetenv("RIGTUNE_NVML"); /* the real library would open: failed keeps it from trying */
	assert_int_equal(rt_devmon_utilization(&m, &failed, &rt_devmon_nvml, "0000:01:00.0", &busy,
	                                       why, sizeof why),
	                 RT_EUNAVAIL);
	assert_null(m);
	assert_string_equal(why, "");
}

/* Waits until the fake has been polled k more times (10 s at most). */
static void wait_polls(volatile int *reads, int k)
{
	int want = __atomic_load_n(reads, __ATOMIC_RELAXED) + k;
	double deadline = rt_now() + 10;
	while (__atomic_load_n(reads, __ATOMIC_RELAXED) < want && rt_now() < deadline) {
		struct timespec pause = {0, 5000000};
		nanosleep(&pause, NULL);
	}
}

/*
 * A window of the rocm_smi monitor in which every poll read `percent`: the
 * value is set, two polls pass (the first may have read the old one before
 * it ended; the second began after that), the window restarts, two more
 * polls; then its mean, and how many samples it had.
 */
static int rsmi_window(rt_devmon *m, unsigned int *pct, volatile int *reads, unsigned int percent,
                       double *busy, int *n)
{
	char why[RT_ERRLEN];
	__atomic_store_n(pct, percent, __ATOMIC_RELAXED);
	wait_polls(reads, 2);
	rt_devmon_window_start(m);
	wait_polls(reads, 2);
	return rt_devmon_window_read(m, busy, n, why, sizeof why);
}

/*
 * The rocm_smi monitor over the fake: its poller finds the device by PCI
 * bus id and averages what it polls in each window; another address is
 * not found, nor a bus id that is not one.
 */
static void test_rocm_smi_monitor(void **state)
{
	(void)state;
	char why[RT_ERRLEN] = "", path[1100];
	double busy = -1;
	int n = 0;
	setenv("RIGTUNE_ROCM_SMI", fake_path("rocm_smi", path, sizeof path), 1);
	rt_devmon *m = rt_devmon_open(&rt_devmon_rsmi, "0000:03:00.0", why, sizeof why);
	if (!m)
		fail_msg("%s", why);
	unsigned int *pct = fake_symbol(path, "fake_rsmi_busy");
	volatile int *reads = fake_symbol(path, "fake_rsmi_reads");
	assert_int_equal(rsmi_window(m, pct, reads, 40, &busy, &n), 0);
	assert_true(n >= 1);
	assert_float_equal(busy, 0.40, 1e-12);
	assert_int_equal(rsmi_window(m, pct, reads, 80, &busy, &n), 0);
	assert_float_equal(busy, 0.80, 1e-12);
	rt_devmon_close(m);

	assert_null(rt_devmon_open(&rt_devmon_rsmi, "0000:04:00.0", why, sizeof why));
	assert_string_equal(why, "rocm_smi: no device at PCI 0000:04:00");
	assert_null(rt_devmon_open(&rt_devmon_rsmi, "bus 4", why, sizeof why));
	assert_string_equal(why, "rocm_smi: PCI bus id 'bus 4'");
	unsetenv("RIGTUNE_ROCM_SMI");
}

int main(void)
{
	const char *build = getenv("BUILD_DIR");
	snprintf(fakes, sizeof fakes, "%s/tests/fakes", build && *build ? build : "build");
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_colmajor_mapping), cmocka_unit_test(test_colmajor_two_level),
	    cmocka_unit_test(test_flatten_two_level), cmocka_unit_test(test_rocblas_two_level),
	    cmocka_unit_test(test_linear_epilogue_mapping),
	    cmocka_unit_test(test_rocblas_dispatch),
	    cmocka_unit_test(test_rocblas_errors),   cmocka_unit_test(test_rocblas_not_found),
	    cmocka_unit_test(test_nvml_monitor),     cmocka_unit_test(test_plugin_utilization),
	    cmocka_unit_test(test_rocm_smi_monitor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
