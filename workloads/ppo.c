/*
 * The PPO workload: see ppo.h for what one step does.
 *
 * Device buffers: the parameters (W1 D x H, b1, W2 H x H, b2, W3 H x O, b3,
 * log-std A; O = A + 1 outputs: A means and the value) are one array, and
 * so are their gradients and Adam's two moments, so one adam() call updates
 * everything. Activations are sized for the larger of num_envs and
 * minibatch. During the rollout the observations stay feature-major as the
 * environment writes them (D x ld) and the first GEMM reads them with
 * op(A) = A^T; minibatches are gathered row-major (B x D).
 */
#include "ppo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "loader.h"

#define HID 64
#define GAMMA 0.99
#define LAMBDA 0.95
#define CLIP 0.2
#define VF_COEF 0.5
#define ENT_COEF 0.01
#define LOG_2PI 1.8378770664093453

enum { KEY_ENVS, KEY_STOCKS, KEY_ROLLOUT, KEY_MB, KEY_EPOCHS, KEY_ENV_US };

/*
 * env_us: the environment code of a user's env, per env-step. A FinRL-style
 * env steps in Python (array indexing, indicators, the reward and its
 * bookkeeping) and costs tens of microseconds per env-step, so the rollout
 * is most of each iteration (the field reports: rollout ~70%, update ~30%,
 * a GPU 30-60% busy). This C env needs ~0.1 us, so with env_us=0 an
 * iteration is nearly all network update. 15 us, the low end of a Python
 * step, gives the reports' split at the default point on one core (env
 * ~65%, env + policy ~70%, update ~30%); a faster device only raises the
 * env's share. env_us=0 measures the bare C environment.
 */
#define ENV_US_DEFAULT 15

static const rt_shape_key ppo_keys[] = {
	[KEY_ENVS] = {"num_envs", 64, 1, 1 << 16, "parallel environments"},
	[KEY_STOCKS] = {"stocks", 30, 1, 1000, "assets per environment"},
	[KEY_ROLLOUT] = {"rollout", 128, 1, 1 << 14, "steps per env per iteration"},
	[KEY_MB] = {"minibatch", 256, 1, 1 << 20, "samples per update minibatch"},
	[KEY_EPOCHS] = {"epochs", 4, 1, 100, "passes over the rollout per iteration"},
	[KEY_ENV_US] = {"env_us", ENV_US_DEFAULT, 0, 100000,
			"synthetic environment code per env-step, microseconds"},
};

static const char *const ppo_phases[RT_PPO_NPH] = {"env", "policy", "transfer", "update"};

struct rt_ppo {
	rt_ppo_config c;
	const rt_backend_ops *be;
	rt_ctx *ctx;
	rt_ppo_env *env;
	rt_rng rng;
	int D, A, O, N, ld, T, M, bmax, adam_step;
	size_t np, o_w1, o_b1, o_w2, o_b2, o_w3, o_b3, o_ls;
	/* device */
	float *par, *grad, *m1, *m2, *xroll, *x, *h1, *h2, *out, *dout, *dh, *dz;
	/* host */
	float *obs, *act, *rew, *done, *hout, *logstd;
	float *r_obs, *r_act, *r_logp, *r_val, *r_rew, *r_done, *adv, *ret, *last_val;
	float *xb, *db, *dls, *ab, *lpb, *advb, *retb, *ep_ret;
	int *idx;
	double ret_sum;
	int ret_count;
};

void rt_ppo_config_default(rt_ppo_config *c)
{
	memset(c, 0, sizeof *c);
	rt_ppo_env_params_default(&c->env, 64, 30);
	c->rollout = 128;
	c->minibatch = 256;
	c->epochs = 4;
	c->threads = 1;
	c->precision = RT_FP32;
	c->lr = 3e-4f;
	c->seed = 1;
}

/* Sizes that follow from the config. */
static void dims(const rt_ppo_config *c, int *D, int *A, int *bmax, size_t *np)
{
	int n = c->env.num_envs, o;

	*D = rt_ppo_env_obs_dim(c->env.stocks);
	*A = c->env.stocks;
	o = *A + 1;
	*bmax = n > c->minibatch ? n : c->minibatch;
	*np = (size_t)*D * HID + HID + HID * HID + HID + (size_t)HID * o + (size_t)o + (size_t)*A;
}

uint64_t rt_ppo_mem_bytes(const rt_ppo_config *c)
{
	int D, A, bmax;
	size_t np;

	dims(c, &D, &A, &bmax, &np);
	uint64_t acts = (uint64_t)bmax * ((uint64_t)D + 4 * HID + 2 * (uint64_t)(A + 1));
	uint64_t roll = (uint64_t)D * (uint64_t)rt_ppo_env_ld(c->env.num_envs);
	return 4 * (4 * (uint64_t)np + acts + roll);
}

/* Standard normal pair by Marsaglia's polar method (no trigonometry). */
static void normal_pair(rt_rng *r, double *z0, double *z1)
{
	double u, v, s;

	do {
		u = 2.0 * rt_rng_uniform(r) - 1.0;
		v = 2.0 * rt_rng_uniform(r) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	s = sqrt(-2.0 * log(s) / s);
	*z0 = u * s;
	*z1 = v * s;
}

/* Diagonal Gaussian log-density of a (na values) with mean mu, log-std ls. */
static double gauss_logp(const float *a, const float *mu, const float *ls, int na)
{
	double lp = 0.0;

	for (int j = 0; j < na; j++) {
		double z = (a[j] - mu[j]) * exp(-(double)ls[j]);
		lp += -0.5 * z * z - ls[j] - 0.5 * LOG_2PI;
	}
	return lp;
}

double rt_ppo_loss_grad(const rt_ppo_batch *b, float *dout, float *dlogstd)
{
	int n = b->n, na = b->na, o = na + 1;
	double loss = 0.0, inv_n = 1.0 / n;

	for (int j = 0; j < na; j++) {
		/* Entropy per sample: sum_j (ls_j + 0.5 log(2 pi e)); d/dls_j = 1. */
		loss -= ENT_COEF * (b->logstd[j] + 0.5 * (LOG_2PI + 1.0));
		dlogstd[j] = (float)-ENT_COEF;
	}
	for (int i = 0; i < n; i++) {
		const float *mu = b->out + (size_t)i * o, *a = b->act + (size_t)i * na;
		float *d = dout + (size_t)i * o;
		double A = b->adv[i], r = exp(gauss_logp(a, mu, b->logstd, na) - b->logp_old[i]);
		double rc = r < 1.0 - CLIP ? 1.0 - CLIP : (r > 1.0 + CLIP ? 1.0 + CLIP : r);
		/* min(rA, clip(r)A): the gradient flows only where rA is the minimum. */
		double dlogp = r * A <= rc * A ? -A * r * inv_n : 0.0;
		double v = mu[na] - b->ret[i];

		loss += -fmin(r * A, rc * A) * inv_n + VF_COEF * v * v * inv_n;
		for (int j = 0; j < na; j++) {
			double is = exp(-(double)b->logstd[j]), z = (a[j] - mu[j]) * is;
			d[j] = (float)(dlogp * z * is);          /* dlogp/dmu = z / sigma */
			dlogstd[j] += (float)(dlogp * (z * z - 1.0)); /* dlogp/dls = z^2 - 1 */
		}
		d[na] = (float)(2.0 * VF_COEF * v * inv_n);
	}
	return loss;
}

/*
 * out = W3 tanh(W2 tanh(W1 x + b1) + b2) + b3 for B rows; x is B x D
 * row-major (transx 0, ldx D) or D x B feature-major (transx 1, ldx >= B).
 */
static int forward(rt_ppo *p, const float *x, int transx, int ldx, int B)
{
	const rt_backend_ops *be = p->be;
	rt_ctx *ctx = p->ctx;
	rt_precision pr = p->c.precision;
	float *w = p->par;

	RT_TRY(be->gemm(ctx, RT_F32, pr, transx, 0, B, HID, p->D, 1.0, x, ldx, w + p->o_w1, HID,
		     0.0, p->h1, HID));
	RT_TRY(be->add_bias(ctx, RT_F32, B, HID, w + p->o_b1, p->h1));
	RT_TRY(be->tanh_fwd(ctx, RT_F32, (size_t)B * HID, p->h1, p->h1));
	RT_TRY(be->gemm(ctx, RT_F32, pr, 0, 0, B, HID, HID, 1.0, p->h1, HID, w + p->o_w2, HID, 0.0,
		     p->h2, HID));
	RT_TRY(be->add_bias(ctx, RT_F32, B, HID, w + p->o_b2, p->h2));
	RT_TRY(be->tanh_fwd(ctx, RT_F32, (size_t)B * HID, p->h2, p->h2));
	RT_TRY(be->gemm(ctx, RT_F32, pr, 0, 0, B, p->O, HID, 1.0, p->h2, HID, w + p->o_w3, p->O,
		     0.0, p->out, p->O));
	RT_TRY(be->add_bias(ctx, RT_F32, B, p->O, w + p->o_b3, p->out));
	return be->synchronize(ctx);
}

/* Gradients of every weight and bias from dout (B x O), after forward(x). */
static int backward(rt_ppo *p, const float *x, int B)
{
	const rt_backend_ops *be = p->be;
	rt_ctx *ctx = p->ctx;
	rt_precision pr = p->c.precision;
	float *w = p->par, *g = p->grad;

	RT_TRY(be->gemm(ctx, RT_F32, pr, 1, 0, HID, p->O, B, 1.0, p->h2, HID, p->dout, p->O, 0.0,
		     g + p->o_w3, p->O));
	RT_TRY(be->sum_rows(ctx, RT_F32, B, p->O, p->dout, g + p->o_b3));
	RT_TRY(be->gemm(ctx, RT_F32, pr, 0, 1, B, HID, p->O, 1.0, p->dout, p->O, w + p->o_w3,
		     p->O, 0.0, p->dh, HID));
	RT_TRY(be->tanh_backward(ctx, RT_F32, (size_t)B * HID, p->h2, p->dh, p->dz));
	RT_TRY(be->gemm(ctx, RT_F32, pr, 1, 0, HID, HID, B, 1.0, p->h1, HID, p->dz, HID, 0.0,
		     g + p->o_w2, HID));
	RT_TRY(be->sum_rows(ctx, RT_F32, B, HID, p->dz, g + p->o_b2));
	RT_TRY(be->gemm(ctx, RT_F32, pr, 0, 1, B, HID, HID, 1.0, p->dz, HID, w + p->o_w2, HID,
		     0.0, p->dh, HID));
	RT_TRY(be->tanh_backward(ctx, RT_F32, (size_t)B * HID, p->h1, p->dh, p->dz));
	RT_TRY(be->gemm(ctx, RT_F32, pr, 1, 0, p->D, HID, B, 1.0, x, p->D, p->dz, HID, 0.0,
		     g + p->o_w1, HID));
	return be->sum_rows(ctx, RT_F32, B, HID, p->dz, g + p->o_b1);
}

/* Adds the seconds since *t to phase ph and restarts *t. */
static void lap(rt_step_result *out, int ph, double *t)
{
	double now = rt_now();

	out->phase[ph] += now - *t;
	*t = now;
}

/*
 * The rollout: `rollout` steps of inference over the envs, sampling on the
 * host, environment step; records everything GAE and the update need, and
 * the returns of the episodes that end.
 */
static int rollout(rt_ppo *p, rt_step_result *out, double *t)
{
	const rt_backend_ops *be = p->be;
	size_t nobs = (size_t)p->D * (size_t)p->ld;
	int N = p->N, A = p->A, O = p->O;

	for (int s = 0; s < p->T; s++) {
		memcpy(p->r_obs + (size_t)s * nobs, p->obs, nobs * sizeof(float));
		RT_TRY(be->upload(p->ctx, p->xroll, p->obs, nobs * sizeof(float)));
		lap(out, RT_PPO_PH_TRANSFER, t);
		RT_TRY(forward(p, p->xroll, 1, p->ld, N));
		lap(out, RT_PPO_PH_POLICY, t);
		RT_TRY(be->download(p->ctx, p->hout, p->out, (size_t)N * O * sizeof(float)));
		lap(out, RT_PPO_PH_TRANSFER, t);
		for (int e = 0; e < N; e++) {
			const float *mu = p->hout + (size_t)e * O;
			float *a = p->r_act + ((size_t)s * N + e) * A;
			for (int j = 0; j < A; j += 2) {
				double z0, z1;
				normal_pair(&p->rng, &z0, &z1);
				a[j] = mu[j] + (float)(exp(p->logstd[j]) * z0);
				if (j + 1 < A)
					a[j + 1] = mu[j + 1] + (float)(exp(p->logstd[j + 1]) * z1);
			}
			for (int j = 0; j < A; j++)
				p->act[(size_t)j * p->ld + e] = a[j];
			p->r_logp[s * N + e] = (float)gauss_logp(a, mu, p->logstd, A);
			p->r_val[s * N + e] = mu[A];
		}
		lap(out, RT_PPO_PH_POLICY, t);
		rt_ppo_env_step(p->env, p->act, p->rew, p->done, p->obs);
		lap(out, RT_PPO_PH_ENV, t);
		for (int e = 0; e < N; e++) {
			p->r_rew[s * N + e] = p->rew[e];
			p->r_done[s * N + e] = p->done[e];
			p->ep_ret[e] += p->rew[e];
			if (p->done[e] != 0.0f) {
				p->ret_sum += p->ep_ret[e];
				p->ret_count++;
				p->ep_ret[e] = 0.0f;
			}
		}
	}
	/* The value of the last observation, to bootstrap GAE. */
	RT_TRY(be->upload(p->ctx, p->xroll, p->obs, nobs * sizeof(float)));
	lap(out, RT_PPO_PH_TRANSFER, t);
	RT_TRY(forward(p, p->xroll, 1, p->ld, N));
	lap(out, RT_PPO_PH_POLICY, t);
	RT_TRY(be->download(p->ctx, p->hout, p->out, (size_t)N * O * sizeof(float)));
	for (int e = 0; e < N; e++)
		p->last_val[e] = p->hout[(size_t)e * O + A];
	lap(out, RT_PPO_PH_TRANSFER, t);
	return 0;
}

/* GAE(lambda) advantages and returns; an episode end stops the recursion. */
static void gae(rt_ppo *p)
{
	int N = p->N;

	for (int e = 0; e < N; e++) {
		double g = 0.0;
		for (int s = p->T - 1; s >= 0; s--) {
			int i = s * N + e;
			double next = s == p->T - 1 ? p->last_val[e] : p->r_val[i + N];
			double live = 1.0 - p->r_done[i];
			double delta = p->r_rew[i] + GAMMA * next * live - p->r_val[i];
			g = delta + GAMMA * LAMBDA * live * g;
			p->adv[i] = (float)g;
			p->ret[i] = (float)(g + p->r_val[i]);
		}
	}
}

/* Copies the samples idx[0..B) into the minibatch buffers, advantages normalized. */
static void gather(rt_ppo *p, const int *idx, int B)
{
	size_t nobs = (size_t)p->D * (size_t)p->ld;
	double mean = 0.0, var = 0.0;

	for (int b = 0; b < B; b++) {
		int i = idx[b], s = i / p->N, e = i % p->N;
		const float *o = p->r_obs + (size_t)s * nobs + e;
		for (int f = 0; f < p->D; f++)
			p->xb[(size_t)b * p->D + f] = o[(size_t)f * p->ld];
		memcpy(p->ab + (size_t)b * p->A, p->r_act + (size_t)i * p->A,
		       (size_t)p->A * sizeof(float));
		p->lpb[b] = p->r_logp[i];
		p->advb[b] = p->adv[i];
		p->retb[b] = p->ret[i];
		mean += p->adv[i];
	}
	mean /= B;
	for (int b = 0; b < B; b++)
		var += (p->advb[b] - mean) * (p->advb[b] - mean);
	double is = 1.0 / (sqrt(var / B) + 1e-8);
	for (int b = 0; b < B; b++)
		p->advb[b] = (float)((p->advb[b] - mean) * is);
}

/* One minibatch: forward, loss gradient on the host, backward, Adam. */
static int minibatch(rt_ppo *p, const int *idx, int B, rt_step_result *out, double *t)
{
	const rt_backend_ops *be = p->be;
	rt_ppo_batch b = {B, p->A, p->hout, p->logstd, p->ab, p->lpb, p->advb, p->retb};

	gather(p, idx, B);
	lap(out, RT_PPO_PH_UPDATE, t);
	RT_TRY(be->upload(p->ctx, p->x, p->xb, (size_t)B * p->D * sizeof(float)));
	lap(out, RT_PPO_PH_TRANSFER, t);
	RT_TRY(forward(p, p->x, 0, p->D, B));
	lap(out, RT_PPO_PH_UPDATE, t);
	RT_TRY(be->download(p->ctx, p->hout, p->out, (size_t)B * p->O * sizeof(float)));
	lap(out, RT_PPO_PH_TRANSFER, t);
	rt_ppo_loss_grad(&b, p->db, p->dls);
	lap(out, RT_PPO_PH_UPDATE, t);
	RT_TRY(be->upload(p->ctx, p->dout, p->db, (size_t)B * p->O * sizeof(float)));
	RT_TRY(be->upload(p->ctx, p->grad + p->o_ls, p->dls, (size_t)p->A * sizeof(float)));
	lap(out, RT_PPO_PH_TRANSFER, t);
	RT_TRY(backward(p, p->x, B));
	RT_TRY(be->adam(p->ctx, RT_F32, p->np, p->par, p->grad, p->m1, p->m2, p->c.lr, 0.9, 0.999,
		     1e-8, ++p->adam_step));
	RT_TRY(be->synchronize(p->ctx));
	lap(out, RT_PPO_PH_UPDATE, t);
	return 0;
}

/* Fisher-Yates shuffle of idx[0..n) from the run's generator. */
static void shuffle(rt_rng *r, int *idx, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rt_rng_below(r, (uint64_t)i + 1), x = idx[i];
		idx[i] = idx[j];
		idx[j] = x;
	}
}

/* Gemm flops of one iteration: forward 2BK per layer, backward twice that. */
static double iteration_flops(const rt_ppo *p)
{
	double per_row = 2.0 * ((double)p->D * HID + HID * HID + (double)HID * p->O);
	int nmb = p->M / p->c.minibatch;

	return per_row * ((double)(p->T + 1) * p->N +
			  3.0 * p->c.epochs * nmb * (double)p->c.minibatch);
}

int rt_ppo_iterate(rt_ppo *p, rt_step_result *out, char *err, size_t errlen)
{
	double t = rt_now();
	int rc, B = p->c.minibatch;

	memset(out, 0, sizeof *out);
	p->ret_sum = 0.0;
	p->ret_count = 0;
	rc = p->be->download(p->ctx, p->logstd, p->par + p->o_ls, (size_t)p->A * sizeof(float));
	lap(out, RT_PPO_PH_TRANSFER, &t);
	if (!rc)
		rc = rollout(p, out, &t);
	if (rc)
		return rt_fail(err, errlen, rc, "ppo rollout failed on the %s backend (%s)",
			       p->be->name, rt_strstatus(rc));
	gae(p);
	lap(out, RT_PPO_PH_UPDATE, &t);
	for (int ep = 0; ep < p->c.epochs && !rc; ep++) {
		shuffle(&p->rng, p->idx, p->M);
		for (int k = 0; k + B <= p->M && !rc; k += B)
			rc = minibatch(p, p->idx + k, B, out, &t);
	}
	if (rc)
		return rt_fail(err, errlen, rc, "ppo update failed on the %s backend (%s)",
			       p->be->name, rt_strstatus(rc));
	out->items = (double)p->N * p->T;
	out->flops = iteration_flops(p);
	return 0;
}

double rt_ppo_mean_return(const rt_ppo *p)
{
	return p->ret_count ? p->ret_sum / p->ret_count : NAN;
}

/* Scaled-normal weights (std 1/sqrt(fan_in) times gain), zero biases, log-std 0. */
static int init_params(rt_ppo *p)
{
	float *h = calloc(p->np, sizeof(float));
	int rc;

	if (!h)
		return RT_ENOMEM;
	struct { size_t off, n; int fan_in; double gain; } layers[] = {
		{p->o_w1, (size_t)p->D * HID, p->D, 1.0},
		{p->o_w2, (size_t)HID * HID, HID, 1.0},
		{p->o_w3, (size_t)HID * p->O, HID, 0.1},
	};
	for (size_t l = 0; l < RT_COUNT(layers); l++)
		for (size_t i = 0; i < layers[l].n; i++)
			h[layers[l].off + i] = (float)(rt_rng_normal(&p->rng) * layers[l].gain /
						       sqrt((double)layers[l].fan_in));
	rc = p->be->upload(p->ctx, p->par, h, p->np * sizeof(float));
	if (!rc)
		rc = p->be->fill(p->ctx, RT_F32, p->m1, p->np, 0.0);
	if (!rc)
		rc = p->be->fill(p->ctx, RT_F32, p->m2, p->np, 0.0);
	if (!rc)
		rc = p->be->fill(p->ctx, RT_F32, p->grad, p->np, 0.0);
	free(h);
	return rc;
}

/* Allocates the device buffers; RT_EINFEASIBLE when one does not fit. */
static int alloc_device(rt_ppo *p, char *err, size_t errlen)
{
	size_t B = (size_t)p->bmax;
	struct { float **ptr; size_t n; } bufs[] = {
		{&p->par, p->np}, {&p->grad, p->np}, {&p->m1, p->np}, {&p->m2, p->np},
		{&p->xroll, (size_t)p->D * p->ld}, {&p->x, B * p->D}, {&p->h1, B * HID},
		{&p->h2, B * HID}, {&p->out, B * p->O}, {&p->dout, B * p->O},
		{&p->dh, B * HID}, {&p->dz, B * HID},
	};

	for (size_t i = 0; i < RT_COUNT(bufs); i++)
		if (p->be->alloc(p->ctx, bufs[i].n * sizeof(float), (void **)bufs[i].ptr))
			return rt_fail(err, errlen, RT_EINFEASIBLE,
				       "cannot allocate %.1f MiB of device memory",
				       rt_ppo_mem_bytes(&p->c) / 1048576.0);
	return 0;
}

/* Allocates the host buffers (zeroed: the action padding must stay finite). */
static int alloc_host(rt_ppo *p)
{
	size_t ld = (size_t)p->ld, M = (size_t)p->M, N = (size_t)p->N, B = (size_t)p->c.minibatch;
	size_t nobs = (size_t)p->D * ld;
	struct { float **ptr; size_t n; } bufs[] = {
		{&p->obs, nobs}, {&p->act, (size_t)p->A * ld}, {&p->rew, ld}, {&p->done, ld},
		{&p->hout, (size_t)p->bmax * p->O}, {&p->logstd, (size_t)p->A},
		{&p->r_obs, nobs * (size_t)p->T}, {&p->r_act, M * p->A}, {&p->r_logp, M},
		{&p->r_val, M}, {&p->r_rew, M}, {&p->r_done, M}, {&p->adv, M}, {&p->ret, M},
		{&p->last_val, N}, {&p->xb, B * p->D}, {&p->db, B * p->O}, {&p->dls, (size_t)p->A},
		{&p->ab, B * p->A}, {&p->lpb, B}, {&p->advb, B}, {&p->retb, B}, {&p->ep_ret, N},
	};

	for (size_t i = 0; i < RT_COUNT(bufs); i++)
		if (!(*bufs[i].ptr = calloc(bufs[i].n, sizeof(float))))
			return RT_ENOMEM;
	if (!(p->idx = malloc(M * sizeof(int))))
		return RT_ENOMEM;
	for (int i = 0; i < p->M; i++)
		p->idx[i] = i;
	return 0;
}

void rt_ppo_destroy(rt_ppo *p)
{
	if (!p)
		return;
	float **host[] = {
		&p->obs, &p->act, &p->rew, &p->done, &p->hout, &p->logstd, &p->r_obs, &p->r_act,
		&p->r_logp, &p->r_val, &p->r_rew, &p->r_done, &p->adv, &p->ret, &p->last_val,
		&p->xb, &p->db, &p->dls, &p->ab, &p->lpb, &p->advb, &p->retb, &p->ep_ret,
	};
	float **dev[] = {&p->par, &p->grad, &p->m1, &p->m2, &p->xroll, &p->x, &p->h1,
			 &p->h2, &p->out, &p->dout, &p->dh, &p->dz};

	free(p->idx);
	for (size_t i = 0; i < RT_COUNT(host); i++)
		free(*host[i]);
	if (p->ctx) {
		for (size_t i = 0; i < RT_COUNT(dev); i++)
			if (*dev[i])
				p->be->free(p->ctx, *dev[i]);
		p->be->close(p->ctx);
	}
	rt_ppo_env_destroy(p->env);
	free(p);
}

int rt_ppo_create(const rt_ppo_config *c, const rt_backend_ops *be, rt_ppo **out, char *err,
		  size_t errlen)
{
	rt_ppo *p = calloc(1, sizeof *p);
	int rc;

	*out = NULL;
	if (!p)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory for the ppo state");
	p->c = *c;
	p->be = be;
	dims(c, &p->D, &p->A, &p->bmax, &p->np);
	p->O = p->A + 1;
	p->N = c->env.num_envs;
	p->ld = rt_ppo_env_ld(p->N);
	p->T = c->rollout;
	p->M = p->N * p->T;
	p->o_w1 = 0;
	p->o_b1 = p->o_w1 + (size_t)p->D * HID;
	p->o_w2 = p->o_b1 + HID;
	p->o_b2 = p->o_w2 + HID * HID;
	p->o_w3 = p->o_b2 + HID;
	p->o_b3 = p->o_w3 + (size_t)HID * p->O;
	p->o_ls = p->o_b3 + (size_t)p->O;
	rt_rng_seed(&p->rng, c->seed);
	rc = rt_backend_open_checked(be, c->device, c->threads, c->precision, rt_ppo_mem_bytes(c),
				     &p->ctx, err, errlen);
	if (rc)
		goto fail;
	if ((rc = alloc_device(p, err, errlen)))
		goto fail;
	if ((rc = alloc_host(p))) {
		rt_fail(err, errlen, rc, "out of host memory for the rollout buffers");
		goto fail;
	}
	if ((rc = rt_ppo_env_create(&c->env, &p->env, err, errlen)))
		goto fail;
	if ((rc = init_params(p))) {
		rt_fail(err, errlen, rc, "cannot initialize the network (%s)", rt_strstatus(rc));
		goto fail;
	}
	rt_ppo_env_observe(p->env, p->obs);
	*out = p;
	return 0;
fail:
	rt_ppo_destroy(p);
	return rc;
}

/* The config of a point and shape. */
static void config_of(const rt_point *pt, const rt_shape *sh, rt_ppo_config *c)
{
	rt_ppo_config_default(c);
	c->env.num_envs = (int)sh->v[KEY_ENVS];
	c->env.stocks = (int)sh->v[KEY_STOCKS];
	/* workers are threads beside the learner, as in the transformer's data
	   pipeline: the learner's thread steps envs with them (0: it alone) */
	c->env.workers = pt->workers ? pt->workers + 1 : 0;
	c->rollout = (int)sh->v[KEY_ROLLOUT];
	c->minibatch = (int)sh->v[KEY_MB];
	c->epochs = (int)sh->v[KEY_EPOCHS];
	c->env.env_us = (double)sh->v[KEY_ENV_US];
	c->device = pt->device;
	c->threads = pt->threads;
	c->precision = pt->precision;
}

static int ppo_check(const rt_point *pt, const rt_shape *sh, char *err, size_t errlen)
{
	for (int i = 0; i < (int)RT_COUNT(ppo_keys); i++)
		if (sh->v[i] < ppo_keys[i].min || sh->v[i] > ppo_keys[i].max)
			return rt_fail(err, errlen, RT_EINVAL, "%s must be in [%ld, %ld], not %ld",
				       ppo_keys[i].name, ppo_keys[i].min, ppo_keys[i].max,
				       sh->v[i]);
	if (sh->v[KEY_MB] > sh->v[KEY_ENVS] * sh->v[KEY_ROLLOUT])
		return rt_fail(err, errlen, RT_EINVAL,
			       "minibatch=%ld exceeds the %ld samples of one rollout "
			       "(num_envs * rollout)",
			       sh->v[KEY_MB], sh->v[KEY_ENVS] * sh->v[KEY_ROLLOUT]);
	if (sh->v[KEY_ENVS] * sh->v[KEY_ROLLOUT] > (1L << 26))
		return rt_fail(err, errlen, RT_EINVAL,
			       "num_envs * rollout must be at most %ld samples", 1L << 26);
	if (pt->precision == RT_FP64)
		return rt_fail(err, errlen, RT_EINVAL,
			       "ppo keeps its tensors in fp32: use precision fp32, tf32, bf16 "
			       "or fp16");
	if ((unsigned)pt->precision >= RT_NPRECISION)
		return rt_fail(err, errlen, RT_EINVAL, "unknown precision");
	if (pt->threads < 1)
		return rt_fail(err, errlen, RT_EINVAL, "threads must be at least 1");
	if (pt->workers < 0 || pt->workers > 1024)
		return rt_fail(err, errlen, RT_EINVAL, "workers must be in [0, 1024]");
	return RT_OK;
}

static uint64_t ppo_mem_bytes(const rt_point *pt, const rt_shape *sh)
{
	rt_ppo_config c;

	config_of(pt, sh, &c);
	return rt_ppo_mem_bytes(&c);
}

static int ppo_setup(const rt_point *pt, const rt_shape *sh, const rt_backend_ops *be,
		     void **state, char *err, size_t errlen)
{
	rt_ppo_config c;
	int rc = ppo_check(pt, sh, err, errlen);

	if (rc)
		return rc;
	config_of(pt, sh, &c);
	return rt_ppo_create(&c, be, (rt_ppo **)state, err, errlen);
}

static int ppo_step(void *state, rt_step_result *out, char *err, size_t errlen)
{
	return rt_ppo_iterate(state, out, err, errlen);
}

static void ppo_teardown(void *state)
{
	rt_ppo_destroy(state);
}

static rt_ctx *ppo_context(void *state)
{
	return ((rt_ppo *)state)->ctx;
}

/*
 * The one-sentence bottleneck and the share of the device's phases from a
 * phase split alone (seconds or fractions per phase, in RT_PPO_PH_* order):
 * (policy + update) / total, an upper bound of the device's busy time (the
 * measured one, from events, is the measurement's device_busy). The
 * sentence names the largest phase; for a rollout-bound split it applies
 * Amdahl's law to the env fraction with the free cores (usable_cores -
 * workers - 1: the learner's thread steps envs too) as extra workers. What
 * would speed up an update-bound split is not said here: the phase split
 * cannot tell a device that computes from one that waits on launches; the
 * device's busy share from its events can, and is not a figure of the split.
 * Returns 0, or RT_EINVAL if the total is not positive.
 */
static int ppo_summary(const double *ph, int workers, int usable_cores, char *buf, size_t len,
		       double *device_busy)
{
	double total = 0.0;
	int top = 0;

	for (int i = 0; i < RT_PPO_NPH; i++) {
		total += ph[i];
		if (ph[i] > ph[top])
			top = i;
	}
	if (!(total > 0.0))
		return rt_fail(buf, len, RT_EINVAL, "no time was measured");
	double f = ph[top] / total;
	*device_busy = (ph[RT_PPO_PH_POLICY] + ph[RT_PPO_PH_UPDATE]) / total;
	int w = workers + 1, more = usable_cores - w; /* the learner steps envs too */
	switch (top) {
	case RT_PPO_PH_ENV:
		if (more > 0) {
			/* Amdahl: the env phase shrinks by w / (w + more), the rest stays. */
			double env = ph[top] * w / (w + more);
			snprintf(buf, len,
				 "rollout-bound: %.0f%% of each iteration steps environments; "
				 "%d more worker%s would bring it to about %.0f%%",
				 100 * f, more, more > 1 ? "s" : "",
				 100 * env / (total - ph[top] + env));
		} else {
			snprintf(buf, len,
				 "rollout-bound: %.0f%% of each iteration steps environments and "
				 "every usable core already has a worker",
				 100 * f);
		}
		break;
	case RT_PPO_PH_POLICY:
		snprintf(buf, len,
			 "inference-bound: %.0f%% of each iteration is policy inference on "
			 "small batches; more environments per step fill the device better",
			 100 * f);
		break;
	case RT_PPO_PH_TRANSFER:
		snprintf(buf, len,
			 "transfer-bound: %.0f%% of each iteration moves observations and "
			 "gradients between host and device",
			 100 * f);
		break;
	default:
		snprintf(buf, len,
			 "update-bound: %.0f%% of each iteration is the network update, which "
			 "more workers do not shorten",
			 100 * f);
		break;
	}
	return 0;
}

/*
 * samples/s (env-steps times the epochs that train on each), the share of
 * each iteration in the phases that use the device (device_phases), and the
 * bottleneck (ppo_summary, with the usable cores as the cores to spare).
 */
static int ppo_derive(const rt_point *pt, const rt_shape *sh, double items_per_s,
		      const double *phase_seconds, int usable_cores, rt_derived *out,
		      char *sentence, size_t len)
{
	double busy = 0;
	int n = 0;
	out[n++] = (rt_derived){"samples_per_s", items_per_s * (double)sh->v[KEY_EPOCHS]};
	if (ppo_summary(phase_seconds, pt->workers, usable_cores, sentence, len, &busy) != RT_OK) {
		if (len)
			sentence[0] = '\0';
	} else if (!rt_backend_on_host(pt->backend)) { /* the host has no device apart */
		out[n++] = (rt_derived){"device_phases", busy};
	}
	return n;
}

/*
 * An env-step cost (env_us) from which a process of its own per env pays: an
 * asynchronous vector env (gymnasium's AsyncVectorEnv, SB3's SubprocVecEnv)
 * runs one process per env and crosses a pipe twice a step, and neither can
 * group envs into fewer processes, as rigtune's workers do. Measured on 2
 * cores with a 46 us trading env (bench/bench_advice.py, SB3 2.9): one
 * process per env ran 0.80x of DummyVecEnv at 16 envs and 0.29x at 4, so
 * below a millisecond a step the synchronous class is the advice whatever
 * the point's workers.
 */
#define ASYNC_ENV_US 1000

/* A vector step's fixed cost may take this share of the step (the knee's 5%). */
#define LIBRARY_FIXED_SHARE 0.05
/* The most envs the SB3 line asks for: its rollout holds n_steps x envs samples. */
#define LIBRARY_ENVS_MAX 1024

/*
 * The envs SB3 should step at once. rigtune's C environment steps its envs
 * with no cost per vector step, so the point's num_envs is the knee of a
 * curve that has none; SB3's DummyVecEnv pays one each step whatever the
 * envs (its policy's forward call, Python's loop: cost->fixed_us, timed in
 * the user's Python), and more envs share it. From the point's envs, doubled
 * until that fixed cost is at most LIBRARY_FIXED_SHARE of a vector step whose
 * envs cost SB3's per-env work and the environment's own (env_us).
 */
static long library_envs(const rt_shape *sh, const rt_hint_cost *cost)
{
	long envs = sh->v[KEY_ENVS];
	if (!cost || cost->fixed_us <= 0)
		return envs;
	double per_env = cost->per_env_us + (double)sh->v[KEY_ENV_US];
	while (envs * 2 <= LIBRARY_ENVS_MAX &&
	       cost->fixed_us > LIBRARY_FIXED_SHARE * (cost->fixed_us + (double)envs * per_env))
		envs *= 2;
	return envs;
}

/* SB3's vector env: the class, and the envs (library_envs) with why where they differ. */
static void sb3_vec_line(char *line, const rt_shape *sh, const rt_hint_cost *cost, int async)
{
	long envs = async ? sh->v[KEY_ENVS] : library_envs(sh, cost);
	int n = snprintf(line, RT_HINT_LEN, "env = make_vec_env(make_env, n_envs=%ld, vec_env_cls=%s)",
			 envs, async ? "SubprocVecEnv" : "DummyVecEnv");
	if (envs != sh->v[KEY_ENVS] && n > 0 && n < RT_HINT_LEN)
		snprintf(line + n, RT_HINT_LEN - (size_t)n,
			 "  # more than the point's %ld: they share SB3's %.0f us a vector step (timed here)",
			 sh->v[KEY_ENVS], cost->fixed_us);
}

/* Whether the libraries' envs get a process each (ASYNC_ENV_US). */
static int async_envs(const rt_point *pt, const rt_shape *sh)
{
	return pt->workers > 0 && sh->v[KEY_ENV_US] >= ASYNC_ENV_US;
}

/*
 * SB3's MlpPolicy for PPO (stable-baselines3 2.x: net_arch pi=[64, 64],
 * vf=[64, 64], no shared layer): an actor and a critic of two hidden layers
 * each, then the actions' means and the value; a forward per vector step at
 * its envs (sb3_vec_line's), updates at batch_size. A hand-written PyTorch
 * loop (CleanRL's ppo_continuous_action.py, the reference one) builds the
 * same Agent (actor and critic of 64 tanh units) and steps gymnasium's
 * vector env at the point's envs, as the gymnasium line says.
 */
#define SB3_HIDDEN 64
static int ppo_policy(rt_hint_lib lib, const rt_point *pt, const rt_shape *sh,
		      const rt_hint_cost *cost, rt_policy *out)
{
	if (lib == RT_HINT_GYMNASIUM)
		return 0;
	long envs = lib == RT_HINT_PYTORCH || async_envs(pt, sh) ? sh->v[KEY_ENVS] :
								     library_envs(sh, cost);
	long obs = rt_ppo_env_obs_dim((int)sh->v[KEY_STOCKS]), actions = sh->v[KEY_STOCKS];
	*out = (rt_policy){.nlayers = 4,
			   .layer = {{obs, SB3_HIDDEN, 2},
				     {SB3_HIDDEN, SB3_HIDDEN, 2},
				     {SB3_HIDDEN, actions, 1},
				     {SB3_HIDDEN, 1, 1}},
			   .envs = envs,
			   .minibatch = sh->v[KEY_MB],
			   .epochs = sh->v[KEY_EPOCHS]};
	return 1;
}

/* The device SB3's line names: the one chosen for SB3's own step, else the point's. */
static void sb3_device(const rt_point *pt, const rt_hint_cost *cost, char *device, size_t len)
{
	if (cost && cost->device && cost->device[0])
		snprintf(device, len, "%s", cost->device);
	else
		rt_backend_framework_device(pt->backend, device, len);
}

/*
 * The point's environments as gymnasium's vector classes and Stable-Baselines3
 * take them (ASYNC_ENV_US; SB3's envs from library_envs), and the rollout,
 * minibatch and epochs as SB3's n_steps, batch_size and n_epochs, on the
 * device chosen for SB3's step (cost->device) with why.
 */
static int ppo_hints(rt_hint_lib lib, const rt_point *pt, const rt_shape *sh,
		     const rt_hint_cost *cost, char (*lines)[RT_HINT_LEN], int max)
{
	long envs = sh->v[KEY_ENVS];
	int async = async_envs(pt, sh);
	if (lib == RT_HINT_GYMNASIUM && max >= 1) {
		snprintf(lines[0], RT_HINT_LEN, "envs = gymnasium.vector.%sVectorEnv([make_env] * %ld)%s",
			 async ? "Async" : "Sync", envs,
			 async ? "  # one process per env" : "  # stepped on the learner's thread");
		return 1;
	}
	if (lib == RT_HINT_SB3 && max >= 2) {
		sb3_vec_line(lines[0], sh, cost, async);
		char device[24];
		const char *why = cost && cost->device_why ? cost->device_why : "";
		sb3_device(pt, cost, device, sizeof device);
		snprintf(lines[1], RT_HINT_LEN,
			 "model = PPO('MlpPolicy', env, n_steps=%ld, batch_size=%ld, n_epochs=%ld, "
			 "device='%s')%s%s",
			 sh->v[KEY_ROLLOUT], sh->v[KEY_MB], sh->v[KEY_EPOCHS], device,
			 why[0] ? "  # " : "", why);
		return 2;
	}
	return 0;
}

const rt_workload rt_workload_ppo = {
	.name = "ppo",
	.unit = "env-steps/s",
	.summary = "one PPO iteration: rollout of a vectorized stock-trading environment "
		   "stepped by the learner and `workers`, GAE, clipped-surrogate updates; adds "
		   "samples/s, device_phases and the bottleneck",
	.knobs = RT_KNOB_BIT(workers),
	.budget_weight = 2.0,
	.knee = "num_envs",
	.derive = ppo_derive,
	.hints = ppo_hints,
	.policy = ppo_policy,
	.keys = ppo_keys,
	.nkeys = RT_COUNT(ppo_keys),
	.phase_names = ppo_phases,
	.nphases = RT_COUNT(ppo_phases),
	.host_phases = 1u << RT_PPO_PH_ENV,
	.check = ppo_check,
	.mem_bytes = ppo_mem_bytes,
	.setup = ppo_setup,
	.step = ppo_step,
	.teardown = ppo_teardown,
	.context = ppo_context,
};
