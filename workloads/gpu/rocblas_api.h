/*
 * rocblas_api.h: rocBLAS for the HIP plugin, reached through dlopen and a
 * table of entry points. Plain C that C++ compiles too (no HIP header), so
 * that tests/test_gpu_host.c drives this same code against a fake librocblas
 * built from tests/fakes/rocblas.c, named by $RIGTUNE_ROCBLAS (the path the
 * plugin then dlopens instead of searching for librocblas).
 *
 * Debian ships no rocBLAS headers, so the few types, constants and functions
 * called are declared here. They follow rocBLAS 4.4.0's public headers
 * (library/include/internal/rocblas-types.h and rocblas-functions.h of
 * ROCm/rocBLAS), whose C signatures and values for these calls are those of
 * rocBLAS 2.x (ROCm 5) as well: rocblas_int is int32_t (the LP64 library
 * ROCm ships), rocblas_stride int64_t, every enum passed as an int.
 */
#ifndef RT_GPU_ROCBLAS_API_H
#define RT_GPU_ROCBLAS_API_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blas_map.h"

typedef struct rocblas_handle_ *rb_handle;
typedef int rb_status;

/* rocblas_status values used; the rest are failures of the call. */
enum {
	RB_SUCCESS = 0,
	RB_NOT_IMPLEMENTED = 2,
	RB_INVALID_POINTER = 3,
	RB_INVALID_SIZE = 4,
	RB_MEMORY_ERROR = 5,
	RB_INVALID_VALUE = 11,
	RB_EXCLUDED_FROM_BUILD = 14,
	RB_ARCH_MISMATCH = 15,
};
enum { RB_OP_NONE = 111, RB_OP_TRANSPOSE = 112 };                       /* rocblas_operation */
enum { RB_F16 = 150, RB_F32 = 151, RB_F64 = 152, RB_BF16 = 168 };      /* rocblas_datatype */
enum { RB_ALGO_STANDARD = 0 };                                          /* rocblas_gemm_algo */

/* rocblas_gemm_ex: D = alpha op(A) op(B) + beta C (here D is C). */
typedef rb_status (*rb_gemm_ex_fn)(rb_handle h, int trans_a, int trans_b, int32_t m, int32_t n,
				   int32_t k, const void *alpha, const void *a, int a_type,
				   int32_t lda, const void *b, int b_type, int32_t ldb,
				   const void *beta, const void *c, int c_type, int32_t ldc,
				   void *d, int d_type, int32_t ldd, int compute_type, int algo,
				   int32_t solution_index, uint32_t flags);
/* rocblas_gemm_strided_batched_ex: the same over batch_count matrices. */
typedef rb_status (*rb_gemm_sb_ex_fn)(rb_handle h, int trans_a, int trans_b, int32_t m,
				      int32_t n, int32_t k, const void *alpha, const void *a,
				      int a_type, int32_t lda, int64_t stride_a, const void *b,
				      int b_type, int32_t ldb, int64_t stride_b, const void *beta,
				      const void *c, int c_type, int32_t ldc, int64_t stride_c,
				      void *d, int d_type, int32_t ldd, int64_t stride_d,
				      int32_t batch_count, int compute_type, int algo,
				      int32_t solution_index, uint32_t flags);

/* rocblas_gemm_batched_ex: the same over arrays of batch_count device pointers. */
typedef rb_status (*rb_gemm_batched_ex_fn)(rb_handle h, int trans_a, int trans_b, int32_t m,
					   int32_t n, int32_t k, const void *alpha, const void *a,
					   int a_type, int32_t lda, const void *b, int b_type,
					   int32_t ldb, const void *beta, const void *c, int c_type,
					   int32_t ldc, void *d, int d_type, int32_t ldd,
					   int32_t batch_count, int compute_type, int algo,
					   int32_t solution_index, uint32_t flags);

/* The entry points the plugin calls; tests fill it from a fake library. */
typedef struct rocblas_api {
	void *lib;
	char version[64]; /* rocblas_get_version_string: "4.4.0.abcdef" */
	rb_status (*create_handle)(rb_handle *h);
	rb_status (*destroy_handle)(rb_handle h);
	rb_status (*set_stream)(rb_handle h, void *stream);
	const char *(*status_to_string)(rb_status s); /* optional: absent before 2.x */
	rb_gemm_ex_fn gemm_ex;
	rb_gemm_sb_ex_fn gemm_strided_batched_ex;
	rb_gemm_batched_ex_fn gemm_batched_ex;
} rocblas_api;

/* The libraries tried, newest soname first, when $RIGTUNE_ROCBLAS is not set. */
static const char *const rocblas_names[] = {
	"librocblas.so", "librocblas.so.5", "librocblas.so.4", "librocblas.so.0",
	"/opt/rocm/lib/librocblas.so",
};

/*
 * Loads rocBLAS ($RIGTUNE_ROCBLAS, else the first of rocblas_names that
 * dlopen finds) and fills api. 0, or RT_EUNAVAIL with the reason in why
 * ("librocblas.so: cannot open shared object file ...", "librocblas.so.4:
 * no symbol rocblas_gemm_ex"); the library is closed again then.
 */
static inline int rocblas_load(rocblas_api *api, char *why, size_t len)
{
	const char *path = getenv("RIGTUNE_ROCBLAS");
	const char *name = path && *path ? path : rocblas_names[0];
	memset(api, 0, sizeof *api);
	api->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 1; !api->lib && !(path && *path) && i < RT_COUNT(rocblas_names); i++)
		api->lib = dlopen(name = rocblas_names[i], RTLD_NOW | RTLD_LOCAL);
	if (!api->lib)
		return rt_abi_fail(
		    why, len, RT_EUNAVAIL, "%s",
		    path && *path ? dlerror() : "no librocblas.so[.5|.4|.0] on the library path");
	const rt_dl_need need[] = {
	    RT_DL_NEED("rocblas_create_handle", api->create_handle),
	    RT_DL_NEED("rocblas_destroy_handle", api->destroy_handle),
	    RT_DL_NEED("rocblas_set_stream", api->set_stream),
	    RT_DL_NEED("rocblas_gemm_ex", api->gemm_ex),
	    RT_DL_NEED("rocblas_gemm_strided_batched_ex", api->gemm_strided_batched_ex),
	    RT_DL_NEED("rocblas_gemm_batched_ex", api->gemm_batched_ex),
	};
	rb_status (*version)(char *, size_t) = NULL;
	const rt_dl_need optional[] = {
	    RT_DL_NEED("rocblas_status_to_string", api->status_to_string),
	    RT_DL_NEED("rocblas_get_version_string", version),
	};
	if (rt_dl_resolve(api->lib, name, need, RT_COUNT(need), why, len)) {
		dlclose(api->lib);
		memset(api, 0, sizeof *api);
		return RT_EUNAVAIL;
	}
	for (size_t i = 0; i < RT_COUNT(optional); i++) /* absent in some versions */
		rt_dl_resolve(api->lib, name, &optional[i], 1, NULL, 0);
	if (!version || version(api->version, sizeof api->version) != RB_SUCCESS)
		snprintf(api->version, sizeof api->version, "(version unknown)");
	return 0;
}

/*
 * Loads rocBLAS into api and describes it for gemm_impl: "rocblas
 * 4.4.0.abcdef", or why there is none ("rocBLAS not found (...)").
 * Returns 1 when it is usable.
 */
static inline int rocblas_open_lib(rocblas_api *api, char *impl, size_t len)
{
	char why[RT_ERRLEN];
	if (rocblas_load(api, why, sizeof why) == 0) {
		snprintf(impl, len, "rocblas %.60s", api->version);
		return 1;
	}
	snprintf(impl, len, "rocBLAS not found (%.120s)", why);
	return 0;
}

static inline void rocblas_unload(rocblas_api *api)
{
	if (api->lib)
		dlclose(api->lib);
	memset(api, 0, sizeof *api);
}

/*
 * The rocblas_datatype of the inputs, of C and of the computation for a
 * precision: fp64 and fp32 throughout, bf16 and fp16 inputs (rounded copies)
 * with fp32 C and accumulation, as gemm_ex lists them. RT_EUNAVAIL for tf32,
 * which rocBLAS does not offer.
 */
static inline int rocblas_types(rt_precision p, int *in, int *out, int *compute)
{
	switch (p) {
	case RT_FP64:
		*in = *out = *compute = RB_F64;
		return 0;
	case RT_FP32:
		*in = *out = *compute = RB_F32;
		return 0;
	case RT_BF16:
	case RT_FP16:
		*in = p == RT_BF16 ? RB_BF16 : RB_F16;
		*out = *compute = RB_F32;
		return 0;
	default:
		return RT_EUNAVAIL;
	}
}

/* A call's types (rocblas_types) and its alpha and beta in the compute type. */
typedef struct rb_scalars {
	int in, out, compute;
	double alpha64, beta64;
	float alpha32, beta32;
} rb_scalars;

/* s for precision p; RT_EUNAVAIL, saying so in err, for one rocBLAS does not offer (tf32). */
static inline int rocblas_scalars(rt_precision p, double alpha, double beta, rb_scalars *s,
				  char *err, size_t errlen)
{
	s->alpha64 = alpha, s->beta64 = beta;
	s->alpha32 = (float)alpha, s->beta32 = (float)beta;
	if (rocblas_types(p, &s->in, &s->out, &s->compute))
		return rt_abi_fail(err, errlen, RT_EUNAVAIL, "rocBLAS has no %s GEMM",
		                   rt_abi_precision_name(p));
	return 0;
}

static inline const void *rb_alpha(const rb_scalars *s)
{
	return s->compute == RB_F64 ? (const void *)&s->alpha64 : (const void *)&s->alpha32;
}

static inline const void *rb_beta(const rb_scalars *s)
{
	return s->compute == RB_F64 ? (const void *)&s->beta64 : (const void *)&s->beta32;
}

/* rocBLAS's name of a status, or its number where the library has no names. */
static inline const char *rocblas_status_name(const rocblas_api *api, rb_status s, char *buf,
					      size_t len)
{
	if (api->status_to_string)
		return api->status_to_string(s);
	snprintf(buf, len, "rocblas status %d", s);
	return buf;
}

/*
 * The RT_E* code of a status: a precision or shape rocBLAS declines
 * (not implemented, not built for this GPU) is RT_EUNAVAIL, on which the
 * plugin falls back to its own kernel; memory; bad arguments; the rest.
 */
static inline int rocblas_code(rb_status s)
{
	switch (s) {
	case RB_SUCCESS:
		return 0;
	case RB_NOT_IMPLEMENTED:
	case RB_EXCLUDED_FROM_BUILD:
	case RB_ARCH_MISMATCH:
		return RT_EUNAVAIL;
	case RB_MEMORY_ERROR:
		return RT_ENOMEM;
	case RB_INVALID_POINTER:
	case RB_INVALID_SIZE:
	case RB_INVALID_VALUE:
		return RT_EINVAL;
	default:
		return RT_ERUNTIME;
	}
}

/* 0 for success, else rocblas_code(s) with "call(bf16): <status>" in err. */
static inline int rocblas_outcome(const rocblas_api *api, rb_status s, const char *call,
				  rt_precision p, char *err, size_t errlen)
{
	char num[32];
	if (s == RB_SUCCESS)
		return 0;
	return rt_abi_fail(err, errlen, rocblas_code(s), "%s(%s): %s", call,
	                   rt_abi_precision_name(p), rocblas_status_name(api, s, num, sizeof num));
}

/*
 * Runs the column-major GEMM c in precision p on handle h: one matrix
 * through rocblas_gemm_ex, a batch through rocblas_gemm_strided_batched_ex
 * (C is also D). For bf16/fp16, c's operands are the 16-bit copies. alpha
 * and beta are passed in the compute type. Returns 0 or rocblas_code() of
 * the status, with "rocblas_gemm_ex(bf16): <status>" in err.
 */
static inline int rocblas_gemm(const rocblas_api *api, rb_handle h, rt_precision p,
			       const colmajor_gemm *c, double alpha, double beta, char *err,
			       size_t errlen)
{
	rb_scalars sc;
	if (rocblas_scalars(p, alpha, beta, &sc, err, errlen))
		return RT_EUNAVAIL;
	const int in = sc.in, out = sc.out, compute = sc.compute;
	const void *pa = rb_alpha(&sc), *pb = rb_beta(&sc);
	int ta = c->transa ? RB_OP_TRANSPOSE : RB_OP_NONE, tb = c->transb ? RB_OP_TRANSPOSE
									   : RB_OP_NONE;
	const char *call = c->count == 1 ? "rocblas_gemm_ex" : "rocblas_gemm_strided_batched_ex";
	rb_status s;
	if (c->count == 1)
		s = api->gemm_ex(h, ta, tb, c->m, c->n, c->k, pa, c->a, in, c->lda, c->b, in,
				 c->ldb, pb, c->c, out, c->ldc, c->c, out, c->ldc, compute,
				 RB_ALGO_STANDARD, 0, 0);
	else
		s = api->gemm_strided_batched_ex(h, ta, tb, c->m, c->n, c->k, pa, c->a, in, c->lda,
						 c->sa, c->b, in, c->ldb, c->sb, pb, c->c, out,
						 c->ldc, c->sc, c->c, out, c->ldc, c->sc, c->count,
						 compute, RB_ALGO_STANDARD, 0, 0);
	return rocblas_outcome(api, s, call, p, err, errlen);
}

/*
 * Runs the two-level batch c (c.outer * c.count matrices) in precision p
 * through rocblas_gemm_batched_ex, over ptrs: device arrays of the
 * matrices' addresses, c's A's, then B's, then C's (gemm_batch2.cuh), the
 * C's also D's. Types, scalars and the outcome as rocblas_gemm().
 */
static inline int rocblas_gemm_ptrs(const rocblas_api *api, rb_handle h, rt_precision p,
				    const colmajor_gemm *c, void **ptrs, double alpha,
				    double beta, char *err, size_t errlen)
{
	const int total = c->outer * c->count;
	rb_scalars sc;
	if (rocblas_scalars(p, alpha, beta, &sc, err, errlen))
		return RT_EUNAVAIL;
	rb_status s = api->gemm_batched_ex(
	    h, c->transa ? RB_OP_TRANSPOSE : RB_OP_NONE, c->transb ? RB_OP_TRANSPOSE : RB_OP_NONE,
	    c->m, c->n, c->k, rb_alpha(&sc), ptrs, sc.in, c->lda, ptrs + total, sc.in, c->ldb,
	    rb_beta(&sc), ptrs + 2 * total, sc.out, c->ldc, ptrs + 2 * total, sc.out, c->ldc, total,
	    sc.compute, RB_ALGO_STANDARD, 0, 0);
	return rocblas_outcome(api, s, "rocblas_gemm_batched_ex", p, err, errlen);
}

#endif
