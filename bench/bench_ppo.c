/*
 * bench_ppo: how fast the trading environment steps, and how the rollout
 * scales from 1 to 2 workers (issue 4).
 *
 *   build/bench/bench_ppo [ROUNDS]        (default 7)
 *
 * 1. env-steps/s of one core for the default environment (64 envs x 30
 *    stocks), the bare C environment (env_us=0) stepping alone. Target >= 10M.
 * 2. bare env stepping with 1 and 2 workers, interleaved (A B A B ...), for
 *    64 and 1024 envs. Target >= 1.8x.
 * 3. the whole rollout (env + policy inference + transfers) of the PPO
 *    workload with 1 and 2 workers, threads=1 (one PPO iteration with one
 *    epoch of one minibatch, rollout phases only), interleaved: with the
 *    bare env, where inference dominates and Amdahl caps the ratio, and
 *    with the workload's default env_us (synthetic env code standing for a
 *    Python env step), the field reports' situation, where the target is
 *    meaningful. Target >= 1.6x.
 * Figures are medians over ROUNDS rounds: about 0.3 s each for the env
 * alone, one iteration each for the rollouts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../common/rt.h"
#include "../search/stats.h"
#include "../workloads/cpu_backend.h"
#include "../workloads/ppo.h"

/* An environment and its buffers, with fixed non-zero actions in [-1, 1]. */
typedef struct envrun {
	rt_ppo_env *env;
	float *act, *obs, *rew, *done;
} envrun;

static int envrun_open(envrun *r, int num_envs, int workers)
{
	rt_ppo_env_params p;
	char err[RT_ERRLEN];

	rt_ppo_env_params_default(&p, num_envs, 30);
	p.workers = workers;
	if (rt_ppo_env_create(&p, &r->env, err, sizeof err)) {
		fprintf(stderr, "bench_ppo: %s\n", err);
		return -1;
	}
	size_t ld = (size_t)r->env->ld;
	r->act = calloc(30 * ld, sizeof(float));
	r->obs = calloc((size_t)rt_ppo_env_obs_dim(30) * ld, sizeof(float));
	r->rew = calloc(ld, sizeof(float));
	r->done = calloc(ld, sizeof(float));
	if (!r->act || !r->obs || !r->rew || !r->done)
		return -1;
	for (size_t i = 0; i < 30 * ld; i++)
		r->act[i] = (float)((i * 7919) % 201) / 100.0f - 1.0f;
	return 0;
}

static void envrun_close(envrun *r)
{
	rt_ppo_env_destroy(r->env);
	free(r->act);
	free(r->obs);
	free(r->rew);
	free(r->done);
}

/* env-steps/s over about `seconds` of back-to-back steps. */
static double env_rate(envrun *r, double seconds)
{
	long steps = 0;
	double t0 = rt_now(), t;

	do {
		for (int i = 0; i < 50; i++)
			rt_ppo_env_step(r->env, r->act, r->rew, r->done, r->obs);
		steps += 50;
	} while ((t = rt_now() - t0) < seconds);
	return (double)steps * r->env->p.num_envs / t;
}

/* Median env-steps/s of 1 and 2 workers, interleaved; returns -1 on failure. */
static int env_scaling(int num_envs, int rounds, double *one, double *two)
{
	envrun a, b;
	double sa[64], sb[64];

	if (envrun_open(&a, num_envs, 1) || envrun_open(&b, num_envs, 2))
		return -1;
	env_rate(&a, 0.1);
	env_rate(&b, 0.1);
	for (int i = 0; i < rounds; i++) {
		sa[i] = env_rate(&a, 0.3);
		sb[i] = env_rate(&b, 0.3);
	}
	*one = rt_median(sa, rounds);
	*two = rt_median(sb, rounds);
	envrun_close(&a);
	envrun_close(&b);
	return 0;
}

/* Rollout env-steps/s of one PPO iteration (env + policy + transfer phases). */
static double rollout_rate(rt_ppo *p)
{
	rt_step_result res;
	char err[RT_ERRLEN];

	if (rt_ppo_iterate(p, &res, err, sizeof err)) {
		fprintf(stderr, "bench_ppo: %s\n", err);
		return 0;
	}
	return res.items / (res.phase[RT_PPO_PH_ENV] + res.phase[RT_PPO_PH_POLICY] +
			    res.phase[RT_PPO_PH_TRANSFER]);
}

/*
 * Median rollout env-steps/s with 1 and 2 workers (interleaved) at env_us,
 * and the env's share of the 1-worker rollout; -1 on failure.
 */
static int rollout_scaling(int rounds, double env_us, double *one, double *two,
			   double *env_frac)
{
	const rt_backend_ops *be = rt_cpu_backend();
	char err[RT_ERRLEN];
	rt_ppo *p[2];
	double s[2][64];
	rt_ppo_config c;

	if (be->init(err, sizeof err) < 1) {
		fprintf(stderr, "bench_ppo: %s\n", err);
		return -1;
	}
	for (int w = 0; w < 2; w++) {
		rt_ppo_config_default(&c);
		c.env.workers = w + 1;
		c.env.env_us = env_us;
		c.epochs = 1;
		c.minibatch = c.env.num_envs * c.rollout;
		if (rt_ppo_create(&c, be, &p[w], err, sizeof err)) {
			fprintf(stderr, "bench_ppo: %s\n", err);
			return -1;
		}
		rollout_rate(p[w]);
	}
	for (int i = 0; i < rounds; i++)
		for (int w = 0; w < 2; w++)
			s[w][i] = rollout_rate(p[w]);
	*one = rt_median(s[0], rounds);
	*two = rt_median(s[1], rounds);
	rt_step_result res;
	rt_ppo_iterate(p[0], &res, err, sizeof err);
	*env_frac = res.phase[RT_PPO_PH_ENV] / (res.phase[RT_PPO_PH_ENV] +
						res.phase[RT_PPO_PH_POLICY] +
						res.phase[RT_PPO_PH_TRANSFER]);
	rt_ppo_destroy(p[0]);
	rt_ppo_destroy(p[1]);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	double one, two, frac;
	envrun r;

	if (rounds < 1 || rounds > 64)
		rounds = 7;
	if (envrun_open(&r, 64, 0))
		return 1;
	env_rate(&r, 0.2);
	double rate[64];
	for (int i = 0; i < rounds; i++)
		rate[i] = env_rate(&r, 0.3);
	envrun_close(&r);
	one = rt_median(rate, rounds);
	printf("env stepping, 64 envs x 30 stocks, 1 core: %.2fM env-steps/s "
	       "(target >= 10M: %s)\n", one / 1e6, one >= 10e6 ? "met" : "NOT met");

	for (int n = 64; n <= 1024; n *= 16) {
		if (env_scaling(n, rounds, &one, &two))
			return 1;
		printf("env stepping, %d envs: 1 worker %.2fM, 2 workers %.2fM env-steps/s, "
		       "%.2fx (target >= 1.8x: %s)\n", n, one / 1e6, two / 1e6, two / one,
		       two / one >= 1.8 ? "met" : "NOT met");
	}
	long env_us = rt_workload_ppo.keys[rt_shape_index(&rt_workload_ppo, "env_us")].def;
	for (int k = 0; k < 2; k++) {
		if (rollout_scaling(rounds, k ? (double)env_us : 0.0, &one, &two, &frac))
			return 1;
		printf("whole rollout (env + policy inference + transfer), 64 envs, threads=1, "
		       "env_us=%ld: 1 worker %.0f, 2 workers %.0f env-steps/s, %.2fx "
		       "(target >= 1.6x: %s); the env is %.0f%% of the 1-worker rollout, so "
		       "Amdahl caps the ratio at %.2fx\n", k ? env_us : 0L, one, two, two / one,
		       two / one >= 1.6 ? "met" : "NOT met", 100 * frac,
		       1.0 / (1.0 - frac / 2));
	}
	return 0;
}
