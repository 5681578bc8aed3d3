/*
 * gemm: C = A B with A m x k, B k x n, on any backend. The building block
 * whose CPU/GPU crossover everything else is explained by. One step is one
 * GEMM; items are GFLOP so that throughput reads in GFLOP/s.
 *
 * transfer=0 times the product on data already resident on the device;
 * transfer=1 adds what an eager framework pays for a small op on a GPU:
 * upload A and B from the host, multiply, download C.
 */
#include <stdlib.h>

#include "../common/rng.h"
#include "workload.h"

enum { KEY_M, KEY_N, KEY_K, KEY_TRANSFER };

static const rt_shape_key gemm_keys[] = {
	[KEY_M] = {"m", 1024, 1, 1 << 16, "rows of A and C"},
	[KEY_N] = {"n", 1024, 1, 1 << 16, "columns of B and C"},
	[KEY_K] = {"k", 1024, 1, 1 << 16, "columns of A, rows of B"},
	[KEY_TRANSFER] = {"transfer", 0, 0, 1, "1: upload A, B and download C every step"},
};

enum { PHASE_GEMM, PHASE_TRANSFER };
static const char *const gemm_phases[] = {[PHASE_GEMM] = "gemm", [PHASE_TRANSFER] = "transfer"};

typedef struct gemm_state {
	const rt_backend_ops *be;
	rt_ctx *ctx;
	rt_dtype dtype;
	rt_precision prec;
	int m, n, k;
	void *a, *b, *c;
	void *host[3];   /* host copies of A, B, C */
	size_t bytes[3];
	int transfer;    /* move A, B in and C out every step */
} gemm_state;

static int gemm_check(const rt_point *pt, const rt_shape *sh, char *err, size_t errlen)
{
	for (int i = KEY_M; i <= KEY_K; i++)
		if (sh->v[i] < 1)
			return rt_fail(err, errlen, RT_EINVAL, "%s must be at least 1",
				       gemm_keys[i].name);
	if (pt->threads < 1)
		return rt_fail(err, errlen, RT_EINVAL, "threads must be at least 1");
	return RT_OK;
}

static uint64_t gemm_mem_bytes(const rt_point *pt, const rt_shape *sh)
{
	uint64_t m = (uint64_t)sh->v[KEY_M], n = (uint64_t)sh->v[KEY_N],
		 k = (uint64_t)sh->v[KEY_K];
	return (m * k + k * n + m * n) * rt_dtype_size(rt_precision_dtype(pt->precision));
}

/* A host buffer of count values from the seeded generator; NULL if out of memory. */
static void *random_host(rt_dtype t, size_t count, uint64_t seed)
{
	size_t esz = rt_dtype_size(t);
	void *host = malloc(count * esz);
	if (!host)
		return NULL;
	rt_rng r;
	rt_rng_seed(&r, seed);
	for (size_t i = 0; i < count; i++) {
		double v = rt_rng_uniform(&r) * 2 - 1;
		if (t == RT_F64)
			((double *)host)[i] = v;
		else
			((float *)host)[i] = (float)v;
	}
	return host;
}

static void gemm_teardown(void *state)
{
	gemm_state *s = state;
	if (!s)
		return;
	if (s->ctx) {
		s->be->free(s->ctx, s->a);
		s->be->free(s->ctx, s->b);
		s->be->free(s->ctx, s->c);
		s->be->close(s->ctx);
	}
	for (int i = 0; i < 3; i++)
		free(s->host[i]);
	free(s);
}

static int gemm_setup(const rt_point *pt, const rt_shape *sh, const rt_backend_ops *be,
		      void **state, char *err, size_t errlen)
{
	gemm_state *s = calloc(1, sizeof *s);
	if (!s)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	s->be = be;
	s->dtype = rt_precision_dtype(pt->precision);
	s->prec = pt->precision;
	s->m = (int)sh->v[KEY_M];
	s->n = (int)sh->v[KEY_N];
	s->k = (int)sh->v[KEY_K];
	uint64_t need = gemm_mem_bytes(pt, sh);
	int rc = rt_backend_open_checked(be, pt->device, pt->threads, pt->precision, need, &s->ctx,
					 err, errlen);
	if (rc)
		goto fail;
	size_t esz = rt_dtype_size(s->dtype);
	size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
	if (be->alloc(s->ctx, na * esz, &s->a) || be->alloc(s->ctx, nb * esz, &s->b) ||
	    be->alloc(s->ctx, nc * esz, &s->c)) {
		rc = rt_fail(err, errlen, RT_EINFEASIBLE, "cannot allocate %.2f GiB",
			     need / 1073741824.0);
		goto fail;
	}
	size_t count[3] = {na, nb, nc};
	void *dev[3] = {s->a, s->b, s->c};
	for (int i = 0; i < 3; i++) {
		s->host[i] = random_host(s->dtype, count[i], (uint64_t)i + 1);
		if (!s->host[i]) {
			rc = rt_fail(err, errlen, RT_EINFEASIBLE, "out of host memory");
			goto fail;
		}
		s->bytes[i] = count[i] * esz;
		if ((rc = be->upload(s->ctx, dev[i], s->host[i], s->bytes[i]))) {
			rt_fail(err, errlen, rc, "cannot upload the operands");
			goto fail;
		}
	}
	s->transfer = sh->v[KEY_TRANSFER] != 0;
	*state = s;
	return RT_OK;
fail:
	gemm_teardown(s);
	return rc;
}

static int gemm_step(void *state, rt_step_result *out, char *err, size_t errlen)
{
	gemm_state *s = state;
	const rt_backend_ops *be = s->be;
	double t0 = rt_now();
	int rc = RT_OK;
	if (s->transfer && ((rc = be->upload(s->ctx, s->a, s->host[0], s->bytes[0])) ||
			    (rc = be->upload(s->ctx, s->b, s->host[1], s->bytes[1])) ||
			    (rc = be->synchronize(s->ctx))))
		return rt_fail(err, errlen, rc, "upload of the operands failed");
	double t1 = rt_now();
	rc = be->gemm(s->ctx, s->dtype, s->prec, 0, 0, s->m, s->n, s->k, 1.0, s->a, s->k,
		      s->b, s->n, 0.0, s->c, s->n);
	if (rc == RT_OK)
		rc = be->synchronize(s->ctx);
	if (rc)
		return rt_fail(err, errlen, rc, "gemm %dx%dx%d in %s failed: %s", s->m, s->n,
			       s->k, rt_precision_name(s->prec), rt_backend_why(be, s->ctx));
	double t2 = rt_now();
	if (s->transfer && (rc = be->download(s->ctx, s->host[2], s->c, s->bytes[2])))
		return rt_fail(err, errlen, rc, "download of the product failed");
	out->flops = 2.0 * s->m * s->n * s->k;
	out->items = out->flops * 1e-9;
	out->phase[PHASE_GEMM] = t2 - t1;
	out->phase[PHASE_TRANSFER] = (t1 - t0) + (rt_now() - t2);
	return RT_OK;
}

static rt_ctx *gemm_context(void *state)
{
	return ((gemm_state *)state)->ctx;
}

const rt_workload rt_workload_gemm = {
	.name = "gemm",
	.unit = "GFLOP/s",
	.summary = "one GEMM, C = A B (m x k times k x n); transfer=1 adds the "
		   "host->device->host copies an eager framework pays",
	.knobs = 0,
	.budget_weight = 1.0,
	.keys = gemm_keys,
	.nkeys = RT_COUNT(gemm_keys),
	.phase_names = gemm_phases,
	.nphases = RT_COUNT(gemm_phases),
	.check = gemm_check,
	.mem_bytes = gemm_mem_bytes,
	.setup = gemm_setup,
	.step = gemm_step,
	.teardown = gemm_teardown,
	.context = gemm_context,
};
