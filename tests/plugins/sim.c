/*
 * librigtune_sim.so: a simulated accelerator, so that tests can have a GPU.
 * Built only among the test plugins (build/tests/plugins), it is used only
 * where RIGTUNE_BACKEND_PATH names that folder: never by `make run` or an
 * installed rigtune.
 *
 * It computes nothing: every operation costs what a timing model of a
 * device says, in wall-clock time, so that the harness measures it as it
 * measures a GPU. It has a device only when RIGTUNE_SIM_PROFILE names its
 * profile (h100, a100, rx7900gre, igpu; RIGTUNE_SIM_MEM_GIB overrides the
 * memory), so that other tests sharing the plugin folder never see it. The
 * model, per profile:
 *  - the host pays launch_s to enqueue a kernel (a GEMM batch, two-level
 *    ones too, is one); the device runs one kernel
 *    at a time, each for kernel_s + max(flops / peak[precision], bytes /
 *    mem_bw): short kernels leave it idle between launches (launch-bound);
 *  - a copy between host and device waits for the device, then moves its
 *    bytes at link_bw after sync_s; synchronize() waits for the device and
 *    pays sync_s;
 *  - alloc() fails past the memory (RT_ENOMEM); pointers are reserved,
 *    inaccessible address space, so a host that touches one crashes;
 *  - device_time() is the exact busy time of the kernels and copies;
 *    phase_mark() charges the device time between marks, as events do;
 *  - upload_async() moves its bytes at link_bw beside the kernels, the
 *    host not waiting; synchronize() and the closing mark wait for it;
 *    utilization() is a monitor that, as NVML does, misses short kernels:
 *    only those of at least seen_s count.
 * The CPU side a workload runs around the device (data preparation,
 * environments) is real.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../../workloads/backend.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define ALIGN 256
#define SLEEP_ABOVE_S 0.0005 /* waits longer than this sleep (then spin the rest) */
#define QUEUE_S 0.25         /* the host blocks when the device is this far behind */

typedef struct sim_profile {
	const char *key;
	const char *name;
	double peak[RT_NPRECISION]; /* FLOP/s; 0: the precision is not offered */
	double mem_bw, link_bw;     /* bytes/s: device memory, host <-> device */
	double launch_s;            /* host time to enqueue one kernel */
	double kernel_s;            /* the shortest kernel */
	double sync_s;              /* a synchronize's or copy's round trip */
	double seen_s;              /* the monitor misses shorter kernels */
	double mem_gib;
	int units, unified;
	const char *monitor;
} sim_profile;

/*
 * The H100's GEMM rates are what cuBLAS reaches on 4096^3 GEMMs of an H100
 * SXM as measured for issue 45 (fp32 about 51 TFLOP/s, tf32 330, bf16 470,
 * fp16 460: 0.5-0.75 of the data sheet's dense peaks, 67/495/989/989), so
 * that the precisions' ratios are a real device's (fp64: the data sheet's
 * 67); the other figures after the vendors' data sheets (dense tensor rates),
 * the iGPU after seed 002.
 */
static const sim_profile profiles[] = {
	{"h100", "simulated NVIDIA H100 80GB HBM3",
	 {[RT_FP64] = 67e12, [RT_FP32] = 51e12, [RT_TF32] = 330e12, [RT_BF16] = 470e12,
	  [RT_FP16] = 460e12},
	 3.35e12, 50e9, 4e-6, 2e-6, 10e-6, 100e-6, 80, 132, 0, "nvml"},
	{"a100", "simulated NVIDIA A100-SXM4-80GB",
	 {[RT_FP64] = 19.5e12, [RT_FP32] = 19.5e12, [RT_TF32] = 156e12, [RT_BF16] = 312e12,
	  [RT_FP16] = 312e12},
	 2.0e12, 25e9, 5e-6, 2e-6, 10e-6, 100e-6, 80, 108, 0, "nvml"},
	{"rx7900gre", "simulated AMD Radeon RX 7900 GRE",
	 {[RT_FP64] = 1.4e12, [RT_FP32] = 46e12, [RT_BF16] = 92e12, [RT_FP16] = 92e12},
	 576e9, 25e9, 8e-6, 3e-6, 15e-6, 100e-6, 16, 80, 0, "rocm_smi"},
	/*
	 * every kernel and synchronize pays a driver round trip (seed 002: 16 ms
	 * for a GEMM of n = 1000): it loses to a CPU until GEMMs are large
	 */
	{"igpu", "simulated integrated GPU (unified memory)",
	 {[RT_FP32] = 1.4e12, [RT_BF16] = 1.4e12, [RT_FP16] = 2.8e12},
	 100e9, 50e9, 20e-6, 5e-3, 10e-3, 100e-6, 16, 40, 1, ""},
};

/* The profile RIGTUNE_SIM_PROFILE names; NULL when it names none (or is unset). */
static const sim_profile *profile(void)
{
	const char *key = getenv("RIGTUNE_SIM_PROFILE");
	for (size_t i = 0; key && i < sizeof profiles / sizeof profiles[0]; i++)
		if (!strcmp(profiles[i].key, key))
			return &profiles[i];
	return NULL;
}

static uint64_t capacity(const sim_profile *p)
{
	const char *s = getenv("RIGTUNE_SIM_MEM_GIB");
	double gib = s && *s ? atof(s) : p->mem_gib;
	return (uint64_t)(gib * GIB);
}

typedef struct region {
	char *at;
	size_t bytes;
} region;

struct rt_ctx {
	const sim_profile *p;
	char *base;          /* the reserved address space */
	uint64_t cap, used, top;
	region *live;
	int nlive, maxlive;
	double free_at;      /* when the device finishes what was enqueued */
	int timing;
	double busy_s;       /* device time of what was enqueued since timing began */
	double seen_s;       /* what the monitor saw since its window began */
	double window_at;    /* the monitor's window start */
	double copy_free_at; /* when the copies upload_async() enqueued are done */
	int mark_phase;      /* the phase the last mark opened; -1: none open */
	double mark_at;      /* when the device reached that mark */
	double mark_s[RT_PHASE_MARKS_MAX]; /* device seconds per phase since the last end */
	char error[128];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits until time t: sleeps most of a long wait, spins the end. */
static void wait_until(double t)
{
	double left = t - now_s();
	if (left > SLEEP_ABOVE_S) {
		double s = left - SLEEP_ABOVE_S / 2;
		struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
		nanosleep(&ts, NULL);
	}
	while (now_s() < t)
		;
}

/* The device runs `seconds` of work after what is queued; the host pays host_s. */
static void enqueue(rt_ctx *c, double seconds, double host_s)
{
	double t = now_s();
	if (c->free_at - t > QUEUE_S) /* the launch queue is full */
		wait_until(c->free_at - QUEUE_S);
	t = now_s();
	double start = c->free_at > t ? c->free_at : t;
	c->free_at = start + seconds;
	c->busy_s += seconds;
	if (seconds >= c->p->seen_s)
		c->seen_s += seconds;
	wait_until(t + host_s);
}

static void kernel(rt_ctx *c, double flops, rt_precision prec, double bytes)
{
	double peak = c->p->peak[prec] > 0 ? c->p->peak[prec] : c->p->peak[RT_FP32];
	double compute = flops / peak, memory = bytes / c->p->mem_bw;
	enqueue(c, c->p->kernel_s + (compute > memory ? compute : memory), c->p->launch_s);
}

/* A kernel of flops_per elementwise work over n elements reading and writing `arrays` of them. */
static int elementwise(rt_ctx *c, rt_dtype t, size_t n, double flops_per, int arrays)
{
	if (!c)
		return RT_EINVAL;
	kernel(c, flops_per * (double)n, t == RT_F64 ? RT_FP64 : RT_FP32,
	       (double)arrays * (double)n * (double)rt_dtype_size(t));
	return 0;
}

/* A copy: waits for the device, then moves bytes over the link. */
static void copy(rt_ctx *c, size_t bytes)
{
	wait_until(c->free_at);
	double seconds = c->p->sync_s + (double)bytes / c->p->link_bw;
	enqueue(c, seconds, seconds);
}

/* ---- the table ---- */

static int sim_init(char *err, size_t errlen)
{
	if (!profile()) { /* used only when asked for: other tests share the plugin folder */
		const char *key = getenv("RIGTUNE_SIM_PROFILE");
		if (err && errlen)
			snprintf(err, errlen, "RIGTUNE_SIM_PROFILE %s%s%s: h100, a100, rx7900gre or igpu",
				 key ? "names no profile ('" : "is not set", key ? key : "",
				 key ? "')" : "");
		return RT_EUNAVAIL;
	}
	return 1;
}

static int sim_device_info(int dev, rt_device_info *info)
{
	const sim_profile *p = profile();
	if (dev != 0 || !p)
		return RT_EINVAL;
	memset(info, 0, sizeof *info);
	snprintf(info->name, sizeof info->name, "%s", p->name);
	snprintf(info->driver, sizeof info->driver, "rigtune sim");
	info->mem_total = info->mem_free = capacity(p);
	info->compute_units = p->units;
	for (int q = 0; q < RT_NPRECISION; q++)
		if (p->peak[q] > 0)
			info->precisions |= RT_PREC_BIT(q);
	info->unified_memory = p->unified;
	snprintf(info->gemm_impl, sizeof info->gemm_impl, "sim timing model (%s)", p->key);
	snprintf(info->monitor, sizeof info->monitor, "%s", p->monitor);
	return 0;
}

static int sim_open(int dev, int threads, rt_ctx **ctx, char *err, size_t errlen)
{
	(void)threads;
	const sim_profile *p = profile();
	if (dev != 0 || !p) {
		snprintf(err, errlen, "no sim device %d", dev);
		return RT_EUNAVAIL;
	}
	rt_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return RT_ENOMEM;
	c->p = p;
	c->cap = capacity(p);
	c->base = mmap(NULL, c->cap + ALIGN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (c->base == MAP_FAILED) {
		free(c);
		snprintf(err, errlen, "cannot reserve the sim device's address space");
		return RT_ENOMEM;
	}
	c->window_at = now_s();
	c->mark_phase = RT_PHASE_END;
	*ctx = c;
	return 0;
}

static void sim_close(rt_ctx *c)
{
	if (!c)
		return;
	munmap(c->base, c->cap + ALIGN);
	free(c->live);
	free(c);
}

/* Bump allocation in the reserved space; what is freed returns to the count, not the space. */
static int sim_alloc(rt_ctx *c, size_t bytes, void **ptr)
{
	size_t size = (bytes + ALIGN - 1) / ALIGN * ALIGN;
	if (c->used + size > c->cap || c->top + size > c->cap) {
		snprintf(c->error, sizeof c->error, "out of device memory: %zu bytes asked", bytes);
		return RT_ENOMEM;
	}
	if (c->nlive == c->maxlive) {
		int n = c->maxlive ? 2 * c->maxlive : 64;
		region *r = realloc(c->live, (size_t)n * sizeof *r);
		if (!r)
			return RT_ENOMEM;
		c->live = r;
		c->maxlive = n;
	}
	*ptr = c->base + c->top;
	c->live[c->nlive++] = (region){c->base + c->top, size};
	c->top += size;
	c->used += size;
	return 0;
}

static void sim_free(rt_ctx *c, void *ptr)
{
	for (int i = 0; i < c->nlive; i++)
		if (c->live[i].at == ptr) {
			c->used -= c->live[i].bytes;
			c->live[i] = c->live[--c->nlive];
			return;
		}
}

static int sim_upload(rt_ctx *c, void *dst, const void *src, size_t bytes)
{
	(void)dst, (void)src;
	copy(c, bytes);
	return 0;
}

/* The host gets zeros: nothing was computed. */
static int sim_download(rt_ctx *c, void *dst, const void *src, size_t bytes)
{
	(void)src;
	copy(c, bytes);
	memset(dst, 0, bytes);
	return 0;
}

static int sim_synchronize(rt_ctx *c)
{
	if (!c)
		return RT_EINVAL;
	wait_until(c->free_at > c->copy_free_at ? c->free_at : c->copy_free_at);
	wait_until(now_s() + c->p->sync_s);
	return 0;
}

/* Pinned memory is host memory here: the device reads none of it. */
static int sim_host_alloc(rt_ctx *c, size_t bytes, void **ptr)
{
	(void)c;
	*ptr = malloc(bytes ? bytes : 1);
	return *ptr ? 0 : RT_ENOMEM;
}

static void sim_host_free(rt_ctx *c, void *ptr)
{
	(void)c;
	free(ptr);
}

/* A copy on the link beside the kernels: the host does not wait, the device keeps computing. */
static int sim_upload_async(rt_ctx *c, void *dst, const void *src, size_t bytes)
{
	(void)dst, (void)src;
	double t = now_s(), start = c->copy_free_at > t ? c->copy_free_at : t;
	c->copy_free_at = start + c->p->sync_s + (double)bytes / c->p->link_bw;
	return 0;
}

static int sim_mem_info(rt_ctx *c, uint64_t *total, uint64_t *free_bytes)
{
	*total = c->cap;
	*free_bytes = c->cap - c->used;
	return 0;
}

static int sim_gemm(rt_ctx *c, rt_dtype t, rt_precision p, int ta, int tb, int m, int n, int k,
		    double al, const void *a, int lda, const void *b, int ldb, double be, void *cc,
		    int ldc)
{
	(void)ta, (void)tb, (void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be, (void)cc;
	(void)ldc;
	if (c->p->peak[p] <= 0 || (p == RT_FP64) != (t == RT_F64))
		return RT_EUNAVAIL;
	double mn = (double)m * n, bytes = ((double)m * k + (double)k * n + 2 * mn) * rt_dtype_size(t);
	kernel(c, 2 * mn * k, p, bytes);
	return 0;
}

static int sim_gemm_batched(rt_ctx *c, rt_dtype t, rt_precision p, int ta, int tb, int m, int n,
			    int k, double al, const void *a, int lda, long sa, const void *b,
			    int ldb, long sb, double be, void *cc, int ldc, long sc, int count)
{
	(void)ta, (void)tb, (void)al, (void)a, (void)lda, (void)sa, (void)b, (void)ldb, (void)sb;
	(void)be, (void)cc, (void)ldc, (void)sc;
	if (c->p->peak[p] <= 0 || (p == RT_FP64) != (t == RT_F64))
		return RT_EUNAVAIL;
	double mn = (double)m * n;
	double bytes = count * ((double)m * k + (double)k * n + 2 * mn) * rt_dtype_size(t);
	kernel(c, 2 * mn * k * count, p, bytes);
	return 0;
}

/* A two-level batch: one launch, as the GPU plugins make one batched call. */
static int sim_gemm_batched2(rt_ctx *c, rt_dtype t, rt_precision p, int ta, int tb, int m, int n,
			     int k, double al, const void *a, int lda, const void *b, int ldb,
			     double be, void *cc, int ldc, const rt_batch2 *bt)
{
	return sim_gemm_batched(c, t, p, ta, tb, m, n, k, al, a, lda, 0, b, ldb, 0, be, cc, ldc, 0,
				bt->outer * bt->inner);
}

static int sim_fill(rt_ctx *c, rt_dtype t, void *x, size_t n, double v)
{
	(void)x, (void)v;
	return elementwise(c, t, n, 0, 1);
}

static int sim_axpby(rt_ctx *c, rt_dtype t, size_t n, double a, const void *x, double b, void *y)
{
	(void)a, (void)x, (void)b, (void)y;
	return elementwise(c, t, n, 3, 3);
}

static int sim_rows(rt_ctx *c, rt_dtype t, int rows, int cols, const void *in, void *out)
{
	(void)in, (void)out;
	return elementwise(c, t, (size_t)rows * (size_t)cols, 1, 2);
}

/* The fused bias and GELU: one pass reading u, writing u and a. */
static int sim_bias_gelu(rt_ctx *c, rt_dtype t, int rows, int cols, const void *bias, void *u,
			 void *a)
{
	(void)bias, (void)u, (void)a;
	return elementwise(c, t, (size_t)rows * (size_t)cols, 9, 3);
}

static int sim_unary(rt_ctx *c, rt_dtype t, size_t n, const void *x, void *y)
{
	(void)x, (void)y;
	return elementwise(c, t, n, 8, 2);
}

static int sim_binary(rt_ctx *c, rt_dtype t, size_t n, const void *x, const void *dy, void *dx)
{
	(void)x, (void)dy, (void)dx;
	return elementwise(c, t, n, 10, 3);
}

static int sim_softmax(rt_ctx *c, rt_dtype t, int rows, int cols, double scale, int blk,
		       const void *x, void *y)
{
	(void)scale, (void)blk, (void)x, (void)y;
	return elementwise(c, t, (size_t)rows * (size_t)cols, 5, 2);
}

static int sim_softmax_backward(rt_ctx *c, rt_dtype t, int rows, int cols, double scale,
				const void *y, const void *dy, void *dx)
{
	(void)scale, (void)y, (void)dy, (void)dx;
	return elementwise(c, t, (size_t)rows * (size_t)cols, 4, 3);
}

static int sim_layernorm(rt_ctx *c, rt_dtype t, int rows, int cols, const void *x,
			 const void *g, const void *b, void *y, void *mean, void *rstd)
{
	(void)x, (void)g, (void)b, (void)y, (void)mean, (void)rstd;
	return elementwise(c, t, (size_t)rows * (size_t)cols, 8, 2);
}

static int sim_layernorm_backward(rt_ctx *c, rt_dtype t, int rows, int cols, const void *x,
				  const void *g, const void *mean, const void *rstd,
				  const void *dy, void *dx, void *dg, void *db)
{
	(void)x, (void)g, (void)mean, (void)rstd, (void)dy, (void)dx, (void)dg, (void)db;
	return elementwise(c, t, (size_t)rows * (size_t)cols, 12, 3);
}

static int sim_mse_loss(rt_ctx *c, rt_dtype t, size_t n, const void *p, const void *target,
			void *loss, void *dp)
{
	(void)p, (void)target, (void)loss, (void)dp;
	return elementwise(c, t, n, 4, 3);
}

static int sim_adam(rt_ctx *c, rt_dtype t, size_t n, void *w, const void *g, void *m, void *v,
		    double lr, double b1, double b2, double eps, int step)
{
	(void)w, (void)g, (void)m, (void)v, (void)lr, (void)b1, (void)b2, (void)eps, (void)step;
	return elementwise(c, t, n, 12, 7);
}

/* The monitor's window: what it saw of the wall time since the previous call. */
static int sim_utilization(rt_ctx *c, double *busy)
{
	double t = now_s(), span = t - c->window_at;
	*busy = span > 0 ? fmin(1.0, c->seen_s / span) : 0;
	c->seen_s = 0;
	c->window_at = t;
	return c->p->monitor[0] ? 0 : RT_EUNAVAIL;
}

static int sim_device_time(rt_ctx *c, int on, double *busy_s)
{
	wait_until(c->free_at);
	*busy_s = c->timing ? c->busy_s : 0;
	c->busy_s = 0;
	c->timing = on;
	return 0;
}

/*
 * A mark is reached when the device has finished what was enqueued before
 * it (at once when it is idle); the time to the next mark is its phase's.
 */
static int sim_phase_mark(rt_ctx *c, int ph, double *seconds, int n)
{
	if (ph != RT_PHASE_END && (ph < 0 || ph >= RT_PHASE_MARKS_MAX))
		return RT_EINVAL;
	double t = now_s(), at = c->free_at > t ? c->free_at : t;
	if (c->mark_phase >= 0)
		c->mark_s[c->mark_phase] += at - c->mark_at;
	c->mark_phase = ph;
	c->mark_at = at;
	if (ph != RT_PHASE_END)
		return 0;
	wait_until(c->free_at > c->copy_free_at ? c->free_at : c->copy_free_at);
	for (int i = 0; i < RT_PHASE_MARKS_MAX; i++) {
		if (i < n)
			seconds[i] += c->mark_s[i];
		c->mark_s[i] = 0;
	}
	return 0;
}

static const char *sim_last_error(rt_ctx *c)
{
	return c ? c->error : "";
}

static const rt_backend_ops sim_ops = {
	.abi = RT_BACKEND_ABI,
	.name = "sim",
	.framework_device = "cuda", /* it simulates NVIDIA and AMD devices */
	.init = sim_init,
	.device_info = sim_device_info,
	.open = sim_open,
	.close = sim_close,
	.alloc = sim_alloc,
	.free = sim_free,
	.upload = sim_upload,
	.download = sim_download,
	.synchronize = sim_synchronize,
	.mem_info = sim_mem_info,
	.gemm = sim_gemm,
	.gemm_batched = sim_gemm_batched,
	.gemm_batched2 = sim_gemm_batched2,
	.fill = sim_fill,
	.axpby = sim_axpby,
	.add_bias = sim_rows,
	.sum_rows = sim_rows,
	.gelu = sim_unary,
	.gelu_backward = sim_binary,
	.tanh_fwd = sim_unary,
	.tanh_backward = sim_binary,
	.softmax = sim_softmax,
	.softmax_backward = sim_softmax_backward,
	.layernorm = sim_layernorm,
	.layernorm_backward = sim_layernorm_backward,
	.mse_loss = sim_mse_loss,
	.adam = sim_adam,
	.utilization = sim_utilization,
	.last_error = sim_last_error,
	.device_time = sim_device_time,
	.phase_mark = sim_phase_mark,
	.bias_gelu = sim_bias_gelu,
	.host_alloc = sim_host_alloc,
	.host_free = sim_host_free,
	.upload_async = sim_upload_async,
};

const rt_backend_ops *rigtune_backend(void);

const rt_backend_ops *rigtune_backend(void)
{
	return &sim_ops;
}
