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

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/rng.h"
#include "../workloads/cpu_backend.h"
#include "../workloads/cpu_ctx.h"
#include "../workloads/kernels.h"
#include "../workloads/pool.h"
#include "../workloads/workload.h"

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

/* ---- device set-up shared by the workloads ---- */

/* The CPU backend with a memory query that fails or reports 1 GiB free, counting closes. */
static rt_backend_ops probed;
static int mem_rc, closes;

static int probed_mem_info(rt_ctx *ctx, uint64_t *total, uint64_t *free_bytes)
{
	(void)ctx;
	*total = 2ull << 30;
	*free_bytes = 1ull << 30;
	return mem_rc;
}

static void probed_close(rt_ctx *ctx)
{
	closes++;
	ops->close(ctx);
}

static const rt_backend_ops *probed_cpu(int rc)
{
	probed = *ops;
	probed.mem_info = probed_mem_info;
	probed.close = probed_close;
	mem_rc = rc;
	closes = 0;
	return &probed;
}

/*
 * rt_backend_open_checked: a precision the device lacks, a failed memory
 * query and too little memory each fail with their own code and words and
 * leave nothing open; a point that fits gets an open context.
 */
static void test_open_checked(void **state)
{
	(void)state;
	char err[RT_ERRLEN] = "";
	rt_ctx *ctx = (rt_ctx *)&ctx;
	const rt_backend_ops *be = probed_cpu(0);

	assert_int_equal(rt_backend_open_checked(be, 0, 1, RT_TF32, 1, &ctx, err, sizeof err),
			 RT_EUNAVAIL);
	assert_string_equal(err, "cpu device 0 does not offer tf32 GEMMs");
	assert_null(ctx);
	assert_int_equal(closes, 0); /* refused before opening */

	assert_int_equal(rt_backend_open_checked(be, 0, 1, RT_FP32, 3ull << 29, &ctx, err,
						 sizeof err),
			 RT_EINFEASIBLE);
	assert_string_equal(err, "needs 1.50 GiB, 1.00 GiB available");
	assert_null(ctx);
	assert_int_equal(closes, 1);

	be = probed_cpu(RT_EIO);
	assert_int_equal(rt_backend_open_checked(be, 0, 1, RT_FP32, 1, &ctx, err, sizeof err),
			 RT_EIO);
	assert_string_equal(err, "cannot read the memory of cpu device 0");
	assert_null(ctx);
	assert_int_equal(closes, 1);

	be = probed_cpu(0);
	assert_int_equal(rt_backend_open_checked(be, 0, 2, RT_FP64, 1ull << 30, &ctx, err,
						 sizeof err),
			 0);
	assert_non_null(ctx);
	assert_int_equal(rt_pool_size(rt_cpu_ctx_pool(ctx)), 2);
	be->close(ctx);
}

/*
 * Every workload sets its device up through that helper: each refuses a
 * precision the device lacks at setup, fails when the memory query fails,
 * and leaves its context closed either way.
 */
static void test_workloads_set_up_alike(void **state)
{
	(void)state;
	int n;
	const rt_workload *const *list = rt_workload_list(&n);
	assert_true(n >= 3);
	for (int i = 0; i < n; i++) {
		const rt_workload *w = list[i];
		rt_point pt;
		rt_shape sh;
		void *st = NULL;
		char err[RT_ERRLEN] = "";
		rt_point_default(&pt);
		rt_shape_default(w, &sh);
		pt.batch = 2;
		pt.precision = RT_TF32;
		assert_int_equal(w->setup(&pt, &sh, probed_cpu(0), &st, err, sizeof err),
				 RT_EUNAVAIL);
		assert_non_null(strstr(err, "does not offer tf32 GEMMs"));
		assert_null(st);
		pt.precision = RT_FP32;
		assert_int_equal(w->setup(&pt, &sh, probed_cpu(RT_EIO), &st, err, sizeof err),
				 RT_EIO);
		assert_non_null(strstr(err, "cannot read the memory of cpu device 0"));
		assert_null(st);
		assert_int_equal(closes, 1);
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
		assert_int_equal(rt_pool_create(nt, RT_POOL_SPIN_KERNELS, &pool, NULL, 0), 0);
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

/*
 * Jobs posted after the workers have given up polling and gone to sleep
 * (and right after one another, while they poll) still run every item once:
 * the sleep/wake hand-over loses no job.
 */
static void test_pool_wakes_sleeping_workers(void **state)
{
	rt_pool *pool = NULL;
	(void)state;
	assert_int_equal(rt_pool_create(3, RT_POOL_SPIN_KERNELS, &pool, NULL, 0), 0);
	for (int rep = 0; rep < 40; rep++) {
		int hits[7] = {0};
		count_job job = {hits};
		struct timespec pause = {0, (rep % 4) * 150000L}; /* 0 to 450 us */
		nanosleep(&pause, NULL);
		rt_pool_run(pool, count_items, &job, RT_COUNT(hits));
		for (size_t i = 0; i < RT_COUNT(hits); i++)
			assert_int_equal(hits[i], 1);
	}
	rt_pool_destroy(pool);
}

static void test_pool_rejects_zero_threads(void **state)
{
	char err[RT_ERRLEN] = "";
	rt_pool *pool = (rt_pool *)1;
	(void)state;
	assert_int_equal(rt_pool_create(0, RT_POOL_SPIN_KERNELS, &pool, err, sizeof err),
			 RT_EINVAL);
	assert_null(pool);
	assert_string_equal(err, "a pool needs at least 1 thread, not 0");
	pool = (rt_pool *)1;
	assert_int_equal(rt_pool_create(2, -1e-6, &pool, err, sizeof err), RT_EINVAL);
	assert_null(pool);
	assert_string_equal(err, "a pool's spin time must be >= 0, not -1e-06");
}

/* Each thread of rt_pool_run_each records which index and count it was given. */
static void mark_index(void *arg, int index, int nthreads)
{
	int *seen = arg;
	__atomic_fetch_add(&seen[index], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&seen[7], nthreads, __ATOMIC_RELAXED);
}

/*
 * rt_pool_run_each runs the job once on every thread with its own index and
 * the pool's size, whatever the spin time: 0 (every wait ends asleep), the
 * kernels' and the environments'; a NULL pool runs it once inline.
 */
static void test_pool_run_each(void **state)
{
	static const double spins[] = {0, RT_POOL_SPIN_KERNELS, RT_POOL_SPIN_ENVS};
	(void)state;
	for (size_t s = 0; s < RT_COUNT(spins); s++) {
		for (int nt = 1; nt <= 4; nt++) {
			rt_pool *pool = NULL;
			assert_int_equal(rt_pool_create(nt, spins[s], &pool, NULL, 0), 0);
			for (int rep = 0; rep < 20; rep++) {
				int seen[8] = {0};
				rt_pool_run_each(pool, mark_index, seen);
				for (int i = 0; i < 7; i++)
					assert_int_equal(seen[i], i < nt ? 1 : 0);
				assert_int_equal(seen[7], nt * nt);
			}
			rt_pool_destroy(pool);
		}
	}
	int seen[8] = {0};
	rt_pool_run_each(NULL, mark_index, seen);
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 0);
	assert_int_equal(seen[7], 1);
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

/*
 * gemm_batched2: matrix (i, j) of an outer x inner batch at i * outer
 * stride + j * inner stride (the outer matrices side by side in the rows,
 * as attention's heads) computes each product there and nothing between;
 * a negative outer stride and more than 2^31 matrices are refused.
 */
static void test_gemm_batched2(void **state)
{
	enum { M = 4, N = 3, K = 5, OUTER = 3, INNER = 2 };
	rt_ctx *ctx = open_cpu(2);
	const int lda = OUTER * K + 1, ldb = OUTER * N, ldc = OUTER * N + 2;
	const rt_batch2 bt = {OUTER, INNER, K, (long)M * lda, N, (long)K * ldb + 3, N,
			      (long)M * ldc};
	const long na = bt.a_inner * INNER, nb = bt.b_inner * INNER, nc = bt.c_inner * INNER;
	double *a = randn(31, na), *b = randn(32, nb), *c = randn(33, nc);
	void *da = to_dev(ctx, RT_F64, a, na), *db = to_dev(ctx, RT_F64, b, nb);
	void *dc = to_dev(ctx, RT_F64, c, nc);
	(void)state;
	assert_int_equal(ops->gemm_batched2(ctx, RT_F64, RT_FP64, 0, 0, M, N, K, 0.5, da, lda, db,
					    ldb, 2.0, dc, ldc, &bt),
			 0);
	for (int i = 0; i < OUTER; i++)
		for (int j = 0; j < INNER; j++)
			naive_gemm(0, 0, M, N, K, 0.5, a + i * bt.a_outer + j * bt.a_inner, lda,
				   b + i * bt.b_outer + j * bt.b_inner, ldb, 2.0,
				   c + i * bt.c_outer + j * bt.c_inner, ldc);
	double *got = from_dev(ctx, RT_F64, dc, nc);
	assert_close(got, c, nc, 1e-13, 1e-12, "two-level C");
	free(got);
	rt_batch2 bad = bt;
	bad.c_outer = -1;
	assert_int_equal(ops->gemm_batched2(ctx, RT_F64, RT_FP64, 0, 0, M, N, K, 0.5, da, lda, db,
					    ldb, 2.0, dc, ldc, &bad),
			 RT_EINVAL);
	bad = bt;
	bad.outer = 1 << 16, bad.inner = 1 << 15;
	assert_int_equal(ops->gemm_batched2(ctx, RT_F64, RT_FP64, 0, 0, M, N, K, 0.5, da, lda, db,
					    ldb, 2.0, dc, ldc, &bad),
			 RT_EINVAL);
	ops->free(ctx, da);
	ops->free(ctx, db);
	ops->free(ctx, dc);
	free(a), free(b), free(c);
	ops->close(ctx);
}

/*
 * A tall GEMM, which 2- and 3-thread contexts split by rows over their pool
 * (1000 rows: the last part is not a whole row block), is the product for
 * both types, every transpose and a beta that reads C, and every row's
 * rounding is that of one OpenBLAS call (within a few ulps of the 1-thread
 * C: where its rows start a part, OpenBLAS's kernels may add in another
 * order, as its own threads do). Shapes whose parts would be too short or
 * too wide stay whole.
 */
static void test_gemm_row_split(void **state)
{
	enum { M = 1000, N = 40, K = 72, LDC = N + 3 };
	double *a = randn(41, M * K), *b = randn(42, K * N), *c = randn(43, M * LDC);
	(void)state;
	assert_true(rt_cpu_gemm_splits_rows(2, RT_FP32, M, N, K));
	assert_true(rt_cpu_gemm_splits_rows(3, RT_FP64, M, N, K));
	assert_false(rt_cpu_gemm_splits_rows(1, RT_FP32, M, N, K));
	assert_false(rt_cpu_gemm_splits_rows(4, RT_FP32, M, N, K)); /* 250 rows each */
	assert_false(rt_cpu_gemm_splits_rows(2, RT_FP32, M, 600, K)); /* wider than its rows */
	assert_false(rt_cpu_gemm_splits_rows(2, RT_BF16, M, N, K));
	for (int ti = 0; ti < 2; ti++) {
		rt_dtype t = ti ? RT_F64 : RT_F32;
		rt_precision p = ti ? RT_FP64 : RT_FP32;
		const double ulps = 8 * (ti ? DBL_EPSILON : FLT_EPSILON) * K;
		for (int tr = 0; tr < 4; tr++) {
			int ta = tr & 1, tb = tr >> 1, lda = ta ? M : K, ldb = tb ? K : N;
			rt_ctx *one = open_cpu(1);
			void *da = to_dev(one, t, a, M * K), *db = to_dev(one, t, b, K * N);
			void *want = to_dev(one, t, c, M * LDC);
			double *ref = malloc(M * LDC * sizeof *ref), *got;
			assert_non_null(ref);
			assert_int_equal(ops->gemm(one, t, p, ta, tb, M, N, K, 0.75, da, lda, db, ldb,
						   -0.5, want, LDC),
					 0);
			memcpy(ref, c, M * LDC * sizeof *ref);
			naive_gemm(ta, tb, M, N, K, 0.75, a, lda, b, ldb, -0.5, ref, LDC);
			got = from_dev(one, t, want, M * LDC);
			assert_close(got, ref, M * LDC, ti ? 1e-12 : 1e-4, ti ? 1e-12 : 1e-4,
				     "gemm C");
			for (int nt = 2; nt <= 3; nt++) {
				rt_ctx *ctx = open_cpu(nt);
				void *dc = to_dev(ctx, t, c, M * LDC);
				double *split;
				assert_int_equal(ops->gemm(ctx, t, p, ta, tb, M, N, K, 0.75, da, lda,
							   db, ldb, -0.5, dc, LDC),
						 0);
				split = from_dev(ctx, t, dc, M * LDC);
				assert_close(split, got, M * LDC, ulps, ulps, "split C");
				free(split);
				ops->free(ctx, dc);
				ops->close(ctx);
			}
			void *bufs[] = {da, db, want};
			for (size_t i = 0; i < RT_COUNT(bufs); i++)
				ops->free(one, bufs[i]);
			ops->close(one);
			free(got);
			free(ref);
		}
	}
	free(a);
	free(b);
	free(c);
}

/* ---- elementwise kernels: forward against scalar formulas ---- */

static double gelu_ref(double x)
{
	return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static double tol_of(rt_dtype t)
{
	return t == RT_F64 ? 1e-12 : 2e-5;
}

/*
 * Sizes large enough that a 2-thread context splits the work (above the
 * inline threshold), odd so that vector remainders run.
 */
enum { ROWS = 67, COLS = 517, N = ROWS * COLS };

/*
 * Batches of small fp32 GEMMs (which the backend spreads over its pool) give
 * bitwise the C of one gemm call per matrix at threads=1, for 1, 2 and 3
 * threads, both transposes of B and a beta that reads C; and that C is the
 * product (so a wrong offset cannot hide behind identical wrong answers).
 */
static void test_gemm_batched_pool_bitwise(void **state)
{
	enum { M = 32, N = 24, K = 40, COUNT = 90 };
	long sa = M * K + 3, sb = K * N + 5, sc = M * N + 2;
	double *a = randn(31, sa * COUNT), *b = randn(32, sb * COUNT), *c = randn(33, sc * COUNT);
	(void)state;
	for (int tb = 0; tb < 2; tb++) {
		int ldb = tb ? K : N;
		rt_ctx *one = open_cpu(1);
		void *da = to_dev(one, RT_F32, a, sa * COUNT), *db = to_dev(one, RT_F32, b, sb * COUNT);
		float *want = to_dev(one, RT_F32, c, sc * COUNT);
		double *ref = malloc(sc * COUNT * sizeof *ref), *got;
		assert_non_null(ref);
		for (int i = 0; i < COUNT; i++)
			assert_int_equal(ops->gemm(one, RT_F32, RT_FP32, 0, tb, M, N, K, 0.75,
						   (float *)da + i * sa, K, (float *)db + i * sb,
						   ldb, -0.5, want + i * sc, N),
					 0);
		memcpy(ref, c, sc * COUNT * sizeof *ref);
		for (int i = 0; i < COUNT; i++)
			naive_gemm(0, tb, M, N, K, 0.75, a + i * sa, K, b + i * sb, ldb, -0.5,
				   ref + i * sc, N);
		got = from_dev(one, RT_F32, want, sc * COUNT);
		assert_close(got, ref, sc * COUNT, 1e-4, 1e-4, "loop of gemm");
		for (int nt = 1; nt <= 3; nt++) {
			rt_ctx *ctx = open_cpu(nt);
			float *dc = to_dev(ctx, RT_F32, c, sc * COUNT);
			assert_int_equal(ops->gemm_batched(ctx, RT_F32, RT_FP32, 0, tb, M, N, K, 0.75,
							   da, K, sa, db, ldb, sb, -0.5, dc, N,
							   sc, COUNT),
					 0);
			if (memcmp(dc, want, sc * COUNT * sizeof *dc) != 0)
				fail_msg("gemm_batched at threads=%d, transb=%d differs from the loop",
					 nt, tb);
			ops->free(ctx, dc);
			ops->close(ctx);
		}
		free(got);
		free(ref);
		ops->free(one, want);
		ops->free(one, db);
		ops->free(one, da);
		ops->close(one);
	}
	free(a);
	free(b);
	free(c);
}

static void test_elementwise_forward(void **state)
{
	(void)state;
	for (int ti = 0; ti < 2; ti++) {
		rt_dtype t = ti ? RT_F64 : RT_F32;
		double tol = tol_of(t);
		rt_ctx *ctx = open_cpu(2);
		double *x = randn(31, N), *y0 = randn(32, N), *bias = randn(33, COLS);
		double *want = malloc(N * sizeof *want), *got;
		void *dx = to_dev(ctx, t, x, N), *dy = to_dev(ctx, t, y0, N);
		void *db = to_dev(ctx, t, bias, COLS);

		assert_int_equal(ops->fill(ctx, t, dy, N, 0.375), 0);
		got = from_dev(ctx, t, dy, N);
		for (size_t i = 0; i < N; i++)
			assert_true(got[i] == 0.375);
		free(got);

		for (int bzero = 0; bzero < 2; bzero++) {
			double b = bzero ? 0.0 : -0.5;
			for (size_t i = 0; i < N; i++)
				want[i] = 1.5 * x[i] + b * y0[i];
			ops->free(ctx, dy);
			dy = to_dev(ctx, t, y0, N);
			if (bzero) /* b == 0 must not read y: NaN there must not leak */
				for (size_t i = 0; i < N; i += 7) {
					if (t == RT_F64)
						((double *)dy)[i] = NAN;
					else
						((float *)dy)[i] = NAN;
				}
			assert_int_equal(ops->axpby(ctx, t, N, 1.5, dx, b, dy), 0);
			got = from_dev(ctx, t, dy, N);
			assert_close(got, want, N, tol, tol, "axpby");
			free(got);
		}

		ops->free(ctx, dy);
		dy = to_dev(ctx, t, x, N);
		assert_int_equal(ops->add_bias(ctx, t, ROWS, COLS, db, dy), 0);
		for (size_t i = 0; i < N; i++)
			want[i] = x[i] + bias[i % COLS];
		got = from_dev(ctx, t, dy, N);
		assert_close(got, want, N, tol, tol, "add_bias");
		free(got);

		assert_int_equal(ops->sum_rows(ctx, t, ROWS, COLS, dx, db), 0);
		for (int c = 0; c < COLS; c++) {
			want[c] = 0;
			for (int r = 0; r < ROWS; r++)
				want[c] += x[r * COLS + c];
		}
		got = from_dev(ctx, t, db, COLS);
		assert_close(got, want, COLS, tol, tol * 10, "sum_rows");
		free(got);

		assert_int_equal(ops->gelu(ctx, t, N, dx, dy), 0);
		for (size_t i = 0; i < N; i++)
			want[i] = gelu_ref(x[i]);
		got = from_dev(ctx, t, dy, N);
		assert_close(got, want, N, tol, tol, "gelu");
		free(got);

		assert_int_equal(ops->tanh_fwd(ctx, t, N, dx, dy), 0);
		for (size_t i = 0; i < N; i++)
			want[i] = tanh(x[i]);
		got = from_dev(ctx, t, dy, N);
		assert_close(got, want, N, tol, tol, "tanh");
		free(got);

		ops->free(ctx, dx);
		ops->free(ctx, dy);
		ops->free(ctx, db);
		free(x);
		free(y0);
		free(bias);
		free(want);
		ops->close(ctx);
	}
}

/* ---- the fp32 tanh approximation against libm's double tanh ---- */

enum { SWEEP_STEPS = 1 << 19 };

/*
 * Float values (as doubles) for the fp32 tanh tests, each followed by its
 * negation: a grid of step 40 / SWEEP_STEPS over (0, 20], the powers of two
 * from 1/2 down to the least subnormal, and special points (zero, around the
 * clamp at |x| = 10, where tanh rounds to 1 in float, huge, infinite).
 * *ngrid is how many lead the array and lie within [-20, 20].
 */
static double *tanh_sweep(size_t *n, size_t *ngrid)
{
	static const float special[] = {0.0f, 9.0f, 9.01f, 9.1f, 10.0f, 0x1.3ffffep+3f,
					0x1.400002p+3f, 100.0f, 1e30f, FLT_MAX, INFINITY};
	const size_t np2 = 149, ns = RT_COUNT(special);
	double *x = malloc(2 * (SWEEP_STEPS + np2 + ns) * sizeof *x);
	size_t k = 0;
	assert_non_null(x);
	for (size_t i = 1; i <= SWEEP_STEPS; i++)
		x[k++] = (float)(20.0 * (double)i / SWEEP_STEPS);
	for (size_t e = 1; e <= np2; e++)
		x[k++] = ldexp(1.0, -(int)e);
	*ngrid = 2 * k;
	for (size_t i = 0; i < ns; i++)
		x[k++] = special[i];
	for (size_t i = k; i-- > 0;) {
		x[2 * i] = x[i];
		x[2 * i + 1] = -x[i];
	}
	*n = 2 * k;
	return x;
}

/*
 * tanh_fwd in fp32: within kernels.h's bound of tanh((double)x) everywhere,
 * odd to the bit, +-0 kept, exactly +-1 from |x| = 9.1 on, NaN kept.
 */
static void test_tanh_f32_accuracy(void **state)
{
	size_t n, ngrid;
	double *x = tanh_sweep(&n, &ngrid), *got, nan = NAN;
	rt_ctx *ctx = open_cpu(2);
	void *dx = to_dev(ctx, RT_F32, x, n), *dy = to_dev(ctx, RT_F32, x, n);
	(void)state;

	assert_int_equal(ops->tanh_fwd(ctx, RT_F32, n, dx, dy), 0);
	got = from_dev(ctx, RT_F32, dy, n);
	for (size_t i = 0; i < n; i++) {
		const double want = tanh(x[i]);
		if (!(fabs(got[i] - want) <= RT_TANH_F32_RTOL * fabs(want) + RT_TANH_F32_ATOL))
			fail_msg("tanh_f32(%.9g) = %.9g, want %.9g", x[i], got[i], want);
		if (i % 2 && !(got[i] == -got[i - 1] && !signbit(got[i]) == !signbit(x[i])))
			fail_msg("tanh_f32(%.9g) = %.9g, tanh_f32(%.9g) = %.9g: not odd", x[i],
				 got[i], x[i - 1], got[i - 1]);
		if (fabs(x[i]) >= 9.1 && fabs(got[i]) != 1.0)
			fail_msg("tanh_f32(%.9g) = %.9g, want +-1 exactly", x[i], got[i]);
		/* a tiny x keeps its relative accuracy (the absolute bound would not see it) */
		if (fabs(x[i]) < 1e-3 && x[i] != 0 && !(fabs(got[i] / x[i] - 1) < 1e-6))
			fail_msg("tanh_f32(%.9g) = %.9g", x[i], got[i]);
	}
	/* the specials start with +0, -0 */
	assert_true(got[ngrid] == 0.0 && !signbit(got[ngrid]));
	assert_true(got[ngrid + 1] == 0.0 && signbit(got[ngrid + 1]));
	free(got);

	ops->free(ctx, dx);
	dx = to_dev(ctx, RT_F32, &nan, 1);
	assert_int_equal(ops->tanh_fwd(ctx, RT_F32, 1, dx, dy), 0);
	assert_true(isnan(*(float *)dy));
	ops->free(ctx, dx);
	ops->free(ctx, dy);
	free(x);
	ops->close(ctx);
}

/*
 * gelu in fp32 on the sweep's grid against gelu_ref in double. The bound
 * is the tanh bound carried through 0.5 x (1 + tanh u) (a term of
 * 0.5 |x| RT_TANH_F32_ATOL where 1 + tanh u cancels, for x < 0) plus float
 * rounding of u and of the products: 4e-7 |gelu| + 0.5 |x| (1e-7 + 2e-7),
 * and the float's least subnormal (0.5 x underflows for the least x); the
 * measured maximum on this grid is a third of the bound.
 */
static void test_gelu_f32_accuracy(void **state)
{
	size_t n, ngrid;
	double *x = tanh_sweep(&n, &ngrid), *got;
	rt_ctx *ctx = open_cpu(2);
	void *dx = to_dev(ctx, RT_F32, x, ngrid), *dy = to_dev(ctx, RT_F32, x, ngrid);
	(void)state;

	assert_int_equal(ops->gelu(ctx, RT_F32, ngrid, dx, dy), 0);
	got = from_dev(ctx, RT_F32, dy, ngrid);
	for (size_t i = 0; i < ngrid; i++) {
		const double want = gelu_ref(x[i]);
		const double bound = 4e-7 * fabs(want) +
				     0.5 * fabs(x[i]) * (RT_TANH_F32_ATOL + 2e-7) + FLT_TRUE_MIN;
		if (!(fabs(got[i] - want) <= bound))
			fail_msg("gelu_f32(%.9g) = %.9g, want %.9g", x[i], got[i], want);
	}
	free(got);
	ops->free(ctx, dx);
	ops->free(ctx, dy);
	free(x);
	ops->close(ctx);
}

/*
 * gelu_backward in fp32 against the fp64 kernel (libm tanh, checked by
 * finite differences below) on the same float-valued x and dy, for x ~
 * N(0, 1) and x ~ N(0, 9) (the tails). The derivative crosses zero near
 * x = -0.75, where its terms (up to about |dy| in size) cancel, so the
 * error is measured against |dx| + |dy|: 1e-6 of it. For x < -3 the float
 * 1 - tanh^2 u keeps only the absolute accuracy of tanh u near -1, scaled by
 * |x| K0 (1 + 3 K1 x^2): that term joins the bound (with libm's tanhf the
 * error there is 0.4x as large; for both the bound holds with a margin of
 * 2 on 10^7 samples).
 */
static void test_gelu_backward_f32_vs_f64(void **state)
{
	rt_ctx *ctx = open_cpu(2);
	(void)state;
	for (int tails = 0; tails < 2; tails++) {
		double *x = randn(35, N), *g = randn(36, N), *got, *want;
		void *dx, *dg, *out;
		for (size_t i = 0; i < N; i++) {
			x[i] = (float)(tails ? 3 * x[i] : x[i]);
			g[i] = (float)g[i];
		}
		dx = to_dev(ctx, RT_F64, x, N);
		dg = to_dev(ctx, RT_F64, g, N);
		out = to_dev(ctx, RT_F64, x, N);
		assert_int_equal(ops->gelu_backward(ctx, RT_F64, N, dx, dg, out), 0);
		want = from_dev(ctx, RT_F64, out, N);
		ops->free(ctx, dx);
		ops->free(ctx, dg);
		ops->free(ctx, out);

		dx = to_dev(ctx, RT_F32, x, N);
		dg = to_dev(ctx, RT_F32, g, N);
		out = to_dev(ctx, RT_F32, x, N);
		assert_int_equal(ops->gelu_backward(ctx, RT_F32, N, dx, dg, out), 0);
		got = from_dev(ctx, RT_F32, out, N);
		for (size_t i = 0; i < N; i++) {
			const double ax = fabs(x[i]);
			const double tail = tails ? ax * RT_GELU_K0 * (1 + 3 * RT_GELU_K1 * ax * ax)
						  : 0;
			if (!(fabs(got[i] - want[i]) <=
			      1e-6 * (fabs(want[i]) + fabs(g[i]) * (1 + tail))))
				fail_msg("gelu_backward_f32(x=%.9g, dy=%.9g) = %.9g, fp64 %.9g",
					 x[i], g[i], got[i], want[i]);
		}
		free(got);
		free(want);
		ops->free(ctx, dx);
		ops->free(ctx, dg);
		ops->free(ctx, out);
		free(x);
		free(g);
	}
	ops->close(ctx);
}

/*
 * The fp32 exp that softmax uses (kernels.h), through rows [0, y]: the row's
 * maximum is 0, so y0 = 1 / (1 + exp y) and y1 = exp y / (1 + exp y). On a
 * grid over [-87, 0] and at the edges of the clamp, both are within
 * RT_EXP_F32_RTOL of their double values, plus the two float roundings of
 * the normalization (2^-23) and, below -87 where exp flushes to 0, an
 * absolute 2e-38; exp(-inf) is 0 and a NaN stays NaN.
 */
static void test_softmax_exp_f32_accuracy(void **state)
{
	static const float edge[] = {-0.0f, -86.99999f, -87.0f, -87.00001f, -88.0f, -103.0f,
				     -1e30f, -INFINITY, NAN};
	const size_t ne = RT_COUNT(edge), n = SWEEP_STEPS + 1 + ne;
	double *x = malloc(2 * n * sizeof *x), *got;
	rt_ctx *ctx = open_cpu(2);
	void *dx, *dy;
	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < n; i++) {
		x[2 * i] = 0;
		x[2 * i + 1] = i <= SWEEP_STEPS ? (float)(-87.0 * (double)i / SWEEP_STEPS)
						: edge[i - SWEEP_STEPS - 1];
	}
	dx = to_dev(ctx, RT_F32, x, 2 * n);
	dy = to_dev(ctx, RT_F32, x, 2 * n);
	assert_int_equal(ops->softmax(ctx, RT_F32, (int)n, 2, 1.0, 0, dx, dy), 0);
	got = from_dev(ctx, RT_F32, dy, 2 * n);
	for (size_t i = 0; i + 1 < n; i++) {
		const double e = exp(x[2 * i + 1]), want[2] = {1 / (1 + e), e / (1 + e)};
		for (int c = 0; c < 2; c++)
			if (!(fabs(got[2 * i + c] - want[c]) <=
			      (RT_EXP_F32_RTOL + 0x1p-23) * want[c] + 2e-38))
				fail_msg("softmax_f32([0, %.9g])[%d] = %.9g, want %.9g",
					 x[2 * i + 1], c, got[2 * i + c], want[c]);
	}
	assert_true(got[2 * (n - 2)] == 1.0 && got[2 * (n - 2) + 1] == 0.0); /* -inf */
	assert_true(isnan(got[2 * (n - 1) + 1]));
	free(got);
	free(x);
	ops->free(ctx, dx);
	ops->free(ctx, dy);
	ops->close(ctx);
}

/* v rounded to the storage type t. */
static double round_to(rt_dtype t, double v)
{
	return t == RT_F64 ? v : (double)(float)v;
}

/*
 * sum_rows and layernorm_backward's dgamma and dbeta add each column in row
 * order, in double, into a value rounded to T once: bitwise a plain loop
 * over the rows (the kernels take four rows at a time; ROWS = 67 leaves a
 * remainder). dgamma's terms are dy (x - mean) rstd computed in T.
 */
static void test_column_sums_in_row_order(void **state)
{
	(void)state;
	for (int ti = 0; ti < 2; ti++) {
		rt_dtype t = ti ? RT_F64 : RT_F32;
		rt_ctx *ctx = open_cpu(2);
		double *x0 = randn(91, N), *d0 = randn(92, N), *s0 = randn(93, 2 * ROWS);
		double *p0 = randn(94, 2 * COLS), *x, *d, *st, *p, *got;
		void *bx = to_dev(ctx, t, x0, N), *bd = to_dev(ctx, t, d0, N);
		void *bm = to_dev(ctx, t, s0, ROWS), *br = to_dev(ctx, t, s0 + ROWS, ROWS);
		void *bg = to_dev(ctx, t, p0, COLS), *bb = to_dev(ctx, t, p0 + COLS, COLS);
		void *bs = to_dev(ctx, t, p0, COLS), *bdx = to_dev(ctx, t, d0, N);
		/* the stored values, which the sums must reproduce to the bit */
		x = from_dev(ctx, t, bx, N);
		d = from_dev(ctx, t, bd, N);
		st = from_dev(ctx, t, bm, ROWS);
		p = from_dev(ctx, t, bg, COLS);
		double *rs = from_dev(ctx, t, br, ROWS), *beta0 = from_dev(ctx, t, bb, COLS);

		assert_int_equal(ops->sum_rows(ctx, t, ROWS, COLS, bd, bs), 0);
		got = from_dev(ctx, t, bs, COLS);
		for (int c = 0; c < COLS; c++) {
			double acc = 0;
			for (int r = 0; r < ROWS; r++)
				acc += d[r * COLS + c];
			assert_true(got[c] == round_to(t, acc));
		}
		free(got);

		assert_int_equal(ops->layernorm_backward(ctx, t, ROWS, COLS, bx, bg, bm, br, bd,
							 bdx, bg, bb),
				 0);
		double *dg = from_dev(ctx, t, bg, COLS), *db = from_dev(ctx, t, bb, COLS);
		for (int c = 0; c < COLS; c++) {
			double ag = 0, ab = 0;
			for (int r = 0; r < ROWS; r++) {
				const size_t i = (size_t)r * COLS + c;
				if (t == RT_F32)
					ag += (float)d[i] * (((float)x[i] - (float)st[r]) * (float)rs[r]);
				else
					ag += d[i] * ((x[i] - st[r]) * rs[r]);
				ab += d[i];
			}
			assert_true(dg[c] == round_to(t, p[c] + ag));
			assert_true(db[c] == round_to(t, beta0[c] + ab));
		}
		free(dg);
		free(db);
		void *bufs[] = {bx, bd, bm, br, bg, bb, bs, bdx};
		for (size_t i = 0; i < RT_COUNT(bufs); i++)
			ops->free(ctx, bufs[i]);
		double *host[] = {x0, d0, s0, p0, x, d, st, p, rs, beta0};
		for (size_t i = 0; i < RT_COUNT(host); i++)
			free(host[i]);
		ops->close(ctx);
	}
}

/* softmax: the formula, rows sum to 1, masked entries exactly 0. */
static void test_softmax(void **state)
{
	enum { BLOCK = 9, SR = 4 * BLOCK, SC = BLOCK };
	(void)state;
	for (int ti = 0; ti < 2; ti++) {
		rt_dtype t = ti ? RT_F64 : RT_F32;
		rt_ctx *ctx = open_cpu(2);
		double *x = randn(41, N), *got, want[COLS];
		void *dx = to_dev(ctx, t, x, N), *dy = to_dev(ctx, t, x, N);
		const double scale = 0.7;

		assert_int_equal(ops->softmax(ctx, t, ROWS, COLS, scale, 0, dx, dy), 0);
		got = from_dev(ctx, t, dy, N);
		for (int r = 0; r < ROWS; r++) {
			double mx = -INFINITY, sum = 0, total = 0;
			for (int c = 0; c < COLS; c++)
				mx = fmax(mx, scale * x[r * COLS + c]);
			for (int c = 0; c < COLS; c++)
				sum += want[c] = exp(scale * x[r * COLS + c] - mx);
			for (int c = 0; c < COLS; c++) {
				want[c] /= sum;
				total += got[r * COLS + c];
			}
			assert_close(got + r * COLS, want, COLS, tol_of(t), 1e-9, "softmax");
			assert_true(fabs(total - 1) < (t == RT_F64 ? 1e-12 : 1e-5));
		}
		free(got);

		assert_int_equal(ops->softmax(ctx, t, SR, SC, scale, BLOCK, dx, dy), 0);
		got = from_dev(ctx, t, dy, SR * SC);
		for (int r = 0; r < SR; r++) {
			double total = 0;
			for (int c = 0; c < SC; c++) {
				double v = got[r * SC + c];
				if (c > r % BLOCK)
					assert_true(v == 0.0 && !signbit(v));
				else
					assert_true(v > 0);
				total += v;
			}
			assert_true(fabs(total - 1) < (t == RT_F64 ? 1e-12 : 1e-5));
		}
		/* row 0 of each block has one live entry */
		assert_true(got[BLOCK * SC] == 1.0);
		free(got);
		assert_int_equal(ops->softmax(ctx, t, SR, SC, scale, -1, dx, dy), RT_EINVAL);
		ops->free(ctx, dx);
		ops->free(ctx, dy);
		free(x);
		ops->close(ctx);
	}
}

/* layernorm with gamma = 1, beta = 0: each row has mean 0 and variance 1. */
static void test_layernorm_normalizes(void **state)
{
	(void)state;
	for (int ti = 0; ti < 2; ti++) {
		rt_dtype t = ti ? RT_F64 : RT_F32;
		rt_ctx *ctx = open_cpu(2);
		double *x = randn(51, N), *ones = malloc(COLS * sizeof *ones), *zeros;
		double *got, *mean, *rstd;
		void *dx, *dg, *dbt, *dy, *dm, *dr;
		for (int c = 0; c < COLS; c++)
			ones[c] = 1;
		zeros = calloc(COLS, sizeof *zeros);
		for (size_t i = 0; i < N; i++)
			x[i] = 3 * x[i] + 5; /* mean 5, sd 3 */
		dx = to_dev(ctx, t, x, N);
		dy = to_dev(ctx, t, x, N);
		dg = to_dev(ctx, t, ones, COLS);
		dbt = to_dev(ctx, t, zeros, COLS);
		dm = to_dev(ctx, t, zeros, ROWS);
		dr = to_dev(ctx, t, zeros, ROWS);
		assert_int_equal(ops->layernorm(ctx, t, ROWS, COLS, dx, dg, dbt, dy, dm, dr), 0);
		got = from_dev(ctx, t, dy, N);
		mean = from_dev(ctx, t, dm, ROWS);
		rstd = from_dev(ctx, t, dr, ROWS);
		for (int r = 0; r < ROWS; r++) {
			double s = 0, ss = 0, mu = 0, var = 0;
			for (int c = 0; c < COLS; c++)
				mu += x[r * COLS + c] / COLS;
			for (int c = 0; c < COLS; c++)
				var += (x[r * COLS + c] - mu) * (x[r * COLS + c] - mu) / COLS;
			assert_true(fabs(mean[r] - mu) < 1e-5 * fabs(mu));
			assert_true(fabs(rstd[r] - 1 / sqrt(var + 1e-5)) < 1e-5 * rstd[r]);
			for (int c = 0; c < COLS; c++) {
				s += got[r * COLS + c];
				ss += got[r * COLS + c] * got[r * COLS + c];
			}
			assert_true(fabs(s / COLS) < (t == RT_F64 ? 1e-12 : 1e-5));
			/* variance 1 up to eps: var / (var + 1e-5) */
			assert_true(fabs(ss / COLS - var / (var + 1e-5)) < (t == RT_F64 ? 1e-10 : 1e-4));
		}
		free(got);
		free(mean);
		free(rstd);
		ops->free(ctx, dx);
		ops->free(ctx, dy);
		ops->free(ctx, dg);
		ops->free(ctx, dbt);
		ops->free(ctx, dm);
		ops->free(ctx, dr);
		free(x);
		free(ones);
		free(zeros);
		ops->close(ctx);
	}
}

static void test_mse_loss(void **state)
{
	(void)state;
	for (int ti = 0; ti < 2; ti++) {
		rt_dtype t = ti ? RT_F64 : RT_F32;
		rt_ctx *ctx = open_cpu(2);
		size_t n = 3 * 4096 * 3 + 17; /* several blocks, a partial one */
		double *p = randn(61, n), *tg = randn(62, n), *want = malloc(n * sizeof *want);
		double *got, loss_want = 0, *loss;
		void *dp = to_dev(ctx, t, p, n), *dt = to_dev(ctx, t, tg, n);
		/* the reference from the stored values: p - t cancels, so rounding matters */
		free(p);
		free(tg);
		p = from_dev(ctx, t, dp, n);
		tg = from_dev(ctx, t, dt, n);
		void *dg = to_dev(ctx, t, p, n), *dl = to_dev(ctx, t, p, 1);
		for (size_t i = 0; i < n; i++) {
			loss_want += (p[i] - tg[i]) * (p[i] - tg[i]) / n;
			want[i] = 2 * (p[i] - tg[i]) / n;
		}
		assert_int_equal(ops->mse_loss(ctx, t, n, dp, dt, dl, dg), 0);
		loss = from_dev(ctx, t, dl, 1);
		got = from_dev(ctx, t, dg, n);
		assert_close(loss, &loss_want, 1, tol_of(t), 0, "mse loss");
		assert_close(got, want, n, tol_of(t), 1e-15, "mse dp");
		assert_int_equal(ops->mse_loss(ctx, t, 0, dp, dt, dl, dg), RT_EINVAL);
		free(loss);
		free(got);
		free(want);
		free(p);
		free(tg);
		ops->free(ctx, dp);
		ops->free(ctx, dt);
		ops->free(ctx, dg);
		ops->free(ctx, dl);
		ops->close(ctx);
	}
}

/* One Adam step on three parameters, worked out by hand. */
static void test_adam_hand_step(void **state)
{
	/* step 2, b1 = 0.9, b2 = 0.99, lr = 0.1, eps = 1e-8; m0, v0 from step 1 */
	double w[3] = {1.0, -2.0, 0.5}, g[3] = {0.5, -1.0, 2.0};
	double m[3] = {0.1, 0.2, -0.3}, v[3] = {0.04, 0.01, 0.09};
	(void)state;
	for (int ti = 0; ti < 2; ti++) {
		rt_dtype t = ti ? RT_F64 : RT_F32;
		rt_ctx *ctx = open_cpu(1);
		void *dw = to_dev(ctx, t, w, 3), *dg = to_dev(ctx, t, g, 3);
		void *dm = to_dev(ctx, t, m, 3), *dv = to_dev(ctx, t, v, 3);
		double *gw, *gm, *gv;
		/*
		 * m = 0.9 m + 0.1 g = {0.14, 0.08, -0.07}
		 * v = 0.99 v + 0.01 g^2 = {0.0421, 0.0199, 0.1291}
		 * c1 = 1 - 0.81 = 0.19, c2 = 1 - 0.9801 = 0.0199
		 * w -= 0.1 (m / c1) / (sqrt(v / c2) + 1e-8)
		 */
		const double wm[3] = {0.14, 0.08, -0.07}, wv[3] = {0.0421, 0.0199, 0.1291};
		double ww[3];
		for (int i = 0; i < 3; i++)
			ww[i] = w[i] - 0.1 * (wm[i] / 0.19) / (sqrt(wv[i] / 0.0199) + 1e-8);
		/* the middle one: v / c2 = 1, so w = -2 - 0.1 * 0.08 / 0.19 */
		assert_true(fabs(ww[1] - (-2.0 - 0.1 * 0.08 / 0.19)) < 1e-7);
		assert_int_equal(ops->adam(ctx, t, 3, dw, dg, dm, dv, 0.1, 0.9, 0.99, 1e-8, 2), 0);
		gw = from_dev(ctx, t, dw, 3);
		gm = from_dev(ctx, t, dm, 3);
		gv = from_dev(ctx, t, dv, 3);
		double tol = t == RT_F64 ? 1e-12 : 1e-5;
		assert_close(gm, wm, 3, tol, tol, "adam m");
		assert_close(gv, wv, 3, tol, tol, "adam v");
		assert_close(gw, ww, 3, tol, tol, "adam w");
		assert_int_equal(ops->adam(ctx, t, 3, dw, dg, dm, dv, 0.1, 0.9, 0.99, 1e-8, 0),
				 RT_EINVAL);
		free(gw);
		free(gm);
		free(gv);
		ops->free(ctx, dw);
		ops->free(ctx, dg);
		ops->free(ctx, dm);
		ops->free(ctx, dv);
		ops->close(ctx);
	}
}

/* ---- backward kernels against central differences of the forward (fp64) ---- */

enum { FR = 5, FC = 7, FN_ = FR * FC, BLK = 5 };

/* Which forward the objective runs; params holds its differentiated inputs. */
typedef enum fd_op { FD_GELU, FD_TANH, FD_SOFTMAX, FD_SOFTMAX_CAUSAL, FD_LAYERNORM,
		     FD_MSE } fd_op;

typedef struct fd_case {
	rt_ctx *ctx;
	fd_op op;
	double *w;      /* weights of the outputs: L = sum w * out (dy of the backward) */
	double *target; /* mse */
} fd_case;

/*
 * L(params) = sum_i w[i] out[i] of the forward. For layernorm params is x,
 * then gamma, then beta (FN_ + 2 FC values); else x (FN_ values).
 */
static double fd_objective(const fd_case *fc, const double *params)
{
	double out[FN_], mean[FR], rstd[FR], loss = 0, l = 0;
	const double *x = params;
	rt_ctx *ctx = fc->ctx;
	int rc = 0;
	switch (fc->op) {
	case FD_GELU:
		rc = ops->gelu(ctx, RT_F64, FN_, x, out);
		break;
	case FD_TANH:
		rc = ops->tanh_fwd(ctx, RT_F64, FN_, x, out);
		break;
	case FD_SOFTMAX:
		rc = ops->softmax(ctx, RT_F64, FR, FC, 0.8, 0, x, out);
		break;
	case FD_SOFTMAX_CAUSAL:
		rc = ops->softmax(ctx, RT_F64, FR, FC, 0.8, BLK, x, out);
		break;
	case FD_LAYERNORM:
		rc = ops->layernorm(ctx, RT_F64, FR, FC, x, x + FN_, x + FN_ + FC, out, mean,
				    rstd);
		break;
	case FD_MSE:
		rc = ops->mse_loss(ctx, RT_F64, FN_, x, fc->target, &loss, out);
		assert_int_equal(rc, 0);
		return loss;
	}
	assert_int_equal(rc, 0);
	for (int i = 0; i < FN_; i++)
		l += fc->w[i] * out[i];
	return l;
}

/* Compares grad (np values) with central differences of fd_objective. */
static void fd_compare(const fd_case *fc, double *params, const double *grad, int np,
		       const char *what)
{
	const double h = 1e-5;
	for (int i = 0; i < np; i++) {
		double keep = params[i], lp, lm, num;
		params[i] = keep + h;
		lp = fd_objective(fc, params);
		params[i] = keep - h;
		lm = fd_objective(fc, params);
		params[i] = keep;
		num = (lp - lm) / (2 * h);
		if (fabs(num - grad[i]) > 1e-7 + 1e-6 * fabs(num))
			fail_msg("%s: d/dp[%d] = %.10g, finite difference %.10g", what, i,
				 grad[i], num);
	}
}

static void test_backward_finite_differences(void **state)
{
	rt_ctx *ctx = open_cpu(1);
	double *x = randn(71, FN_ + 2 * FC), *w = randn(72, FN_), *target = randn(73, FN_);
	double out[FN_], grad[FN_ + 2 * FC], mean[FR], rstd[FR], loss;
	fd_case fc = {ctx, FD_GELU, w, target};
	(void)state;

	assert_int_equal(ops->gelu_backward(ctx, RT_F64, FN_, x, w, grad), 0);
	fd_compare(&fc, x, grad, FN_, "gelu");

	fc.op = FD_TANH;
	assert_int_equal(ops->tanh_fwd(ctx, RT_F64, FN_, x, out), 0);
	assert_int_equal(ops->tanh_backward(ctx, RT_F64, FN_, out, w, grad), 0);
	fd_compare(&fc, x, grad, FN_, "tanh");

	fc.op = FD_SOFTMAX;
	assert_int_equal(ops->softmax(ctx, RT_F64, FR, FC, 0.8, 0, x, out), 0);
	assert_int_equal(ops->softmax_backward(ctx, RT_F64, FR, FC, 0.8, out, w, grad), 0);
	fd_compare(&fc, x, grad, FN_, "softmax");

	fc.op = FD_SOFTMAX_CAUSAL;
	assert_int_equal(ops->softmax(ctx, RT_F64, FR, FC, 0.8, BLK, x, out), 0);
	assert_int_equal(ops->softmax_backward(ctx, RT_F64, FR, FC, 0.8, out, w, grad), 0);
	fd_compare(&fc, x, grad, FN_, "causal softmax");

	/* dgamma and dbeta accumulate: start them at 1 and subtract it back */
	fc.op = FD_LAYERNORM;
	assert_int_equal(ops->layernorm(ctx, RT_F64, FR, FC, x, x + FN_, x + FN_ + FC, out, mean,
					rstd),
			 0);
	for (int c = 0; c < 2 * FC; c++)
		grad[FN_ + c] = 1.0;
	assert_int_equal(ops->layernorm_backward(ctx, RT_F64, FR, FC, x, x + FN_, mean, rstd, w,
						 grad, grad + FN_, grad + FN_ + FC),
			 0);
	for (int c = 0; c < 2 * FC; c++)
		grad[FN_ + c] -= 1.0;
	fd_compare(&fc, x, grad, FN_ + 2 * FC, "layernorm");

	fc.op = FD_MSE;
	assert_int_equal(ops->mse_loss(ctx, RT_F64, FN_, x, target, &loss, grad), 0);
	fd_compare(&fc, x, grad, FN_, "mse");

	free(x);
	free(w);
	free(target);
	ops->close(ctx);
}

/* ---- thread-count independence ---- */

/* Runs every kernel on large inputs and returns all outputs concatenated (as doubles). */
static double *run_all_kernels(int threads, rt_dtype t, size_t *count)
{
	enum { NOUT = 12 };
	rt_ctx *ctx = open_cpu(threads);
	double *x = randn(81, N), *d = randn(82, N), *pc = randn(83, COLS), *pr = randn(84, ROWS);
	void *bx = to_dev(ctx, t, x, N), *bd = to_dev(ctx, t, d, N);
	void *bc = to_dev(ctx, t, pc, COLS), *bc2 = to_dev(ctx, t, pc, COLS);
	void *bc3 = to_dev(ctx, t, pc, COLS), *bm = to_dev(ctx, t, pr, ROWS);
	void *br = to_dev(ctx, t, pr, ROWS), *bl = to_dev(ctx, t, pr, 1);
	void *out[NOUT];
	size_t len[NOUT] = {N, N, N, N, N, N, N, N, N, COLS, N, COLS};
	double *all;
	for (int i = 0; i < NOUT; i++)
		out[i] = to_dev(ctx, t, d, len[i]);

	assert_int_equal(ops->axpby(ctx, t, N, 0.3, bx, 0.7, out[0]), 0);
	assert_int_equal(ops->add_bias(ctx, t, ROWS, COLS, bc, out[1]), 0);
	assert_int_equal(ops->gelu(ctx, t, N, bx, out[2]), 0);
	assert_int_equal(ops->gelu_backward(ctx, t, N, bx, bd, out[3]), 0);
	assert_int_equal(ops->tanh_backward(ctx, t, N, bx, bd, out[4]), 0);
	assert_int_equal(ops->softmax(ctx, t, ROWS, COLS, 0.5, 0, bx, out[5]), 0);
	assert_int_equal(ops->softmax_backward(ctx, t, ROWS, COLS, 0.5, out[5], bd, out[6]), 0);
	assert_int_equal(ops->layernorm(ctx, t, ROWS, COLS, bx, bc, bc2, out[7], bm, br), 0);
	assert_int_equal(ops->layernorm_backward(ctx, t, ROWS, COLS, bx, bc, bm, br, bd, out[8],
						 bc2, bc3),
			 0);
	assert_int_equal(ops->sum_rows(ctx, t, ROWS, COLS, bd, out[9]), 0);
	assert_int_equal(ops->mse_loss(ctx, t, N, bx, bd, bl, out[10]), 0);
	/* v must be >= 0: rstd (positive) from the layernorm above serves */
	assert_int_equal(ops->adam(ctx, t, ROWS, out[11], bc, bc2, br, 1e-3, 0.9, 0.999, 1e-8,
				   3),
			 0);

	*count = 0;
	for (int i = 0; i < NOUT; i++)
		*count += len[i];
	*count += 2 * COLS + 1;
	all = malloc(*count * sizeof *all);
	size_t at = 0;
	for (int i = 0; i < NOUT; i++) {
		double *v = from_dev(ctx, t, out[i], len[i]);
		memcpy(all + at, v, len[i] * sizeof *v);
		at += len[i];
		free(v);
		ops->free(ctx, out[i]);
	}
	void *tail[3] = {bc2, bc3, bl};
	size_t tlen[3] = {COLS, COLS, 1};
	for (int i = 0; i < 3; i++) {
		double *v = from_dev(ctx, t, tail[i], tlen[i]);
		memcpy(all + at, v, tlen[i] * sizeof *v);
		at += tlen[i];
		free(v);
	}
	void *bufs[] = {bx, bd, bc, bc2, bc3, bm, br, bl};
	for (size_t i = 0; i < RT_COUNT(bufs); i++)
		ops->free(ctx, bufs[i]);
	free(x);
	free(d);
	free(pc);
	free(pr);
	ops->close(ctx);
	return all;
}

/* Bitwise: every output element is computed by one thread, in one order (kernels.h). */
static void test_threads_agree(void **state)
{
	(void)state;
	for (int ti = 0; ti < 2; ti++) {
		rt_dtype t = ti ? RT_F64 : RT_F32;
		size_t n1, n2;
		double *one = run_all_kernels(1, t, &n1), *two = run_all_kernels(2, t, &n2);
		double *three;
		size_t n3;
		assert_int_equal(n1, n2);
		assert_close(two, one, n1, 0, 0, "threads=2 vs 1");
		three = run_all_kernels(3, t, &n3);
		assert_close(three, one, n1, 0, 0, "threads=3 vs 1");
		free(one);
		free(two);
		free(three);
	}
}

static void test_kernels_reject_bad_args(void **state)
{
	rt_ctx *ctx = open_cpu(1);
	double buf[4] = {1, 2, 3, 4};
	(void)state;
	assert_int_equal(ops->fill(ctx, (rt_dtype)7, buf, 4, 0), RT_EINVAL);
	assert_int_equal(ops->add_bias(ctx, RT_F64, -1, 2, buf, buf), RT_EINVAL);
	assert_int_equal(ops->layernorm(ctx, RT_F64, 2, -2, buf, buf, buf, buf, buf, buf),
			 RT_EINVAL);
	assert_int_equal(ops->softmax(ctx, RT_F64, 0, 4, 1.0, 0, buf, buf), 0);
	assert_true(buf[0] == 1 && buf[3] == 4);
	ops->close(ctx);
}

/* ---- OpenBLAS's thread timeout ---- */

/*
 * `test_cpu_backend --blas-child`: calls rt_cpu_blas_prepare() like a main()
 * and prints the OPENBLAS_THREAD_TIMEOUT the image started with (what
 * OpenBLAS read when it loaded: /proc/self/environ keeps the environment
 * the exec passed) and the one it has now (what its children inherit).
 */
static int blas_child(char **argv)
{
	char env[65536], initial[64] = "unset";
	rt_cpu_blas_prepare(argv);
	FILE *f = fopen("/proc/self/environ", "r");
	size_t n = f ? fread(env, 1, sizeof env - 1, f) : 0;
	if (f)
		fclose(f);
	env[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(env + i) + 1)
		if (!strncmp(env + i, "OPENBLAS_THREAD_TIMEOUT=", 24))
			snprintf(initial, sizeof initial, "%s", env + i + 24);
	const char *now = getenv("OPENBLAS_THREAD_TIMEOUT");
	printf("initial=%s now=%s mark=%s\n", initial, now ? now : "unset",
	       getenv("RIGTUNE_BLAS_REEXEC") ? "set" : "unset");
	return 0;
}

/* What a --blas-child run printed, with OPENBLAS_THREAD_TIMEOUT as given (NULL: unset). */
static void blas_child_run(const char *timeout, char *out, size_t len)
{
	char self[1024], cmd[1100];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	assert_true(n > 0);
	self[n] = '\0';
	if (timeout)
		setenv("OPENBLAS_THREAD_TIMEOUT", timeout, 1);
	else
		unsetenv("OPENBLAS_THREAD_TIMEOUT");
	snprintf(cmd, sizeof cmd, "'%s' --blas-child", self);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, (int)len, p));
	assert_int_equal(pclose(p), 0);
	unsetenv("OPENBLAS_THREAD_TIMEOUT");
}

/*
 * rt_cpu_blas_prepare: the program is executed again with the short timeout
 * in its initial environment (OpenBLAS reads it as it loads), and the
 * variable is gone from the environment it runs with (children and a
 * user's command never see it); a timeout the user set is left alone.
 */
static void test_blas_thread_timeout(void **state)
{
	(void)state;
	char out[256];
	blas_child_run(NULL, out, sizeof out);
	assert_string_equal(out, "initial=" RT_BLAS_THREAD_TIMEOUT " now=unset mark=unset\n");
	blas_child_run("7", out, sizeof out);
	assert_string_equal(out, "initial=7 now=7 mark=unset\n");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--blas-child"))
		return blas_child(argv);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_every_item_once),
		cmocka_unit_test(test_pool_wakes_sleeping_workers),
		cmocka_unit_test(test_pool_rejects_zero_threads),
		cmocka_unit_test(test_pool_run_each),
		cmocka_unit_test(test_device_info),
		cmocka_unit_test(test_open_checked),
		cmocka_unit_test(test_workloads_set_up_alike),
		cmocka_unit_test(test_upload_download),
		cmocka_unit_test(test_gemm_all_transposes),
		cmocka_unit_test(test_gemm_rejects),
		cmocka_unit_test(test_gemm_bf16),
		cmocka_unit_test(test_gemm_batched),
		cmocka_unit_test(test_gemm_batched2),
		cmocka_unit_test(test_gemm_batched_pool_bitwise),
		cmocka_unit_test(test_gemm_row_split),
		cmocka_unit_test(test_elementwise_forward),
		cmocka_unit_test(test_tanh_f32_accuracy),
		cmocka_unit_test(test_gelu_f32_accuracy),
		cmocka_unit_test(test_gelu_backward_f32_vs_f64),
		cmocka_unit_test(test_softmax_exp_f32_accuracy),
		cmocka_unit_test(test_softmax),
		cmocka_unit_test(test_column_sums_in_row_order),
		cmocka_unit_test(test_layernorm_normalizes),
		cmocka_unit_test(test_mse_loss),
		cmocka_unit_test(test_adam_hand_step),
		cmocka_unit_test(test_backward_finite_differences),
		cmocka_unit_test(test_threads_agree),
		cmocka_unit_test(test_kernels_reject_bad_args),
		cmocka_unit_test(test_blas_thread_timeout),
	};
	ops = rt_cpu_backend();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
