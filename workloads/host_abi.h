/*
 * host_abi.h: the host-side helpers every side of the backend ABI uses:
 * the binary's CPU backend, the GPU plugins (CUDA, HIP) and the Metal
 * plugin, and the device monitors (devmon.h) that the binary and the
 * plugins share. The plugins link nothing of the binary's own code, so this
 * is header-only plain C that C++ compiles too (nvcc and hipcc build the
 * GPU plugins as C++), with no device runtime: the error buffer writer, the
 * precision's name, symbol look-ups of a dlopen'ed library, and a GEMM
 * call of the ABI with its checks.
 */
#ifndef RT_HOST_ABI_H
#define RT_HOST_ABI_H

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

static inline int rt_abi_fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes the message into err (may be NULL) and returns code, as rt_fail does in the binary. */
static inline int rt_abi_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/*
 * "fp64", "fp32", ...: the plugins do not link workloads/names.c, whose
 * rt_precision_name() says the same for the tuner.
 */
static inline const char *rt_abi_precision_name(rt_precision p)
{
	static const char *const names[RT_NPRECISION] = {"fp64", "fp32", "tf32", "bf16", "fp16"};
	return (unsigned)p < RT_NPRECISION ? names[p] : "?";
}

/* One function needed from a dlopen'ed library, and where its address goes. */
typedef struct rt_dl_need {
	const char *name;
	void *fn; /* a function pointer variable of any type */
	size_t size;
} rt_dl_need;

#define RT_DL_NEED(name, var)                                                                      \
	{                                                                                          \
		name, &(var), sizeof(var)                                                          \
	}

/*
 * Looks up every function of need in lib (called libname in the message):
 * 0, or RT_EUNAVAIL with "libname: no symbol NAME" at the first missing.
 */
static inline int rt_dl_resolve(void *lib, const char *libname, const rt_dl_need *need, size_t n,
                                char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(lib, need[i].name);
		if (!p)
			return rt_abi_fail(why, len, RT_EUNAVAIL, "%s: no symbol %s", libname,
			                   need[i].name);
		memcpy(need[i].fn, &p,
		       need[i].size); /* object to function pointer, as POSIX allows */
	}
	return 0;
}

/*
 * A GEMM call of the ABI: gemm() is the batch of count 1 and outer 1,
 * gemm_batched() outer 1, gemm_batched2() outer batches of count matrices
 * (matrix (i, j) of A at a + i*oa + j*sa, likewise B and C).
 */
typedef struct rt_gemm_args {
	rt_dtype t;
	rt_precision prec;
	int transa, transb, m, n, k;
	double alpha, beta;
	const void *a, *b;
	void *c;
	int lda, ldb, ldc;
	long sa, sb, sc;
	int count;
	int outer;
	long oa, ob, oc;
} rt_gemm_args;

/* The arguments of a gemm_batched2() call (backend.h's rt_batch2). */
static inline rt_gemm_args rt_gemm_of_batch2(rt_dtype t, rt_precision prec, int transa,
                                             int transb, int m, int n, int k, double alpha,
                                             const void *a, int lda, const void *b, int ldb,
                                             double beta, void *c, int ldc, const rt_batch2 *bt)
{
	rt_gemm_args g = {t,  prec, transa,      transb,      m,           n,         k,
	                  alpha, beta, a,        b,           c,           lda,       ldb,
	                  ldc, bt->a_inner, bt->b_inner, bt->c_inner, bt->inner, bt->outer,
	                  bt->a_outer, bt->b_outer, bt->c_outer};
	return g;
}

/* Elements a strided batch of stored rows x cols matrices spans (0 if empty). */
static inline size_t rt_gemm_span(int rows, int cols, int ld, long stride, int count)
{
	if (rows == 0 || cols == 0 || count == 0)
		return 0;
	return (size_t)(count - 1) * (size_t)stride + (size_t)(rows - 1) * ld + cols;
}

/* The same over outer such batches, ostride elements apart (gemm_batched2). */
static inline size_t rt_gemm_span2(int rows, int cols, int ld, long stride, int count,
                                   long ostride, int outer)
{
	if (outer == 0)
		return 0;
	size_t one = rt_gemm_span(rows, cols, ld, stride, count);
	return one ? (size_t)(outer - 1) * (size_t)ostride + one : 0;
}

/*
 * Checks the arguments of a (batched) GEMM against the ABI: dtype and
 * precision agree and device dev of backend (for the message) offers the
 * precision (precisions: RT_PREC_BIT's), sizes and strides are
 * non-negative, leading dimensions cover the stored rows (row-major: the
 * stored A is m x k, k x m transposed, so lda is at least its columns),
 * the matrices of a two-level batch number fewer than 2^31 (a BLAS's
 * batch count is an int).
 * 0, RT_EINVAL or RT_EUNAVAIL with the reason in err.
 */
static inline int rt_gemm_check(const rt_gemm_args *g, unsigned precisions, const char *backend,
                                int dev, char *err, size_t errlen)
{
	if ((g->t == RT_F64) != (g->prec == RT_FP64) || (unsigned)g->prec >= RT_NPRECISION ||
	    (g->t != RT_F32 && g->t != RT_F64))
		return rt_abi_fail(err, errlen, RT_EINVAL,
		                   "gemm: precision %d does not apply to dtype %d", g->prec, g->t);
	if (!(precisions & RT_PREC_BIT(g->prec)))
		return rt_abi_fail(err, errlen, RT_EUNAVAIL, "gemm: %s not offered by %s device %d",
		                   rt_abi_precision_name(g->prec), backend, dev);
	int ka = g->transa ? g->m : g->k, nb = g->transb ? g->k : g->n;
	if (g->m < 0 || g->n < 0 || g->k < 0 || g->count < 0 || g->sa < 0 || g->sb < 0 ||
	    g->sc < 0 || g->outer < 0 || g->oa < 0 || g->ob < 0 || g->oc < 0 || g->lda < (ka > 1 ? ka : 1) || g->ldb < (nb > 1 ? nb : 1) ||
	    g->ldc < (g->n > 1 ? g->n : 1) || (long long)g->outer * g->count > INT_MAX)
		return rt_abi_fail(err, errlen, RT_EINVAL,
		                   "gemm: bad shape m=%d n=%d k=%d lda=%d ldb=%d ldc=%d count=%d "
		                   "outer=%d",
		                   g->m, g->n, g->k, g->lda, g->ldb, g->ldc, g->count, g->outer);
	return 0;
}

#endif
