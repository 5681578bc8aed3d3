/*
 * metal.c: the Metal backend plugin (librigtune_metal.dylib) for Apple
 * Silicon, in plain C through the Objective-C runtime: it links Metal, Metal
 * Performance Shaders, Foundation, CoreGraphics and libobjc and calls the
 * classes through objc_msgSend, so it builds wherever Zig's C compiler does:
 * make test cross-compiles it on Linux against text stubs of those libraries
 * (tests/mac_sdk), where a misspelt function or class fails the link. Only
 * the selectors are strings that the first Mac checks.
 *
 * Memory is unified: alloc() makes a shared MTLBuffer and hands out its
 * contents pointer, which the CPU reads and writes in place. GEMMs run on
 * the GPU (MPSMatrixMultiplication, fp32, and fp16 through half copies;
 * bf16 through kernels.metal's k_gemm_bf16, where the OS's Metal Shading
 * Language is 3.1 or later and so has bfloat: the first device query
 * compiles the kernels and looks for it).
 * The elementwise kernels run on the GPU in fp32: Metal Shading Language in
 * kernels.metal, embedded here with args.h and compiled when a context
 * opens, one compute pipeline per kernel (plan.c says what each call
 * dispatches). Metal has no double, so their fp64 calls run the CPU
 * reference (workloads/kernels.h, in the rigtune binary) on the same memory
 * once the GPU's work is done.
 *
 * Kernels and GEMMs are encoded, in call order, into one open command
 * buffer of the context's queue, which is committed without waiting at
 * each GEMM, every OPS_PER_COMMIT kernels and whenever the host needs the
 * memory; the device's busy time is each command buffer's GPUEndTime -
 * GPUStartTime.
 */
#ifdef __APPLE__
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/platform.h"
#include "../cpu_backend.h"
#include "../devmon.h"
#include "../host_abi.h"
#include "../kernels.h"
#include "plan.h"

/* The kernels' source: args.h, then kernels.metal (make lists both as the plugin's inputs). */
RT_EMBED(rt_metal_args_h, "workloads/metal/args.h");
RT_EMBED(rt_metal_kernels, "workloads/metal/kernels.metal");
extern const char rt_metal_args_h[], rt_metal_kernels[];

typedef void *id;
typedef void *SEL;

/*
 * What the plugin calls in the libraries it links (plugin.mk): libobjc's runtime, Metal's
 * and MPS's functions, and the classes by their symbols, as compiled Objective-C refers to
 * them (a class symbol's address is the class).
 */
extern SEL sel_registerName(const char *name);
extern void objc_msgSend(void); /* cast to each call's own type */
extern void *objc_autoreleasePoolPush(void);
extern void objc_autoreleasePoolPop(void *pool);
extern id MTLCreateSystemDefaultDevice(void);
extern id MTLCopyAllDevices(void);
extern bool MPSSupportsMTLDevice(id device);
#define CLASS(name) extern char class_##name __asm__("_OBJC_CLASS_$_" #name)
CLASS(NSString);
CLASS(MTLCompileOptions);
CLASS(MPSMatrixDescriptor);
CLASS(MPSMatrix);
CLASS(MPSMatrixMultiplication);

/* MTLResourceStorageModeShared, MTLCommandBufferStatusCompleted, MPSDataType's floats. */
#define STORAGE_SHARED 0u
#define CB_COMPLETED 4u
#define MPS_FLOAT32 (0x10000000u | 32u)
#define MPS_FLOAT16 (0x10000000u | 16u)

/*
 * What init() found: the device, and the CPU backend of the rigtune binary that loaded the
 * plugin (fp64 runs there), looked up by name in the main executable, which exports it: a
 * plugin that took it by link would need the linker to leave symbols open.
 */
static struct {
	const rt_backend_ops *cpu;
	int (*grow)(void *array, int *cap, int n, size_t elem, int first); /* rt_grow */
	id device;
	id lib;        /* the kernels' library, compiled once (compile_kernels) */
	int bf16;      /* 0: not yet asked; 1: k_gemm_bf16 compiled; -1: not, bf16_why says why */
	char bf16_why[128];
	char why[1024]; /* init's or device_info's failure, or the kernels' compile error */
} rt;

/* objc_msgSend as a function of the given type (arm64: no variadic call, no stret). */
#define MSG(type) ((type)(void (*)(void))objc_msgSend)
#define CLS(name) ((id)&class_##name)
#define S(name) sel_registerName(name)

static id send(id o, const char *sel)
{
	return MSG(id(*)(id, SEL))(o, S(sel));
}

static void release(id o)
{
	if (o)
		MSG(void (*)(id, SEL))(o, S("release"));
}

/* An NSString's text, "" for nil. */
static const char *text_of(id s)
{
	const char *t = s ? MSG(const char *(*)(id, SEL))(s, S("UTF8String")) : NULL;
	return t ? t : "";
}

/* The binary's name, from the main executable: NULL where it is not rigtune's. */
static void *from_binary(const char *name, int *missing)
{
	void *p = dlsym(RTLD_MAIN_ONLY, name);
	if (!p && !*missing) {
		*missing = 1;
		snprintf(rt.why, sizeof rt.why, "%s: not in the program that loaded the plugin (%s)",
		         name, dlerror());
	}
	return p;
}

/*
 * A device MPS runs on: the system's default, else (a command-line tool may get no
 * default) the first of every device that MPS supports. Retained; NULL when none.
 */
static id pick_device(void)
{
	id d = MTLCreateSystemDefaultDevice();
	if (d && MPSSupportsMTLDevice(d))
		return d;
	release(d);
	id all = MTLCopyAllDevices();
	unsigned long n = all ? MSG(unsigned long (*)(id, SEL))(all, S("count")) : 0;
	for (unsigned long i = 0; i < n && !d; i++) {
		id each = MSG(id(*)(id, SEL, unsigned long))(all, S("objectAtIndex:"), i);
		if (MPSSupportsMTLDevice(each))
			d = send(each, "retain");
	}
	release(all);
	return d;
}

static int metal_init(char *err, size_t errlen)
{
	if (rt.device)
		return 1;
	int missing = 0;
	const rt_backend_ops *(*cpu_backend)(void) =
	    (const rt_backend_ops *(*)(void))from_binary("rt_cpu_backend", &missing);
	rt.grow = (int (*)(void *, int *, int, size_t, int))from_binary("rt_grow", &missing);
	if (missing)
		return rt_abi_fail(err, errlen, RT_EUNAVAIL, "%s", rt.why);
	rt.cpu = cpu_backend();
	if (!(rt.device = pick_device()))
		return rt_abi_fail(err, errlen, RT_EUNAVAIL,
		                   "no Metal device that Metal Performance Shaders run on (neither the "
		                   "default nor any of MTLCopyAllDevices)");
	return 1;
}

static uint64_t working_set(void)
{
	return MSG(uint64_t(*)(id, SEL))(rt.device, S("recommendedMaxWorkingSetSize"));
}

static uint64_t allocated(void)
{
	return MSG(uint64_t(*)(id, SEL))(rt.device, S("currentAllocatedSize"));
}

/* An autoreleased NSString of text. */
static id nsstring(const char *text)
{
	return MSG(id(*)(id, SEL, const char *))(CLS(NSString), S("stringWithUTF8String:"), text);
}

/* RT_ERUNTIME with "what: the NSError's description" in err and in last_error(NULL). */
static int ns_fail(char *err, size_t errlen, const char *what, id error)
{
	snprintf(rt.why, sizeof rt.why, "%s: %s", what,
	         error ? text_of(send(error, "localizedDescription")) : "no reason given");
	return rt_abi_fail(err, errlen, RT_ERUNTIME, "%s", rt.why);
}

/*
 * The kernels' library: args.h and kernels.metal compiled with fast math off
 * (kernels.h's math), in the newest language version the OS has (the
 * options' default), which decides whether k_gemm_bf16 is in it.
 */
static id compile_kernels(char *err, size_t errlen)
{
	size_t la = strlen(rt_metal_args_h), lk = strlen(rt_metal_kernels);
	char *text = malloc(la + lk + 2);
	if (!text) {
		rt_abi_fail(err, errlen, RT_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(text, rt_metal_args_h, la);
	text[la] = '\n';
	memcpy(text + la + 1, rt_metal_kernels, lk + 1);
	id opts = send(send(CLS(MTLCompileOptions), "alloc"), "init"), error = NULL;
	if (opts)
		MSG(void (*)(id, SEL, bool))(opts, S("setFastMathEnabled:"), false);
	id lib = opts ? MSG(id(*)(id, SEL, id, id, id *))(rt.device,
	                                                  S("newLibraryWithSource:options:error:"),
	                                                  nsstring(text), opts, &error)
	              : NULL;
	free(text);
	release(opts);
	if (!lib)
		ns_fail(err, errlen,
		        "the Metal kernels (workloads/metal/kernels.metal) did not compile", error);
	return lib;
}

/* The kernels' library, compiled at the first call and kept (NULL: err says why). */
static id kernels(char *err, size_t errlen)
{
	if (!rt.lib)
		rt.lib = compile_kernels(err, errlen);
	return rt.lib;
}

/* Whether the library has function name (a kernel the OS's language version compiles). */
static bool has_function(id lib, const char *name)
{
	id fn = MSG(id(*)(id, SEL, id))(lib, S("newFunctionWithName:"), nsstring(name));
	release(fn);
	return fn != NULL;
}

/*
 * The GEMM precisions offered: fp32 and fp16 through MPS, bf16 where the
 * kernels compiled with k_gemm_bf16 in them (decided once; bf16_why says
 * why not).
 */
static unsigned offered_precisions(void)
{
	if (!rt.bf16) {
		char err[sizeof rt.bf16_why];
		void *pool = objc_autoreleasePoolPush();
		id lib = kernels(err, sizeof err);
		rt.bf16 = lib && has_function(lib, mtl_kernels[MK_GEMM_BF16].name) ? 1 : -1;
		if (!lib)
			snprintf(rt.bf16_why, sizeof rt.bf16_why, "%s", err);
		else if (rt.bf16 < 0)
			snprintf(rt.bf16_why, sizeof rt.bf16_why,
			         "this macOS's Metal Shading Language is older than 3.1 (macOS 14), "
			         "which has bfloat");
		objc_autoreleasePoolPop(pool);
	}
	unsigned p = RT_PREC_BIT(RT_FP32) | RT_PREC_BIT(RT_FP16);
	return rt.bf16 > 0 ? p | RT_PREC_BIT(RT_BF16) : p;
}

static int metal_device_info(int dev, rt_device_info *info)
{
	if (dev != 0 || !rt.device)
		return RT_EINVAL;
	void *pool = objc_autoreleasePoolPush();
	memset(info, 0, sizeof *info);
	snprintf(info->name, sizeof info->name, "%s", text_of(send(rt.device, "name")));
	snprintf(info->driver, sizeof info->driver, "Metal");
	info->mem_total = working_set();
	info->mem_free = info->mem_total > allocated() ? info->mem_total - allocated() : 0;
	info->compute_units = 0; /* Metal does not say how many GPU cores */
	info->precisions = offered_precisions();
	info->unified_memory = MSG(bool (*)(id, SEL))(rt.device, S("hasUnifiedMemory"));
	if (rt.bf16 > 0)
		snprintf(info->gemm_impl, sizeof info->gemm_impl,
		         "MPSMatrixMultiplication (fp16 through half copies); bf16: k_gemm_bf16 "
		         "(bfloat inputs, fp32 sums)");
	else
		snprintf(info->gemm_impl, sizeof info->gemm_impl,
		         "MPSMatrixMultiplication (fp16 through half copies); no bf16: %s",
		         rt.bf16_why);
	snprintf(info->monitor, sizeof info->monitor, "%s", rt_devmon_ioreport.name);
	objc_autoreleasePoolPop(pool);
	return 0;
}

/* ---- a context: the queue, the pipelines, the buffers handed out, the command buffers ---- */

typedef struct buffer {
	id mtl;
	char *base;
	size_t len;
} buffer;

/* Command buffers committed before one is waited for (one queue runs them in order). */
#define MAX_IN_FLIGHT 64
/* Kernels encoded into one command buffer before it is committed, so that the GPU starts. */
#define OPS_PER_COMMIT 32

struct rt_ctx {
	id queue;
	id pipes[MK_COUNT]; /* one compute pipeline per kernel of kernels.metal */
	rt_ctx *cpu;        /* the CPU backend's context: the fp64 elementwise kernels */
	buffer *bufs;
	int nbufs, cap;
	id cb, enc; /* the command buffer being encoded and its compute encoder, retained */
	int nops;   /* kernels encoded into cb */
	id pending[MAX_IN_FLIGHT]; /* committed command buffers, retained, in order */
	int npending;
	void *partials; /* MTL_PARTIALS_SIZE bytes from alloc(): mse_loss's first level */
	int timing;
	double busy_s; /* device time of what completed since the last device_time() */
	rt_devmon *mon; /* IOReport's GPU residency (utilization), opened at its first call */
	int mon_failed;
	char err[256];
};

static id retain(id o)
{
	return o ? send(o, "retain") : NULL;
}

/* The pipeline of kernel k from lib; it must run MTL_GROUP threads a threadgroup. */
static int make_pipeline(rt_ctx *c, id lib, mtl_kernel k, char *err, size_t errlen)
{
	const char *name = mtl_kernels[k].name;
	char what[96];
	id fn = MSG(id(*)(id, SEL, id))(lib, S("newFunctionWithName:"), nsstring(name)),
	   error = NULL;
	if (!fn && mtl_kernels[k].msl) /* compiled out by an older language: not offered */
		return RT_OK;
	if (!fn)
		return rt_abi_fail(err, errlen, RT_ERUNTIME,
		                   "the Metal kernels have no function %s", name);
	c->pipes[k] = MSG(id(*)(id, SEL, id, id *))(
	    rt.device, S("newComputePipelineStateWithFunction:error:"), fn, &error);
	release(fn);
	snprintf(what, sizeof what, "the compute pipeline of %s", name);
	if (!c->pipes[k])
		return ns_fail(err, errlen, what, error);
	unsigned long most =
	    MSG(unsigned long (*)(id, SEL))(c->pipes[k], S("maxTotalThreadsPerThreadgroup"));
	if (most < MTL_GROUP)
		return rt_abi_fail(err, errlen, RT_EUNAVAIL,
		                   "%s runs %lu threads a threadgroup, not %d", what, most,
		                   MTL_GROUP);
	return RT_OK;
}

/* Every kernel's pipeline, made once per context; the first failure, with its text. */
static int make_pipelines(rt_ctx *c, char *err, size_t errlen)
{
	void *pool = objc_autoreleasePoolPush();
	id lib = kernels(err, errlen);
	int rc = lib ? RT_OK : RT_ERUNTIME;
	for (int k = 0; rc == RT_OK && k < MK_COUNT; k++)
		rc = make_pipeline(c, lib, (mtl_kernel)k, err, errlen);
	objc_autoreleasePoolPop(pool);
	return rc;
}

static void metal_close(rt_ctx *c);
static int metal_alloc(rt_ctx *c, size_t bytes, void **ptr);

static int metal_open(int dev, int threads, rt_ctx **out, char *err, size_t errlen)
{
	*out = NULL;
	if (dev != 0 || !rt.device)
		return rt_abi_fail(err, errlen, RT_EINVAL, "no Metal device %d", dev);
	rt_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return rt_abi_fail(err, errlen, RT_ENOMEM, "out of memory");
	int rc = rt.cpu->open(0, threads, &c->cpu, err, errlen);
	if (rc == RT_OK && !(c->queue = send(rt.device, "newCommandQueue")))
		rc = rt_abi_fail(err, errlen, RT_ERUNTIME, "newCommandQueue failed");
	if (rc == RT_OK)
		rc = make_pipelines(c, err, errlen);
	if (rc == RT_OK && (rc = metal_alloc(c, MTL_PARTIALS_SIZE, &c->partials)))
		snprintf(err, errlen, "%s", c->err);
	if (rc) {
		metal_close(c);
		return rc;
	}
	*out = c;
	return RT_OK;
}

/* Waits for one command buffer: its status checked, its device time counted. */
static int finish(rt_ctx *c, id cb)
{
	MSG(void (*)(id, SEL))(cb, S("waitUntilCompleted"));
	int rc = RT_OK;
	if (MSG(unsigned long (*)(id, SEL))(cb, S("status")) != CB_COMPLETED)
		rc = rt_abi_fail(c->err, sizeof c->err, RT_ERUNTIME, "command buffer failed: %s",
		                 text_of(send(send(cb, "error"), "localizedDescription")));
	else if (c->timing)
		c->busy_s += MSG(double (*)(id, SEL))(cb, S("GPUEndTime")) -
		             MSG(double (*)(id, SEL))(cb, S("GPUStartTime"));
	release(cb);
	return rc;
}

/* Waits for every command buffer committed; the first failure. */
static int wait_all(rt_ctx *c)
{
	int rc = RT_OK;
	for (int i = 0; i < c->npending; i++) {
		int r = finish(c, c->pending[i]);
		rc = rc ? rc : r;
	}
	c->npending = 0;
	return rc;
}

/* The command buffer being encoded, made on first use (NULL: the queue made none). */
static id open_cb(rt_ctx *c)
{
	if (!c->cb)
		c->cb = retain(send(c->queue, "commandBuffer"));
	return c->cb;
}

/* Ends the open compute encoder, if any: a GEMM or a commit comes next. */
static void end_encoder(rt_ctx *c)
{
	if (c->enc) {
		MSG(void (*)(id, SEL))(c->enc, S("endEncoding"));
		release(c->enc);
		c->enc = NULL;
	}
}

/* Commits what was encoded, without waiting for it (first for the oldest, when full). */
static int commit(rt_ctx *c)
{
	end_encoder(c);
	if (!c->cb)
		return RT_OK;
	int rc = c->npending == MAX_IN_FLIGHT ? wait_all(c) : RT_OK;
	MSG(void (*)(id, SEL))(c->cb, S("commit"));
	c->pending[c->npending++] = c->cb;
	c->cb = NULL;
	c->nops = 0;
	return rc;
}

/* Commits and waits for everything: the host may then touch the memory. */
static int drain(rt_ctx *c)
{
	int rc = commit(c), r = wait_all(c);
	return rc ? rc : r;
}

static void metal_close(rt_ctx *c)
{
	if (!c)
		return;
	if (c->queue)
		drain(c);
	for (int i = 0; i < c->nbufs; i++)
		release(c->bufs[i].mtl);
	free(c->bufs);
	for (int k = 0; k < MK_COUNT; k++)
		release(c->pipes[k]);
	release(c->queue);
	rt_devmon_close(c->mon);
	if (c->cpu)
		rt.cpu->close(c->cpu);
	free(c);
}

static int metal_alloc(rt_ctx *c, size_t bytes, void **ptr)
{
	if (rt.grow(&c->bufs, &c->cap, c->nbufs, sizeof *c->bufs, 16))
		return RT_ENOMEM;
	id mtl = MSG(id(*)(id, SEL, unsigned long, unsigned long))(
	    rt.device, S("newBufferWithLength:options:"), bytes ? bytes : 1, STORAGE_SHARED);
	if (!mtl)
		return rt_abi_fail(c->err, sizeof c->err, RT_ENOMEM,
		                   "newBufferWithLength: %zu bytes", bytes);
	char *base = MSG(void *(*)(id, SEL))(mtl, S("contents"));
	c->bufs[c->nbufs++] = (buffer){mtl, base, bytes};
	*ptr = base;
	return RT_OK;
}

/* The buffer that holds p, and p's offset in it; NULL for memory not from alloc(). */
static const buffer *find(const rt_ctx *c, const void *p, size_t *offset)
{
	const char *q = p;
	for (int i = 0; i < c->nbufs; i++)
		if (q >= c->bufs[i].base && q < c->bufs[i].base + c->bufs[i].len) {
			*offset = (size_t)(q - c->bufs[i].base);
			return &c->bufs[i];
		}
	return NULL;
}

static void metal_free(rt_ctx *c, void *ptr)
{
	for (int i = 0; i < c->nbufs; i++)
		if (c->bufs[i].base == ptr) {
			drain(c); /* the GPU may still read it */
			release(c->bufs[i].mtl);
			c->bufs[i] = c->bufs[--c->nbufs];
			return;
		}
}

/* Unified memory: a copy is a memcpy, once the GPU is done with both. */
static int metal_copy(rt_ctx *c, void *dst, const void *src, size_t bytes)
{
	int rc = drain(c);
	if (rc == RT_OK && bytes)
		memcpy(dst, src, bytes);
	return rc;
}

static int metal_synchronize(rt_ctx *c)
{
	return drain(c);
}

static int metal_mem_info(rt_ctx *c, uint64_t *total, uint64_t *free_bytes)
{
	(void)c;
	uint64_t used = allocated();
	*total = working_set();
	*free_bytes = *total > used ? *total - used : 0;
	return RT_OK;
}

/* ---- GEMM ---- */

/* An MPSMatrix of rows x cols (row-major, ld elements a row) at byte offset of buf. */
static id matrix(id buf, size_t offset, int rows, int cols, int ld, unsigned type, size_t esize)
{
	id desc = MSG(id(*)(id, SEL, unsigned long, unsigned long, unsigned long, unsigned))(
	    CLS(MPSMatrixDescriptor), S("matrixDescriptorWithRows:columns:rowBytes:dataType:"),
	    (unsigned long)rows, (unsigned long)cols, (unsigned long)ld * esize, type);
	id m = send(CLS(MPSMatrix), "alloc");
	return MSG(id(*)(id, SEL, id, unsigned long, id))(m, S("initWithBuffer:offset:descriptor:"),
	                                                  buf, offset, desc);
}

/* One GEMM's operands as MTLBuffers and offsets (fp16: half copies of them). */
typedef struct operand {
	id buf;
	size_t offset;
	id owned; /* a half copy made here, released after the GEMM */
} operand;

/* rows x cols floats at p (ld a row) as halves in a new shared buffer. */
static int half_copy(const float *p, int rows, int cols, int ld, operand *o)
{
	size_t n = rt_gemm_span(rows, cols, ld, 0, 1);
	o->owned = MSG(id(*)(id, SEL, unsigned long, unsigned long))(
	    rt.device, S("newBufferWithLength:options:"), n * sizeof(_Float16), STORAGE_SHARED);
	if (!o->owned)
		return RT_ENOMEM;
	_Float16 *h = MSG(void *(*)(id, SEL))(o->owned, S("contents"));
	for (size_t i = 0; i < n; i++)
		h[i] = (_Float16)p[i];
	o->buf = o->owned;
	o->offset = 0;
	return RT_OK;
}

static int operand_of(rt_ctx *c, const void *p, int half, int rows, int cols, int ld, operand *o)
{
	memset(o, 0, sizeof *o);
	const buffer *b = find(c, p, &o->offset);
	if (!b)
		return rt_abi_fail(c->err, sizeof c->err, RT_EINVAL,
		                   "a GEMM operand not from alloc()");
	if (half)
		return half_copy(p, rows, cols, ld, o);
	o->buf = b->mtl;
	return RT_OK;
}

/* C (rows x cols, ld) back from its half copy. */
static void from_half(const operand *o, float *c, int rows, int cols, int ld)
{
	const _Float16 *h = MSG(void *(*)(id, SEL))(o->owned, S("contents"));
	for (size_t i = 0; i < rt_gemm_span(rows, cols, ld, 0, 1); i++)
		c[i] = (float)h[i];
}

/* Encodes one GEMM into cb: C = alpha op(A) op(B) + beta C, row-major like cblas. */
static void encode(id cb, const operand *a, const operand *b, const operand *cm, int transa,
                   int transb, int m, int n, int k, double alpha, double beta, int lda, int ldb,
                   int ldc, unsigned type, size_t esize)
{
	id A = matrix(a->buf, a->offset, transa ? k : m, transa ? m : k, lda, type, esize);
	id B = matrix(b->buf, b->offset, transb ? n : k, transb ? k : n, ldb, type, esize);
	id C = matrix(cm->buf, cm->offset, m, n, ldc, type, esize);
	id mm = send(CLS(MPSMatrixMultiplication), "alloc");
	mm = MSG(id(*)(id, SEL, id, bool, bool, unsigned long, unsigned long, unsigned long, double,
	               double))(mm,
	                        S("initWithDevice:transposeLeft:transposeRight:resultRows:"
	                          "resultColumns:interiorColumns:alpha:beta:"),
	                        rt.device, transa != 0, transb != 0, (unsigned long)m,
	                        (unsigned long)n, (unsigned long)k, alpha, beta);
	MSG(void (*)(id, SEL, id, id, id, id))
	(mm, S("encodeToCommandBuffer:leftMatrix:rightMatrix:resultMatrix:"), cb, A, B, C);
	release(mm);
	release(A);
	release(B);
	release(C);
}

/*
 * The ABI's checks (host_abi.h), then what Metal cannot do: fp64, tf32,
 * and bf16 where this context has no k_gemm_bf16 (the reason appended).
 */
static int check_gemm(rt_ctx *c, const rt_gemm_args *g)
{
	unsigned offered = RT_PREC_BIT(RT_FP32) | RT_PREC_BIT(RT_FP16);
	if (c->pipes[MK_GEMM_BF16])
		offered |= RT_PREC_BIT(RT_BF16);
	int rc = rt_gemm_check(g, offered, "metal", 0, c->err, sizeof c->err);
	if (rc == RT_EUNAVAIL && g->prec == RT_BF16 &&
	    !(offered_precisions() & RT_PREC_BIT(RT_BF16))) {
		size_t used = strlen(c->err);
		snprintf(c->err + used, sizeof c->err - used, " (%s)", rt.bf16_why);
	}
	return rc;
}

static int run_plan(rt_ctx *c, const mtl_plan *p);

/*
 * count bf16 GEMMs, one k_gemm_bf16 launch each, encoded in call order into
 * the open command buffer like the kernels; every operand is found first,
 * so that a bad one leaves no GEMM of the batch done.
 */
static int gemm_bf16(rt_ctx *c, int transa, int transb, int m, int n, int k, double alpha,
                     const float *a, int lda, long sa, const float *b, int ldb, long sb,
                     double beta, float *cc, int ldc, long sc, int count)
{
	size_t off;
	for (int i = 0; i < count; i++)
		if (!find(c, a + i * sa, &off) || !find(c, b + i * sb, &off) ||
		    !find(c, cc + i * sc, &off))
			return rt_abi_fail(c->err, sizeof c->err, RT_EINVAL,
			                   "a GEMM operand not from alloc()");
	int rc = RT_OK;
	for (int i = 0; rc == RT_OK && i < count; i++) {
		mtl_plan plan;
		mtl_plan_gemm_bf16(&plan, transa, transb, m, n, k, alpha, a + i * sa, lda, b + i * sb,
		                   ldb, beta, cc + i * sc, ldc);
		rc = run_plan(c, &plan);
	}
	return rc;
}

/*
 * count GEMMs of one shape, encoded after the kernels before them into the
 * open command buffer, which is committed without waiting (fp32); fp16
 * converts the operands to halves, waits, and converts C back; bf16 runs
 * gemm_bf16. Every
 * operand is found before anything is encoded: a bad one leaves no GEMM
 * of the batch done.
 */
static int gemm_many(rt_ctx *c, rt_precision prec, int transa, int transb, int m, int n, int k,
                     double alpha, const float *a, int lda, long sa, const float *b, int ldb,
                     long sb, double beta, float *cc, int ldc, long sc, int count)
{
	if (prec == RT_BF16)
		return gemm_bf16(c, transa, transb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, cc,
		                 ldc, sc, count);
	int half = prec == RT_FP16, rc = half ? drain(c) : RT_OK;
	unsigned type = half ? MPS_FLOAT16 : MPS_FLOAT32;
	size_t esize = half ? sizeof(_Float16) : sizeof(float);
	void *pool = objc_autoreleasePoolPush();
	operand *ops = rc ? NULL : calloc((size_t)count * 3, sizeof *ops);
	if (!rc && !ops)
		rc = RT_ENOMEM;
	for (int i = 0; rc == RT_OK && i < count; i++) {
		operand *o = &ops[3 * i];
		rc = operand_of(c, a + i * sa, half, transa ? k : m, transa ? m : k, lda, &o[0]);
		if (!rc)
			rc = operand_of(c, b + i * sb, half, transb ? n : k, transb ? k : n, ldb,
			                &o[1]);
		if (!rc)
			rc = operand_of(c, cc + i * sc, half, m, n, ldc, &o[2]);
	}
	end_encoder(c);
	id cb = rc ? NULL : open_cb(c);
	if (!rc && !cb)
		rc = rt_abi_fail(c->err, sizeof c->err, RT_ERUNTIME, "commandBuffer failed");
	for (int i = 0; rc == RT_OK && i < count; i++)
		encode(cb, &ops[3 * i], &ops[3 * i + 1], &ops[3 * i + 2], transa, transb, m, n, k,
		       alpha, beta, lda, ldb, ldc, type, esize);
	if (rc == RT_OK)
		rc = half ? drain(c) : commit(c);
	if (rc == RT_OK && half)
		for (int i = 0; i < count; i++)
			from_half(&ops[3 * i + 2], cc + i * sc, m, n, ldc);
	for (int i = 0; ops && i < 3 * count; i++)
		release(ops[i].owned);
	free(ops);
	objc_autoreleasePoolPop(pool);
	return rc;
}

static int metal_gemm(rt_ctx *c, rt_dtype t, rt_precision prec, int transa, int transb, int m,
                      int n, int k, double alpha, const void *a, int lda, const void *b, int ldb,
                      double beta, void *cc, int ldc)
{
	rt_gemm_args g = {t, prec, transa, transb, m,   n, k, alpha, beta, a,
	                  b, cc,   lda,    ldb,    ldc, 0, 0, 0,     1, 1, 0, 0, 0};
	int rc = check_gemm(c, &g);
	if (rc || m == 0 || n == 0)
		return rc;
	return gemm_many(c, prec, transa, transb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, cc,
	                 ldc, 0, 1);
}

static int metal_gemm_batched(rt_ctx *c, rt_dtype t, rt_precision prec, int transa, int transb,
                              int m, int n, int k, double alpha, const void *a, int lda, long sa,
                              const void *b, int ldb, long sb, double beta, void *cc, int ldc,
                              long sc, int count)
{
	rt_gemm_args g = {t, prec, transa, transb, m,   n,  k,  alpha, beta, a,
	                  b, cc,   lda,    ldb,    ldc, sa, sb, sc,    count, 1, 0, 0, 0};
	int rc = check_gemm(c, &g);
	if (rc || m == 0 || n == 0 || count == 0)
		return rc;
	return gemm_many(c, prec, transa, transb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, cc,
	                 ldc, sc, count);
}

/* ---- the elementwise kernels: fp32 on the GPU (plan.c, kernels.metal), fp64 on the CPU ---- */

/* MTLSize: the extent of a grid or a threadgroup. */
typedef struct mtl_size {
	unsigned long width, height, depth;
} mtl_size;

/* The MTLBuffers and offsets of a launch's buffers; RT_EINVAL for one not from alloc(). */
static int bind(rt_ctx *c, const mtl_launch *l, id *mtl, size_t *off)
{
	for (int i = 0; i < mtl_kernels[l->k].nbuf; i++) {
		const buffer *b = find(c, l->buf[i], &off[i]);
		if (!b)
			return rt_abi_fail(c->err, sizeof c->err, RT_EINVAL,
			                   "%s: buffer %d is not from alloc()",
			                   mtl_kernels[l->k].name, i + 1);
		mtl[i] = b->mtl;
	}
	return RT_OK;
}

/* Encodes one launch into the open compute encoder; commits every OPS_PER_COMMIT. */
static int dispatch(rt_ctx *c, const mtl_launch *l, const id *mtl, const size_t *off)
{
	if (!c->enc && open_cb(c))
		c->enc = retain(send(c->cb, "computeCommandEncoder"));
	if (!c->enc)
		return rt_abi_fail(c->err, sizeof c->err, RT_ERUNTIME,
		                   "%s: no compute command encoder", mtl_kernels[l->k].name);
	MSG(void (*)(id, SEL, id))(c->enc, S("setComputePipelineState:"), c->pipes[l->k]);
	MSG(void (*)(id, SEL, const void *, unsigned long, unsigned long))
	(c->enc, S("setBytes:length:atIndex:"), &l->args, sizeof l->args, 0);
	for (int i = 0; i < mtl_kernels[l->k].nbuf; i++)
		MSG(void (*)(id, SEL, id, unsigned long, unsigned long))
		(c->enc, S("setBuffer:offset:atIndex:"), mtl[i], off[i], (unsigned long)i + 1);
	if (mtl_kernels[l->k].tg_bytes) /* a multiple of 16 bytes, as Metal wants */
		MSG(void (*)(id, SEL, unsigned long, unsigned long))
		(c->enc, S("setThreadgroupMemoryLength:atIndex:"),
		 (unsigned long)mtl_kernels[l->k].tg_bytes * MTL_GROUP, 0);
	MSG(void (*)(id, SEL, mtl_size, mtl_size))
	(c->enc, S("dispatchThreadgroups:threadsPerThreadgroup:"), (mtl_size){l->groups, 1, 1},
	 (mtl_size){MTL_GROUP, 1, 1});
	return ++c->nops >= OPS_PER_COMMIT ? commit(c) : RT_OK;
}

/* Every launch of p, once all their buffers are found (a bad one dispatches nothing). */
static int run_plan(rt_ctx *c, const mtl_plan *p)
{
	id mtl[MTL_MAX_LAUNCHES][MTL_MAX_BUFS];
	size_t off[MTL_MAX_LAUNCHES][MTL_MAX_BUFS];
	int rc = RT_OK;
	for (int i = 0; rc == RT_OK && i < p->n; i++)
		rc = bind(c, &p->l[i], mtl[i], off[i]);
	void *pool = objc_autoreleasePoolPush();
	for (int i = 0; rc == RT_OK && i < p->n; i++)
		rc = dispatch(c, &p->l[i], mtl[i], off[i]);
	objc_autoreleasePoolPop(pool);
	return rc;
}

/*
 * metal_NAME: fp32 through NAME's plan on the GPU, called with plan_args;
 * fp64 (and a dtype the CPU refuses) through the CPU reference once the
 * GPU's work is done. The variable arguments are the ABI call's after the
 * context and dtype.
 */
#define ELEMENTWISE_PLAN(name, params, plan_args, ...)                                             \
	static int metal_##name params                                                             \
	{                                                                                          \
		mtl_plan plan;                                                                     \
		int rc;                                                                            \
		if (t != RT_F32)                                                                   \
			return (rc = drain(c)) ? rc : rt.cpu->name(c->cpu, t, __VA_ARGS__);       \
		rc = mtl_plan_##name plan_args;                                                    \
		return rc ? rc : run_plan(c, &plan);                                               \
	}
/* The plan takes the ABI call's arguments. */
#define ELEMENTWISE(name, params, ...) ELEMENTWISE_PLAN(name, params, (&plan, __VA_ARGS__), __VA_ARGS__)

ELEMENTWISE(fill, (rt_ctx * c, rt_dtype t, void *x, size_t n, double v), x, n, v)
ELEMENTWISE(axpby, (rt_ctx * c, rt_dtype t, size_t n, double a, const void *x, double b, void *y),
            n, a, x, b, y)
ELEMENTWISE(add_bias, (rt_ctx * c, rt_dtype t, int r, int k, const void *bias, void *y), r, k, bias,
            y)
ELEMENTWISE(sum_rows, (rt_ctx * c, rt_dtype t, int r, int k, const void *dy, void *db), r, k, dy,
            db)
ELEMENTWISE(gelu, (rt_ctx * c, rt_dtype t, size_t n, const void *x, void *y), n, x, y)
ELEMENTWISE(gelu_backward,
            (rt_ctx * c, rt_dtype t, size_t n, const void *x, const void *dy, void *dx), n, x, dy,
            dx)
ELEMENTWISE(tanh_fwd, (rt_ctx * c, rt_dtype t, size_t n, const void *x, void *y), n, x, y)
ELEMENTWISE(tanh_backward,
            (rt_ctx * c, rt_dtype t, size_t n, const void *y, const void *dy, void *dx), n, y, dy,
            dx)
ELEMENTWISE(softmax,
            (rt_ctx * c, rt_dtype t, int r, int k, double scale, int causal, const void *x,
             void *y),
            r, k, scale, causal, x, y)
ELEMENTWISE(softmax_backward,
            (rt_ctx * c, rt_dtype t, int r, int k, double scale, const void *y, const void *dy,
             void *dx),
            r, k, scale, y, dy, dx)
ELEMENTWISE(layernorm,
            (rt_ctx * c, rt_dtype t, int r, int k, const void *x, const void *g, const void *b,
             void *y, void *mean, void *rstd),
            r, k, x, g, b, y, mean, rstd)
ELEMENTWISE(layernorm_backward,
            (rt_ctx * c, rt_dtype t, int r, int k, const void *x, const void *g, const void *mean,
             const void *rstd, const void *dy, void *dx, void *dg, void *db),
            r, k, x, g, mean, rstd, dy, dx, dg, db)
/* and the context's buffer of first-level sums */
ELEMENTWISE_PLAN(mse_loss,
                 (rt_ctx * c, rt_dtype t, size_t n, const void *pred, const void *target,
                  void *loss, void *dp),
                 (&plan, n, pred, target, loss, dp, c->partials), n, pred, target, loss, dp)
ELEMENTWISE(adam,
            (rt_ctx * c, rt_dtype t, size_t n, void *w, const void *g, void *m, void *v, double lr,
             double b1, double b2, double eps, int step),
            n, w, g, m, v, lr, b1, b2, eps, step)

static const char *metal_last_error(rt_ctx *c)
{
	return c ? c->err : rt.why;
}

/* Waits for what is in flight; the GPU seconds of the command buffers since the last call. */
static int metal_device_time(rt_ctx *c, int on, double *busy_s)
{
	int rc = drain(c);
	*busy_s = c->busy_s;
	c->busy_s = 0;
	c->timing = on;
	return rc;
}

/*
 * The GPU's busy share from IOReport (its active residency) since the last
 * call: what a process reads without root, beside the command buffers'
 * own GPU times (device_time).
 */
static int metal_utilization(rt_ctx *c, double *busy)
{
	return rt_devmon_utilization(&c->mon, &c->mon_failed, &rt_devmon_ioreport, NULL, busy,
	                             c->err, sizeof c->err);
}

static const rt_backend_ops metal_ops = {
    .abi = RT_BACKEND_ABI,
    .name = "metal",
    .visible_devices = NULL, /* one GPU, no variable to hide it */
    .host = 0,
    .framework_device = "mps", /* PyTorch's torch.device('mps') */
    .init = metal_init,
    .device_info = metal_device_info,
    .open = metal_open,
    .close = metal_close,
    .alloc = metal_alloc,
    .free = metal_free,
    .upload = metal_copy,
    .download = metal_copy,
    .synchronize = metal_synchronize,
    .mem_info = metal_mem_info,
    .gemm = metal_gemm,
    .gemm_batched = metal_gemm_batched,
    .fill = metal_fill,
    .axpby = metal_axpby,
    .add_bias = metal_add_bias,
    .sum_rows = metal_sum_rows,
    .gelu = metal_gelu,
    .gelu_backward = metal_gelu_backward,
    .tanh_fwd = metal_tanh_fwd,
    .tanh_backward = metal_tanh_backward,
    .softmax = metal_softmax,
    .softmax_backward = metal_softmax_backward,
    .layernorm = metal_layernorm,
    .layernorm_backward = metal_layernorm_backward,
    .mse_loss = metal_mse_loss,
    .adam = metal_adam,
    .utilization = metal_utilization,
    .last_error = metal_last_error,
    .gemm_impl = NULL,
    .device_time = metal_device_time,
};

__attribute__((visibility("default"))) const rt_backend_ops *rigtune_backend(void)
{
	return &metal_ops;
}
#endif
