/*
 * librigtune_fake.so: a complete backend table for the loader tests. Memory
 * is host memory; the compute operations decline with RT_EUNAVAIL. init()
 * finds one device, or none when RIGTUNE_FAKE_DEVICES=0. With
 * RIGTUNE_FAKE_GFLOPS=R a GEMM takes the time its flops take at R GFLOP/s
 * (it sleeps): a device of a set speed, whatever else the machine runs
 * (tests/cli/test_fleet.sh makes one node's slower).
 * RIGTUNE_FAKE_FRAMEWORK_DEVICE names its framework device (else "cuda"),
 * RIGTUNE_FAKE_UNIFIED set says its memory is the host's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../workloads/backend.h"

/* RIGTUNE_FAKE_GFLOPS: the paced GEMM's speed; 0 when unset (GEMMs decline). */
static double paced_gflops(void)
{
	const char *s = getenv("RIGTUNE_FAKE_GFLOPS");
	return s && *s ? atof(s) : 0;
}

/* What GEMMs run on: "fake-blas 1.0", with its pace when it has one. */
static const char *fake_gemm_impl(rt_ctx *ctx, rt_precision p)
{
	static char impl[64];
	(void)ctx, (void)p;
	if (paced_gflops() > 0)
		snprintf(impl, sizeof impl, "fake-blas 1.0 at %g GFLOP/s", paced_gflops());
	else
		snprintf(impl, sizeof impl, "fake-blas 1.0");
	return impl;
}

struct rt_ctx {
	int dev;
};

static int fake_init(char *err, size_t errlen)
{
	const char *n = getenv("RIGTUNE_FAKE_DEVICES");
	if (n && strcmp(n, "0") == 0) {
		if (err && errlen)
			snprintf(err, errlen, "no fake device");
		return RT_EUNAVAIL;
	}
	return 1;
}

static int fake_device_info(int dev, rt_device_info *info)
{
	if (dev != 0)
		return RT_EINVAL;
	memset(info, 0, sizeof *info);
	snprintf(info->name, sizeof info->name, "fake device");
	info->mem_total = 1u << 20;
	info->mem_free = 1u << 20;
	info->compute_units = 1;
	info->precisions = RT_PREC_BIT(RT_FP32) | RT_PREC_BIT(RT_FP64);
	snprintf(info->gemm_impl, sizeof info->gemm_impl, "%s", fake_gemm_impl(NULL, RT_FP32));
	snprintf(info->monitor, sizeof info->monitor, "fakemon");
	info->unified_memory = getenv("RIGTUNE_FAKE_UNIFIED") != NULL;
	return 0;
}

static int fake_open(int dev, int threads, rt_ctx **ctx, char *err, size_t errlen)
{
	(void)threads;
	(void)err;
	(void)errlen;
	if (dev != 0)
		return RT_EINVAL;
	*ctx = calloc(1, sizeof **ctx);
	return *ctx ? 0 : RT_ENOMEM;
}

static void fake_close(rt_ctx *ctx) { free(ctx); }

static int fake_alloc(rt_ctx *ctx, size_t bytes, void **ptr)
{
	(void)ctx;
	*ptr = malloc(bytes ? bytes : 1);
	return *ptr ? 0 : RT_ENOMEM;
}

static void fake_free(rt_ctx *ctx, void *ptr)
{
	(void)ctx;
	free(ptr);
}

static int fake_copy(rt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
	(void)ctx;
	memcpy(dst, src, bytes);
	return 0;
}

static int fake_synchronize(rt_ctx *ctx) { return ctx ? 0 : RT_EINVAL; }

static int fake_mem_info(rt_ctx *ctx, uint64_t *total, uint64_t *free_bytes)
{
	(void)ctx;
	*total = *free_bytes = 1u << 20;
	return 0;
}

/* The compute operations decline (the loader tests never run them), but a paced GEMM. */
static int fake_gemm(rt_ctx *c, rt_dtype t, rt_precision p, int ta, int tb, int m, int n,
		     int k, double al, const void *a, int lda, const void *b, int ldb,
		     double be, void *cc, int ldc)
{
	(void)c, (void)t, (void)p, (void)ta, (void)tb;
	(void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be, (void)cc, (void)ldc;
	double rate = paced_gflops();
	if (rate <= 0)
		return RT_EUNAVAIL;
	double s = 2.0 * m * n * k / (rate * 1e9);
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts))
		;
	return 0;
}

static int fake_gemm_batched(rt_ctx *c, rt_dtype t, rt_precision p, int ta, int tb, int m,
			     int n, int k, double al, const void *a, int lda, long sa,
			     const void *b, int ldb, long sb, double be, void *cc, int ldc,
			     long sc, int count)
{
	(void)sa, (void)sb, (void)sc, (void)count;
	return fake_gemm(c, t, p, ta, tb, m, n, k, al, a, lda, b, ldb, be, cc, ldc);
}

static int fake_fill(rt_ctx *c, rt_dtype t, void *x, size_t n, double v)
{
	(void)c, (void)t, (void)x, (void)n, (void)v;
	return RT_EUNAVAIL;
}

static int fake_axpby(rt_ctx *c, rt_dtype t, size_t n, double a, const void *x, double b,
		      void *y)
{
	(void)c, (void)t, (void)n, (void)a, (void)x, (void)b, (void)y;
	return RT_EUNAVAIL;
}

static int fake_rows(rt_ctx *c, rt_dtype t, int rows, int cols, const void *in, void *out)
{
	(void)c, (void)t, (void)rows, (void)cols, (void)in, (void)out;
	return RT_EUNAVAIL;
}

static int fake_unary(rt_ctx *c, rt_dtype t, size_t n, const void *x, void *y)
{
	(void)c, (void)t, (void)n, (void)x, (void)y;
	return RT_EUNAVAIL;
}

static int fake_binary(rt_ctx *c, rt_dtype t, size_t n, const void *x, const void *dy,
		       void *dx)
{
	(void)c, (void)t, (void)n, (void)x, (void)dy, (void)dx;
	return RT_EUNAVAIL;
}

static int fake_softmax(rt_ctx *c, rt_dtype t, int rows, int cols, double scale, int blk,
			const void *x, void *y)
{
	(void)blk;
	(void)scale;
	return fake_rows(c, t, rows, cols, x, y);
}

static int fake_softmax_backward(rt_ctx *c, rt_dtype t, int rows, int cols, double scale,
				 const void *y, const void *dy, void *dx)
{
	(void)dy, (void)scale, (void)dx;
	return fake_rows(c, t, rows, cols, y, NULL);
}

static int fake_layernorm(rt_ctx *c, rt_dtype t, int rows, int cols, const void *x,
			  const void *g, const void *b, void *y, void *mean, void *rstd)
{
	(void)g, (void)b, (void)mean, (void)rstd;
	return fake_rows(c, t, rows, cols, x, y);
}

static int fake_layernorm_backward(rt_ctx *c, rt_dtype t, int rows, int cols, const void *x,
				   const void *g, const void *mean, const void *rstd,
				   const void *dy, void *dx, void *dg, void *db)
{
	(void)g, (void)mean, (void)rstd, (void)dy, (void)dg, (void)db;
	return fake_rows(c, t, rows, cols, x, dx);
}

static int fake_mse_loss(rt_ctx *c, rt_dtype t, size_t n, const void *p, const void *target,
			 void *loss, void *dp)
{
	(void)target, (void)loss;
	return fake_unary(c, t, n, p, dp);
}

static int fake_adam(rt_ctx *c, rt_dtype t, size_t n, void *w, const void *g, void *m,
		     void *v, double lr, double b1, double b2, double eps, int step)
{
	(void)g, (void)m, (void)v, (void)lr, (void)b1, (void)b2, (void)eps, (void)step;
	return fake_unary(c, t, n, w, w);
}

/*
 * The device figures a trial reads around its samples: the device is busy
 * 60% of the wall time while timing is on (RIGTUNE_FAKE_BUSY=0.05 scripts
 * another share), the monitor samples 10%, GEMMs run on "fake-blas 1.0"
 * (tests/test_measure.c checks the three arrive, and what the busy share
 * makes of a bottleneck).
 */
static double timing_since;

static double busy_share(void)
{
	const char *s = getenv("RIGTUNE_FAKE_BUSY");
	return s && *s ? atof(s) : 0.6;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int fake_device_time(rt_ctx *ctx, int on, double *busy_s)
{
	(void)ctx;
	double now = now_s();
	*busy_s = timing_since > 0 ? busy_share() * (now - timing_since) : 0;
	timing_since = on ? now : 0;
	return 0;
}

static int fake_utilization(rt_ctx *ctx, double *busy)
{
	(void)ctx;
	*busy = 0.1;
	return 0;
}


static rt_backend_ops fake_ops = {
	.abi = RT_BACKEND_ABI,
	.name = "fake",
	.visible_devices = "FAKE_VISIBLE_DEVICES",
	.framework_device = "cuda",
	.init = fake_init,
	.device_info = fake_device_info,
	.open = fake_open,
	.close = fake_close,
	.alloc = fake_alloc,
	.free = fake_free,
	.upload = fake_copy,
	.download = fake_copy,
	.synchronize = fake_synchronize,
	.mem_info = fake_mem_info,
	.gemm = fake_gemm,
	.gemm_batched = fake_gemm_batched,
	.fill = fake_fill,
	.axpby = fake_axpby,
	.add_bias = fake_rows,
	.sum_rows = fake_rows,
	.gelu = fake_unary,
	.gelu_backward = fake_binary,
	.tanh_fwd = fake_unary,
	.tanh_backward = fake_binary,
	.softmax = fake_softmax,
	.softmax_backward = fake_softmax_backward,
	.layernorm = fake_layernorm,
	.layernorm_backward = fake_layernorm_backward,
	.mse_loss = fake_mse_loss,
	.adam = fake_adam,
	.utilization = fake_utilization,
	.gemm_impl = fake_gemm_impl,
	.device_time = fake_device_time,
};

const rt_backend_ops *rigtune_backend(void);

/* The table, with the frameworks' device name the test asks for (tests/test_fw_device.c). */
const rt_backend_ops *rigtune_backend(void)
{
	const char *device = getenv("RIGTUNE_FAKE_FRAMEWORK_DEVICE");
	if (device)
		fake_ops.framework_device = device;
	return &fake_ops;
}
