/*
 * host_common.h: host-side code the CUDA and HIP plugins share: the error
 * buffer helper (the plugins do not link common/rt.c) and the GEMM
 * arguments of the ABI with their checks. Plain C that C++ compiles too, no
 * device runtime, so that host tests include it (before cmocka.h, whose
 * fail() macro would take this fail()'s name).
 */
#ifndef RT_GPU_HOST_COMMON_H
#define RT_GPU_HOST_COMMON_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../backend.h"

static inline int fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Writes the message into err (may be NULL) and returns code, like rt_fail. */
static inline int fail(char *err, size_t errlen, int code, const char *fmt, ...)
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
static inline const char *gpu_precision_name(rt_precision p)
{
	static const char *const names[RT_NPRECISION] = {"fp64", "fp32", "tf32", "bf16", "fp16"};
	return (unsigned)p < RT_NPRECISION ? names[p] : "?";
}

/*
 * gemm_impl's words for what a GEMM runs on: `lib`, the vendor library's
 * own description ("rocblas 4.4.0"), when it is used; else the own tiled
 * kernel and why not the library (`why`: "rocBLAS not found (...)", a handle
 * that could not be made), since a GPU measured on it looks slower than it
 * is. forced: RIGTUNE_GEMM=own asked for the own kernel.
 */
static inline void gemm_impl_text(int forced, int usable, const char *lib, const char *why,
				  char *buf, size_t len)
{
	if (forced)
		snprintf(buf, len, "own-tiled (RIGTUNE_GEMM=own)");
	else if (usable)
		snprintf(buf, len, "%s", lib);
	else
		snprintf(buf, len, "own-tiled, %.120s: the crossover understates this GPU", why);
}

/* gemm_impl's words once the library `lib` declined precision p, saying `why`. */
static inline void gemm_impl_declined(const char *lib, rt_precision p, const char *why, char *buf,
				      size_t len)
{
	snprintf(buf, len, "own-tiled, %.40s declined %s: %.100s", lib, gpu_precision_name(p), why);
}

/* One function a plugin needs from a library it dlopens, and where its address goes. */
typedef struct dl_need {
	const char *name;
	void *fn;   /* a function pointer variable of any type */
	size_t size;
} dl_need;

#define DL_NEED(name, var) {name, &(var), sizeof(var)}

/*
 * Looks up every function of need in lib (called libname in the message):
 * 0, or RT_EUNAVAIL with "libname: no symbol NAME" at the first missing.
 */
static inline int dl_resolve(void *lib, const char *libname, const dl_need *need, size_t n,
			     char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(lib, need[i].name);
		if (!p)
			return fail(why, len, RT_EUNAVAIL, "%s: no symbol %s", libname, need[i].name);
		memcpy(need[i].fn, &p, need[i].size); /* object to function pointer, as POSIX allows */
	}
	return 0;
}

/* A GEMM call of the ABI, after its arguments were checked. */
typedef struct gemm_args {
	rt_dtype t;
	rt_precision prec;
	int transa, transb, m, n, k;
	double alpha, beta;
	const void *a, *b;
	void *c;
	int lda, ldb, ldc;
	long sa, sb, sc;
	int count;
} gemm_args;

/* Elements a strided batch of stored rows x cols matrices spans (0 if empty). */
static inline size_t span(int rows, int cols, int ld, long stride, int count)
{
	if (rows == 0 || cols == 0 || count == 0)
		return 0;
	return (size_t)(count - 1) * (size_t)stride + (size_t)(rows - 1) * ld + cols;
}

/*
 * Checks the arguments of a (batched) GEMM against the ABI: dtype and
 * precision agree and device dev of backend (for the message) offers the
 * precision, sizes and strides are non-negative, leading dimensions cover
 * the stored rows.
 */
static inline int gemm_check(const gemm_args *g, unsigned precisions, const char *backend, int dev,
		      char *err, size_t errlen)
{
	if ((g->t == RT_F64) != (g->prec == RT_FP64) || (unsigned)g->prec >= RT_NPRECISION ||
	    (g->t != RT_F32 && g->t != RT_F64))
		return fail(err, errlen, RT_EINVAL, "gemm: precision %d does not apply to dtype %d",
			    g->prec, g->t);
	if (!(precisions & RT_PREC_BIT(g->prec)))
		return fail(err, errlen, RT_EUNAVAIL, "gemm: %s not offered by %s device %d",
			    gpu_precision_name(g->prec), backend, dev);
	int ka = g->transa ? g->m : g->k, nb = g->transb ? g->k : g->n;
	if (g->m < 0 || g->n < 0 || g->k < 0 || g->count < 0 || g->sa < 0 || g->sb < 0 ||
	    g->sc < 0 || g->lda < (ka > 1 ? ka : 1) || g->ldb < (nb > 1 ? nb : 1) ||
	    g->ldc < (g->n > 1 ? g->n : 1))
		return fail(err, errlen, RT_EINVAL,
			    "gemm: bad shape m=%d n=%d k=%d lda=%d ldb=%d ldc=%d count=%d", g->m,
			    g->n, g->k, g->lda, g->ldb, g->ldc, g->count);
	return 0;
}

#endif
