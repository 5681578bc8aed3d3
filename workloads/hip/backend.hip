/*
 * The HIP backend plugin, librigtune_hip.so: what HIP has that CUDA has
 * not, around the shared source gpu/backend.cuh. The runtime's names, the
 * device's precisions, rocBLAS for the GEMMs (dlopen'ed through
 * gpu/rocblas_api.h: Debian has no rocBLAS headers, and a machine without
 * rocBLAS still runs the plugin on its own tiled GEMM, saying so in
 * gemm_impl), rocm_smi (dlopen'ed) for utilization. hipBLASLt is not used.
 */
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include "../gpu/blas_map.h"
#include "../gpu/host_common.h"
/*
 * The device monitor (ROCm SMI), compiled into this one translation unit
 * (../devmon.h); host code only: clang would make its const table a
 * device variable too, pointing at host functions.
 */
#ifndef __HIP_DEVICE_COMPILE__
#include "../devmon.c"
#include "../devmon_rsmi.c"
#endif
#include "../gpu/rocblas_api.h"

#define GPU_NAME "hip"
#define GPU_LABEL "HIP"
#define GPU_VISIBLE "HIP_VISIBLE_DEVICES"
#define GPU_FRAMEWORK_DEVICE "cuda" /* PyTorch's ROCm build names its devices cuda too */
#define VENDOR_BUILT_FOR "see HIP_ARCHS in the Makefile"
#define VENDOR_MONITOR rt_devmon_rsmi

/* bfloat16 as its bits: the upper half of an fp32 (rocBLAS's rocblas_bfloat16 too). */
typedef struct bf16 {
	unsigned short bits;
} bf16;

typedef hipError_t gpuError_t;
typedef hipStream_t gpuStream_t;
typedef hipEvent_t gpuEvent_t;
typedef hipDeviceProp_t gpuDeviceProp;
typedef hipFuncAttributes gpuFuncAttributes;
typedef bf16 gpu_bf16_t;
typedef __half gpu_fp16_t;
#define gpuSuccess hipSuccess
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuFuncGetAttributes hipFuncGetAttributes
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuMemGetInfo hipMemGetInfo
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMallocHost hipHostMalloc
#define gpuFreeHost hipHostFree
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuGetLastError hipGetLastError
#define gpuGetErrorName hipGetErrorName
#define gpuGetErrorString hipGetErrorString
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime

/* Rounds to nearest even; NaN stays a (quiet) NaN. */
static __device__ bf16 to_bf16(float x)
{
	unsigned u = __float_as_uint(x);
	bf16 h;
	if ((u & 0x7fffffffu) > 0x7f800000u)
		h.bits = (unsigned short)((u >> 16) | 0x40u);
	else
		h.bits = (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
	return h;
}

static __device__ __forceinline__ float to_acc(__half x)
{
	return __half2float(x);
}
static __device__ __forceinline__ float to_acc(bf16 x)
{
	return __uint_as_float((unsigned)x.bits << 16);
}
static __device__ __forceinline__ void store16(bf16 *y, float x)
{
	*y = to_bf16(x);
}
static __device__ __forceinline__ void store16(__half *y, float x)
{
	*y = __float2half_rn(x);
}

/* The RT_E* code for a HIP error: memory, missing device/driver, or run time. */
static int vendor_code(hipError_t e)
{
	switch (e) {
	case hipErrorOutOfMemory:
		return RT_ENOMEM;
	case hipErrorNoDevice:
	case hipErrorInsufficientDriver:
	case hipErrorInvalidDevice:
	case hipErrorNoBinaryForGpu:
		return RT_EUNAVAIL;
	default:
		return RT_ERUNTIME;
	}
}

/* rocBLAS's handle of a context. */
struct vendor_blas {
	rb_handle h;
};

#include "../gpu/context.cuh"

static const char *vendor_arch(const hipDeviceProp_t *p, char *buf, size_t len)
{
	snprintf(buf, len, "%.40s", p->gcnArchName);
	return buf;
}

static void vendor_describe(const hipDeviceProp_t *p, char *name, size_t len)
{
	snprintf(name, len, "%.80s (%.40s)", p->name, p->gcnArchName);
}

/*
 * rocBLAS and the own kernel both take bf16/fp16 inputs (rounded copies)
 * with fp32 accumulation, so every device offers them; TF32 has no
 * equivalent on either path.
 */
static unsigned vendor_precisions(const hipDeviceProp_t *p)
{
	(void)p;
	return RT_PREC_BIT(RT_FP64) | RT_PREC_BIT(RT_FP32) | RT_PREC_BIT(RT_BF16) |
	       RT_PREC_BIT(RT_FP16);
}

/* "5.2.21153" from HIP's 10000000 * major + 100000 * minor + patch. */
static void vendor_version(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%d", v / 10000000, (v / 100000) % 100, v % 100000);
}

/* rocBLAS, loaded once per process by vendor_blas_load(). */
static rocblas_api rocblas;

/* "rocblas 4.4.0.abcdef", or why there is none ("rocBLAS not found (...)"). */
static void vendor_blas_load(char *impl, size_t len, int *usable)
{
	*usable = rocblas_open_lib(&rocblas, impl, len);
}

static void vendor_blas_close(rt_ctx *ctx)
{
	if (ctx->blas.h)
		rocblas.destroy_handle(ctx->blas.h);
	ctx->blas.h = NULL;
}

/* A rocBLAS handle on the context's stream. */
static int vendor_blas_open(rt_ctx *ctx)
{
	char num[32];
	const char *call = "rocblas_create_handle";
	rb_status s = rocblas.create_handle(&ctx->blas.h);
	if (s == RB_SUCCESS) {
		call = "rocblas_set_stream";
		s = rocblas.set_stream(ctx->blas.h, (void *)ctx->stream);
	}
	if (s == RB_SUCCESS)
		return 0;
	snprintf(ctx->blas_why, sizeof ctx->blas_why, "rocBLAS unusable (%s: %s)", call,
		 rocblas_status_name(&rocblas, s, num, sizeof num));
	vendor_blas_close(ctx);
	return rocblas_code(s);
}

/* The GEMM g on rocBLAS; a and b are its operands (16-bit copies for bf16/fp16). */
static int vendor_gemm(rt_ctx *ctx, const rt_gemm_args *g, const void *a, const void *b)
{
	rt_gemm_args h = *g;
	h.a = a;
	h.b = b;
	colmajor_gemm c = colmajor_of(&h);
	return rocblas_gemm(&rocblas, ctx->blas.h, g->prec, &c, g->alpha, g->beta, ctx->err,
			    sizeof ctx->err);
}

/* rocBLAS has no epilogues (hipBLASLt, which has, is not used): the GEMM, then a kernel. */
static int vendor_linear(rt_ctx *ctx, const rt_gemm_args *g, const void *x, const void *w,
			 const void *bias, void *a)
{
	(void)ctx, (void)g, (void)x, (void)w, (void)bias, (void)a;
	return RT_EUNAVAIL;
}

/* The two-level batch g on rocBLAS, over the device pointer arrays ptrs (gemm_batch2.cuh). */
static int vendor_gemm_ptrs(rt_ctx *ctx, const rt_gemm_args *g, void **ptrs)
{
	const colmajor_gemm c = colmajor_of(g);
	return rocblas_gemm_ptrs(&rocblas, ctx->blas.h, g->prec, &c, ptrs, g->alpha, g->beta,
				 ctx->err, sizeof ctx->err);
}

/* rocm_smi finds the device by PCI address (its numbering may differ from HIP's). */
static int vendor_monitor_bus(rt_ctx *ctx, char *bus, size_t buslen, char *why, size_t len)
{
	hipDeviceProp_t p;
	hipError_t e = hipGetDeviceProperties(&p, ctx->dev);
	if (e != hipSuccess)
		return rt_abi_fail(why, len, RT_EUNAVAIL, "hipGetDeviceProperties: %s",
				   hipGetErrorString(e));
	snprintf(bus, buslen, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
	return 0;
}

#include "../gpu/backend.cuh"
