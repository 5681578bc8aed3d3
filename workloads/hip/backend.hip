/*
 * The HIP backend plugin, librigtune_hip.so: HIP runtime for memory and
 * streams, its own tiled GEMM (no hipBLAS/rocBLAS is assumed), the shared
 * kernels of gpu/kernels.cuh for the rest, rocm_smi (dlopen'ed) for
 * utilization.
 *
 * Every HIP call is checked; a failure becomes an RT_E* code and a sentence
 * naming the call and HIP's error string, in err where the operation has
 * one, else in the context (last_error()).
 *
 * A context belongs to one host thread, which open() binds to its device.
 */
#include <dlfcn.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "../gpu/host_common.h"

typedef hipStream_t gpu_stream_t;

/* rocm_smi, declared here so that the build needs no rocm_smi.h. */
typedef struct rsmi {
	void *lib;
	uint32_t index; /* rocm_smi's number for the device of the context */
	int (*busy_percent)(uint32_t, uint32_t *);
	int (*shutdown)(void);
} rsmi;

struct rt_ctx {
	int dev;
	unsigned precisions;
	hipStream_t stream;
	void *scratch[2]; /* 16-bit copies of A and B for bf16/fp16 GEMMs */
	size_t scratch_bytes[2];
	rsmi *smi;        /* loaded by the first utilization() */
	int smi_failed;   /* set once rocm_smi could not be set up */
	char err[RT_ERRLEN];
};

/* The last failure outside a context (device_info), for last_error(NULL). */
static char module_err[RT_ERRLEN];

/* The RT_E* code for a HIP error: memory, missing device/driver, or run time. */
static int hip_code(hipError_t e)
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

/* 0 if e is hipSuccess, else the code of e with "call: name: description" in err. */
static int hip_check(hipError_t e, const char *call, char *err, size_t errlen)
{
	if (e == hipSuccess)
		return 0;
	return fail(err, errlen, hip_code(e), "%s: %s: %s", call, hipGetErrorName(e),
		    hipGetErrorString(e));
}

#define CTX_HIP(ctx, call) hip_check((call), #call, (ctx)->err, sizeof (ctx)->err)

static gpu_stream_t gpu_stream(rt_ctx *ctx)
{
	return ctx->stream;
}

static int gpu_launched(rt_ctx *ctx, const char *kernel)
{
	hipError_t e = hipGetLastError();
	if (e == hipSuccess)
		return 0;
	return fail(ctx->err, sizeof ctx->err, hip_code(e), "%s kernel launch: %s: %s", kernel,
		    hipGetErrorName(e), hipGetErrorString(e));
}

#include "../gpu/kernels.cuh"

/* Does nothing: whether its code loads tells whether this build runs on a device. */
__global__ void k_arch_probe(void)
{
}

/* A GPU whose gfx target this plugin was not built for would fail every kernel. */
static int check_code_for(int dev, char *err, size_t errlen)
{
	hipFuncAttributes a;
	hipDeviceProp_t p;
	hipError_t e = hipSetDevice(dev);
	if (e == hipSuccess)
		e = hipFuncGetAttributes(&a, (const void *)k_arch_probe);
	if (e == hipSuccess)
		return RT_OK;
	int known = hipGetDeviceProperties(&p, dev) == hipSuccess;
	return fail(err, errlen, RT_EUNAVAIL,
		    "device %d (%s) has no code in this build (see HIP_ARCHS in the Makefile): %s",
		    dev, known ? p.gcnArchName : "unknown arch", hipGetErrorString(e));
}

static int hip_init(char *err, size_t errlen)
{
	int n = 0;
	hipError_t e = hipGetDeviceCount(&n);
	if (e != hipSuccess) {
		/* Whatever stops us from counting devices, HIP is not usable here. */
		hip_check(e, "hipGetDeviceCount", err, errlen);
		return RT_EUNAVAIL;
	}
	if (n == 0)
		return fail(err, errlen, RT_EUNAVAIL, "no HIP device");
	for (int d = 0; d < n; d++) {
		int rc = check_code_for(d, err, errlen);
		if (rc)
			return rc;
	}
	return n;
}

/*
 * The GEMM here rounds bf16/fp16 inputs itself and accumulates in fp32, so
 * every device offers them; TF32 has no equivalent on this path.
 */
static const unsigned hip_precisions = RT_PREC_BIT(RT_FP64) | RT_PREC_BIT(RT_FP32) |
				       RT_PREC_BIT(RT_BF16) | RT_PREC_BIT(RT_FP16);

/* "5.2.21153" from HIP's 10000000 * major + 100000 * minor + patch. */
static void version_string(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%d", v / 10000000, (v / 100000) % 100, v % 100000);
}

/*
 * Describes device dev. Free memory is the current device's, so this makes
 * dev current (and leaves it current: a trial uses one device).
 */
static int hip_device_info(int dev, rt_device_info *info)
{
	hipDeviceProp_t p;
	int drv = 0, rtv = 0, rc;
	size_t free_b = 0, total_b = 0;
	char d[32], r[32];

	memset(info, 0, sizeof *info);
	rc = hip_check(hipGetDeviceProperties(&p, dev), "hipGetDeviceProperties", module_err,
		       sizeof module_err);
	if (!rc)
		rc = hip_check(hipDriverGetVersion(&drv), "hipDriverGetVersion", module_err,
			       sizeof module_err);
	if (!rc)
		rc = hip_check(hipRuntimeGetVersion(&rtv), "hipRuntimeGetVersion", module_err,
			       sizeof module_err);
	if (!rc)
		rc = hip_check(hipSetDevice(dev), "hipSetDevice", module_err, sizeof module_err);
	if (!rc)
		rc = hip_check(hipMemGetInfo(&free_b, &total_b), "hipMemGetInfo", module_err,
			       sizeof module_err);
	if (rc)
		return rc;
	snprintf(info->name, sizeof info->name, "%.80s (%.40s)", p.name, p.gcnArchName);
	version_string(drv, d, sizeof d);
	version_string(rtv, r, sizeof r);
	snprintf(info->driver, sizeof info->driver, "HIP driver %s, runtime %s", d, r);
	info->mem_total = total_b;
	info->mem_free = free_b;
	info->compute_units = p.multiProcessorCount;
	info->precisions = hip_precisions;
	info->unified_memory = p.integrated;
	return 0;
}

static void hip_close(rt_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->smi) {
		ctx->smi->shutdown();
		dlclose(ctx->smi->lib);
		free(ctx->smi);
	}
	for (int i = 0; i < 2; i++)
		if (ctx->scratch[i])
			(void)hipFree(ctx->scratch[i]);
	if (ctx->stream)
		(void)hipStreamDestroy(ctx->stream);
	free(ctx);
}

/* Makes dev current and gives it a stream; threads is unused (one host thread). */
static int hip_open(int dev, int threads, rt_ctx **out, char *err, size_t errlen)
{
	rt_ctx *ctx = (rt_ctx *)calloc(1, sizeof *ctx);

	(void)threads;
	*out = NULL;
	if (!ctx)
		return fail(err, errlen, RT_ENOMEM, "out of memory for a HIP context");
	ctx->dev = dev;
	ctx->precisions = hip_precisions;
	int rc = CTX_HIP(ctx, hipSetDevice(dev));
	if (!rc)
		rc = CTX_HIP(ctx, hipStreamCreateWithFlags(&ctx->stream, hipStreamNonBlocking));
	if (rc) {
		fail(err, errlen, rc, "HIP device %d: %s", dev, ctx->err);
		hip_close(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

static int hip_alloc(rt_ctx *ctx, size_t bytes, void **ptr)
{
	*ptr = NULL;
	return CTX_HIP(ctx, hipMalloc(ptr, bytes ? bytes : 1));
}

static void hip_free(rt_ctx *ctx, void *ptr)
{
	if (ptr)
		CTX_HIP(ctx, hipFree(ptr));
}

/* Both directions wait for the copy: the caller may reuse its host buffer on return. */
static int hip_upload(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	int rc = CTX_HIP(ctx, hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice,
					     ctx->stream));
	return rc ? rc : CTX_HIP(ctx, hipStreamSynchronize(ctx->stream));
}

static int hip_download(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	int rc = CTX_HIP(ctx, hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost,
					     ctx->stream));
	return rc ? rc : CTX_HIP(ctx, hipStreamSynchronize(ctx->stream));
}

static int hip_synchronize(rt_ctx *ctx)
{
	return CTX_HIP(ctx, hipStreamSynchronize(ctx->stream));
}

static int hip_mem_info(rt_ctx *ctx, uint64_t *total, uint64_t *free_bytes)
{
	size_t f = 0, t = 0;
	int rc = CTX_HIP(ctx, hipMemGetInfo(&f, &t));
	*total = t;
	*free_bytes = f;
	return rc;
}

/* Grows scratch buffer i to at least bytes (hipFree waits for its users). */
static int scratch_reserve(rt_ctx *ctx, int i, size_t bytes)
{
	if (bytes <= ctx->scratch_bytes[i])
		return 0;
	int rc = ctx->scratch[i] ? CTX_HIP(ctx, hipFree(ctx->scratch[i])) : 0;
	ctx->scratch[i] = NULL;
	ctx->scratch_bytes[i] = 0;
	if (!rc)
		rc = CTX_HIP(ctx, hipMalloc(&ctx->scratch[i], bytes));
	if (!rc)
		ctx->scratch_bytes[i] = bytes;
	return rc;
}

/* bfloat16 as its bits: the upper half of an fp32. */
typedef struct bf16 {
	unsigned short bits;
} bf16;

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

/* Operands as the accumulator type of the GEMM. */
static __device__ __forceinline__ float to_acc(float x) { return x; }
static __device__ __forceinline__ double to_acc(double x) { return x; }
static __device__ __forceinline__ float to_acc(__half x) { return __half2float(x); }
static __device__ __forceinline__ float to_acc(bf16 x) { return __uint_as_float((unsigned)x.bits << 16); }

static __device__ __forceinline__ void store16(bf16 *y, float x) { *y = to_bf16(x); }
static __device__ __forceinline__ void store16(__half *y, float x) { *y = __float2half_rn(x); }

template <class H> __global__ void k_round16(size_t n, const float *x, H *y)
{
	GRID_LOOP(i, n)
	store16(&y[i], x[i]);
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
		k_round16<bf16><<<gpu_blocks(n), GPU_THREADS, 0, ctx->stream>>>(
			n, (const float *)x, (bf16 *)ctx->scratch[i]);
	else
		k_round16<__half><<<gpu_blocks(n), GPU_THREADS, 0, ctx->stream>>>(
			n, (const float *)x, (__half *)ctx->scratch[i]);
	*out = ctx->scratch[i];
	return gpu_launched(ctx, "fp32 to 16-bit");
}

#define GEMM_TILE 64  /* rows and columns of C per block */
#define GEMM_TK 16    /* depth of one shared-memory step */
#define GEMM_SIDE 16  /* the block is GEMM_SIDE x GEMM_SIDE threads ... */
#define GEMM_REG 4    /* ... each computing GEMM_REG x GEMM_REG elements of C */
#define GEMM_MAX_Z 65535 /* the largest gridDim.z: batches go in chunks of it */

/*
 * C = alpha op(A) op(B) + beta C, all row-major; blockIdx.z picks the matrix
 * of a strided batch. Each block computes a GEMM_TILE square of C from
 * GEMM_TK-deep slices of op(A) and op(B) staged in shared memory (as the
 * accumulator type A, zero-padded past the edges); thread (x, y) owns rows
 * y + GEMM_SIDE r and columns x + GEMM_SIDE s. The loads walk the stored
 * matrix along its rows, whichever the transpose, so they stay coalesced.
 * With beta == 0, C is not read (BLAS semantics).
 */
template <class TIn, class A, class TOut>
__global__ void k_gemm(int transa, int transb, int m, int n, int k, A alpha, const TIn *a,
		       int lda, long sa, const TIn *b, int ldb, long sb, A beta, TOut *c, int ldc,
		       long sc)
{
	__shared__ A as[GEMM_TK][GEMM_TILE + 1]; /* as[p][i] = op(A)[i0 + i][p0 + p] */
	__shared__ A bs[GEMM_TK][GEMM_TILE + 1]; /* bs[p][j] = op(B)[p0 + p][j0 + j] */
	const size_t z = blockIdx.z;
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * GEMM_SIDE + tx;
	const int i0 = blockIdx.y * GEMM_TILE, j0 = blockIdx.x * GEMM_TILE;
	A acc[GEMM_REG][GEMM_REG];

	a += z * sa;
	b += z * sb;
	c += z * sc;
	for (int r = 0; r < GEMM_REG; r++)
		for (int s = 0; s < GEMM_REG; s++)
			acc[r][s] = 0;
	for (int p0 = 0; p0 < k; p0 += GEMM_TK) {
		for (int e = tid; e < GEMM_TILE * GEMM_TK; e += GEMM_SIDE * GEMM_SIDE) {
			/* stored A is m x k (p runs along a row) or, transposed, k x m */
			const int i = transa ? e % GEMM_TILE : e / GEMM_TK;
			const int p = transa ? e / GEMM_TILE : e % GEMM_TK;
			const int gi = i0 + i, gp = p0 + p;
			A v = 0;
			if (gi < m && gp < k)
				v = to_acc(transa ? a[(size_t)gp * lda + gi] : a[(size_t)gi * lda + gp]);
			as[p][i] = v;
		}
		for (int e = tid; e < GEMM_TILE * GEMM_TK; e += GEMM_SIDE * GEMM_SIDE) {
			/* stored B is k x n (j runs along a row) or, transposed, n x k */
			const int j = transb ? e / GEMM_TK : e % GEMM_TILE;
			const int p = transb ? e % GEMM_TK : e / GEMM_TILE;
			const int gj = j0 + j, gp = p0 + p;
			A v = 0;
			if (gj < n && gp < k)
				v = to_acc(transb ? b[(size_t)gj * ldb + gp] : b[(size_t)gp * ldb + gj]);
			bs[p][j] = v;
		}
		__syncthreads();
		for (int p = 0; p < GEMM_TK; p++) {
			A av[GEMM_REG], bv[GEMM_REG];
			for (int r = 0; r < GEMM_REG; r++)
				av[r] = as[p][ty + GEMM_SIDE * r];
			for (int s = 0; s < GEMM_REG; s++)
				bv[s] = bs[p][tx + GEMM_SIDE * s];
			for (int r = 0; r < GEMM_REG; r++)
				for (int s = 0; s < GEMM_REG; s++)
					acc[r][s] += av[r] * bv[s];
		}
		__syncthreads();
	}
	for (int r = 0; r < GEMM_REG; r++) {
		const int i = i0 + ty + GEMM_SIDE * r;
		for (int s = 0; s < GEMM_REG; s++) {
			const int j = j0 + tx + GEMM_SIDE * s;
			if (i < m && j < n) {
				TOut *cp = c + (size_t)i * ldc + j;
				*cp = beta == (A)0 ? alpha * acc[r][s] : alpha * acc[r][s] + beta * *cp;
			}
		}
	}
}

/* Launches k_gemm over the batch, GEMM_MAX_Z matrices per launch. */
template <class TIn, class A, class TOut>
static int launch_gemm(rt_ctx *ctx, const gemm_args *g, const void *a, const void *b)
{
	dim3 block(GEMM_SIDE, GEMM_SIDE);
	for (int z0 = 0; z0 < g->count; z0 += GEMM_MAX_Z) {
		const int nz = g->count - z0 < GEMM_MAX_Z ? g->count - z0 : GEMM_MAX_Z;
		dim3 grid((unsigned)((g->n + GEMM_TILE - 1) / GEMM_TILE),
			  (unsigned)((g->m + GEMM_TILE - 1) / GEMM_TILE), (unsigned)nz);
		k_gemm<TIn, A, TOut><<<grid, block, 0, ctx->stream>>>(
			g->transa, g->transb, g->m, g->n, g->k, (A)g->alpha,
			(const TIn *)a + (size_t)z0 * g->sa, g->lda, g->sa,
			(const TIn *)b + (size_t)z0 * g->sb, g->ldb, g->sb, (A)g->beta,
			(TOut *)g->c + (size_t)z0 * g->sc, g->ldc, g->sc);
		int rc = gpu_launched(ctx, "gemm");
		if (rc)
			return rc;
	}
	return 0;
}

/* Runs a checked GEMM: fp32/fp64 directly, bf16/fp16 on rounded copies of A and B. */
static int gemm_run(rt_ctx *ctx, const gemm_args *g)
{
	const void *a = g->a, *b = g->b;
	int rc;

	if (g->m == 0 || g->n == 0 || g->count == 0)
		return 0;
	switch (g->prec) {
	case RT_FP64:
		return launch_gemm<double, double, double>(ctx, g, a, b);
	case RT_FP32:
		return launch_gemm<float, float, float>(ctx, g, a, b);
	case RT_BF16:
	case RT_FP16:
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
		if (rc)
			return rc;
		return g->prec == RT_BF16 ? launch_gemm<bf16, float, float>(ctx, g, a, b)
					  : launch_gemm<__half, float, float>(ctx, g, a, b);
	default:
		return fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "gemm: precision %d",
			    g->prec);
	}
}

static int hip_gemm_batched(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa,
			    int transb, int m, int n, int k, double alpha, const void *a, int lda,
			    long stride_a, const void *b, int ldb, long stride_b, double beta,
			    void *c, int ldc, long stride_c, int count)
{
	const gemm_args g = { t,     prec,  transa, transb, m,        n,        k,
			      alpha, beta,  a,	    b,	    c,	      lda,	ldb,
			      ldc,   stride_a, stride_b, stride_c, count };
	int rc = gemm_check(&g, ctx->precisions, "HIP", ctx->dev, ctx->err, sizeof ctx->err);
	return rc ? rc : gemm_run(ctx, &g);
}

static int hip_gemm(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb, int m,
		    int n, int k, double alpha, const void *a, int lda, const void *b, int ldb,
		    double beta, void *c, int ldc)
{
	return hip_gemm_batched(ctx, t, prec, transa, transb, m, n, k, alpha, a, lda, 0, b, ldb,
				0, beta, c, ldc, 0, 1);
}

/* Looks up one rocm_smi function; NULL (and a message in ctx) if it is missing. */
static void *smi_sym(rt_ctx *ctx, void *lib, const char *name)
{
	void *f = dlsym(lib, name);
	if (!f)
		fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "librocm_smi64.so: no symbol %s",
		     name);
	return f;
}

/*
 * Loads rocm_smi and finds the device of ctx by PCI address (rocm_smi and
 * HIP may number devices differently). RT_EUNAVAIL, with the reason, when
 * it cannot.
 */
static int smi_load(rt_ctx *ctx)
{
	hipDeviceProp_t p;
	if (CTX_HIP(ctx, hipGetDeviceProperties(&p, ctx->dev)))
		return RT_EUNAVAIL;
	void *lib = dlopen("librocm_smi64.so", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("librocm_smi64.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "%s", dlerror());
	rsmi *smi = (rsmi *)calloc(1, sizeof *smi);
	int (*init)(uint64_t) = (int (*)(uint64_t))smi_sym(ctx, lib, "rsmi_init");
	int (*count)(uint32_t *) = (int (*)(uint32_t *))smi_sym(ctx, lib,
								"rsmi_num_monitor_devices");
	int (*pci_id)(uint32_t, uint64_t *) = (int (*)(uint32_t, uint64_t *))smi_sym(
		ctx, lib, "rsmi_dev_pci_id_get");
	uint32_t n = 0;
	int rc;
	if (!smi || !init || !count || !pci_id)
		goto fail_lib;
	smi->lib = lib;
	smi->busy_percent = (int (*)(uint32_t, uint32_t *))smi_sym(ctx, lib,
								   "rsmi_dev_busy_percent_get");
	smi->shutdown = (int (*)(void))smi_sym(ctx, lib, "rsmi_shut_down");
	if (!smi->busy_percent || !smi->shutdown)
		goto fail_lib;
	if ((rc = init(0)) != 0) {
		fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "rsmi_init: status %d", rc);
		goto fail_lib;
	}
	if ((rc = count(&n)) != 0) {
		fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "rsmi_num_monitor_devices: status %d",
		     rc);
		goto fail_init;
	}
	/* BDF id: domain in bits 32..63, bus 8..15, device 3..7, function 0..2. */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t id;
		if (pci_id(i, &id) == 0 && (int)(id >> 32) == p.pciDomainID &&
		    (int)((id >> 8) & 0xff) == p.pciBusID && (int)((id >> 3) & 0x1f) == p.pciDeviceID) {
			smi->index = i;
			ctx->smi = smi;
			return 0;
		}
	}
	fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL,
	     "rocm_smi: no device at PCI %04x:%02x:%02x", p.pciDomainID, p.pciBusID,
	     p.pciDeviceID);
fail_init:
	smi->shutdown();
fail_lib:
	free(smi);
	dlclose(lib);
	return RT_EUNAVAIL;
}

/* rocm_smi's busy percentage of the device (its own short sampling window). */
static int hip_utilization(rt_ctx *ctx, double *busy)
{
	if (ctx->smi_failed)
		return RT_EUNAVAIL;
	if (!ctx->smi && smi_load(ctx) != 0) {
		ctx->smi_failed = 1;
		return RT_EUNAVAIL;
	}
	uint32_t pct = 0;
	int rc = ctx->smi->busy_percent(ctx->smi->index, &pct);
	if (rc != 0)
		return fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL,
			    "rsmi_dev_busy_percent_get: status %d", rc);
	*busy = pct / 100.0;
	return 0;
}

static const char *hip_last_error(rt_ctx *ctx)
{
	return ctx ? ctx->err : module_err;
}

static const rt_backend_ops hip_ops = {
	.abi = RT_BACKEND_ABI,
	.name = "hip",
	.init = hip_init,
	.device_info = hip_device_info,
	.open = hip_open,
	.close = hip_close,
	.alloc = hip_alloc,
	.free = hip_free,
	.upload = hip_upload,
	.download = hip_download,
	.synchronize = hip_synchronize,
	.mem_info = hip_mem_info,
	.gemm = hip_gemm,
	.gemm_batched = hip_gemm_batched,
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
	.utilization = hip_utilization,
	.last_error = hip_last_error,
};

extern "C" __attribute__((visibility("default"))) const rt_backend_ops *rigtune_backend(void)
{
	return &hip_ops;
}
