/*
 * context.cuh: the first half of the GPU plugins' shared source (see
 * backend.cuh): the context, the checks of runtime calls, the events of
 * the device busy time, and the kernels. The vendor's file includes it
 * after its names and types (struct vendor_blas among them) and before its
 * functions that use a context.
 */
#ifndef RT_GPU_CONTEXT_CUH
#define RT_GPU_CONTEXT_CUH

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "blas_map.h"
#include "host_common.h"
#include "../devmon.h"

/*
 * Event pairs recorded before they are added up, which waits for the device:
 * a few steps of a transformer, so that the wait seldom falls mid-step.
 */
#define EV_PAIRS 2048
/*
 * Phase marks (phase_mark) kept before they are added up, which waits for
 * the device: a transformer step of 16 layers changes phase ~500 times.
 */
#define PH_MARKS 1024

/* The context's scratch buffers: 16-bit A and B, partial sums, pointer arrays. */
enum { SCRATCH_A16, SCRATCH_B16, SCRATCH_REDUCE, SCRATCH_PTRS, SCRATCH_BUFFERS };

struct rt_ctx {
	int dev;
	unsigned precisions;
	gpuStream_t stream;
	gpuStream_t copy_stream;           /* upload_async's, made on first use */
	int copies_pending;                /* copies enqueued there since the last wait */
	struct vendor_blas blas;
	int blas_ok;                       /* the vendor BLAS is usable on this context */
	char blas_why[RT_ERRLEN / 2];      /* why not, when it is not */
	unsigned declined;                 /* RT_PREC_BIT of precisions the vendor declined */
	char impl[RT_NPRECISION][192];     /* gemm_impl() answers */
	int sms, warp;                     /* multiprocessors, warp width: kernel grids */
	/*
	 * 16-bit copies of A and B for bf16/fp16 GEMMs; partial sums of the
	 * kernels; the pointer arrays of a two-level batch (SCRATCH_*)
	 */
	void *scratch[SCRATCH_BUFFERS];
	size_t scratch_bytes[SCRATCH_BUFFERS];
	/* device busy time (device_time) */
	int timing;
	gpuEvent_t ev[2 * EV_PAIRS];
	int nev_created, npairs;
	double busy_ms;
	/* phases timed on the device (phase_mark): marks in order, the phase each opens */
	gpuEvent_t mark_ev[PH_MARKS];
	int mark_phase[PH_MARKS];
	int nmarks, nmark_created;
	double mark_ms[RT_PHASE_MARKS_MAX];
	/* the utilization monitor (utilization) */
	rt_devmon *mon;
	int mon_failed;
	char err[RT_ERRLEN];
};

/* The last failure outside a context (device_info), for last_error(NULL). */
static char module_err[RT_ERRLEN];

/* The vendor BLAS, loaded once per process: usable, and its description. */
static int blas_loaded, blas_usable;
static char blas_impl[160];

/* 0 if e is gpuSuccess, else the code of e with "call: name: description" in err. */
static int gpu_check(gpuError_t e, const char *call, char *err, size_t errlen)
{
	if (e == gpuSuccess)
		return 0;
	return rt_abi_fail(err, errlen, vendor_code(e), "%s: %s: %s", call, gpuGetErrorName(e),
	                   gpuGetErrorString(e));
}

/* The call's text after macro expansion: cudaMalloc(...), not gpuMalloc(...). */
#define CTX_GPU(ctx, call) CTX_GPU_(ctx, call)
#define CTX_GPU_(ctx, call) gpu_check((call), #call, (ctx)->err, sizeof (ctx)->err)
#define GPU_STR(x) GPU_STR_(x)
#define GPU_STR_(x) #x

/*
 * Device time: with timing on, an event is recorded on the stream right
 * before and right after every kernel, library GEMM and copy; the device
 * time between the two of each pair is the time the device spent on that
 * operation (one stream runs them one at a time, so the pairs never
 * overlap), and the gaps between pairs are the time it waited for the host.
 */
static int ev_record(rt_ctx *ctx, int end)
{
	if (!ctx->timing)
		return 0;
	return CTX_GPU(ctx, gpuEventRecord(ctx->ev[2 * ctx->npairs + end], ctx->stream));
}

/* Waits for the recorded pairs and adds their device time to busy_ms. */
static int ev_harvest(rt_ctx *ctx)
{
	int rc = 0;
	if (ctx->npairs == 0)
		return 0;
	rc = CTX_GPU(ctx, gpuEventSynchronize(ctx->ev[2 * ctx->npairs - 1]));
	for (int i = 0; !rc && i < ctx->npairs; i++) {
		float ms = 0;
		rc = CTX_GPU(ctx, gpuEventElapsedTime(&ms, ctx->ev[2 * i], ctx->ev[2 * i + 1]));
		ctx->busy_ms += ms;
	}
	ctx->npairs = 0;
	return rc;
}

static int ev_begin(rt_ctx *ctx)
{
	return ev_record(ctx, 0);
}

/* Closes a pair; a full ring is added up (and emptied) at once. */
static int ev_end(rt_ctx *ctx)
{
	if (!ctx->timing)
		return 0;
	int rc = ev_record(ctx, 1);
	if (!rc && ++ctx->npairs == EV_PAIRS)
		rc = ev_harvest(ctx);
	return rc;
}

/* The stream of a launch: evaluated in its configuration, before it is enqueued. */
static gpuStream_t gpu_stream(rt_ctx *ctx)
{
	ev_begin(ctx); /* a failed record shows in ev_end's, right after the launch */
	return ctx->stream;
}

static int gpu_launched(rt_ctx *ctx, const char *kernel)
{
	gpuError_t e = gpuGetLastError();
	int rc = ev_end(ctx);
	if (e == gpuSuccess)
		return rc;
	return rt_abi_fail(ctx->err, sizeof ctx->err, vendor_code(e), "%s kernel launch: %s: %s",
	                   kernel, gpuGetErrorName(e), gpuGetErrorString(e));
}

/* Grows scratch buffer i to at least bytes (gpuFree waits for its users). */
static int scratch_reserve(rt_ctx *ctx, int i, size_t bytes)
{
	if (bytes <= ctx->scratch_bytes[i])
		return 0;
	int rc = ctx->scratch[i] ? CTX_GPU(ctx, gpuFree(ctx->scratch[i])) : 0;
	ctx->scratch[i] = NULL;
	ctx->scratch_bytes[i] = 0;
	if (!rc)
		rc = CTX_GPU(ctx, gpuMalloc(&ctx->scratch[i], bytes));
	if (!rc)
		ctx->scratch_bytes[i] = bytes;
	return rc;
}

static int gpu_reduce_scratch(rt_ctx *ctx, size_t bytes, void **p)
{
	int rc = scratch_reserve(ctx, SCRATCH_REDUCE, bytes);
	*p = ctx->scratch[SCRATCH_REDUCE];
	return rc;
}

static int gpu_sms(rt_ctx *ctx)
{
	return ctx->sms;
}

static int gpu_warp(rt_ctx *ctx)
{
	return ctx->warp;
}

typedef gpuStream_t gpu_stream_t;
#include "kernels.cuh"
#include "kernels_plain.cuh"
#include "gemm_tiled.cuh"
#include "gemm_batch2.cuh"


#endif
