/*
 * Tests of the CPU backend: the thread pool, GEMM against a naive triple
 * loop, and every elementwise kernel against a scalar formula (forward) or
 * central finite differences of its forward (backward).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "../workloads/cpu_backend.h"
#include "../workloads/pool.h"

static const rt_backend_ops *ops;

static rt_ctx *open_cpu(int threads)
{
	char err[RT_ERRLEN] = "";
	rt_ctx *ctx = NULL;
	int rc = ops->open(0, threads, &ctx, err, sizeof err);
	if (rc)
		fail_msg("open(threads=%d): %s", threads, err);
	return ctx;
}

/* n seeded standard-normal values (never zeros), as double. */
static double *randn(uint64_t seed, size_t n)
{
	rt_rng r;
	double *v = malloc((n ? n : 1) * sizeof *v);
	assert_non_null(v);
	rt_rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++)
		v[i] = rt_rng_normal(&r);
	return v;
}

/* A backend buffer of dtype t holding the n doubles of src. */
static void *to_dev(rt_ctx *ctx, rt_dtype t, const double *src, size_t n)
{
	void *p = NULL;
	assert_int_equal(ops->alloc(ctx, (n ? n : 1) * rt_dtype_size(t), &p), 0);
	assert_true(((uintptr_t)p % 64) == 0);
	for (size_t i = 0; i < n; i++) {
		if (t == RT_F64)
			((double *)p)[i] = src[i];
		else
			((float *)p)[i] = (float)src[i];
	}
	return p;
}

/* The n values of a backend buffer, as a fresh double array. */
static double *from_dev(rt_ctx *ctx, rt_dtype t, const void *p, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	(void)ctx;
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = t == RT_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
	return v;
}

static void assert_close(const double *got, const double *want, size_t n, double rtol,
			 double atol, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		double d = fabs(got[i] - want[i]);
		if (!(d <= atol + rtol * fabs(want[i])))
			fail_msg("%s[%zu] = %.10g, want %.10g", what, i, got[i], want[i]);
	}
}

/* ---- pool ---- */

typedef struct count_job {
	int *hits;
} count_job;

static void count_items(void *arg, size_t begin, size_t end)
{
	count_job *job = arg;
	for (size_t i = begin; i < end; i++)
		__atomic_fetch_add(&job->hits[i], 1, __ATOMIC_RELAXED);
}

/* Every item is run exactly once, for sizes below, at and above the thread count. */
static void test_pool_every_item_once(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 5, 100, 1001};
	(void)state;
	for (int nt = 1; nt <= 4; nt++) {
		rt_pool *pool = NULL;
		assert_int_equal(rt_pool_create(nt, &pool, NULL, 0), 0);
		assert_int_equal(rt_pool_size(pool), nt);
		for (int rep = 0; rep < 20; rep++) {
			for (size_t s = 0; s < RT_COUNT(sizes); s++) {
				size_t n = sizes[s];
				int *hits = calloc(n + 1, sizeof *hits);
				count_job job = {hits};
				rt_pool_run(pool, count_items, &job, n);
				for (size_t i = 0; i < n; i++)
					assert_int_equal(hits[i], 1);
				free(hits);
			}
		}
		rt_pool_destroy(pool);
	}
	rt_pool_destroy(NULL);
}

static void test_pool_rejects_zero_threads(void **state)
{
	char err[RT_ERRLEN] = "";
	rt_pool *pool = (rt_pool *)1;
	(void)state;
	assert_int_equal(rt_pool_create(0, &pool, err, sizeof err), RT_EINVAL);
	assert_null(pool);
	assert_true(strlen(err) > 0);
}

/* ---- device, memory ---- */

static void test_device_info(void **state)
{
	rt_device_info info;
	char err[RT_ERRLEN];
	uint64_t total = 0, freeb = 0;
	rt_ctx *ctx;
	(void)state;
	assert_int_equal(ops->abi, RT_BACKEND_ABI);
	assert_string_equal(ops->name, "cpu");
	assert_int_equal(ops->init(err, sizeof err), 1);
	assert_int_equal(ops->device_info(0, &info), 0);
	assert_true(strlen(info.name) > 0);
	assert_true(info.mem_total > 0 && info.mem_free <= info.mem_total);
	assert_true(info.compute_units >= 1);
	assert_true(info.precisions & RT_PREC_BIT(RT_FP32));
	assert_true(info.precisions & RT_PREC_BIT(RT_FP64));
	assert_false(info.precisions & RT_PREC_BIT(RT_TF32));
	assert_int_equal(info.unified_memory, 1);
	assert_int_equal(ops->device_info(1, &info), RT_EINVAL);
	assert_int_equal(ops->open(0, 0, &ctx, err, sizeof err), RT_EINVAL);
	ctx = open_cpu(2);
	assert_int_equal(ops->mem_info(ctx, &total, &freeb), 0);
	assert_true(total > 0 && freeb <= total);
	ops->close(ctx);
	ops->close(NULL);
}

static void test_upload_download(void **state)
{
	rt_ctx *ctx = open_cpu(1);
	double *src = randn(1, 37), back[37];
	void *p = NULL;
	(void)state;
	assert_int_equal(ops->alloc(ctx, sizeof back, &p), 0);
	assert_int_equal(ops->upload(ctx, p, src, sizeof back), 0);
	assert_int_equal(ops->synchronize(ctx), 0);
	assert_int_equal(ops->download(ctx, back, p, sizeof back), 0);
	assert_memory_equal(back, src, sizeof back);
	ops->free(ctx, p);
	free(src);
	ops->close(ctx);
}

/* ---- gemm ---- */

/* C = alpha op(A) op(B) + beta C on doubles, row-major with strides. */
static void naive_gemm(int ta, int tb, int m, int n, int k, double alpha, const double *a,
		       int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double s = 0;
			for (int l = 0; l < k; l++)
				s += (ta ? a[l * lda + i] : a[i * lda + l]) *
				     (tb ? b[j * ldb + l] : b[l * ldb + j]);
			c[i * ldc + j] = alpha * s + beta * c[i * ldc + j];
		}
}

/*
 * One GEMM on the backend against naive_gemm, with padded strides (ld =
 * columns + 3) so that a stride mix-up shows. Returns the backend's code.
 */
static int check_gemm(rt_ctx *ctx, rt_dtype t, rt_precision prec, int ta, int tb, int m, int n,
		      int k, double alpha, double beta, double rtol)
{
	int lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 3, ldc = n + 3;
	size_t na = (size_t)(ta ? k : m) * lda, nb = (size_t)(tb ? n : k) * ldb,
	       nc = (size_t)m * ldc;
	double *a = randn(11, na), *b = randn(12, nb), *c = randn(13, nc);
	void *da = to_dev(ctx, t, a, na), *db = to_dev(ctx, t, b, nb), *dc = to_dev(ctx, t, c, nc);
	int rc = ops->gemm(ctx, t, prec, ta, tb, m, n, k, alpha, da, lda, db, ldb, beta, dc, ldc);
	if (rc == 0) {
		double *got = from_dev(ctx, t, dc, nc);
		naive_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
		assert_close(got, c, nc, rtol, rtol * k, "gemm C");
		free(got);
	}
	ops->free(ctx, da);
	ops->free(ctx, db);
	ops->free(ctx, dc);
	free(a);
	free(b);
	free(c);
	return rc;
}

static void test_gemm_all_transposes(void **state)
{
	rt_ctx *ctx = open_cpu(2);
	(void)state;
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++) {
			assert_int_equal(check_gemm(ctx, RT_F64, RT_FP64, ta, tb, 7, 13, 5, 1.0,
						    0.0, 1e-13), 0);
			assert_int_equal(check_gemm(ctx, RT_F64, RT_FP64, ta, tb, 7, 13, 5, -0.7,
						    1.3, 1e-13), 0);
			assert_int_equal(check_gemm(ctx, RT_F32, RT_FP32, ta, tb, 7, 13, 5, 1.0,
						    0.0, 1e-5), 0);
			assert_int_equal(check_gemm(ctx, RT_F32, RT_FP32, ta, tb, 31, 9, 67, 0.5,
						    -2.0, 1e-5), 0);
			assert_int_equal(check_gemm(ctx, RT_F64, RT_FP64, ta, tb, 65, 33, 129, 2.0,
						    0.25, 1e-13), 0);
		}
	ops->close(ctx);
}

static void test_gemm_rejects(void **state)
{
	rt_ctx *ctx = open_cpu(1);
	float a[4] = {1, 2, 3, 4};
	(void)state;
	assert_int_equal(check_gemm(ctx, RT_F32, RT_TF32, 0, 0, 3, 3, 3, 1, 0, 1e-5), RT_EUNAVAIL);
	assert_int_equal(check_gemm(ctx, RT_F32, RT_FP16, 0, 0, 3, 3, 3, 1, 0, 1e-5), RT_EUNAVAIL);
	assert_int_equal(check_gemm(ctx, RT_F64, RT_FP32, 0, 0, 3, 3, 3, 1, 0, 1e-5), RT_EINVAL);
	assert_int_equal(check_gemm(ctx, RT_F32, RT_FP64, 0, 0, 3, 3, 3, 1, 0, 1e-5), RT_EINVAL);
	/* lda smaller than the stored row (k = 2) */
	assert_int_equal(ops->gemm(ctx, RT_F32, RT_FP32, 0, 0, 2, 2, 2, 1, a, 1, a, 2, 0, a, 2),
			 RT_EINVAL);
	ops->close(ctx);
}

/* bf16 either matches to bf16 accuracy or is unavailable, consistently with device_info. */
static void test_gemm_bf16(void **state)
{
	rt_device_info info;
	rt_ctx *ctx = open_cpu(1);
	int rc;
	(void)state;
	assert_int_equal(ops->device_info(0, &info), 0);
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++) {
			rc = check_gemm(ctx, RT_F32, RT_BF16, ta, tb, 7, 13, 5, 1.5, 0.5, 2e-2);
			if (info.precisions & RT_PREC_BIT(RT_BF16))
				assert_int_equal(rc, 0);
			else
				assert_int_equal(rc, RT_EUNAVAIL);
		}
	ops->close(ctx);
}

static void test_gemm_batched(void **state)
{
	enum { M = 6, N = 5, K = 7, COUNT = 3 };
	rt_ctx *ctx = open_cpu(2);
	long sa = M * K + 2, sb = K * N + 1, sc = M * N + 4;
	double *a = randn(21, sa * COUNT), *b = randn(22, sb * COUNT), *c = randn(23, sc * COUNT);
	void *da = to_dev(ctx, RT_F64, a, sa * COUNT), *db = to_dev(ctx, RT_F64, b, sb * COUNT);
	void *dc = to_dev(ctx, RT_F64, c, sc * COUNT);
	double *got;
	(void)state;
	/* ldc below n: refused before anything is written */
	assert_int_equal(ops->gemm_batched(ctx, RT_F64, RT_FP64, 0, 0, M, N, K, 0.5, da, K, sa, db,
					   N, sb, 2.0, dc, N - 1, sc, COUNT),
			 RT_EINVAL);
	assert_int_equal(ops->gemm_batched(ctx, RT_F64, RT_FP64, 0, 0, M, N, K, 0.5, da, K, sa, db,
					   N, sb, 2.0, dc, N, sc, COUNT),
			 0);
	for (int i = 0; i < COUNT; i++)
		naive_gemm(0, 0, M, N, K, 0.5, a + i * sa, K, b + i * sb, N, 2.0, c + i * sc, N);
	got = from_dev(ctx, RT_F64, dc, sc * COUNT);
	assert_close(got, c, sc * COUNT, 1e-13, 1e-12, "batched C");
	free(got);
	ops->free(ctx, da);
	ops->free(ctx, db);
	ops->free(ctx, dc);
	free(a);
	free(b);
	free(c);
	ops->close(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_every_item_once),
		cmocka_unit_test(test_pool_rejects_zero_threads),
		cmocka_unit_test(test_device_info),
		cmocka_unit_test(test_upload_download),
		cmocka_unit_test(test_gemm_all_transposes),
		cmocka_unit_test(test_gemm_rejects),
		cmocka_unit_test(test_gemm_bf16),
		cmocka_unit_test(test_gemm_batched),
	};
	ops = rt_cpu_backend();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
