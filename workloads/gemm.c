/*
 * gemm: C = A B with A m x k, B k x n, on any backend. The building block
 * whose CPU/GPU crossover everything else is explained by. One step is one
 * GEMM; items are GFLOP so that throughput reads in GFLOP/s.
 */
#include <stdlib.h>

#include "../common/rng.h"
#include "workload.h"

enum { KEY_M, KEY_N, KEY_K };

static const rt_shape_key gemm_keys[] = {
	[KEY_M] = {"m", 1024, 1, 1 << 16, "rows of A and C"},
	[KEY_N] = {"n", 1024, 1, 1 << 16, "columns of B and C"},
	[KEY_K] = {"k", 1024, 1, 1 << 16, "columns of A, rows of B"},
};

static const char *const gemm_phases[] = {"gemm"};

typedef struct gemm_state {
	const rt_backend_ops *be;
	rt_ctx *ctx;
	rt_dtype dtype;
	rt_precision prec;
	int m, n, k;
	void *a, *b, *c;
} gemm_state;

static int gemm_check(const rt_point *pt, const rt_shape *sh, char *err, size_t errlen)
{
	if (pt->precision != RT_FP64 && pt->precision != RT_FP32 &&
	    pt->precision != RT_TF32 && pt->precision != RT_BF16 &&
	    pt->precision != RT_FP16)
		return rt_fail(err, errlen, RT_EINVAL, "unknown precision");
	for (int i = 0; i < 3; i++)
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

/* Fills a host buffer from the seeded generator and uploads it. */
static int upload_random(gemm_state *s, void *dst, size_t count, uint64_t seed)
{
	size_t esz = rt_dtype_size(s->dtype);
	void *host = malloc(count * esz);
	if (!host)
		return RT_ENOMEM;
	rt_rng r;
	rt_rng_seed(&r, seed);
	for (size_t i = 0; i < count; i++) {
		double v = rt_rng_uniform(&r) * 2 - 1;
		if (s->dtype == RT_F64)
			((double *)host)[i] = v;
		else
			((float *)host)[i] = (float)v;
	}
	int rc = s->be->upload(s->ctx, dst, host, count * esz);
	free(host);
	return rc;
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
	int rc = be->open(pt->device, pt->threads, &s->ctx, err, errlen);
	if (rc)
		goto fail;
	uint64_t total, avail, need = gemm_mem_bytes(pt, sh);
	if (be->mem_info(s->ctx, &total, &avail) == RT_OK && need > avail) {
		rc = rt_fail(err, errlen, RT_EINFEASIBLE, "needs %.2f GiB, %.2f GiB available",
			     need / 1073741824.0, avail / 1073741824.0);
		goto fail;
	}
	size_t esz = rt_dtype_size(s->dtype);
	size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
	if (be->alloc(s->ctx, na * esz, &s->a) || be->alloc(s->ctx, nb * esz, &s->b) ||
	    be->alloc(s->ctx, nc * esz, &s->c)) {
		rc = rt_fail(err, errlen, RT_EINFEASIBLE, "cannot allocate %.2f GiB",
			     need / 1073741824.0);
		goto fail;
	}
	if ((rc = upload_random(s, s->a, na, 1)) || (rc = upload_random(s, s->b, nb, 2)) ||
	    (rc = upload_random(s, s->c, nc, 3))) {
		rt_fail(err, errlen, rc, "cannot upload the operands");
		goto fail;
	}
	*state = s;
	return RT_OK;
fail:
	gemm_teardown(s);
	return rc;
}

static int gemm_step(void *state, rt_step_result *out, char *err, size_t errlen)
{
	gemm_state *s = state;
	double t0 = rt_now();
	int rc = s->be->gemm(s->ctx, s->dtype, s->prec, 0, 0, s->m, s->n, s->k, 1.0, s->a,
			     s->k, s->b, s->n, 0.0, s->c, s->n);
	if (rc == RT_OK)
		rc = s->be->synchronize(s->ctx);
	if (rc)
		return rt_fail(err, errlen, rc, "gemm %dx%dx%d in %s failed", s->m, s->n,
			       s->k, rt_precision_name(s->prec));
	out->flops = 2.0 * s->m * s->n * s->k;
	out->items = out->flops * 1e-9;
	out->phase[0] = rt_now() - t0;
	return RT_OK;
}

const rt_workload rt_workload_gemm = {
	.name = "gemm",
	.unit = "GFLOP/s",
	.keys = gemm_keys,
	.nkeys = RT_COUNT(gemm_keys),
	.phase_names = gemm_phases,
	.nphases = RT_COUNT(gemm_phases),
	.check = gemm_check,
	.mem_bytes = gemm_mem_bytes,
	.setup = gemm_setup,
	.step = gemm_step,
	.teardown = gemm_teardown,
};
