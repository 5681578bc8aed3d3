/*
 * The CPU backend: buffers are 64-byte aligned host memory, GEMM goes to
 * the BLAS the binary links (blas.h: OpenBLAS, or Accelerate on a Mac;
 * cblas_sgemm/dgemm, bf16 through cblas_sbgemm when the library has it) or, for bf16 where OpenBLAS lacks it and the CPU has the units, to
 * oneDNN (cpu_dnnl.h), the elementwise kernels to cpu_kernels.c on a thread
 * pool.
 *
 * Thread budget: open(dev, threads) gives OpenBLAS `threads` threads and the
 * kernel pool `threads` threads (the caller being one). GEMMs and kernels run
 * one after another on the calling thread, and the pool's workers are idle
 * while an OpenBLAS-threaded GEMM runs, so the two never have more than
 * `threads` threads busy. Tall GEMMs (a training step's) and batches of
 * small ones run on the pool instead, each of its threads calling OpenBLAS
 * single-threaded for its part (see cpu_gemm). oneDNN's bf16 GEMMs run the
 * same way, single-threaded on each pool thread's part (cpu_dnnl.h): it
 * never starts an OpenMP team of its own.
 */
#include "cpu_backend.h"

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/platform.h"
#include "blas.h"
#include "cpu_ctx.h"
#include "cpu_dnnl.h"
#include "host_abi.h"
#include "kernels.h"


#define CPU_ALIGN 64

typedef void (*sbgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE,
			  blasint, blasint, blasint, float, const bfloat16 *, blasint,
			  const bfloat16 *, blasint, float, float *, blasint);

struct rt_ctx {
	rt_pool *pool;      /* first: what the kernels read (cpu_ctx.h) */
	int threads;
	sbgemm_fn sbgemm;   /* NULL when this OpenBLAS has no bf16 GEMM */
	rt_gemm_lib bf16_lib; /* what runs bf16 GEMMs (cpu_dnnl.h) */
	char bf16_why[160];   /* why none does, where none does */
	rt_dnnl *dnnl;      /* oneDNN's state, made at the first bf16 GEMM it runs */
	bfloat16 *bf_a, *bf_b; /* bf16 copies of the GEMM inputs, grown on demand */
	size_t bf_a_cap, bf_b_cap;
	char why[RT_ERRLEN]; /* the last failure, for last_error */
};
_Static_assert(offsetof(struct rt_ctx, pool) == 0, "cpu_ctx.h reads the pool first");

/* cblas_sbgemm exists only in OpenBLAS builds with BUILD_BFLOAT16. */
static sbgemm_fn find_sbgemm(void)
{
	sbgemm_fn fn;
	void *sym = dlsym(RTLD_DEFAULT, "cblas_sbgemm");
	memcpy(&fn, &sym, sizeof fn); /* object to function pointer, as POSIX allows */
	return fn;
}

static int cpu_init(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return 1;
}

/* Total and available memory. */
static int host_memory(uint64_t *total, uint64_t *free_bytes)
{
	return rt_plat_memory(total, free_bytes) ? RT_EIO : 0;
}

/* The CPU's name, or "CPU" where the system gives none (some ARM kernels). */
static void cpu_model_name(char *name, size_t len)
{
	rt_plat_cpu_model(name, len);
	if (!name[0])
		snprintf(name, len, "CPU");
}

/*
 * "OpenBLAS 0.3.21, Haswell kernels": the library, its version and the kernels it chose;
 * Accelerate says neither.
 */
static void blas_describe(char *buf, size_t len)
{
	char version[32] = "";
	const char *config, *core;
	int parallel;
	if (rt_blas_openblas(&config, &core, &parallel)) {
		snprintf(buf, len, "%s (VECLIB_MAXIMUM_THREADS threads)", rt_blas_name());
		return;
	}
	if (config && !strncmp(config, "OpenBLAS ", 9))
		sscanf(config + 9, "%31s", version);
	snprintf(buf, len, "OpenBLAS %s, %.40s kernels", version[0] ? version : "(version unknown)",
		 core);
}

/*
 * gemm_impl: OpenBLAS for fp64/fp32, then what runs bf16 (or why nothing
 * does): "OpenBLAS 0.3.21, Cooperlake kernels; bf16: oneDNN 2.6.3
 * brg:avx512_core_bf16 (bf16 inputs, fp32 accumulation)".
 */
static void gemm_impl_all(char *buf, size_t len)
{
	blas_describe(buf, len);
	size_t used = strlen(buf);
	if (used + 8 < len) {
		memcpy(buf + used, "; bf16: ", 9);
		used += 8;
		rt_cpu_gemm_lib_describe(rt_cpu_caps_probe(), RT_BF16, "OpenBLAS cblas_sbgemm",
					 buf + used, len - used);
	}
}

static int cpu_device_info(int dev, rt_device_info *info)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	char why[160];
	int rc;

	if (dev != 0)
		return RT_EINVAL;
	memset(info, 0, sizeof *info);
	cpu_model_name(info->name, sizeof info->name);
	const char *config, *core;
	int parallel;
	snprintf(info->driver, sizeof info->driver, "%s",
		 rt_blas_openblas(&config, &core, &parallel) ? rt_blas_name() : config);
	rc = host_memory(&info->mem_total, &info->mem_free);
	if (rc)
		return rc;
	info->compute_units = online > 0 ? (int)online : 1;
	for (int p = 0; p < RT_NPRECISION; p++)
		if (rt_cpu_gemm_lib(rt_cpu_caps_probe(), (rt_precision)p, why, sizeof why))
			info->precisions |= RT_PREC_BIT(p);
	info->unified_memory = 1;
	gemm_impl_all(info->gemm_impl, sizeof info->gemm_impl);
	return 0;
}

static int cpu_open(int dev, int threads, rt_ctx **out, char *err, size_t errlen)
{
	rt_ctx *ctx;
	int rc;

	*out = NULL;
	if (dev != 0)
		return rt_fail(err, errlen, RT_EINVAL, "the CPU backend has one device (0), not %d",
			       dev);
	if (threads < 1)
		return rt_fail(err, errlen, RT_EINVAL, "threads must be at least 1, not %d",
			       threads);
	ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory for the CPU context");
	rt_blas_set_threads(threads); /* before the pool's threads: Accelerate's is a setenv */
	rc = rt_pool_create(threads, RT_POOL_SPIN_KERNELS, &ctx->pool, err, errlen);
	if (rc) {
		free(ctx);
		return rc;
	}
	ctx->threads = threads;
	ctx->sbgemm = find_sbgemm();
	ctx->bf16_lib = rt_cpu_gemm_lib(rt_cpu_caps_probe(), RT_BF16, ctx->bf16_why,
					sizeof ctx->bf16_why);
	*out = ctx;
	return 0;
}

static void cpu_close(rt_ctx *ctx)
{
	if (!ctx)
		return;
	rt_pool_destroy(ctx->pool);
	rt_dnnl_destroy(ctx->dnnl);
	free(ctx->bf_a);
	free(ctx->bf_b);
	free(ctx);
}

static int cpu_alloc(rt_ctx *ctx, size_t bytes, void **ptr)
{
	/* Round up: posix_memalign(0) may return NULL, which reads as failure. */
	size_t size = (bytes + CPU_ALIGN - 1) / CPU_ALIGN * CPU_ALIGN;
	(void)ctx;
	if (size < bytes)
		return RT_ENOMEM;
	if (size == 0)
		size = CPU_ALIGN;
	if (posix_memalign(ptr, CPU_ALIGN, size) != 0) {
		*ptr = NULL;
		return RT_ENOMEM;
	}
	return 0;
}

static void cpu_free(rt_ctx *ctx, void *ptr)
{
	(void)ctx;
	free(ptr);
}

static int cpu_copy(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	(void)ctx;
	if (bytes)
		memmove(dst, src, bytes);
	return 0;
}

static int cpu_synchronize(rt_ctx *ctx)
{
	(void)ctx;
	return 0;
}

static int cpu_mem_info(rt_ctx *ctx, uint64_t *total, uint64_t *free_bytes)
{
	(void)ctx;
	return host_memory(total, free_bytes);
}

/* Rows [begin, end) of a pack_bf16 job: rounded to bf16 by cpu_kernels.c's loop. */
typedef struct pack_job {
	bfloat16 *dst;
	const float *src;
	int rows, cols, ld;
	long stride; /* elements from one matrix to the next */
} pack_job;

static void pack_rows(void *p, size_t begin, size_t end)
{
	const pack_job *j = p;
	for (size_t r = begin; r < end; r++) {
		size_t mat = r / (size_t)j->rows, row = r % (size_t)j->rows;
		rt_cpu_round_bf16(j->dst + r * (size_t)j->cols,
				  j->src + mat * (size_t)j->stride + row * (size_t)j->ld,
				  (size_t)j->cols);
	}
}

/* Below this many elements a pack runs on the calling thread (waking the pool costs more). */
#define PACK_PAR_MIN (1u << 15)

/*
 * Rounds count matrices of rows x cols at src (row stride ld, `stride`
 * elements apart) into the context's scratch buffer *buf as dense bf16
 * matrices, one after another; on the pool where they are large.
 */
static int pack_bf16(rt_ctx *ctx, bfloat16 **buf, size_t *cap, const float *src, int rows,
		     int cols, int ld, long stride, int count)
{
	size_t need = (size_t)rows * (size_t)cols * (size_t)count;
	pack_job j = {NULL, src, rows, cols, ld, stride};
	if (need > *cap) {
		bfloat16 *p = realloc(*buf, need * sizeof *p);
		if (!p)
			return RT_ENOMEM;
		*buf = p;
		*cap = need;
	}
	j.dst = *buf;
	if (need < PACK_PAR_MIN)
		pack_rows(&j, 0, (size_t)rows * count);
	else
		rt_pool_run(ctx->pool, pack_rows, &j, (size_t)rows * count);
	return 0;
}

/*
 * count bf16 GEMMs (autocast's: inputs rounded to bf16, fp32 accumulation
 * and output) on the library that runs bf16 here: OpenBLAS's cblas_sbgemm,
 * one call per matrix, or oneDNN, one call for the batch.
 */
static int gemm_bf16(rt_ctx *ctx, int transa, int transb, int m, int n, int k, float alpha,
		     const float *a, int lda, long stride_a, const float *b, int ldb,
		     long stride_b, float beta, float *c, int ldc, long stride_c, int count)
{
	int arows = transa ? k : m, acols = transa ? m : k;
	int brows = transb ? n : k, bcols = transb ? k : n;
	int rc;

	if (ctx->bf16_lib == RT_LIB_NONE) {
		snprintf(ctx->why, sizeof ctx->why, "bf16: %s", ctx->bf16_why);
		return RT_EUNAVAIL;
	}
	if (ctx->bf16_lib == RT_LIB_DNNL && !ctx->dnnl &&
	    (rc = rt_dnnl_create(ctx->threads, &ctx->dnnl, ctx->why, sizeof ctx->why)))
		return rc;
	rc = pack_bf16(ctx, &ctx->bf_a, &ctx->bf_a_cap, a, arows, acols, lda, stride_a, count);
	if (rc)
		return rc;
	rc = pack_bf16(ctx, &ctx->bf_b, &ctx->bf_b_cap, b, brows, bcols, ldb, stride_b, count);
	if (rc)
		return rc;
	if (ctx->bf16_lib == RT_LIB_DNNL)
		return rt_dnnl_gemm(ctx->dnnl, ctx->pool, RT_BF16, transa, transb, m, n, k, alpha,
				    ctx->bf_a, ctx->bf_b, beta, c, ldc, stride_c, count, ctx->why,
				    sizeof ctx->why);
	for (int i = 0; i < count; i++)
		ctx->sbgemm(CblasRowMajor, transa ? CblasTrans : CblasNoTrans,
			    transb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
			    ctx->bf_a + (size_t)i * arows * acols, acols,
			    ctx->bf_b + (size_t)i * brows * bcols, bcols, beta,
			    c + (size_t)i * stride_c, ldc);
	return 0;
}

/*
 * The ABI's checks of a GEMM (host_abi.h): dtype and precision agree, the
 * shape is one the reference BLAS takes; the reason in the context's why.
 * tf32 and fp16 pass here and are declined by blas_gemm.
 */
static int check_gemm(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb, int m,
                      int n, int k, int lda, int ldb, int ldc, long sa, long sb, long sc, int count)
{
	rt_gemm_args g = {t,    prec, transa, transb, m,   n,  k,  1.0, 0.0,  NULL,
	                  NULL, NULL, lda,    ldb,    ldc, sa, sb, sc,  count, 1, 0, 0, 0};
	return rt_gemm_check(&g, ~0u, RT_HOST_BACKEND, 0, ctx->why, sizeof ctx->why);
}

/* One BLAS call, as cpu_gemm makes it (shape checked); elements of a, b, c are es bytes. */
typedef struct blas_call {
	rt_ctx *ctx;
	rt_precision prec;
	int transa, transb, m, n, k, lda, ldb, ldc;
	double alpha, beta;
	const char *a, *b;
	char *c;
	size_t es;
} blas_call;

/* The BLAS call of g (checked already): fp64, fp32 or (one) bf16. */
static int blas_gemm(const blas_call *g)
{
	enum CBLAS_TRANSPOSE ta = g->transa ? CblasTrans : CblasNoTrans;
	enum CBLAS_TRANSPOSE tb = g->transb ? CblasTrans : CblasNoTrans;

	switch (g->prec) {
	case RT_FP64:
		cblas_dgemm(CblasRowMajor, ta, tb, g->m, g->n, g->k, g->alpha, (const double *)g->a,
			    g->lda, (const double *)g->b, g->ldb, g->beta, (double *)g->c, g->ldc);
		return 0;
	case RT_FP32:
		cblas_sgemm(CblasRowMajor, ta, tb, g->m, g->n, g->k, (float)g->alpha,
			    (const float *)g->a, g->lda, (const float *)g->b, g->ldb,
			    (float)g->beta, (float *)g->c, g->ldc);
		return 0;
	case RT_BF16:
		return gemm_bf16(g->ctx, g->transa, g->transb, g->m, g->n, g->k, (float)g->alpha,
				 (const float *)g->a, g->lda, 0, (const float *)g->b, g->ldb, 0,
				 (float)g->beta, (float *)g->c, g->ldc, 0, 1);
	default:
		return RT_EUNAVAIL; /* tf32, fp16: no CPU path */
	}
}

/*
 * At or below this m*n*k OpenBLAS runs a GEMM single-threaded in the calling
 * thread (its SMP threshold, 65536 * GEMM_MULTITHREAD_THRESHOLD = 4 in a
 * default build); above it OpenBLAS starts its own threads, and two pool
 * threads calling it at once ran 2-3x slower than the plain loop (OpenBLAS
 * 0.3.21, 2 cores), besides using more threads than the budget.
 */
#define BATCH_MAX_MNK (1L << 18)
/*
 * Below this much batch work (count * m*n*k) the pool's wake-up is not
 * paid back: about eight 64^3 GEMMs, ~40 us on one core.
 */
#define BATCH_MIN_WORK (1L << 21)

/*
 * Tall GEMMs (a training step's: m = batch x tokens rows, n a layer's width)
 * are split by rows over the kernel pool, each thread calling OpenBLAS
 * single-threaded on its own rows. OpenBLAS 0.3.21 (Debian 12) threads a
 * GEMM by giving each thread columns of the row-major C, so every thread
 * reads all of the packed rows, which another thread packed: on the
 * transformer's shapes at 2 threads that ran 5-15% below the row split
 * (OpenBLAS 0.3.28 partitions in two dimensions and picks rows itself for
 * such shapes). Rows go to threads ROW_BLOCK at a time, and each thread
 * packs all of B again: worth it where its rows are at least as many as
 * C's columns (m >= threads x n) and at least ROW_SPLIT_MIN. Each C element
 * is one call's sum over k, though where a part starts OpenBLAS's kernels
 * may add in another order than in one call: C differs from the 1-thread C
 * in the last bits, as it did with OpenBLAS's own threads. The GEMM runs on
 * the pool that runs the kernels around it: no OpenBLAS thread is woken,
 * and the kernel after it finds the pool awake.
 */
#define ROW_BLOCK 64
#define ROW_SPLIT_MIN 256

int rt_cpu_gemm_splits_rows(int threads, rt_precision prec, int m, int n, int k)
{
	return threads > 1 && (prec == RT_FP32 || prec == RT_FP64) &&
	       (long)m * n * k > BATCH_MAX_MNK &&
	       m >= (long)threads * (n > ROW_SPLIT_MIN ? n : ROW_SPLIT_MIN);
}

/* Row blocks [begin, end) of the GEMM at p, one single-threaded BLAS call. */
static void gemm_rows(void *p, size_t begin, size_t end)
{
	const blas_call *g = p;
	blas_call part = *g;
	size_t r0 = begin * ROW_BLOCK, r1 = end * ROW_BLOCK < (size_t)g->m ? end * ROW_BLOCK
									    : (size_t)g->m;
	part.m = (int)(r1 - r0);
	part.a += (g->transa ? r0 : r0 * (size_t)g->lda) * g->es;
	part.c += r0 * (size_t)g->ldc * g->es;
	blas_gemm(&part); /* fp32 or fp64: cannot fail */
}

static int cpu_gemm(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb, int m,
		    int n, int k, double alpha, const void *a, int lda, const void *b, int ldb,
		    double beta, void *c, int ldc)
{
	blas_call g = {ctx, prec, transa, transb, m, n, k, lda,
	               ldb, ldc,  alpha,  beta,   a, b, c, rt_dtype_size(t)};
	int rc = check_gemm(ctx, t, prec, transa, transb, m, n, k, lda, ldb, ldc, 0, 0, 0, 1);

	if (rc)
		return rc;
	if (m == 0 || n == 0)
		return 0;
	/* (a BLAS whose threads are not set per call would run wide in every part) */
	if (!rt_blas_threads_settable() || !rt_cpu_gemm_splits_rows(ctx->threads, prec, m, n, k))
		return blas_gemm(&g);
	rt_blas_set_threads(1);
	rt_pool_run(ctx->pool, gemm_rows, &g, ((size_t)m + ROW_BLOCK - 1) / ROW_BLOCK);
	rt_blas_set_threads(ctx->threads);
	return 0;
}

/* One gemm_batched call, shared by the pool threads that run parts of it. */
typedef struct batch_job {
	blas_call g;                   /* the first GEMM */
	size_t step_a, step_b, step_c; /* bytes from one GEMM's operand to the next */
} batch_job;

/* GEMMs [begin, end) of a batch, one cblas call each (shapes checked already). */
static void batch_range(void *p, size_t begin, size_t end)
{
	const batch_job *j = p;
	for (size_t i = begin; i < end; i++) {
		blas_call g = j->g;
		g.a += i * j->step_a;
		g.b += i * j->step_b;
		g.c += i * j->step_c;
		blas_gemm(&g);
	}
}

/*
 * count independent GEMMs. Small ones (attention's per-sequence products)
 * gain nothing from OpenBLAS threads, so the batch is split over the pool
 * instead, each thread calling cblas for its GEMMs: every GEMM is one cblas
 * call on the same operands, so C is bitwise the same whatever the thread
 * count. Larger ones run in a loop, each threaded as cpu_gemm threads it.
 * bf16 packs the whole batch and makes one call of its library (oneDNN
 * splits it over the pool: cpu_dnnl.c).
 */
static int cpu_gemm_batched(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb,
			    int m, int n, int k, double alpha, const void *a, int lda,
			    long stride_a, const void *b, int ldb, long stride_b, double beta,
			    void *c, int ldc, long stride_c, int count)
{
	size_t es = rt_dtype_size(t);
	long mnk = (long)m * n * k;
	batch_job j = {{ctx, prec, transa, transb, m, n, k, lda, ldb, ldc, alpha, beta, a, b, c,
			es},
		       (size_t)stride_a * es, (size_t)stride_b * es, (size_t)stride_c * es};
	int rc;

	if (count < 0)
		return RT_EINVAL;
	if (count == 0)
		return 0;
	if (prec == RT_BF16) {
		rc = check_gemm(ctx, t, prec, transa, transb, m, n, k, lda, ldb, ldc, stride_a,
		                stride_b, stride_c, count);
		if (rc)
			return rc;
		if (m == 0 || n == 0)
			return 0;
		return gemm_bf16(ctx, transa, transb, m, n, k, (float)alpha, a, lda, stride_a, b,
				 ldb, stride_b, (float)beta, c, ldc, stride_c, count);
	}
	rc = cpu_gemm(ctx, t, prec, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
		      ldc);
	if (rc)
		return rc;
	if (mnk <= BATCH_MAX_MNK && mnk * (count - 1) >= BATCH_MIN_WORK) {
		/* The first GEMM above validated the shape: the rest cannot fail. */
		j.g.a += j.step_a;
		j.g.b += j.step_b;
		j.g.c += j.step_c;
		rt_pool_run(ctx->pool, batch_range, &j, (size_t)count - 1);
		return 0;
	}
	for (int i = 1; i < count; i++) {
		rc = cpu_gemm(ctx, t, prec, transa, transb, m, n, k, alpha,
			      (const char *)a + i * j.step_a, lda,
			      (const char *)b + i * j.step_b, ldb, beta,
			      (char *)c + i * j.step_c, ldc);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * outer x inner GEMMs (backend.h's gemm_batched2): gemm_batched over the
 * inner level for each outer index in turn, the very calls a workload
 * without this entry makes, so the results are bitwise the same. OpenBLAS
 * has no two-level batch; what this saves is the workload's loop.
 */
static int cpu_gemm_batched2(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb,
			     int m, int n, int k, double alpha, const void *a, int lda,
			     const void *b, int ldb, double beta, void *c, int ldc,
			     const rt_batch2 *bt)
{
	const rt_gemm_args g = rt_gemm_of_batch2(t, prec, transa, transb, m, n, k, alpha, a, lda, b,
						 ldb, beta, c, ldc, bt);
	int rc = rt_gemm_check(&g, ~0u, RT_HOST_BACKEND, 0, ctx->why, sizeof ctx->why);
	const size_t es = rt_dtype_size(t);
	for (int i = 0; !rc && i < bt->outer; i++)
		rc = cpu_gemm_batched(ctx, t, prec, transa, transb, m, n, k, alpha,
				      (const char *)a + (size_t)i * bt->a_outer * es, lda,
				      bt->a_inner, (const char *)b + (size_t)i * bt->b_outer * es,
				      ldb, bt->b_inner, beta, (char *)c + (size_t)i * bt->c_outer * es,
				      ldc, bt->c_inner, bt->inner);
	return rc;
}

#define BLAS_TIMEOUT_VAR "OPENBLAS_THREAD_TIMEOUT"
#define BLAS_REEXEC_MARK "RIGTUNE_BLAS_REEXEC" /* set only between the exec and its return */

void rt_cpu_blas_prepare(char **argv)
{
	if (getenv(BLAS_REEXEC_MARK)) { /* the new image: OpenBLAS has read the timeout */
		unsetenv(BLAS_TIMEOUT_VAR);
		unsetenv(BLAS_REEXEC_MARK);
		return;
	}
	if (getenv(BLAS_TIMEOUT_VAR)) /* the user's own setting stands */
		return;
	setenv(BLAS_TIMEOUT_VAR, RT_BLAS_THREAD_TIMEOUT, 1);
	setenv(BLAS_REEXEC_MARK, "1", 1);
	char exe[PATH_MAX];
	if (rt_plat_exe_path(exe, sizeof exe) == 0)
		execv(exe, argv);
	unsetenv(BLAS_TIMEOUT_VAR); /* the exec failed: carry on as we are */
	unsetenv(BLAS_REEXEC_MARK);
}

static char prec_impl[RT_NPRECISION][160];
static pthread_once_t prec_impl_once = PTHREAD_ONCE_INIT;

static void describe_precisions(void)
{
	char blas[96];
	blas_describe(blas, sizeof blas);
	for (int p = 0; p < RT_NPRECISION; p++)
		rt_cpu_gemm_lib_describe(rt_cpu_caps_probe(), (rt_precision)p, blas, prec_impl[p],
					 sizeof prec_impl[p]);
}

/* What runs precision p (rt_backend_ops.gemm_impl): the same in every context. */
static const char *cpu_gemm_impl(rt_ctx *ctx, rt_precision p)
{
	(void)ctx;
	pthread_once(&prec_impl_once, describe_precisions);
	return (unsigned)p < RT_NPRECISION ? prec_impl[p] : "";
}

static const char *cpu_last_error(rt_ctx *ctx)
{
	return ctx && ctx->why[0] ? ctx->why : NULL;
}

static const rt_backend_ops cpu_ops = {
	.abi = RT_BACKEND_ABI,
	.name = RT_HOST_BACKEND,
	.host = 1,
	.framework_device = "cpu",
	.init = cpu_init,
	.device_info = cpu_device_info,
	.open = cpu_open,
	.close = cpu_close,
	.alloc = cpu_alloc,
	.free = cpu_free,
	.upload = cpu_copy,
	.download = cpu_copy,
	.synchronize = cpu_synchronize,
	.mem_info = cpu_mem_info,
	.gemm = cpu_gemm,
	.gemm_batched = cpu_gemm_batched,
	.gemm_batched2 = cpu_gemm_batched2,
	.fill = rt_cpu_fill,
	.axpby = rt_cpu_axpby,
	.add_bias = rt_cpu_add_bias,
	.sum_rows = rt_cpu_sum_rows,
	.gelu = rt_cpu_gelu,
	.gelu_backward = rt_cpu_gelu_backward,
	.tanh_fwd = rt_cpu_tanh_fwd,
	.tanh_backward = rt_cpu_tanh_backward,
	.softmax = rt_cpu_softmax,
	.softmax_backward = rt_cpu_softmax_backward,
	.layernorm = rt_cpu_layernorm,
	.layernorm_backward = rt_cpu_layernorm_backward,
	.mse_loss = rt_cpu_mse_loss,
	.adam = rt_cpu_adam,
	.utilization = NULL, /* the CPU is busy exactly while a call runs */
	.last_error = cpu_last_error,
	.gemm_impl = cpu_gemm_impl,
};

const rt_backend_ops *rt_cpu_backend(void)
{
	return &cpu_ops;
}
