/*
 * ppo.h: the PPO workload: actor-critic training on the vectorized trading
 * environment (ppo_env.h), the RL pattern of rigtune's users where the
 * environment rollout runs on the CPU and the network on the device.
 *
 * One step = one PPO iteration: `rollout` steps of (policy inference over
 * num_envs on the backend, actions sampled on the host, environment step),
 * GAE on the host, then `epochs` passes over shuffled minibatches (forward
 * on the backend, the loss gradient w.r.t. the network outputs on the host,
 * backward through the backend's GEMMs, Adam on the backend).
 * Network: obs -> 64 -> 64 (tanh) -> [mean (stocks), value (1)], with a
 * state-independent log-std per action; all parameters in one device buffer.
 * Phases: env, policy (inference and sampling), transfer (uploads and
 * downloads), update. items = num_envs * rollout env-steps.
 */
#ifndef RT_PPO_H
#define RT_PPO_H

#include <stddef.h>
#include <stdint.h>

#include "ppo_env.h"
#include "workload.h"

extern const rt_workload rt_workload_ppo;

enum { RT_PPO_PH_ENV, RT_PPO_PH_POLICY, RT_PPO_PH_TRANSFER, RT_PPO_PH_UPDATE, RT_PPO_NPH };

/* Everything one PPO run is made of; rt_ppo_config_default fills it. */
typedef struct rt_ppo_config {
	int rollout, minibatch, epochs;
	int device, threads;
	rt_precision precision;     /* GEMM precision; the tensors are fp32 */
	rt_ppo_env_params env;      /* num_envs, stocks, workers live here */
	float lr;                   /* Adam learning rate */
	uint64_t seed;              /* weights, sampling, shuffling */
} rt_ppo_config;

void rt_ppo_config_default(rt_ppo_config *c);

typedef struct rt_ppo rt_ppo;

/* Opens the device, checks memory, allocates and initializes the run. */
int rt_ppo_create(const rt_ppo_config *c, const rt_backend_ops *be, rt_ppo **out, char *err,
		  size_t errlen);
void rt_ppo_destroy(rt_ppo *p); /* accepts NULL */

/* One PPO iteration; fills items, flops and the phase times. */
int rt_ppo_iterate(rt_ppo *p, rt_step_result *out, char *err, size_t errlen);

/* Mean return of the episodes that ended in the last iteration; NAN if none. */
double rt_ppo_mean_return(const rt_ppo *p);

/* Bytes of device memory a run needs. */
uint64_t rt_ppo_mem_bytes(const rt_ppo_config *c);

/*
 * The PPO loss of one minibatch and its gradient w.r.t. the network
 * outputs (clip 0.2, value coefficient 0.5, entropy coefficient 0.01):
 *   L = -mean(min(r A, clip(r, 0.8, 1.2) A)) + 0.5 mean((V - R)^2)
 *       - 0.01 entropy,  r = exp(logp(a) - logp_old),
 * logp the diagonal Gaussian log-density of a with mean out[i][0..na) and
 * log-std logstd. Writes dout (n x (na + 1): d/dmean, then d/dvalue) and
 * dlogstd (na), returns L.
 */
typedef struct rt_ppo_batch {
	int n, na;
	const float *out;       /* n x (na + 1): means, then the value */
	const float *logstd;    /* na */
	const float *act;       /* n x na, the sampled (unclipped) actions */
	const float *logp_old;  /* n */
	const float *adv;       /* n, normalized advantages */
	const float *ret;       /* n, returns (value targets) */
} rt_ppo_batch;

double rt_ppo_loss_grad(const rt_ppo_batch *b, float *dout, float *dlogstd);

#endif
