/*
 * Tests of the vectorized trading environment (workloads/ppo_env.c):
 * determinism for a seed, the vectorized step against the scalar reference,
 * the indicators against direct (non-incremental) sums over the price
 * history, 1 worker against 2, the cash and holdings constraints, and the
 * synthetic environment code (env_us) changing nothing but the time.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/rng.h"
#include "../common/rt.h"
#include "../workloads/ppo_env.h"

/* Caller buffers for one environment, stride ld. */
typedef struct bufs {
	float *act, *obs, *rew, *done;
	size_t nact, nobs;
} bufs;

static void bufs_init(bufs *b, const rt_ppo_env *env)
{
	size_t ld = (size_t)env->ld;

	b->nact = (size_t)env->p.stocks * ld;
	b->nobs = (size_t)rt_ppo_env_obs_dim(env->p.stocks) * ld;
	b->act = calloc(b->nact, sizeof(float));
	b->obs = calloc(b->nobs, sizeof(float));
	b->rew = calloc(ld, sizeof(float));
	b->done = calloc(ld, sizeof(float));
	assert_non_null(b->act);
	assert_non_null(b->obs);
	assert_non_null(b->rew);
	assert_non_null(b->done);
}

static void bufs_free(bufs *b)
{
	free(b->act);
	free(b->obs);
	free(b->rew);
	free(b->done);
}

/* Random actions in [-1.2, 1.2] (past the clamp on purpose) for the real envs. */
static void random_actions(rt_rng *r, const rt_ppo_env *env, float *act)
{
	for (int s = 0; s < env->p.stocks; s++)
		for (int e = 0; e < env->p.num_envs; e++)
			act[(size_t)s * (size_t)env->ld + (size_t)e] =
				(float)(2.4 * rt_rng_uniform(r) - 1.2);
}

static rt_ppo_env *make_env(const rt_ppo_env_params *p)
{
	char err[RT_ERRLEN];
	rt_ppo_env *env = NULL;
	int rc = rt_ppo_env_create(p, &env, err, sizeof err);

	if (rc)
		fail_msg("create: %s", err);
	return env;
}

/* Every state array of the real envs, bitwise. */
static void assert_same_state(const rt_ppo_env *a, const rt_ppo_env *b)
{
	size_t ld = (size_t)a->ld;

	for (int j = 0; j < RT_PPO_NFIELD; j++)
		for (int s = 0; s < a->p.stocks; s++)
			assert_memory_equal(a->f[j] + (size_t)s * ld, b->f[j] + (size_t)s * ld,
					    (size_t)a->p.num_envs * sizeof(float));
	assert_memory_equal(a->cash, b->cash, (size_t)a->p.num_envs * sizeof(float));
	assert_memory_equal(a->value, b->value, (size_t)a->p.num_envs * sizeof(float));
	assert_memory_equal(a->t, b->t, (size_t)a->p.num_envs * sizeof(int32_t));
	for (int j = 0; j < 4; j++)
		assert_memory_equal(a->rng[j], b->rng[j], (size_t)a->p.num_envs * sizeof(uint32_t));
}

/* The observation columns, rewards and dones of the real envs, bitwise. */
static void assert_same_outputs(const rt_ppo_env *env, const bufs *x, const bufs *y)
{
	size_t ld = (size_t)env->ld, n = (size_t)env->p.num_envs;

	for (int f = 0; f < rt_ppo_env_obs_dim(env->p.stocks); f++)
		assert_memory_equal(x->obs + (size_t)f * ld, y->obs + (size_t)f * ld,
				    n * sizeof(float));
	assert_memory_equal(x->rew, y->rew, n * sizeof(float));
	assert_memory_equal(x->done, y->done, n * sizeof(float));
}

/* Two environments of one seed, same actions: equal bitwise, across resets. */
static void test_deterministic(void **state)
{
	(void)state;
	rt_ppo_env_params p;
	rt_rng r;

	rt_ppo_env_params_default(&p, 20, 7);
	p.episode_len = 60;
	p.seed = 42;
	rt_ppo_env *a = make_env(&p), *b = make_env(&p);
	bufs x, y;
	bufs_init(&x, a);
	bufs_init(&y, b);
	rt_rng_seed(&r, 7);
	for (int t = 0; t < 150; t++) {
		random_actions(&r, a, x.act);
		memcpy(y.act, x.act, x.nact * sizeof(float));
		rt_ppo_env_step(a, x.act, x.rew, x.done, x.obs);
		rt_ppo_env_step(b, y.act, y.rew, y.done, y.obs);
		assert_same_outputs(a, &x, &y);
	}
	assert_same_state(a, b);
	/* A different seed gives different prices. */
	p.seed = 43;
	rt_ppo_env *c = make_env(&p);
	assert_true(memcmp(a->f[RT_PPO_CLOSE], c->f[RT_PPO_CLOSE], 20 * sizeof(float)) != 0);
	rt_ppo_env_destroy(c);
	bufs_free(&x);
	bufs_free(&y);
	rt_ppo_env_destroy(a);
	rt_ppo_env_destroy(b);
}

/*
 * The vectorized step against the scalar reference, env by env, for 200
 * steps with random actions: 37 envs (a partial last tile), episodes of 45
 * steps (four auto-resets), state and outputs equal bitwise.
 */
static void test_vector_equals_reference(void **state)
{
	(void)state;
	rt_ppo_env_params p;
	rt_rng r;
	int resets = 0;

	rt_ppo_env_params_default(&p, 37, 9);
	p.episode_len = 45;
	p.max_trade = 2000.0f; /* the cash cap binds now and then */
	rt_ppo_env *a = make_env(&p), *b = make_env(&p);
	bufs x, y;
	bufs_init(&x, a);
	bufs_init(&y, b);
	rt_rng_seed(&r, 11);
	for (int t = 0; t < 200; t++) {
		random_actions(&r, a, x.act);
		memcpy(y.act, x.act, x.nact * sizeof(float));
		rt_ppo_env_step(a, x.act, x.rew, x.done, x.obs);
		for (int e = 0; e < p.num_envs; e++)
			rt_ppo_env_step_ref(b, e, y.act, y.rew, y.done, y.obs);
		assert_same_outputs(a, &x, &y);
		resets += x.done[0] == 1.0f;
	}
	assert_same_state(a, b);
	assert_int_equal(resets, 4);
	bufs_free(&x);
	bufs_free(&y);
	rt_ppo_env_destroy(a);
	rt_ppo_env_destroy(b);
}

/*
 * Steps three envs made alike (but for workers or env_us) with the same
 * seeded random actions and asserts every output and, at the end, the whole
 * state equal to a's.
 */
static void step_three_alike(rt_ppo_env *a, rt_ppo_env *b, rt_ppo_env *c, int steps,
			     uint64_t seed)
{
	rt_rng r;
	bufs x, y, z;
	bufs_init(&x, a);
	bufs_init(&y, b);
	bufs_init(&z, c);
	rt_rng_seed(&r, seed);
	for (int t = 0; t < steps; t++) {
		random_actions(&r, a, x.act);
		memcpy(y.act, x.act, x.nact * sizeof(float));
		memcpy(z.act, x.act, x.nact * sizeof(float));
		rt_ppo_env_step(a, x.act, x.rew, x.done, x.obs);
		rt_ppo_env_step(b, y.act, y.rew, y.done, y.obs);
		rt_ppo_env_step(c, z.act, z.rew, z.done, z.obs);
		assert_same_outputs(a, &x, &y);
		assert_same_outputs(a, &x, &z);
	}
	assert_same_state(a, b);
	assert_same_state(a, c);
	bufs_free(&x);
	bufs_free(&y);
	bufs_free(&z);
}

/* 1 worker and 2 workers (and 3, uneven chunks) give identical results. */
static void test_workers_identical(void **state)
{
	(void)state;
	rt_ppo_env_params p;

	rt_ppo_env_params_default(&p, 100, 30);
	p.episode_len = 70;
	rt_ppo_env *a = make_env(&p);
	p.workers = 2;
	rt_ppo_env *b = make_env(&p);
	p.workers = 3;
	rt_ppo_env *c = make_env(&p);
	step_three_alike(a, b, c, 200, 5);
	rt_ppo_env_destroy(a);
	rt_ppo_env_destroy(b);
	rt_ppo_env_destroy(c);
}

/* EMA with float alpha a, computed in double as an explicit weighted sum. */
static double ema_direct(const double *x, int t, double a, double x0)
{
	double sum = pow(1.0 - a, t) * x0;

	for (int k = 1; k <= t; k++)
		sum += a * pow(1.0 - a, t - k) * x[k];
	return sum;
}

#define NSTEP 300

/*
 * The indicators of one env against direct sums over its recorded price
 * history (closes, highs, lows after each step): MACD = EMA12 - EMA26 and
 * its EMA9 signal, RSI from Wilder sums of gains and losses, the CCI
 * approximation and ADX, each as stated in ppo_env.h.
 */
static void test_indicators_direct(void **state)
{
	(void)state;
	rt_ppo_env_params p;
	rt_rng r;
	static double c[NSTEP + 1], h[NSTEP + 1], l[NSTEP + 1];
	static double g[NSTEP + 1], lo[NSTEP + 1], tp[NSTEP + 1], dev[NSTEP + 1];
	static double pdm[NSTEP + 1], mdm[NSTEP + 1], dx[NSTEP + 1], macd[NSTEP + 1];
	const int S = 3, E = 5, e = 2;
	const double a12 = (float)(2.0f / 13.0f), a26 = (float)(2.0f / 27.0f);
	const double a9 = (float)(2.0f / 10.0f), a20 = (float)(2.0f / 21.0f);
	const double w = (float)(1.0f / 14.0f);

	rt_ppo_env_params_default(&p, E, S);
	p.episode_len = NSTEP + 10;
	p.vol = 0.03f;
	rt_ppo_env *env = make_env(&p);
	bufs x;
	bufs_init(&x, env);
	size_t ld = (size_t)env->ld, fs = (size_t)S * ld;
	rt_rng_seed(&r, 3);
	for (int s = 0; s < S; s++) {
		/* Replays the run for each stock; the history of stock s of env e. */
		rt_ppo_env_destroy(env);
		env = make_env(&p);
		size_t i = (size_t)s * ld + (size_t)e;
		c[0] = h[0] = l[0] = env->f[RT_PPO_CLOSE][i];
		for (int t = 1; t <= NSTEP; t++) {
			random_actions(&r, env, x.act);
			rt_ppo_env_step(env, x.act, x.rew, x.done, x.obs);
			c[t] = env->f[RT_PPO_CLOSE][i];
			h[t] = env->f[RT_PPO_HIGH][i];
			l[t] = env->f[RT_PPO_LOW][i];
			assert_true(h[t] >= c[t] && l[t] <= c[t] && h[t] >= c[t - 1] &&
				    l[t] <= c[t - 1]);
		}
		int T = NSTEP;
		double cT = c[T];
		for (int k = 1; k <= T; k++) {
			macd[k] = ema_direct(c, k, a12, c[0]) - ema_direct(c, k, a26, c[0]);
			double d = c[k] - c[k - 1];
			g[k] = d > 0 ? d : 0;
			lo[k] = d < 0 ? -d : 0;
			tp[k] = (h[k] + l[k] + c[k]) / 3.0;
			double up = h[k] - h[k - 1], down = l[k - 1] - l[k];
			pdm[k] = up > down && up > 0 ? up : 0;
			mdm[k] = down > up && down > 0 ? down : 0;
		}
		macd[0] = 0;
		double sig = ema_direct(macd, T, a9, 0.0);
		assert_float_equal(x.obs[fs + (size_t)e + (size_t)s * ld], macd[T] / cT, 2e-5);
		assert_float_equal(x.obs[2 * fs + (size_t)e + (size_t)s * ld], sig / cT, 2e-5);
		double ag = ema_direct(g, T, w, 0.0), al = ema_direct(lo, T, w, 0.0);
		assert_float_equal(x.obs[3 * fs + (size_t)e + (size_t)s * ld], ag / (ag + al), 1e-4);
		/* CCI: the EMA mean and the EMA of |tp - mean| (see ppo_env.h). */
		double mean = c[0];
		for (int k = 1; k <= T; k++) {
			mean += a20 * (tp[k] - mean);
			dev[k] = fabs(tp[k] - mean);
		}
		dev[0] = 0;
		double cci = (tp[T] - ema_direct(tp, T, a20, c[0])) / (0.015 * ema_direct(dev, T, a20, 0.0));
		assert_float_equal(x.obs[4 * fs + (size_t)e + (size_t)s * ld], cci / 100.0, 2e-3);
		double dp = 0, dm = 0;
		for (int k = 1; k <= T; k++) {
			dp = ema_direct(pdm, k, w, 0.0);
			dm = ema_direct(mdm, k, w, 0.0);
			dx[k] = dp + dm > 0 ? 100.0 * fabs(dp - dm) / (dp + dm) : 0.0;
		}
		dx[0] = 0;
		assert_float_equal(x.obs[5 * fs + (size_t)e + (size_t)s * ld],
				   ema_direct(dx, T, w, 0.0) / 100.0, 1e-3);
		/* The normalized close itself. */
		assert_float_equal(x.obs[(size_t)e + (size_t)s * ld], cT / 100.0, 1e-6);
	}
	bufs_free(&x);
	rt_ppo_env_destroy(env);
}

/*
 * Aggressive random trading (max_trade far past what the cash buys): cash
 * and holdings never go negative, holdings stay whole shares, the cash cap
 * is reached, and the reward is the scaled change of portfolio value.
 */
static void test_constraints(void **state)
{
	(void)state;
	rt_ppo_env_params p;
	rt_rng r;
	float low_cash = 1e30f;

	rt_ppo_env_params_default(&p, 48, 30);
	p.episode_len = 80;
	p.max_trade = 100000.0f;
	p.workers = 2;
	rt_ppo_env *env = make_env(&p);
	bufs x;
	bufs_init(&x, env);
	size_t ld = (size_t)env->ld;
	rt_rng_seed(&r, 9);
	for (int t = 0; t < 300; t++) {
		float before[64];
		memcpy(before, env->value, sizeof(float) * (size_t)p.num_envs);
		random_actions(&r, env, x.act);
		rt_ppo_env_step(env, x.act, x.rew, x.done, x.obs);
		for (int e = 0; e < p.num_envs; e++) {
			assert_true(env->cash[e] >= 0.0f);
			if (env->cash[e] < low_cash)
				low_cash = env->cash[e];
			for (int s = 0; s < p.stocks; s++) {
				float hd = env->f[RT_PPO_HOLD][(size_t)s * ld + (size_t)e];
				assert_true(hd >= 0.0f);
				assert_true(hd == floorf(hd));
			}
			if (x.done[e] == 0.0f) {
				double want = ((double)env->value[e] - before[e]) * p.reward_scale;
				assert_float_equal(x.rew[e], want, 1e-3 * fabs(want) + 1e-4);
			}
		}
	}
	assert_true(low_cash < 0.01f * p.cash0); /* the cap was exercised */
	bufs_free(&x);
	rt_ppo_env_destroy(env);
}

/*
 * env_us costs time, never results: inline with no synthetic code against
 * env_us=5 on 2 and on 3 workers (37 envs: the envs are then split one by
 * one, so tiles are split between workers), 60 steps across resets, every
 * output and state bitwise equal. The code did run: work was calibrated
 * and every real env's sink moved, no padding lane's did.
 */
static void test_env_us_changes_no_result(void **state)
{
	(void)state;
	rt_ppo_env_params p;

	rt_ppo_env_params_default(&p, 37, 5);
	p.episode_len = 25;
	rt_ppo_env *a = make_env(&p);
	p.env_us = 5.0;
	p.workers = 2;
	rt_ppo_env *b = make_env(&p);
	p.workers = 3;
	rt_ppo_env *c = make_env(&p);
	assert_int_equal(a->work, 0);
	assert_true(b->work > 0 && c->work > 0);
	uint64_t sink0[37];
	memcpy(sink0, b->sink, sizeof sink0);
	step_three_alike(a, b, c, 60, 17);
	for (int e = 0; e < 37; e++)
		assert_true(b->sink[e] != sink0[e]);
	for (int e = 37; e < b->ld; e++)
		assert_true(b->sink[e] == 0);
	rt_ppo_env_destroy(a);
	rt_ppo_env_destroy(b);
	rt_ppo_env_destroy(c);
}

/*
 * env_us=50 makes an env-step cost at least 25 us. The calibration takes
 * the fastest of its runs, so a loaded machine only makes steps slower:
 * the bound cannot flake, yet synthetic code that did nothing would fail it
 * (the bare step is ~0.1 us).
 */
static void test_env_us_costs_time(void **state)
{
	(void)state;
	rt_ppo_env_params p;
	rt_rng r;

	rt_ppo_env_params_default(&p, 4, 3);
	p.env_us = 50.0;
	rt_ppo_env *env = make_env(&p);
	bufs x;
	bufs_init(&x, env);
	rt_rng_seed(&r, 19);
	random_actions(&r, env, x.act);
	double t0 = rt_now();
	for (int t = 0; t < 20; t++)
		rt_ppo_env_step(env, x.act, x.rew, x.done, x.obs);
	double per = (rt_now() - t0) / (20.0 * p.num_envs);
	print_message("# env_us=50: %.1f us per env-step\n", per * 1e6);
	assert_true(per >= 25e-6);
	bufs_free(&x);
	rt_ppo_env_destroy(env);
}

/* Impossible parameters are refused with a sentence. */
static void test_bad_params(void **state)
{
	(void)state;
	rt_ppo_env_params p;
	rt_ppo_env *env = (rt_ppo_env *)&p;
	char err[RT_ERRLEN] = "";

	rt_ppo_env_params_default(&p, 0, 30);
	assert_int_equal(rt_ppo_env_create(&p, &env, err, sizeof err), RT_EINVAL);
	assert_null(env);
	assert_non_null(strstr(err, "num_envs"));
	rt_ppo_env_params_default(&p, 4, 30);
	p.cost = 1.5f;
	assert_int_equal(rt_ppo_env_create(&p, &env, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "cost"));
	p.cost = 0.0f;
	p.env_us = -1.0;
	assert_int_equal(rt_ppo_env_create(&p, &env, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "env_us"));
	p.env_us = NAN;
	assert_int_equal(rt_ppo_env_create(&p, &env, err, sizeof err), RT_EINVAL);
	rt_ppo_env_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_vector_equals_reference),
		cmocka_unit_test(test_workers_identical),
		cmocka_unit_test(test_indicators_direct),
		cmocka_unit_test(test_constraints),
		cmocka_unit_test(test_env_us_changes_no_result),
		cmocka_unit_test(test_env_us_costs_time),
		cmocka_unit_test(test_bad_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
