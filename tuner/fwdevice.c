/* fwdevice.c: the device for a framework's own step, from the crossover's fits (fwdevice.h). */
#include "fwdevice.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/rt.h"
#include "../workloads/loader.h"

/* A transfer curve's step copies A and B in and C out. */
#define XFER_COPIES 3.0
#define FLOAT_BYTES 4.0
/* The GEMMs of an update per forward GEMM: the forward, and the backward's two. */
#define UPDATE_GEMMS 3.0

/* A curve of a crossover into out where it is one of those the estimate takes. */
static void take_curve(rt_fw_device_fits *out, const rt_curve *id, const char *precision,
		       const rt_fit *fit, int *resident, int *xfer)
{
	if (strcmp(precision, "fp32"))
		return;
	if (rt_backend_on_host(id->backend) && out->nhost < RT_FW_DEVICE_MAX_HOST)
		out->host[out->nhost++] = *fit;
	else if (!strcmp(id->backend, out->backend) && !id->xfer && !(*resident)++)
		out->device = *fit;
	else if (!strcmp(id->backend, out->backend) && id->xfer && !(*xfer)++)
		out->device_xfer = *fit;
}

static int fits_found(const rt_fw_device_fits *out, int resident, int xfer, char *err,
		      size_t errlen)
{
	if (!out->nhost || !resident || !xfer)
		return rt_fail(err, errlen, RT_EINVAL, "the crossover has no fp32 %s curve",
			       !out->nhost ? "CPU" : !resident ? "resident device" :
			       "device transfer");
	return RT_OK;
}

int rt_fw_device_fits_of(const rt_crossover_analysis *a, const char *backend,
			 rt_fw_device_fits *out, char *err, size_t errlen)
{
	int resident = 0, xfer = 0;
	memset(out, 0, sizeof *out);
	snprintf(out->backend, sizeof out->backend, "%s", backend);
	const rt_replay *r = a ? a->square.r : NULL;
	for (size_t i = 0; r && i < r->ncurves; i++)
		take_curve(out, &r->curves[i].id, r->curves[i].precision, &a->square.fit[i],
			   &resident, &xfer);
	return fits_found(out, resident, xfer, err, errlen);
}

int rt_fw_device_fits_of_doc(const rt_crossover_doc *x, const char *backend,
			     rt_fw_device_fits *out, char *err, size_t errlen)
{
	int resident = 0, xfer = 0;
	memset(out, 0, sizeof *out);
	snprintf(out->backend, sizeof out->backend, "%s", backend);
	for (int i = 0; x && i < x->ncurves; i++)
		take_curve(out, &x->curves[i].id, x->curves[i].precision, &x->curves[i].fit,
			   &resident, &xfer);
	return fits_found(out, resident, xfer, err, errlen);
}

/* A GEMM m x k x n at its flop-equivalent square size on fit f. */
static double gemm_s(const rt_fit *f, double m, double k, double n)
{
	return rt_fit_eval(f, cbrt(m * k * n));
}

/* On the host: its fastest curve at that size. */
static double host_gemm_s(const rt_fw_device_fits *f, double m, double k, double n)
{
	double best = INFINITY;
	for (int i = 0; i < f->nhost; i++)
		best = fmin(best, gemm_s(&f->host[i], m, k, n));
	return best;
}

/* The policy's forward GEMMs at batch m: on the host (device 0) or the device. */
static double forward_s(const rt_fw_device_fits *f, const rt_policy *p, double m, int device)
{
	double s = 0;
	for (int i = 0; i < p->nlayers; i++) {
		double k = (double)p->layer[i].k, n = (double)p->layer[i].n;
		s += p->layer[i].count *
		     (device ? gemm_s(&f->device, m, k, n) : host_gemm_s(f, m, k, n));
	}
	return s;
}

/*
 * What the device adds per kernel (its smallest GEMM step), per copy (a
 * third of what the transfers add at the smallest size) and per byte copied
 * (what they add beyond that at the largest size, over its bytes).
 */
typedef struct device_costs {
	double kernel_s, copy_s, byte_s;
} device_costs;

static device_costs costs_of(const rt_fw_device_fits *f)
{
	double lo = f->device.n_min, hi = f->device.n_max;
	double add_lo = fmax(0, rt_fit_eval(&f->device_xfer, lo) - rt_fit_eval(&f->device, lo));
	double add_hi = fmax(0, rt_fit_eval(&f->device_xfer, hi) - rt_fit_eval(&f->device, hi));
	double bytes = XFER_COPIES * FLOAT_BYTES * (hi * hi - lo * lo);
	return (device_costs){rt_fit_eval(&f->device, lo), add_lo / XFER_COPIES,
			      bytes > 0 ? fmax(0, add_hi - add_lo) / bytes : 0};
}

/* Both sides' figures at envs a vector step. */
static void estimate(const rt_fw_device_fits *f, const rt_policy *p, const rt_fw_step_kernels *k,
		     double envs, rt_fw_device_choice *out)
{
	device_costs d = costs_of(f);
	double mb = (double)p->minibatch, in = FLOAT_BYTES * (double)p->layer[0].k;
	out->rollout_host_s = forward_s(f, p, envs, 0);
	out->rollout_device_s = forward_s(f, p, envs, 1) + k->rollout_kernels * d.kernel_s +
				k->rollout_copies * d.copy_s + envs * in * d.byte_s;
	out->update_host_s = UPDATE_GEMMS * forward_s(f, p, mb, 0);
	out->update_device_s = UPDATE_GEMMS * forward_s(f, p, mb, 1) +
			       k->update_kernels * d.kernel_s + k->update_copies * d.copy_s +
			       mb * in * d.byte_s;
	double passes = (double)p->epochs / mb;
	out->host_s = out->rollout_host_s / envs + passes * out->update_host_s;
	out->device_s = out->rollout_device_s / envs + passes * out->update_device_s;
	out->device_faster = out->device_s < out->host_s;
}

void rt_fw_device_choose(const rt_fw_device_fits *f, const rt_policy *p,
			 const rt_fw_step_kernels *k, rt_fw_device_choice *out)
{
	rt_fw_device_choice at;
	memset(out, 0, sizeof *out);
	for (long envs = 1; envs <= RT_FW_DEVICE_MAX_ENVS && !out->device_from_envs; envs *= 2) {
		estimate(f, p, k, (double)envs, &at);
		if (at.device_faster)
			out->device_from_envs = envs;
	}
	estimate(f, p, k, (double)p->envs, &at);
	at.device_from_envs = out->device_from_envs;
	*out = at;
}

void rt_fw_device_why(const rt_fw_device_choice *c, const rt_policy *p, const char *device,
		      char *buf, size_t len)
{
	char from[128];
	int gemms = 0;
	for (int i = 0; i < p->nlayers; i++)
		gemms += p->layer[i].count;
	if (c->device_from_envs)
		snprintf(from, sizeof from, "the GPU wins from %ld envs a step here",
			 c->device_from_envs);
	else
		snprintf(from, sizeof from, "the GPU does not win up to %d envs a step here",
			 RT_FW_DEVICE_MAX_ENVS);
	snprintf(buf, len,
		 "the policy runs once per vector step, at %ld envs here (%d GEMMs "
		 "with their launches and copies): %.3g ms a step on the CPU against %.3g on '%s', "
		 "and %.3g ms against %.3g a minibatch of %ld, so %.3g us an env-step against %.3g "
		 "(from the crossover's fp32 GEMM fits); %s; a larger policy (wider observations, "
		 "a CNN) or larger minibatches move the balance to it",
		 p->envs, gemms, 1e3 * c->rollout_host_s,
		 1e3 * c->rollout_device_s, device, 1e3 * c->update_host_s, 1e3 * c->update_device_s,
		 p->minibatch, 1e6 * c->host_s, 1e6 * c->device_s, from);
}
