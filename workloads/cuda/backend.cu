/*
 * The CUDA backend plugin, librigtune_cuda.so: what CUDA has that HIP has
 * not, around the shared source gpu/backend.cuh. The runtime's names, the
 * compute capability's precisions, cuBLAS for the GEMMs (linked: it ships
 * with the toolkit) with cuBLASLt for bf16/fp16 where it is measured
 * faster, NVML (dlopen'ed) for utilization.
 *
 * cuBLASLt: the first bf16/fp16 GEMM of a shape with beta = 0 (so that
 * repeating it changes nothing) runs on both cublasGemmEx and cublasLtMatmul
 * (its heuristic's first algorithm, with a workspace), twice each, timed on
 * the device with events; that shape then stays on the faster one. Shapes
 * not yet decided, and shapes past LT_CACHE, use cublasGemmEx.
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "../gpu/blas_map.h"
#include "../gpu/host_common.h"
/* The device monitor (NVML), compiled into this one translation unit: ../devmon.h. */
#include "../devmon.c"
#include "../devmon_nvml.c"

#define GPU_NAME "cuda"
#define GPU_LABEL "CUDA"
#define GPU_VISIBLE "CUDA_VISIBLE_DEVICES"
#define GPU_FRAMEWORK_DEVICE "cuda" /* torch.device('cuda') */
#define VENDOR_BUILT_FOR "sm_75, sm_80, sm_90, PTX 9.0"
#define VENDOR_MONITOR rt_devmon_nvml

typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
typedef cudaEvent_t gpuEvent_t;
typedef cudaDeviceProp gpuDeviceProp;
typedef cudaFuncAttributes gpuFuncAttributes;
typedef __nv_bfloat16 gpu_bf16_t;
typedef __half gpu_fp16_t;
#define gpuSuccess cudaSuccess
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuFuncGetAttributes cudaFuncGetAttributes
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuMemGetInfo cudaMemGetInfo
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMallocHost cudaMallocHost
#define gpuFreeHost cudaFreeHost
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuGetLastError cudaGetLastError
#define gpuGetErrorName cudaGetErrorName
#define gpuGetErrorString cudaGetErrorString
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime

static const char *vendor_arch(const cudaDeviceProp *p, char *buf, size_t len)
{
	snprintf(buf, len, "sm_%d%d", p->major, p->minor);
	return buf;
}

static void vendor_describe(const cudaDeviceProp *p, char *name, size_t len)
{
	snprintf(name, len, "%.100s (sm_%d%d)", p->name, p->major, p->minor);
}

/* GEMM precisions of a compute capability: tensor-core formats by generation. */
static unsigned vendor_precisions(const cudaDeviceProp *p)
{
	unsigned b = RT_PREC_BIT(RT_FP64) | RT_PREC_BIT(RT_FP32);
	if (p->major > 5 || (p->major == 5 && p->minor >= 3))
		b |= RT_PREC_BIT(RT_FP16);
	if (p->major >= 8)
		b |= RT_PREC_BIT(RT_TF32) | RT_PREC_BIT(RT_BF16);
	return b;
}

/* "13.0" from CUDA's 1000 * major + 10 * minor. */
static void vendor_version(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

static __device__ __forceinline__ float to_acc(__nv_bfloat16 x)
{
	return __bfloat162float(x);
}
static __device__ __forceinline__ float to_acc(__half x)
{
	return __half2float(x);
}
static __device__ __forceinline__ void store16(__nv_bfloat16 *y, float x)
{
	*y = __float2bfloat16_rn(x);
}
static __device__ __forceinline__ void store16(__half *y, float x)
{
	*y = __float2half_rn(x);
}

/* The RT_E* code for a CUDA error: memory, missing device/driver, or run time. */
static int vendor_code(cudaError_t e)
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

#define LT_CACHE 64               /* bf16/fp16 GEMM shapes whose choice is kept */
#define LT_WORKSPACE (32u << 20)  /* cuBLASLt's workspace: what Hopper asks for */
#define LT_ALIGN 16               /* bytes every operand (and batch stride) is aligned to */

enum { LT_UNDECIDED = 0, LT_CUBLAS, LT_LT, LT_DECLINED };

/*
 * One GEMM shape on cuBLASLt: a bf16/fp16 GEMM (epilogue 0), or a linear
 * layer of any precision with its bias (and GELU) in the epilogue; its
 * descriptors and algorithm, and the choice.
 */
typedef struct lt_shape {
	colmajor_gemm key; /* the call with a, b, c cleared */
	rt_precision prec;
	int epilogue; /* 0, CUBLASLT_EPILOGUE_BIAS or CUBLASLT_EPILOGUE_GELU_AUX_BIAS */
	int choice;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulAlgo_t algo;
} lt_shape;

struct vendor_blas {
	cublasHandle_t h;
	cublasLtHandle_t lt;
	void *ws;
	cudaEvent_t t[4];
	int nt;
	lt_shape shapes[LT_CACHE];
	int nshapes;
};

#include "../gpu/context.cuh"


/* "cublas 13.0.2, cublasLt for bf16/fp16 where measured faster"; cuBLAS is linked, so usable. */
static void vendor_blas_load(char *impl, size_t len, int *usable)
{
	int v[3] = {0, 0, 0};
	const libraryPropertyType what[3] = {MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL};
	for (int i = 0; i < 3; i++)
		if (cublasGetProperty(what[i], &v[i]) != CUBLAS_STATUS_SUCCESS)
			v[i] = -1;
	snprintf(impl, len, "cublas %d.%d.%d, cublasLt for bf16/fp16 where measured faster", v[0],
		 v[1], v[2]);
	*usable = 1;
}

static int blas_check(rt_ctx *ctx, cublasStatus_t s, const char *call)
{
	if (s == CUBLAS_STATUS_SUCCESS)
		return 0;
	int code = s == CUBLAS_STATUS_ALLOC_FAILED	   ? RT_ENOMEM
		   : s == CUBLAS_STATUS_NOT_SUPPORTED	   ? RT_EUNAVAIL
		   : s == CUBLAS_STATUS_ARCH_MISMATCH	   ? RT_EUNAVAIL
		   : s == CUBLAS_STATUS_INVALID_VALUE	   ? RT_EINVAL
							   : RT_ERUNTIME;
	return rt_abi_fail(ctx->err, sizeof ctx->err, code, "%s: %s: %s", call,
	                   cublasGetStatusName(s), cublasGetStatusString(s));
}

#define BLAS(ctx, call) blas_check(ctx, (call), #call)

static void lt_shape_free(lt_shape *s)
{
	if (s->op)
		cublasLtMatmulDescDestroy(s->op);
	if (s->la)
		cublasLtMatrixLayoutDestroy(s->la);
	if (s->lb)
		cublasLtMatrixLayoutDestroy(s->lb);
	if (s->lc)
		cublasLtMatrixLayoutDestroy(s->lc);
	memset(s, 0, sizeof *s);
}

static void vendor_blas_close(rt_ctx *ctx)
{
	struct vendor_blas *v = &ctx->blas;
	for (int i = 0; i < v->nshapes; i++)
		lt_shape_free(&v->shapes[i]);
	for (int i = 0; i < v->nt; i++)
		(void)cudaEventDestroy(v->t[i]);
	if (v->ws)
		(void)cudaFree(v->ws);
	if (v->lt)
		cublasLtDestroy(v->lt);
	if (v->h)
		cublasDestroy(v->h);
	memset(v, 0, sizeof *v);
}

/* A cuBLAS handle on the context's stream, a cuBLASLt handle, its workspace, 4 timing events. */
static int vendor_blas_open(rt_ctx *ctx)
{
	struct vendor_blas *v = &ctx->blas;
	int rc = BLAS(ctx, cublasCreate(&v->h));
	if (!rc)
		rc = BLAS(ctx, cublasSetStream(v->h, ctx->stream));
	if (!rc)
		rc = BLAS(ctx, cublasLtCreate(&v->lt));
	if (!rc)
		rc = CTX_GPU(ctx, cudaMalloc(&v->ws, LT_WORKSPACE));
	while (!rc && v->nt < 4 && !(rc = CTX_GPU(ctx, cudaEventCreate(&v->t[v->nt]))))
		v->nt++;
	if (rc) {
		snprintf(ctx->blas_why, sizeof ctx->blas_why, "cuBLAS unusable (%.200s)", ctx->err);
		vendor_blas_close(ctx);
	}
	return rc;
}

/* cuBLAS's types of a precision: the inputs', C's and the computation's. */
typedef struct cublas_types {
	cudaDataType in, out;
	cublasComputeType_t compute;
} cublas_types;

static cublas_types cublas_types_of(rt_precision prec)
{
	cublas_types t = {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
	switch (prec) {
	case RT_FP64:
		t.in = t.out = CUDA_R_64F;
		t.compute = CUBLAS_COMPUTE_64F;
		break;
	case RT_TF32:
		t.compute = CUBLAS_COMPUTE_32F_FAST_TF32;
		break;
	case RT_BF16:
		t.in = CUDA_R_16BF;
		break;
	case RT_FP16:
		t.in = CUDA_R_16F;
		break;
	default:
		break;
	}
	return t;
}

/* cublasGemmEx / cublasGemmStridedBatchedEx on the column-major call c. */
static int run_cublas(rt_ctx *ctx, rt_precision prec, const colmajor_gemm *c, double alpha,
		      double beta)
{
	const cublas_types ty = cublas_types_of(prec);
	const cudaDataType in = ty.in, out = ty.out;
	const cublasComputeType_t compute = ty.compute;
	float a32 = (float)alpha, b32 = (float)beta;
	const void *pa = prec == RT_FP64 ? (const void *)&alpha : &a32;
	const void *pb = prec == RT_FP64 ? (const void *)&beta : &b32;
	cublasOperation_t ta = c->transa ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasOperation_t tb = c->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
	if (c->count == 1)
		return BLAS(ctx, cublasGemmEx(ctx->blas.h, ta, tb, c->m, c->n, c->k, pa, c->a, in,
					      c->lda, c->b, in, c->ldb, pb, c->c, out, c->ldc,
					      compute, CUBLAS_GEMM_DEFAULT));
	return BLAS(ctx, cublasGemmStridedBatchedEx(ctx->blas.h, ta, tb, c->m, c->n, c->k, pa,
						    c->a, in, c->lda, c->sa, c->b, in, c->ldb,
						    c->sb, pb, c->c, out, c->ldc, c->sc, c->count,
						    compute, CUBLAS_GEMM_DEFAULT));
}

/* A cuBLASLt layout of a rows x cols column-major matrix of a strided batch. */
static int lt_layout(rt_ctx *ctx, cublasLtMatrixLayout_t *l, cudaDataType t, int rows, int cols,
		     int ld, long stride, int count)
{
	int rc = BLAS(ctx, cublasLtMatrixLayoutCreate(l, t, (uint64_t)rows, (uint64_t)cols, ld));
	int32_t n = count;
	int64_t s = stride;
	if (!rc && count > 1)
		rc = BLAS(ctx, cublasLtMatrixLayoutSetAttribute(
				       *l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &n, sizeof n));
	if (!rc && count > 1)
		rc = BLAS(ctx, cublasLtMatrixLayoutSetAttribute(
				       *l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s, sizeof s));
	return rc;
}

/*
 * The epilogue's vectors of one call: the bias (along the rows of the
 * column-major D) and, for GELU_AUX_BIAS, where the pre-activation goes.
 */
static int lt_set_epilogue(rt_ctx *ctx, const lt_shape *s, const void *bias, void *aux)
{
	int rc = BLAS(ctx, cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
							  &bias, sizeof bias));
	if (!rc && s->epilogue == CUBLASLT_EPILOGUE_GELU_AUX_BIAS)
		rc = BLAS(ctx, cublasLtMatmulDescSetAttribute(
				       s->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux,
				       sizeof aux));
	return rc;
}

/* Sets s's epilogue on its descriptor: its kind, its vectors, the pre-activation's ld. */
static int lt_describe_epilogue(rt_ctx *ctx, const lt_shape *s, const void *bias, void *aux)
{
	const cublasLtEpilogue_t e = (cublasLtEpilogue_t)s->epilogue;
	const int64_t ld = s->key.ldc;
	int rc = BLAS(ctx, cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &e,
							  sizeof e));
	if (!rc && e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS)
		rc = BLAS(ctx, cublasLtMatmulDescSetAttribute(
				       s->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld));
	return rc ? rc : lt_set_epilogue(ctx, s, bias, aux);
}

/*
 * Describes shape s to cuBLASLt (its precision's types: 16-bit inputs with
 * fp32 C and accumulation, or fp32, tf32, fp64 throughout), with its
 * epilogue and that call's bias and aux, and takes its heuristic's first
 * algorithm. RT_EUNAVAIL when it has none.
 */
static int lt_prepare(rt_ctx *ctx, lt_shape *s, const void *bias, void *aux)
{
	const colmajor_gemm *c = &s->key;
	const cublas_types ty = cublas_types_of(s->prec);
	const cudaDataType in = ty.in;
	cublasOperation_t ta = c->transa ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasOperation_t tb = c->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t h;
	uint64_t ws = LT_WORKSPACE;
	int found = 0;
	int rc = BLAS(ctx, cublasLtMatmulDescCreate(&s->op, ty.compute, ty.out));
	if (!rc && s->epilogue)
		rc = lt_describe_epilogue(ctx, s, bias, aux);
	if (!rc)
		rc = BLAS(ctx, cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA,
							      &ta, sizeof ta));
	if (!rc)
		rc = BLAS(ctx, cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB,
							      &tb, sizeof tb));
	if (!rc)
		rc = lt_layout(ctx, &s->la, in, c->transa ? c->k : c->m, c->transa ? c->m : c->k,
			       c->lda, c->sa, c->count);
	if (!rc)
		rc = lt_layout(ctx, &s->lb, in, c->transb ? c->n : c->k, c->transb ? c->k : c->n,
			       c->ldb, c->sb, c->count);
	if (!rc)
		rc = lt_layout(ctx, &s->lc, ty.out, c->m, c->n, c->ldc, c->sc, c->count);
	if (!rc)
		rc = BLAS(ctx, cublasLtMatmulPreferenceCreate(&pref));
	if (!rc)
		rc = BLAS(ctx, cublasLtMatmulPreferenceSetAttribute(
				       pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
	/* vendor_gemm sends cuBLASLt only operands aligned to LT_ALIGN bytes */
	static const cublasLtMatmulPreferenceAttributes_t align[] = {
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
	uint32_t bytes = LT_ALIGN;
	for (int i = 0; !rc && i < 4; i++)
		rc = BLAS(ctx, cublasLtMatmulPreferenceSetAttribute(pref, align[i], &bytes,
								    sizeof bytes));
	if (!rc)
		rc = BLAS(ctx, cublasLtMatmulAlgoGetHeuristic(ctx->blas.lt, s->op, s->la, s->lb,
							      s->lc, s->lc, pref, 1, &h, &found));
	if (pref)
		cublasLtMatmulPreferenceDestroy(pref);
	if (!rc && found < 1)
		rc = rt_abi_fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL,
		                 "cublasLtMatmulAlgoGetHeuristic: no algorithm");
	if (!rc)
		s->algo = h.algo;
	return rc;
}

static int run_lt(rt_ctx *ctx, const lt_shape *s, const colmajor_gemm *c, double alpha,
		  double beta)
{
	float a32 = (float)alpha, b32 = (float)beta;
	const void *pa = s->prec == RT_FP64 ? (const void *)&alpha : &a32;
	const void *pb = s->prec == RT_FP64 ? (const void *)&beta : &b32;
	return BLAS(ctx, cublasLtMatmul(ctx->blas.lt, s->op, pa, c->a, s->la, c->b, s->lb, pb,
					c->c, s->lc, c->c, s->lc, &s->algo, ctx->blas.ws,
					LT_WORKSPACE, ctx->stream));
}

/* 1 when x and y are the same GEMM but for where their operands are. */
static int same_shape(const colmajor_gemm *x, const colmajor_gemm *y)
{
	return x->transa == y->transa && x->transb == y->transb && x->m == y->m && x->n == y->n &&
	       x->k == y->k && x->lda == y->lda && x->ldb == y->ldb && x->ldc == y->ldc &&
	       x->sa == y->sa && x->sb == y->sb && x->sc == y->sc && x->count == y->count;
}

/*
 * The cached shape of c in precision p with epilogue e (0: none), a new one
 * while there is room, or NULL.
 */
static lt_shape *lt_find(rt_ctx *ctx, rt_precision p, int e, const colmajor_gemm *c)
{
	struct vendor_blas *v = &ctx->blas;
	colmajor_gemm key = *c;
	key.a = key.b = NULL;
	key.c = NULL;
	for (int i = 0; i < v->nshapes; i++)
		if (v->shapes[i].prec == p && v->shapes[i].epilogue == e &&
		    same_shape(&v->shapes[i].key, &key))
			return &v->shapes[i];
	if (v->nshapes == LT_CACHE)
		return NULL;
	lt_shape *s = &v->shapes[v->nshapes++];
	memset(s, 0, sizeof *s);
	s->key = key;
	s->prec = p;
	s->epilogue = e;
	return s;
}

/* Milliseconds between events i and i + 1 of the context's timing events. */
static int lt_ms(rt_ctx *ctx, int i, float *ms)
{
	return CTX_GPU(ctx, cudaEventElapsedTime(ms, ctx->blas.t[i], ctx->blas.t[i + 1]));
}

/*
 * Decides shape s: each path runs once to warm up and once timed between
 * events; C ends with cuBLASLt's result (the same product), the faster path
 * is kept. beta is 0 here, so running it four times changes nothing.
 */
static int lt_decide(rt_ctx *ctx, lt_shape *s, rt_precision p, const colmajor_gemm *c,
		     double alpha)
{
	float t_blas = 0, t_lt = 0;
	struct vendor_blas *v = &ctx->blas;
	int rc = run_cublas(ctx, p, c, alpha, 0);
	if (!rc)
		rc = CTX_GPU(ctx, cudaEventRecord(v->t[0], ctx->stream));
	if (!rc)
		rc = run_cublas(ctx, p, c, alpha, 0);
	if (!rc)
		rc = CTX_GPU(ctx, cudaEventRecord(v->t[1], ctx->stream));
	if (rc)
		return rc;
	s->choice = LT_CUBLAS;
	if (lt_prepare(ctx, s, NULL, NULL) || run_lt(ctx, s, c, alpha, 0)) /* cuBLAS's stands */
		return 0;
	rc = CTX_GPU(ctx, cudaEventRecord(v->t[2], ctx->stream));
	if (!rc)
		rc = run_lt(ctx, s, c, alpha, 0);
	if (!rc)
		rc = CTX_GPU(ctx, cudaEventRecord(v->t[3], ctx->stream));
	if (!rc)
		rc = CTX_GPU(ctx, cudaEventSynchronize(v->t[3]));
	if (!rc)
		rc = lt_ms(ctx, 0, &t_blas);
	if (!rc)
		rc = lt_ms(ctx, 2, &t_lt);
	if (!rc && t_lt < t_blas)
		s->choice = LT_LT;
	return rc;
}

/*
 * 1 when every operand of c and every batch stride (elements of es_ab bytes
 * in A and B, es_c in C) is aligned to LT_ALIGN bytes, which the algorithms
 * cuBLASLt picks assume.
 */
static int lt_aligned(const colmajor_gemm *c, int es_ab, int es_c)
{
	return (uintptr_t)c->a % LT_ALIGN == 0 && (uintptr_t)c->b % LT_ALIGN == 0 &&
	       (uintptr_t)c->c % LT_ALIGN == 0 && (c->sa * es_ab) % LT_ALIGN == 0 &&
	       (c->sb * es_ab) % LT_ALIGN == 0 && (c->sc * es_c) % LT_ALIGN == 0;
}

/*
 * The GEMM g on cuBLAS, or on cuBLASLt for a bf16/fp16 shape measured faster
 * there; a and b are g's operands (16-bit copies for bf16/fp16).
 */
static int vendor_gemm(rt_ctx *ctx, const rt_gemm_args *g, const void *a, const void *b)
{
	rt_gemm_args h = *g;
	h.a = a;
	h.b = b;
	colmajor_gemm c = colmajor_of(&h);
	if (g->prec != RT_BF16 && g->prec != RT_FP16)
		return run_cublas(ctx, g->prec, &c, g->alpha, g->beta);
	if (!lt_aligned(&c, 2, 4))
		return run_cublas(ctx, g->prec, &c, g->alpha, g->beta);
	lt_shape *s = lt_find(ctx, g->prec, 0, &c);
	if (s && s->choice == LT_UNDECIDED && g->beta == 0)
		return lt_decide(ctx, s, g->prec, &c, g->alpha);
	if (s && s->choice == LT_LT)
		return run_lt(ctx, s, &c, g->alpha, g->beta);
	return run_cublas(ctx, g->prec, &c, g->alpha, g->beta);
}

/*
 * The linear layer g (u = x w, row-major, beta 0) on cuBLASLt with the bias
 * in its epilogue (CUBLASLT_EPILOGUE_BIAS), or with a also the GELU
 * (CUBLASLT_EPILOGUE_GELU_AUX_BIAS: D is a, the pre-activation u goes to
 * the aux matrix). x and w are g's operands as the GEMM reads them (16-bit
 * copies for bf16/fp16). The column-major call: colmajor_linear_of().
 *
 * The GELU: cuBLAS's documentation names it only "GELU"; NVIDIA's own use of
 * it (TensorRT-LLM, through PyTorch's _addmm_activation) calls it the tanh
 * approximation, the form of kernels.h (0.5 x (1 + tanh(sqrt(2/pi) (x +
 * 0.044715 x^3)))). The forms agree; how exactly its tanh is computed is
 * not documented, so gpu_check compares this path with the CPU's GELU
 * (linear_fwd cases) on the device.
 *
 * RT_EUNAVAIL, and the shape remembered as declined, where cuBLASLt's
 * heuristic has no algorithm or it refuses the epilogue or the call (its
 * words stay in last_error()); also where an operand is not aligned for it.
 */
static int vendor_linear(rt_ctx *ctx, const rt_gemm_args *g, const void *x, const void *w,
			 const void *bias, void *a)
{
	rt_gemm_args h = *g;
	h.a = x;
	h.b = w;
	const colmajor_linear l = colmajor_linear_of(&h, a);
	const colmajor_gemm c = l.g;
	void *aux = l.aux;
	const int e = a ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_BIAS;
	const int es_c = g->prec == RT_FP64 ? 8 : 4;
	const int es_ab = g->prec == RT_FP64 ? 8 : g->prec == RT_BF16 || g->prec == RT_FP16 ? 2 : 4;
	if (!lt_aligned(&c, es_ab, es_c) || (uintptr_t)bias % LT_ALIGN ||
	    (uintptr_t)aux % LT_ALIGN || (c.ldc * es_c) % LT_ALIGN)
		return RT_EUNAVAIL;
	lt_shape *s = lt_find(ctx, g->prec, e, &c);
	if (!s || s->choice == LT_DECLINED)
		return RT_EUNAVAIL;
	int rc = s->choice == LT_UNDECIDED ? lt_prepare(ctx, s, bias, aux)
					   : lt_set_epilogue(ctx, s, bias, aux);
	if (!rc)
		rc = run_lt(ctx, s, &c, 1.0, 0.0);
	/* whatever cuBLASLt refused (in ctx->err), the GEMM and a kernel do it from now on */
	s->choice = rc ? LT_DECLINED : LT_LT;
	return rc ? RT_EUNAVAIL : 0;
}

/*
 * The two-level batch g as one cublasGemmBatchedEx over the device pointer
 * arrays ptrs (gemm_batch2.cuh: the column-major call's A's, B's, C's).
 * cuBLASLt is not tried: its batches are strided.
 */
static int vendor_gemm_ptrs(rt_ctx *ctx, const rt_gemm_args *g, void **ptrs)
{
	const colmajor_gemm c = colmajor_of(g);
	const int total = c.outer * c.count;
	const cublas_types ty = cublas_types_of(g->prec);
	float a32 = (float)g->alpha, b32 = (float)g->beta;
	const void *pa = g->prec == RT_FP64 ? (const void *)&g->alpha : &a32;
	const void *pb = g->prec == RT_FP64 ? (const void *)&g->beta : &b32;
	return BLAS(ctx, cublasGemmBatchedEx(ctx->blas.h, c.transa ? CUBLAS_OP_T : CUBLAS_OP_N,
					     c.transb ? CUBLAS_OP_T : CUBLAS_OP_N, c.m, c.n, c.k,
					     pa, (const void *const *)ptrs, ty.in, c.lda,
					     (const void *const *)(ptrs + total), ty.in, c.ldb, pb,
					     ptrs + 2 * total, ty.out, c.ldc, total, ty.compute,
					     CUBLAS_GEMM_DEFAULT));
}

/* NVML finds the device by PCI bus id (its numbering may differ from CUDA's). */
static int vendor_monitor_bus(rt_ctx *ctx, char *bus, size_t buslen, char *why, size_t len)
{
	cudaError_t e = cudaDeviceGetPCIBusId(bus, (int)buslen, ctx->dev);
	if (e != cudaSuccess)
		return rt_abi_fail(why, len, RT_EUNAVAIL, "cudaDeviceGetPCIBusId: %s",
		                   cudaGetErrorString(e));
	return 0;
}

#include "../gpu/backend.cuh"
