/*
 * The CUDA backend plugin, librigtune_cuda.so: CUDA runtime for memory and
 * streams, cuBLAS for the GEMMs, the shared kernels of gpu/kernels.cuh for
 * the rest, NVML (dlopen'ed) for utilization.
 *
 * Every runtime and cuBLAS call is checked; a failure becomes an RT_E* code
 * and a sentence naming the call and the library's error string, in err
 * where the operation has one, else in the context (last_error()).
 *
 * A context belongs to one host thread, which open() binds to its device.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "../gpu/host_common.h"

typedef cudaStream_t gpu_stream_t;

/* NVML, declared here so that the build needs no nvml.h (nvml.h ABI). */
typedef struct nvml_device *nvml_device_t;
typedef struct {
	unsigned int gpu, memory;
} nvml_utilization_t;

typedef struct nvml {
	void *lib;
	nvml_device_t dev;
	int (*get_utilization)(nvml_device_t, nvml_utilization_t *);
	const char *(*error_string)(int);
	int (*shutdown)(void);
} nvml;

struct rt_ctx {
	int dev;
	unsigned precisions;
	cudaStream_t stream;
	cublasHandle_t blas;
	void *scratch[2]; /* 16-bit copies of A and B for bf16/fp16 GEMMs */
	size_t scratch_bytes[2];
	nvml *nvml;       /* loaded by the first utilization() */
	int nvml_failed;  /* RT_EUNAVAIL once NVML could not be set up */
	char err[RT_ERRLEN];
};

/* The last failure outside a context (device_info), for last_error(NULL). */
static char module_err[RT_ERRLEN];

/* The RT_E* code for a CUDA error: memory, missing device/driver, or run time. */
static int cuda_code(cudaError_t e)
{
	switch (e) {
	case cudaErrorMemoryAllocation:
		return RT_ENOMEM;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInvalidDevice:
	case cudaErrorSystemDriverMismatch:
	case cudaErrorSystemNotReady:
	case cudaErrorCompatNotSupportedOnDevice:
	case cudaErrorNoKernelImageForDevice:
	case cudaErrorUnsupportedPtxVersion:
		return RT_EUNAVAIL;
	default:
		return RT_ERUNTIME;
	}
}

/* 0 if e is cudaSuccess, else the code of e with "call: name: description" in err. */
static int cuda_check(cudaError_t e, const char *call, char *err, size_t errlen)
{
	if (e == cudaSuccess)
		return 0;
	return fail(err, errlen, cuda_code(e), "%s: %s: %s", call, cudaGetErrorName(e),
		    cudaGetErrorString(e));
}

#define CTX_CUDA(ctx, call) cuda_check((call), #call, (ctx)->err, sizeof (ctx)->err)

static int blas_check(rt_ctx *ctx, cublasStatus_t s, const char *call)
{
	if (s == CUBLAS_STATUS_SUCCESS)
		return 0;
	int code = s == CUBLAS_STATUS_ALLOC_FAILED	   ? RT_ENOMEM
		   : s == CUBLAS_STATUS_NOT_SUPPORTED	   ? RT_EUNAVAIL
		   : s == CUBLAS_STATUS_ARCH_MISMATCH	   ? RT_EUNAVAIL
		   : s == CUBLAS_STATUS_INVALID_VALUE	   ? RT_EINVAL
							   : RT_ERUNTIME;
	return fail(ctx->err, sizeof ctx->err, code, "%s: %s: %s", call, cublasGetStatusName(s),
		    cublasGetStatusString(s));
}

static gpu_stream_t gpu_stream(rt_ctx *ctx)
{
	return ctx->stream;
}

static int gpu_launched(rt_ctx *ctx, const char *kernel)
{
	cudaError_t e = cudaGetLastError();
	if (e == cudaSuccess)
		return 0;
	return fail(ctx->err, sizeof ctx->err, cuda_code(e), "%s kernel launch: %s: %s", kernel,
		    cudaGetErrorName(e), cudaGetErrorString(e));
}

#include "../gpu/kernels.cuh"

/* Does nothing: whether its code loads tells whether this build runs on a device. */
__global__ void k_arch_probe(void)
{
}

/*
 * A GPU older than the architectures this plugin was built for (or one no
 * PTX can be compiled for) would fail every kernel; say so once, here.
 */
static int check_code_for(int dev, char *err, size_t errlen)
{
	cudaFuncAttributes a;
	cudaDeviceProp p;
	cudaError_t e = cudaSetDevice(dev);
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&a, (const void *)k_arch_probe);
	if (e == cudaSuccess)
		return RT_OK;
	int known = cudaGetDeviceProperties(&p, dev) == cudaSuccess;
	return fail(err, errlen, RT_EUNAVAIL,
		    "device %d (sm_%d%d) has no code in this build (sm_75, sm_80, sm_90, "
		    "PTX 9.0): %s",
		    dev, known ? p.major : 0, known ? p.minor : 0, cudaGetErrorString(e));
}

static int cuda_init(char *err, size_t errlen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		/* Whatever stops us from counting devices, CUDA is not usable here. */
		cuda_check(e, "cudaGetDeviceCount", err, errlen);
		return RT_EUNAVAIL;
	}
	if (n == 0)
		return fail(err, errlen, RT_EUNAVAIL, "no CUDA device");
	for (int d = 0; d < n; d++) {
		int rc = check_code_for(d, err, errlen);
		if (rc)
			return rc;
	}
	return n;
}

/* GEMM precisions of a compute capability: tensor-core formats by generation. */
static unsigned cc_precisions(int major, int minor)
{
	unsigned p = RT_PREC_BIT(RT_FP64) | RT_PREC_BIT(RT_FP32);
	if (major > 5 || (major == 5 && minor >= 3))
		p |= RT_PREC_BIT(RT_FP16);
	if (major >= 8)
		p |= RT_PREC_BIT(RT_TF32) | RT_PREC_BIT(RT_BF16);
	return p;
}

/* "13.0" from CUDA's 1000 * major + 10 * minor. */
static void version_string(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/*
 * Describes device dev. Free memory needs the device's primary context, so
 * this makes dev current (and leaves it current: a trial uses one device).
 */
static int cuda_device_info(int dev, rt_device_info *info)
{
	cudaDeviceProp p;
	int drv = 0, rtv = 0, rc;
	size_t free_b = 0, total_b = 0;
	char d[16], r[16];

	memset(info, 0, sizeof *info);
	rc = cuda_check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties",
			module_err, sizeof module_err);
	if (!rc)
		rc = cuda_check(cudaDriverGetVersion(&drv), "cudaDriverGetVersion", module_err,
				sizeof module_err);
	if (!rc)
		rc = cuda_check(cudaRuntimeGetVersion(&rtv), "cudaRuntimeGetVersion",
				module_err, sizeof module_err);
	if (!rc)
		rc = cuda_check(cudaSetDevice(dev), "cudaSetDevice", module_err,
				sizeof module_err);
	if (!rc)
		rc = cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo", module_err,
				sizeof module_err);
	if (rc)
		return rc;
	snprintf(info->name, sizeof info->name, "%.100s (sm_%d%d)", p.name, p.major, p.minor);
	version_string(drv, d, sizeof d);
	version_string(rtv, r, sizeof r);
	snprintf(info->driver, sizeof info->driver, "CUDA driver %s, runtime %s", d, r);
	info->mem_total = total_b;
	info->mem_free = free_b;
	info->compute_units = p.multiProcessorCount;
	info->precisions = cc_precisions(p.major, p.minor);
	info->unified_memory = p.integrated;
	return 0;
}

static void cuda_close(rt_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->nvml) {
		ctx->nvml->shutdown();
		dlclose(ctx->nvml->lib);
		free(ctx->nvml);
	}
	for (int i = 0; i < 2; i++)
		cudaFree(ctx->scratch[i]);
	if (ctx->blas)
		cublasDestroy(ctx->blas);
	if (ctx->stream)
		cudaStreamDestroy(ctx->stream);
	free(ctx);
}

/*
 * Makes dev current and gives it a stream and a cuBLAS handle bound to it.
 * threads is unused: the host side of this backend is the calling thread.
 */
static int cuda_open(int dev, int threads, rt_ctx **out, char *err, size_t errlen)
{
	int major = 0, minor = 0, rc;
	rt_ctx *ctx = (rt_ctx *)calloc(1, sizeof *ctx);

	(void)threads;
	*out = NULL;
	if (!ctx)
		return fail(err, errlen, RT_ENOMEM, "out of memory for a CUDA context");
	ctx->dev = dev;
	rc = CTX_CUDA(ctx, cudaSetDevice(dev));
	if (!rc)
		rc = CTX_CUDA(ctx, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
							 dev));
	if (!rc)
		rc = CTX_CUDA(ctx, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
							 dev));
	if (!rc)
		rc = CTX_CUDA(ctx, cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
	if (!rc)
		rc = blas_check(ctx, cublasCreate(&ctx->blas), "cublasCreate");
	if (!rc)
		rc = blas_check(ctx, cublasSetStream(ctx->blas, ctx->stream), "cublasSetStream");
	if (rc) {
		fail(err, errlen, rc, "CUDA device %d: %s", dev, ctx->err);
		cuda_close(ctx);
		return rc;
	}
	ctx->precisions = cc_precisions(major, minor);
	*out = ctx;
	return 0;
}

static int cuda_alloc(rt_ctx *ctx, size_t bytes, void **ptr)
{
	*ptr = NULL;
	return CTX_CUDA(ctx, cudaMalloc(ptr, bytes ? bytes : 1));
}

static void cuda_free(rt_ctx *ctx, void *ptr)
{
	if (ptr)
		CTX_CUDA(ctx, cudaFree(ptr));
}

/*
 * Both directions wait for the copy: the caller may reuse or free its host
 * buffer on return (pageable memory gives no such promise by itself).
 */
static int cuda_upload(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	int rc = CTX_CUDA(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
					       ctx->stream));
	return rc ? rc : CTX_CUDA(ctx, cudaStreamSynchronize(ctx->stream));
}

static int cuda_download(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	int rc = CTX_CUDA(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost,
					       ctx->stream));
	return rc ? rc : CTX_CUDA(ctx, cudaStreamSynchronize(ctx->stream));
}

static int cuda_synchronize(rt_ctx *ctx)
{
	return CTX_CUDA(ctx, cudaStreamSynchronize(ctx->stream));
}

static int cuda_mem_info(rt_ctx *ctx, uint64_t *total, uint64_t *free_bytes)
{
	size_t f = 0, t = 0;
	int rc = CTX_CUDA(ctx, cudaMemGetInfo(&f, &t));
	*total = t;
	*free_bytes = f;
	return rc;
}

/* Grows scratch buffer i to at least bytes (cudaFree waits for its users). */
static int scratch_reserve(rt_ctx *ctx, int i, size_t bytes)
{
	if (bytes <= ctx->scratch_bytes[i])
		return 0;
	int rc = CTX_CUDA(ctx, cudaFree(ctx->scratch[i]));
	ctx->scratch[i] = NULL;
	ctx->scratch_bytes[i] = 0;
	if (!rc)
		rc = CTX_CUDA(ctx, cudaMalloc(&ctx->scratch[i], bytes));
	if (!rc)
		ctx->scratch_bytes[i] = bytes;
	return rc;
}

template <class H> static __device__ H to_half(float x);
template <> __device__ __nv_bfloat16 to_half<__nv_bfloat16>(float x)
{
	return __float2bfloat16_rn(x);
}
template <> __device__ __half to_half<__half>(float x)
{
	return __float2half_rn(x);
}

template <class H> __global__ void k_round16(size_t n, const float *x, H *y)
{
	GRID_LOOP(i, n)
	y[i] = to_half<H>(x[i]);
}

/*
 * Copies n floats at x into scratch buffer i as bf16 or fp16 (same layout,
 * so leading dimensions and strides keep their meaning); *out is the copy.
 */
static int round_to_scratch(rt_ctx *ctx, int i, rt_precision prec, const void *x, size_t n,
			    const void **out)
{
	*out = x;
	if (n == 0)
		return 0;
	int rc = scratch_reserve(ctx, i, n * 2);
	if (rc)
		return rc;
	if (prec == RT_BF16)
		k_round16<__nv_bfloat16><<<gpu_blocks(n), GPU_THREADS, 0, ctx->stream>>>(
			n, (const float *)x, (__nv_bfloat16 *)ctx->scratch[i]);
	else
		k_round16<__half><<<gpu_blocks(n), GPU_THREADS, 0, ctx->stream>>>(
			n, (const float *)x, (__half *)ctx->scratch[i]);
	*out = ctx->scratch[i];
	return gpu_launched(ctx, "fp32 to 16-bit");
}

/*
 * Runs a checked GEMM. Row-major C = op(A) op(B) is column-major
 * C^T = op(B)^T op(A)^T, and a row-major matrix is its transpose in column
 * major, so cuBLAS gets B first, A second, n and m swapped and the same
 * transpose flags.
 */
static int gemm_run(rt_ctx *ctx, const gemm_args *g)
{
	cudaDataType in_type = CUDA_R_32F, out_type = CUDA_R_32F;
	cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
	float alpha32 = (float)g->alpha, beta32 = (float)g->beta;
	const void *alpha = &alpha32, *beta = &beta32, *a = g->a, *b = g->b;
	int rc = 0;

	if (g->m == 0 || g->n == 0 || g->count == 0)
		return 0;
	switch (g->prec) {
	case RT_FP64:
		in_type = out_type = CUDA_R_64F;
		compute = CUBLAS_COMPUTE_64F;
		alpha = &g->alpha;
		beta = &g->beta;
		break;
	case RT_TF32:
		compute = CUBLAS_COMPUTE_32F_FAST_TF32;
		break;
	case RT_BF16:
	case RT_FP16:
		in_type = g->prec == RT_BF16 ? CUDA_R_16BF : CUDA_R_16F;
		rc = round_to_scratch(ctx, 0, g->prec, g->a,
				      span(g->transa ? g->k : g->m, g->transa ? g->m : g->k,
					   g->lda, g->sa, g->count),
				      &a);
		if (!rc)
			rc = round_to_scratch(ctx, 1, g->prec, g->b,
					      span(g->transb ? g->n : g->k,
						   g->transb ? g->k : g->n, g->ldb, g->sb,
						   g->count),
					      &b);
		break;
	default:
		break;
	}
	if (rc)
		return rc;
	cublasOperation_t opa = g->transa ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasOperation_t opb = g->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
	if (g->count == 1)
		return blas_check(ctx,
				  cublasGemmEx(ctx->blas, opb, opa, g->n, g->m, g->k, alpha, b,
					       in_type, g->ldb, a, in_type, g->lda, beta, g->c,
					       out_type, g->ldc, compute, CUBLAS_GEMM_DEFAULT),
				  "cublasGemmEx");
	return blas_check(ctx,
			  cublasGemmStridedBatchedEx(ctx->blas, opb, opa, g->n, g->m, g->k,
						     alpha, b, in_type, g->ldb, g->sb, a,
						     in_type, g->lda, g->sa, beta, g->c,
						     out_type, g->ldc, g->sc, g->count, compute,
						     CUBLAS_GEMM_DEFAULT),
			  "cublasGemmStridedBatchedEx");
}

static int cuda_gemm_batched(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa,
			     int transb, int m, int n, int k, double alpha, const void *a,
			     int lda, long stride_a, const void *b, int ldb, long stride_b,
			     double beta, void *c, int ldc, long stride_c, int count)
{
	const gemm_args g = { t,     prec,  transa, transb, m,        n,        k,
			      alpha, beta,  a,	    b,	    c,	      lda,	ldb,
			      ldc,   stride_a, stride_b, stride_c, count };
	int rc = gemm_check(&g, ctx->precisions, "CUDA", ctx->dev, ctx->err, sizeof ctx->err);
	return rc ? rc : gemm_run(ctx, &g);
}

static int cuda_gemm(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb, int m,
		     int n, int k, double alpha, const void *a, int lda, const void *b, int ldb,
		     double beta, void *c, int ldc)
{
	return cuda_gemm_batched(ctx, t, prec, transa, transb, m, n, k, alpha, a, lda, 0, b, ldb,
				 0, beta, c, ldc, 0, 1);
}

/* Looks up one NVML function; NULL (and a message in ctx) if it is missing. */
static void *nvml_sym(rt_ctx *ctx, void *lib, const char *name)
{
	void *f = dlsym(lib, name);
	if (!f)
		fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "libnvidia-ml.so.1: no symbol %s",
		     name);
	return f;
}

/*
 * Loads NVML and finds the device of ctx by PCI bus id (NVML and CUDA may
 * number devices differently). RT_EUNAVAIL, with the reason, when it cannot.
 */
static int nvml_load(rt_ctx *ctx)
{
	char bus[32];
	int rc = CTX_CUDA(ctx, cudaDeviceGetPCIBusId(bus, sizeof bus, ctx->dev));
	if (rc)
		return RT_EUNAVAIL;
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "%s", dlerror());
	nvml *nv = (nvml *)calloc(1, sizeof *nv);
	int (*init)(void) = (int (*)(void))nvml_sym(ctx, lib, "nvmlInit_v2");
	int (*by_bus)(const char *, nvml_device_t *) = (int (*)(const char *, nvml_device_t *))
		nvml_sym(ctx, lib, "nvmlDeviceGetHandleByPciBusId_v2");
	if (!nv || !init || !by_bus)
		goto fail_lib;
	nv->lib = lib;
	nv->get_utilization = (int (*)(nvml_device_t, nvml_utilization_t *))nvml_sym(
		ctx, lib, "nvmlDeviceGetUtilizationRates");
	nv->error_string = (const char *(*)(int))nvml_sym(ctx, lib, "nvmlErrorString");
	nv->shutdown = (int (*)(void))nvml_sym(ctx, lib, "nvmlShutdown");
	if (!nv->get_utilization || !nv->error_string || !nv->shutdown)
		goto fail_lib;
	if ((rc = init()) != 0) {
		fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "nvmlInit_v2: %s",
		     nv->error_string(rc));
		goto fail_lib;
	}
	if ((rc = by_bus(bus, &nv->dev)) != 0) {
		fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL,
		     "nvmlDeviceGetHandleByPciBusId_v2(%s): %s", bus, nv->error_string(rc));
		goto fail_init;
	}
	ctx->nvml = nv;
	return 0;

fail_init:
	nv->shutdown();
fail_lib:
	free(nv);
	dlclose(lib);
	return RT_EUNAVAIL;
}

/*
 * NVML's busy fraction of the device over its last sample period (1/6 s to
 * 1 s, by GPU), which is as close as NVML comes to "since the last call".
 */
static int cuda_utilization(rt_ctx *ctx, double *busy)
{
	if (ctx->nvml_failed)
		return RT_EUNAVAIL;
	if (!ctx->nvml && nvml_load(ctx) != 0) {
		ctx->nvml_failed = 1;
		return RT_EUNAVAIL;
	}
	nvml_utilization_t u;
	int rc = ctx->nvml->get_utilization(ctx->nvml->dev, &u);
	if (rc != 0)
		return fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL,
			    "nvmlDeviceGetUtilizationRates: %s", ctx->nvml->error_string(rc));
	*busy = u.gpu / 100.0;
	return 0;
}

static const char *cuda_last_error(rt_ctx *ctx)
{
	return ctx ? ctx->err : module_err;
}

static const rt_backend_ops cuda_ops = {
	.abi = RT_BACKEND_ABI,
	.name = "cuda",
	.init = cuda_init,
	.device_info = cuda_device_info,
	.open = cuda_open,
	.close = cuda_close,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.upload = cuda_upload,
	.download = cuda_download,
	.synchronize = cuda_synchronize,
	.mem_info = cuda_mem_info,
	.gemm = cuda_gemm,
	.gemm_batched = cuda_gemm_batched,
	.fill = gpu_fill,
	.axpby = gpu_axpby,
	.add_bias = gpu_add_bias,
	.sum_rows = gpu_sum_rows,
	.gelu = gpu_gelu,
	.gelu_backward = gpu_gelu_backward,
	.tanh_fwd = gpu_tanh_fwd,
	.tanh_backward = gpu_tanh_backward,
	.softmax = gpu_softmax,
	.softmax_backward = gpu_softmax_backward,
	.layernorm = gpu_layernorm,
	.layernorm_backward = gpu_layernorm_backward,
	.mse_loss = gpu_mse_loss,
	.adam = gpu_adam,
	.utilization = cuda_utilization,
	.last_error = cuda_last_error,
};

extern "C" __attribute__((visibility("default"))) const rt_backend_ops *rigtune_backend(void)
{
	return &cuda_ops;
}
