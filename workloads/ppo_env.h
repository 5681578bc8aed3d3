/*
 * ppo_env.h: a vectorized stock-trading environment (FinRL-style) for the
 * PPO workload.
 *
 * num_envs environments trade `stocks` assets each. Prices follow a seeded
 * geometric Brownian motion, one random stream per environment; each step
 * updates MACD, RSI, CCI and ADX incrementally, executes the action (one
 * value in [-1, 1] per stock, scaled to whole shares by max_trade; a sale is
 * capped by the holding, a purchase by the cash, both pay `cost` of the
 * traded value), and rewards the scaled change of portfolio value. After
 * episode_len steps an environment resets itself (auto-reset) and reports
 * done = 1; the observation it returns is then the first of the new episode.
 *
 * Layout (structure of arrays): every per-stock field is one array indexed
 * [stock * ld + env], every per-env field one array indexed [env], where ld
 * is num_envs rounded up to RT_PPO_TILE (16 floats = one 64-byte line). The
 * inner loops run over the envs of a tile, contiguous, and vectorize; a
 * worker steps whole tiles, so it owns whole cache lines of every array.
 * Lanes past num_envs are padding: stepped like the others, never reported.
 *
 * Caller buffers use the same stride ld (rt_ppo_env_ld()):
 *   actions  stocks x ld   actions[s * ld + e]
 *   obs      obs_dim x ld  obs[f * ld + e] (feature-major: env e's
 *                          observation is column e, so a GEMM reads it
 *                          with op(A) = A^T)
 *   rewards, dones  ld     (dones are 1.0f or 0.0f)
 * The padding lanes of `actions` must hold finite values (0 is fine).
 *
 * Observation of env e, feature rows in this order (obs_dim = 7*stocks + 1):
 *   close / price_ref, macd / close, signal / close, rsi / 100, cci / 100,
 *   adx / 100, holdings / max_trade (each `stocks` rows), then cash / cash0.
 *
 * Indicator definitions (the tests check them against direct sums):
 *   EMA_n(x)_t = EMA_{t-1} + 2/(n+1) (x_t - EMA_{t-1}); MACD = EMA12 - EMA26
 *   of the close, signal = EMA9 of MACD (starting at 0).
 *   RSI(14), Wilder: avg_gain += (gain - avg_gain)/14, likewise the loss;
 *   RSI = 100 avg_gain / (avg_gain + avg_loss), 50 while both are 0.
 *   CCI(20), incremental approximation: the 20-step SMA of the typical price
 *   tp = (high + low + close)/3 is replaced by its EMA (alpha 2/21), and the
 *   mean deviation by the EMA of |tp - mean|; CCI = (tp - mean)/(0.015 dev),
 *   0 while dev is 0.
 *   ADX(14), Wilder: +DM = up if up > down and up > 0 (up = high - prev
 *   high, down = prev low - low), -DM likewise; both smoothed with 1/14;
 *   DX = 100 |+DM_s - -DM_s| / (+DM_s + -DM_s) (the ATR of +DI and -DI
 *   cancels, so it is not kept), 0 while both are 0; ADX += (DX - ADX)/14.
 *   Synthetic high/low: high = max(close, prev close) (1 + hl_spread u1),
 *   low = min(close, prev close) (1 - hl_spread u2), u1, u2 uniform.
 *
 * Prices: log-return = drift - vol^2/2 + vol z. z is Irwin-Hall: the sum of
 * four 16-bit uniforms, centred and scaled to variance 1 (bounded at
 * +-3.46, a cheap vectorizable stand-in for a normal); exp() of the
 * log-return, clamped to [-0.25, 0.25], is a degree-6 polynomial (relative
 * error < 2e-8 there). The generator is xoshiro128** per environment, seeded
 * from rt_rng (common/rng.h) with (seed, env index).
 *
 * Synthetic environment code (env_us): a real environment (FinRL's, in
 * Python) spends tens of microseconds per env-step in interpreted code, not
 * the ~0.1 us this one needs. With env_us > 0 every env-step of a real env
 * also runs about env_us of integer arithmetic on that env's state (see
 * busy_env() in ppo_env.c), done by the worker that steps the env, so
 * workers parallelize it as they would the real thing. Its amount is
 * calibrated at create; its result goes to `sink` only, so it changes the
 * cost of a step, never its prices, rewards or observations.
 */
#ifndef RT_PPO_ENV_H
#define RT_PPO_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "pool.h"

#define RT_PPO_TILE 16 /* envs per tile: one 64-byte line of floats */
#define RT_PPO_NFEAT 7 /* observation rows per stock */

typedef struct rt_ppo_env_params {
	int num_envs;       /* >= 1 */
	int stocks;         /* >= 1 */
	int episode_len;    /* steps per episode, >= 1 */
	int workers;        /* stepping threads; 0 or 1 = inline on the caller */
	uint64_t seed;
	float drift;        /* GBM drift per step */
	float vol;          /* GBM volatility per step, >= 0 */
	float price_lo;     /* initial prices uniform in [price_lo, price_hi] */
	float price_hi;
	float hl_spread;    /* synthetic high/low spread, fraction of the close */
	float max_trade;    /* shares traded at |action| = 1 */
	float cost;         /* transaction cost, fraction of the traded value */
	float cash0;        /* cash at reset */
	float reward_scale; /* reward = reward_scale * change of portfolio value */
	double env_us;      /* synthetic code per env-step, microseconds, [0, 1e5] */
} rt_ppo_env_params;

/* Per-stock fields, each an array [stock * ld + env]. */
enum rt_ppo_field {
	RT_PPO_CLOSE, RT_PPO_HIGH, RT_PPO_LOW, RT_PPO_EMA12, RT_PPO_EMA26,
	RT_PPO_SIGNAL, RT_PPO_GAIN, RT_PPO_LOSS, RT_PPO_CCI_MEAN, RT_PPO_CCI_DEV,
	RT_PPO_DM_PLUS, RT_PPO_DM_MINUS, RT_PPO_ADX, RT_PPO_HOLD,
	RT_PPO_NFIELD
};


/* The state is public so that tests can read every field; do not write it. */
typedef struct rt_ppo_env {
	rt_ppo_env_params p;
	int ld;                       /* num_envs rounded up to RT_PPO_TILE */
	float *f[RT_PPO_NFIELD];      /* stocks x ld each */
	float *cash;                  /* ld: cash */
	float *value;                 /* ld: portfolio value after the last step */
	float *acc;                   /* ld: scratch, the holdings' value in a step */
	int32_t *t;                   /* ld: step within the episode */
	uint32_t *rng[4];             /* ld each: xoshiro128** state per env */
	uint64_t *sink;               /* ld: result of the synthetic code per env */
	long work;                    /* its units per env-step (calibrated) */
	rt_pool *workers;             /* NULL when stepping inline */
} rt_ppo_env;

/*
 * Defaults for n envs of s stocks: episode 200 steps, drift 2e-4, vol 0.02,
 * prices 50..150, spread 0.01, 100 shares per unit action, cost 0.1%,
 * cash 1e6, reward scale 1e-4, seed 1, inline stepping, no synthetic code
 * (env_us 0).
 */
void rt_ppo_env_params_default(rt_ppo_env_params *p, int num_envs, int stocks);

/* 7*stocks + 1. */
int rt_ppo_env_obs_dim(int stocks);

/* num_envs rounded up to RT_PPO_TILE: the stride of every caller buffer. */
int rt_ppo_env_ld(int num_envs);

/*
 * Checks the parameters, allocates, resets every env from its stream,
 * calibrates the synthetic code to env_us and starts the worker threads
 * (workers - 1 of them; the caller is one).
 * RT_EINVAL with the reason for bad parameters, RT_ENOMEM, RT_ERUNTIME.
 */
int rt_ppo_env_create(const rt_ppo_env_params *p, rt_ppo_env **env, char *err,
		      size_t errlen);
void rt_ppo_env_destroy(rt_ppo_env *env); /* accepts NULL */

/* Writes the observation of every env's current state into obs. */
void rt_ppo_env_observe(const rt_ppo_env *env, float *obs);

/*
 * Steps every env once with its workers (the vectorized path): reads
 * actions, writes rewards, dones and the next observations.
 */
void rt_ppo_env_step(rt_ppo_env *env, const float *actions, float *rewards, float *dones,
		     float *obs);

/*
 * The reference: steps env e alone with plain scalar loops, writing its
 * reward, done and observation column. Stepping every e in turn must give
 * the same state and outputs as rt_ppo_env_step (the tests check it).
 */
void rt_ppo_env_step_ref(rt_ppo_env *env, int e, const float *actions, float *rewards,
			 float *dones, float *obs);

#endif
