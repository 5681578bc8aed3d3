/*
 * backend.cuh: the GPU backend plugin, one source for CUDA and HIP, in two
 * halves. The vendor's file (cuda/backend.cu, hip/backend.hip) includes its
 * runtime, maps the gpu* names below onto it and defines its types, then
 * includes context.cuh (the context, the checks, the events, the kernels),
 * defines its functions, and ends by including this file (devices, contexts,
 * memory, GEMM dispatch, the operations table). What it defines:
 *
 *   GPU_NAME, GPU_LABEL               "cuda", "CUDA"
 *   GPU_VISIBLE                       "CUDA_VISIBLE_DEVICES"
 *   gpuError_t gpuSuccess gpuStream_t gpuEvent_t gpuDeviceProp gpuFuncAttributes
 *   gpuGetDeviceCount ... gpuDeviceGetPCIBusId   the runtime calls used here
 *   gpuMallocHost, gpuFreeHost                   page-locked host memory
 *   gpu_bf16_t, gpu_fp16_t            the 16-bit types of GEMM operands
 *   to_acc(), store16() for those 16-bit types (device functions)
 *   struct vendor_blas                its BLAS state in a context
 *   static int vendor_code(gpuError_t e)          its RT_E* code
 *   --- then context.cuh, then:
 *   static void vendor_describe(const gpuDeviceProp *p, char *name, size_t len)
 *   static unsigned vendor_precisions(const gpuDeviceProp *p)
 *   static void vendor_version(int v, char *buf, size_t len)
 *   static const char *vendor_arch(const gpuDeviceProp *p, char *buf, size_t len)
 *   VENDOR_BUILT_FOR                  the targets of this build, for messages
 *   static void vendor_blas_load(char *impl, size_t len, int *usable)
 *       once per process: load the library, describe it ("cublas 13.0.2")
 *   static int vendor_blas_open(rt_ctx *ctx) / vendor_blas_close(rt_ctx *ctx)
 *   static int vendor_gemm(rt_ctx *ctx, const rt_gemm_args *g, const void *a,
 *                          const void *b)
 *       the GEMM on the vendor's library (a, b: 16-bit copies for
 *       bf16/fp16); RT_EUNAVAIL declines it (this file then runs its own)
 *   static int vendor_linear(rt_ctx *ctx, const rt_gemm_args *g, const void *x,
 *                            const void *w, const void *bias, void *a)
 *       the linear layer g (u = x w, row-major) with bias, and GELU into a
 *       where a is not NULL, in the library's epilogue; RT_EUNAVAIL where it
 *       has none for the shape (this file then runs the GEMM and a kernel)
 *   static int vendor_gemm_ptrs(rt_ctx *ctx, const rt_gemm_args *g, void **ptrs)
 *       a two-level batch g (outer > 1) as one batched call over the device
 *       pointer arrays ptrs (colmajor_of(g)'s A's, B's, C's: gemm_batch2.cuh)
 *   static int vendor_monitor_bus(rt_ctx *ctx, char *bus, size_t buslen, char *why,
 *                                 size_t len)
 *       the device's PCI bus id, as its monitor finds it ("0000:3b:00.0")
 *   VENDOR_MONITOR                    rt_devmon_nvml, rt_devmon_rsmi (../devmon.h),
 *                                     its file included with ../devmon.c
 *
 * What is shared: the runtime checks, devices, contexts, memory, the
 * elementwise kernels (kernels.cuh), the 16-bit rounding of GEMM inputs,
 * the own tiled GEMM every precision falls back to (gemm_tiled.cuh), the
 * device's busy time from events and the monitor's samples.
 *
 * Every runtime and library call is checked; a failure becomes an RT_E*
 * code and a sentence naming the call and the library's error string, in
 * err where the operation has one, else in the context (last_error()).
 * A context belongs to one host thread, which open() binds to its device.
 *
 * $RIGTUNE_GEMM=own makes every GEMM run the own tiled kernel (to check it,
 * or to compare it with the vendor's on a machine that has both).
 */
#ifndef RT_GPU_BACKEND_CUH
#define RT_GPU_BACKEND_CUH

/* Does nothing: whether its code loads tells whether this build runs on a device. */
__global__ void k_arch_probe(void)
{
}

/* A GPU this plugin has no code for would fail every kernel; say so once, here. */
static int check_code_for(int dev, char *err, size_t errlen)
{
	gpuFuncAttributes a;
	gpuDeviceProp p;
	char arch[64];
	gpuError_t e = gpuSetDevice(dev);
	if (e == gpuSuccess)
		e = gpuFuncGetAttributes(&a, (const void *)k_arch_probe);
	if (e == gpuSuccess)
		return RT_OK;
	int known = gpuGetDeviceProperties(&p, dev) == gpuSuccess;
	return rt_abi_fail(err, errlen, RT_EUNAVAIL,
	                   "device %d (%s) has no code in this build (%s): %s", dev,
	                   known ? vendor_arch(&p, arch, sizeof arch) : "unknown arch",
	                   VENDOR_BUILT_FOR, gpuGetErrorString(e));
}

/* Loads the vendor BLAS once: the description every device then reports. */
static void blas_load_once(void)
{
	if (!blas_loaded)
		vendor_blas_load(blas_impl, sizeof blas_impl, &blas_usable);
	blas_loaded = 1;
}

/* $RIGTUNE_GEMM=own: every GEMM on the own tiled kernel. */
static int own_gemm_forced(void)
{
	const char *v = getenv("RIGTUNE_GEMM");
	return v && !strcmp(v, "own");
}

static int gpu_init(char *err, size_t errlen)
{
	int n = 0;
	gpuError_t e = gpuGetDeviceCount(&n);
	if (e != gpuSuccess) {
		/* Whatever stops us from counting devices, the runtime is not usable here. */
		gpu_check(e, GPU_STR(gpuGetDeviceCount), err, errlen);
		return RT_EUNAVAIL;
	}
	if (n == 0)
		return rt_abi_fail(err, errlen, RT_EUNAVAIL, "no %s device", GPU_LABEL);
	for (int d = 0; d < n; d++) {
		int rc = check_code_for(d, err, errlen);
		if (rc)
			return rc;
	}
	blas_load_once();
	return n;
}

/* What the GEMMs of a context run on when nothing declined: the vendor's or the own kernel. */
static void describe_gemm(int usable, const char *why, char *buf, size_t len)
{
	gemm_impl_text(own_gemm_forced(), usable, blas_impl, why, buf, len);
}

/*
 * Describes device dev. Free memory is the current device's, so this makes
 * dev current (and leaves it current: a trial uses one device).
 */
static int gpu_device_info(int dev, rt_device_info *info)
{
	gpuDeviceProp p;
	int drv = 0, rtv = 0, rc;
	size_t free_b = 0, total_b = 0;
	char d[32], r[32];

	memset(info, 0, sizeof *info);
	rc = gpu_check(gpuGetDeviceProperties(&p, dev), GPU_STR(gpuGetDeviceProperties), module_err,
		       sizeof module_err);
	if (!rc)
		rc = gpu_check(gpuDriverGetVersion(&drv), GPU_STR(gpuDriverGetVersion), module_err,
			       sizeof module_err);
	if (!rc)
		rc = gpu_check(gpuRuntimeGetVersion(&rtv), GPU_STR(gpuRuntimeGetVersion), module_err,
			       sizeof module_err);
	if (!rc)
		rc = gpu_check(gpuSetDevice(dev), GPU_STR(gpuSetDevice), module_err, sizeof module_err);
	if (!rc)
		rc = gpu_check(gpuMemGetInfo(&free_b, &total_b), GPU_STR(gpuMemGetInfo), module_err,
			       sizeof module_err);
	if (rc)
		return rc;
	vendor_describe(&p, info->name, sizeof info->name);
	vendor_version(drv, d, sizeof d);
	vendor_version(rtv, r, sizeof r);
	snprintf(info->driver, sizeof info->driver, "%s driver %.20s, runtime %.20s", GPU_LABEL, d, r);
	info->mem_total = total_b;
	info->mem_free = free_b;
	info->compute_units = p.multiProcessorCount;
	info->precisions = vendor_precisions(&p);
	info->unified_memory = p.integrated;
	blas_load_once();
	describe_gemm(blas_usable, blas_impl, info->gemm_impl, sizeof info->gemm_impl);
	snprintf(info->monitor, sizeof info->monitor, "%s", VENDOR_MONITOR.name);
	return 0;
}

static void gpu_close(rt_ctx *ctx)
{
	if (!ctx)
		return;
	rt_devmon_close(ctx->mon);
	for (int i = 0; i < ctx->nev_created; i++)
		(void)gpuEventDestroy(ctx->ev[i]);
	for (int i = 0; i < ctx->nmark_created; i++)
		(void)gpuEventDestroy(ctx->mark_ev[i]);
	for (int i = 0; i < SCRATCH_BUFFERS; i++)
		if (ctx->scratch[i])
			(void)gpuFree(ctx->scratch[i]);
	vendor_blas_close(ctx);
	if (ctx->copy_stream)
		(void)gpuStreamDestroy(ctx->copy_stream);
	if (ctx->stream)
		(void)gpuStreamDestroy(ctx->stream);
	free(ctx);
}

/*
 * Makes dev current and gives it a stream and, where the vendor BLAS loaded,
 * its handle on that stream (a handle that cannot be made leaves the own
 * kernel for every GEMM, and gemm_impl() says why). threads is unused: the
 * host side of this backend is the calling thread.
 */
static int gpu_open(int dev, int threads, rt_ctx **out, char *err, size_t errlen)
{
	gpuDeviceProp p;
	rt_ctx *ctx = (rt_ctx *)calloc(1, sizeof *ctx);

	(void)threads;
	*out = NULL;
	if (!ctx)
		return rt_abi_fail(err, errlen, RT_ENOMEM, "out of memory for a %s context",
		                   GPU_LABEL);
	ctx->dev = dev;
	int rc = CTX_GPU(ctx, gpuSetDevice(dev));
	if (!rc)
		rc = CTX_GPU(ctx, gpuGetDeviceProperties(&p, dev));
	if (!rc)
		rc = CTX_GPU(ctx, gpuStreamCreateWithFlags(&ctx->stream, gpuStreamNonBlocking));
	if (rc) {
		rt_abi_fail(err, errlen, rc, "%s device %d: %s", GPU_LABEL, dev, ctx->err);
		gpu_close(ctx);
		return rc;
	}
	ctx->precisions = vendor_precisions(&p);
	ctx->sms = p.multiProcessorCount > 0 ? p.multiProcessorCount : 1;
	ctx->warp = p.warpSize > 0 ? p.warpSize : 32;
	blas_load_once();
	snprintf(ctx->blas_why, sizeof ctx->blas_why, "%s", blas_impl);
	ctx->blas_ok = blas_usable && !own_gemm_forced() && vendor_blas_open(ctx) == 0;
	for (int q = 0; q < RT_NPRECISION; q++)
		describe_gemm(ctx->blas_ok, ctx->blas_why, ctx->impl[q], sizeof ctx->impl[q]);
	*out = ctx;
	return 0;
}

static int gpu_alloc(rt_ctx *ctx, size_t bytes, void **ptr)
{
	*ptr = NULL;
	return CTX_GPU(ctx, gpuMalloc(ptr, bytes ? bytes : 1));
}

static void gpu_free(rt_ctx *ctx, void *ptr)
{
	if (ptr)
		CTX_GPU(ctx, gpuFree(ptr));
}

/*
 * Both directions wait for the copy: the caller may reuse or free its host
 * buffer on return (pageable memory gives no such promise by itself).
 */
static int gpu_copy(rt_ctx *ctx, void *dst, const void *src, size_t bytes, int to_device)
{
	int rc = ev_begin(ctx);
	if (!rc)
		rc = CTX_GPU(ctx, gpuMemcpyAsync(dst, src, bytes,
						 to_device ? gpuMemcpyHostToDevice
							   : gpuMemcpyDeviceToHost,
						 ctx->stream));
	int rc2 = ev_end(ctx);
	if (!rc)
		rc = rc2;
	return rc ? rc : CTX_GPU(ctx, gpuStreamSynchronize(ctx->stream));
}

static int gpu_upload(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	return gpu_copy(ctx, dst, src, bytes, 1);
}

static int gpu_download(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	return gpu_copy(ctx, dst, src, bytes, 0);
}

/* Waits for the copies upload_async() enqueued (none: returns at once). */
static int copies_wait(rt_ctx *ctx)
{
	if (!ctx->copies_pending)
		return 0;
	ctx->copies_pending = 0;
	return CTX_GPU(ctx, gpuStreamSynchronize(ctx->copy_stream));
}

static int gpu_synchronize(rt_ctx *ctx)
{
	int rc = CTX_GPU(ctx, gpuStreamSynchronize(ctx->stream));
	int rc2 = copies_wait(ctx);
	return rc ? rc : rc2;
}

static int gpu_host_alloc(rt_ctx *ctx, size_t bytes, void **ptr)
{
	*ptr = NULL;
	return CTX_GPU(ctx, gpuMallocHost(ptr, bytes ? bytes : 1));
}

static void gpu_host_free(rt_ctx *ctx, void *ptr)
{
	if (ptr)
		CTX_GPU(ctx, gpuFreeHost(ptr));
}

/* The copy on the context's copy stream (made on first use), beside the kernels. */
static int gpu_upload_async(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	int rc = ctx->copy_stream ? 0
				  : CTX_GPU(ctx, gpuStreamCreateWithFlags(&ctx->copy_stream,
									  gpuStreamNonBlocking));
	if (!rc)
		rc = CTX_GPU(ctx, gpuMemcpyAsync(dst, src, bytes, gpuMemcpyHostToDevice,
						 ctx->copy_stream));
	if (!rc)
		ctx->copies_pending = 1;
	return rc;
}

static int gpu_mem_info(rt_ctx *ctx, uint64_t *total, uint64_t *free_bytes)
{
	size_t f = 0, t = 0;
	int rc = CTX_GPU(ctx, gpuMemGetInfo(&f, &t));
	*total = t;
	*free_bytes = f;
	return rc;
}

/* Rounds the matrices m at x into y, or with m NULL the n floats from x on. */
template <class H>
static void round16_mats_or_span(rt_ctx *ctx, const round_mats *m, size_t n, const float *x, H *y)
{
	if (m)
		round16_launch(ctx, m, x, y);
	else
		round16_run(ctx, n, x, y);
}

/*
 * Copies the matrices m at x (NULL: all of the n elements from x on) into
 * scratch buffer i as bf16 or fp16, at the same offsets (so leading
 * dimensions and strides keep their meaning); *out is the copy, n the
 * elements the matrices span.
 */
static int round_to_scratch(rt_ctx *ctx, int i, rt_precision prec, const void *x,
			    const round_mats *m, size_t n, const void **out)
{
	*out = x;
	if (n == 0)
		return 0;
	int rc = scratch_reserve(ctx, i, n * 2);
	if (rc)
		return rc;
	if (prec == RT_BF16)
		round16_mats_or_span(ctx, m, n, (const float *)x, (gpu_bf16_t *)ctx->scratch[i]);
	else
		round16_mats_or_span(ctx, m, n, (const float *)x, (gpu_fp16_t *)ctx->scratch[i]);
	*out = ctx->scratch[i];
	return gpu_launched(ctx, "fp32 to 16-bit");
}

/*
 * The bf16/fp16 copies of g's A and B into *a and *b. A strided batch
 * rounds only its matrices' own elements: one head's columns of a wider
 * tensor cost that head's share. A two-level batch (gemm_batched2) rounds
 * each operand's whole span, once, in one contiguous pass: its matrices
 * interleave (every head's columns in every row) and together cover most
 * of the span, no single stride reaches them, and the span is what each of
 * the H calls of a per-head loop rounded (each head's batch runs over all
 * sequences), so one pass costs 1/H of that loop's. The elements between
 * matrices are rounded too and never read.
 */
static int round_operands(rt_ctx *ctx, const rt_gemm_args *g, const void **a, const void **b)
{
	const int ra = g->transa ? g->k : g->m, ca = g->transa ? g->m : g->k;
	const int rb = g->transb ? g->n : g->k, cb = g->transb ? g->k : g->n;
	const size_t na = rt_gemm_span2(ra, ca, g->lda, g->sa, g->count, g->oa, g->outer);
	const size_t nb = rt_gemm_span2(rb, cb, g->ldb, g->sb, g->count, g->ob, g->outer);
	const round_mats ma = {g->count, ra, ca, g->lda, g->sa};
	const round_mats mb = {g->count, rb, cb, g->ldb, g->sb};
	const int whole = g->outer > 1;
	int rc = round_to_scratch(ctx, SCRATCH_A16, g->prec, g->a, whole ? NULL : &ma, na, a);
	return rc ? rc
		  : round_to_scratch(ctx, SCRATCH_B16, g->prec, g->b, whole ? NULL : &mb, nb, b);
}

/* Bytes of an element of A and B (16-bit copies for bf16/fp16) and of C, in precision p. */
static int elem_bytes_ab(rt_precision p)
{
	return p == RT_FP64 ? 8 : p == RT_BF16 || p == RT_FP16 ? 2 : 4;
}

static int elem_bytes_c(rt_precision p)
{
	return p == RT_FP64 ? 8 : 4;
}

/*
 * The device arrays of pointers to the matrices of the two-level batch g
 * (A and B at a and b), in the column-major call's order: its A's, its B's,
 * its C's, outer * count each (gemm_batch2.cuh).
 */
static int batch_ptrs(rt_ctx *ctx, const rt_gemm_args *g, const void *a, const void *b,
		      void ***ptrs)
{
	rt_gemm_args h = *g;
	h.a = a;
	h.b = b;
	const colmajor_gemm c = colmajor_of(&h);
	const size_t total = (size_t)g->outer * g->count;
	int rc = scratch_reserve(ctx, SCRATCH_PTRS, 3 * total * sizeof(void *));
	*ptrs = (void **)ctx->scratch[SCRATCH_PTRS];
	return rc ? rc
		  : batch_ptrs_launch(ctx, &c, elem_bytes_ab(g->prec), elem_bytes_c(g->prec),
				      *ptrs);
}

/*
 * g on the vendor's library: a strided batch as it is, a two-level batch
 * as one batched call over the pointer arrays built first.
 */
static int vendor_run(rt_ctx *ctx, const rt_gemm_args *g, const void *a, const void *b)
{
	void **ptrs = NULL;
	int rc = g->outer > 1 ? batch_ptrs(ctx, g, a, b, &ptrs) : 0;
	if (rc)
		return rc;
	rc = ev_begin(ctx);
	if (!rc)
		rc = ptrs ? vendor_gemm_ptrs(ctx, g, ptrs) : vendor_gemm(ctx, g, a, b);
	int rc2 = ev_end(ctx);
	return rc ? rc : rc2;
}

/*
 * A GEMM the vendor's library declined (RT_EUNAVAIL) runs on the own kernel
 * from then on, for that precision, and gemm_impl() says so.
 */
static void note_declined(rt_ctx *ctx, rt_precision p)
{
	ctx->declined |= RT_PREC_BIT(p);
	gemm_impl_declined(blas_impl, p, ctx->err, ctx->impl[p], sizeof ctx->impl[p]);
}

/* g's A and B as its GEMM reads them: the 16-bit copies for bf16/fp16, else themselves. */
static int rounded_operands(rt_ctx *ctx, const rt_gemm_args *g, const void **a, const void **b)
{
	*a = g->a;
	*b = g->b;
	return g->prec == RT_BF16 || g->prec == RT_FP16 ? round_operands(ctx, g, a, b) : 0;
}

/* g, whose A and B are at a and b, on the vendor's library or, declined there, the own kernel. */
static int gemm_dispatch(rt_ctx *ctx, const rt_gemm_args *g, const void *a, const void *b)
{
	if (ctx->blas_ok && !(ctx->declined & RT_PREC_BIT(g->prec))) {
		int rc = vendor_run(ctx, g, a, b);
		if (rc != RT_EUNAVAIL)
			return rc;
		note_declined(ctx, g->prec);
	}
	return tiled_gemm(ctx, g, a, b);
}

/*
 * Runs a checked GEMM (a two-level batch that one stride reaches as that
 * strided batch): bf16/fp16 inputs are rounded to 16-bit copies first
 * (fp32 accumulation and C either way), then the vendor's library runs it,
 * or the own tiled kernel where the library is not there or declines.
 */
static int gemm_run(rt_ctx *ctx, const rt_gemm_args *checked)
{
	rt_gemm_args flat = *checked;
	const void *a = flat.a, *b = flat.b;
	rt_gemm_flatten(&flat);
	if (flat.m == 0 || flat.n == 0 || flat.count == 0 || flat.outer == 0)
		return 0;
	int rc = rounded_operands(ctx, &flat, &a, &b);
	return rc ? rc : gemm_dispatch(ctx, &flat, a, b);
}

/*
 * A forward linear layer (backend.h's linear_fwd): the GEMM with the bias
 * (and GELU, a not NULL) in the vendor library's epilogue where it has one
 * for the shape; else, or where the library declines it, the GEMM, then
 * the add_bias or bias_gelu kernel. A declined epilogue leaves the
 * precision's GEMMs on the library (only the fusion is missing).
 */
static int gpu_linear_fwd(rt_ctx *ctx, rt_dtype t, rt_precision prec, int m, int n, int k,
			  const void *x, const void *w, const void *bias, void *u, void *a)
{
	const rt_gemm_args g = {t, prec, 0, 0, m, n, k, 1.0, 0.0, x, w, u,
	                        k, n, n, 0, 0, 0, 1, 1, 0, 0, 0};
	const void *xa, *wb;
	int rc = rt_gemm_check(&g, ctx->precisions, GPU_LABEL, ctx->dev, ctx->err, sizeof ctx->err);
	if (rc || m == 0 || n == 0)
		return rc;
	rc = rounded_operands(ctx, &g, &xa, &wb);
	if (rc)
		return rc;
	if (ctx->blas_ok && !(ctx->declined & RT_PREC_BIT(prec))) {
		rc = ev_begin(ctx);
		if (!rc)
			rc = vendor_linear(ctx, &g, xa, wb, bias, a);
		int rc2 = ev_end(ctx);
		if (rc != RT_EUNAVAIL)
			return rc ? rc : rc2;
	}
	rc = gemm_dispatch(ctx, &g, xa, wb);
	if (rc)
		return rc;
	return a ? gpu_bias_gelu(ctx, t, m, n, bias, u, a) : gpu_add_bias(ctx, t, m, n, bias, u);
}

/* outer x inner GEMMs in one call of the vendor's library (backend.h's gemm_batched2). */
static int gpu_gemm_batched2(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb,
			     int m, int n, int k, double alpha, const void *a, int lda,
			     const void *b, int ldb, double beta, void *c, int ldc,
			     const rt_batch2 *batch)
{
	const rt_gemm_args g = rt_gemm_of_batch2(t, prec, transa, transb, m, n, k, alpha, a, lda, b,
						 ldb, beta, c, ldc, batch);
	int rc = rt_gemm_check(&g, ctx->precisions, GPU_LABEL, ctx->dev, ctx->err, sizeof ctx->err);
	return rc ? rc : gemm_run(ctx, &g);
}

static int gpu_gemm_batched(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb,
			    int m, int n, int k, double alpha, const void *a, int lda,
			    long stride_a, const void *b, int ldb, long stride_b, double beta,
			    void *c, int ldc, long stride_c, int count)
{
	const rt_batch2 one = {1, count, 0, stride_a, 0, stride_b, 0, stride_c};
	return gpu_gemm_batched2(ctx, t, prec, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
				 c, ldc, &one);
}

static int gpu_gemm(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb, int m,
		    int n, int k, double alpha, const void *a, int lda, const void *b, int ldb,
		    double beta, void *c, int ldc)
{
	return gpu_gemm_batched(ctx, t, prec, transa, transb, m, n, k, alpha, a, lda, 0, b, ldb,
				0, beta, c, ldc, 0, 1);
}

static const char *gpu_gemm_impl(rt_ctx *ctx, rt_precision p)
{
	return (unsigned)p < RT_NPRECISION ? ctx->impl[p] : "?";
}

/*
 * Starts (on) or stops recording event pairs; either way waits for those
 * recorded and returns their device seconds since the previous call.
 */
static int gpu_device_time(rt_ctx *ctx, int on, double *busy_s)
{
	int rc = ev_harvest(ctx);
	*busy_s = ctx->busy_ms * 1e-3;
	ctx->busy_ms = 0;
	while (!rc && on && ctx->nev_created < 2 * EV_PAIRS &&
	       !(rc = CTX_GPU(ctx, gpuEventCreate(&ctx->ev[ctx->nev_created]))))
		ctx->nev_created++;
	ctx->timing = on && !rc;
	return rc;
}

/*
 * Waits for the marks recorded and charges the device time between each
 * two to the phase the first opened; the last stays, first of the next span.
 */
static int marks_harvest(rt_ctx *ctx)
{
	const int n = ctx->nmarks;
	if (n == 0)
		return 0;
	int rc = CTX_GPU(ctx, gpuEventSynchronize(ctx->mark_ev[n - 1]));
	for (int i = 0; !rc && i + 1 < n; i++) {
		float ms = 0;
		rc = CTX_GPU(ctx, gpuEventElapsedTime(&ms, ctx->mark_ev[i], ctx->mark_ev[i + 1]));
		if (ctx->mark_phase[i] >= 0)
			ctx->mark_ms[ctx->mark_phase[i]] += ms;
	}
	gpuEvent_t last = ctx->mark_ev[n - 1];
	ctx->mark_ev[n - 1] = ctx->mark_ev[0];
	ctx->mark_ev[0] = last;
	ctx->mark_phase[0] = ctx->mark_phase[n - 1];
	ctx->nmarks = 1;
	return rc;
}

/* Enqueues a mark opening phase ph (RT_PHASE_END: closes, waits and adds up). */
static int gpu_phase_mark(rt_ctx *ctx, int ph, double *seconds, int n)
{
	if (ph != RT_PHASE_END && (ph < 0 || ph >= RT_PHASE_MARKS_MAX))
		return RT_EINVAL;
	int rc = ctx->nmarks == PH_MARKS ? marks_harvest(ctx) : 0;
	if (!rc && ctx->nmarks == ctx->nmark_created &&
	    !(rc = CTX_GPU(ctx, gpuEventCreate(&ctx->mark_ev[ctx->nmark_created]))))
		ctx->nmark_created++;
	if (!rc)
		rc = CTX_GPU(ctx, gpuEventRecord(ctx->mark_ev[ctx->nmarks], ctx->stream));
	if (rc)
		return rc;
	ctx->mark_phase[ctx->nmarks++] = ph;
	if (ph != RT_PHASE_END)
		return 0;
	rc = marks_harvest(ctx);
	int rc2 = copies_wait(ctx);
	rc = rc ? rc : rc2;
	for (int i = 0; i < RT_PHASE_MARKS_MAX; i++) {
		if (i < n)
			seconds[i] += ctx->mark_ms[i] * 1e-3;
		ctx->mark_ms[i] = 0;
	}
	ctx->nmarks = 0;
	return rc;
}

/*
 * The monitor's mean busy fraction over its samples since the previous
 * call (the first call opens it and starts its window, answering
 * RT_EUNAVAIL, as later ones do until a sample has come: devmon.h's
 * rt_devmon_utilization). RT_EUNAVAIL, with the reason in last_error(),
 * when there is no monitor.
 */
static int gpu_utilization(rt_ctx *ctx, double *busy)
{
	char bus[32] = "";
	if (!ctx->mon && !ctx->mon_failed &&
	    vendor_monitor_bus(ctx, bus, sizeof bus, ctx->err, sizeof ctx->err)) {
		ctx->mon_failed = 1;
		return RT_EUNAVAIL;
	}
	return rt_devmon_utilization(&ctx->mon, &ctx->mon_failed, &VENDOR_MONITOR, bus, busy,
	                             ctx->err, sizeof ctx->err);
}

static const char *gpu_last_error(rt_ctx *ctx)
{
	return ctx ? ctx->err : module_err;
}

static const rt_backend_ops gpu_ops = {
	.abi = RT_BACKEND_ABI,
	.name = GPU_NAME,
	.visible_devices = GPU_VISIBLE,
	.framework_device = GPU_FRAMEWORK_DEVICE,
	.init = gpu_init,
	.device_info = gpu_device_info,
	.open = gpu_open,
	.close = gpu_close,
	.alloc = gpu_alloc,
	.free = gpu_free,
	.upload = gpu_upload,
	.download = gpu_download,
	.synchronize = gpu_synchronize,
	.mem_info = gpu_mem_info,
	.gemm = gpu_gemm,
	.gemm_batched = gpu_gemm_batched,
	.gemm_batched2 = gpu_gemm_batched2,
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
	.utilization = gpu_utilization,
	.last_error = gpu_last_error,
	.gemm_impl = gpu_gemm_impl,
	.device_time = gpu_device_time,
	.phase_mark = gpu_phase_mark,
	.bias_gelu = gpu_bias_gelu,
	.host_alloc = gpu_host_alloc,
	.host_free = gpu_host_free,
	.upload_async = gpu_upload_async,
	.linear_fwd = gpu_linear_fwd,
};

extern "C" __attribute__((visibility("default"))) const rt_backend_ops *rigtune_backend(void)
{
	return &gpu_ops;
}

/*
 * The same table with the plain kernels (kernels_plain.cuh) in place of the
 * fast ones, for tests/gpu_check.c: it checks the two against each other
 * and times each kernel both ways. Not a backend the loader offers.
 */
static rt_backend_ops plain_ops_of(void)
{
	rt_backend_ops o = gpu_ops;
	o.fill = plain_fill;
	o.axpby = plain_axpby;
	o.add_bias = plain_add_bias;
	o.sum_rows = plain_sum_rows;
	o.gelu = plain_gelu;
	o.gelu_backward = plain_gelu_backward;
	o.tanh_fwd = plain_tanh_fwd;
	o.tanh_backward = plain_tanh_backward;
	o.softmax = plain_softmax;
	o.softmax_backward = plain_softmax_backward;
	o.layernorm = plain_layernorm;
	o.layernorm_backward = plain_layernorm_backward;
	o.mse_loss = plain_mse_loss;
	o.adam = plain_adam;
	o.bias_gelu = NULL; /* its specification: add_bias, then gelu */
	o.linear_fwd = NULL; /* gemm, then add_bias (and gelu) */
	return o;
}

extern "C" __attribute__((visibility("default"))) const rt_backend_ops *
rigtune_backend_plain(void)
{
	static const rt_backend_ops plain = plain_ops_of();
	return &plain;
}

#endif
