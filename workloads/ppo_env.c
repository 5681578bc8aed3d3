/*
 * The vectorized trading environment: see ppo_env.h for the model, the
 * layout and the indicator definitions.
 *
 * The mathematics of one stock of one env lives once, in step_rows(), which
 * works on n contiguous lanes of one stock row. The vectorized path calls
 * it with n = RT_PPO_TILE (a constant trip count over restrict pointers, so
 * the compiler vectorizes it without alias checks or epilogue; a tile split
 * between workers pads its part to the full width with valid copies); the
 * scalar reference calls it with n = 1 for one env at a time. Both therefore do the
 * same IEEE operations in the same order (C11 mode leaves FMA contraction
 * off), and the tests can ask for bitwise equality: what they check is the
 * tiling, the chunking over workers and the per-env random streams.
 */
#include "ppo_env.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "../common/rt.h"
#include "synthetic_work.h"

/* Build the hot loop for AVX-512 and AVX2 as well, chosen at load time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HOT_CLONES
#endif

#define T RT_PPO_TILE

/* Smoothing constants: EMA alpha = 2/(n+1), Wilder = 1/n. */
#define A9 (2.0f / 10.0f)
#define A12 (2.0f / 13.0f)
#define A20 (2.0f / 21.0f)
#define A26 (2.0f / 27.0f)
#define W14 (1.0f / 14.0f)

/* Per-step constants derived from the parameters once per step. */
typedef struct consts {
	float m, vol, spread, max_trade, buy_f, sell_f, inv_pref, inv_trade;
} consts;

static void make_consts(const rt_ppo_env_params *p, consts *k)
{
	k->m = p->drift - 0.5f * p->vol * p->vol;
	k->vol = p->vol;
	k->spread = p->hl_spread;
	k->max_trade = p->max_trade;
	k->buy_f = 1.0f + p->cost;
	k->sell_f = 1.0f - p->cost;
	k->inv_pref = 2.0f / (p->price_lo + p->price_hi);
	k->inv_trade = 1.0f / p->max_trade;
}

/*
 * Up to T lanes (envs) of one stock, copied out of the SoA arrays into one
 * local object: every access is then a constant offset from one base, which
 * the compiler can prove free of aliasing and vectorize. The per-env values
 * (cash, the value accumulator, the random state) stay here across stocks.
 */
typedef struct lanes {
	float f[RT_PPO_NFIELD][T];
	float act[T];
	float ob[RT_PPO_NFEAT][T];
	float cash[T], acc[T];
	uint32_t r[4][T];
} lanes;

static inline uint32_t rotl32(uint32_t x, int k)
{
	return (x << k) | (x >> (32 - k));
}

/* One xoshiro128** output; advances the state (s0..s3). */
static inline uint32_t xoshiro(uint32_t *s0, uint32_t *s1, uint32_t *s2, uint32_t *s3)
{
	uint32_t res = rotl32(*s1 * 5, 7) * 9, t = *s1 << 9;

	*s2 ^= *s0;
	*s3 ^= *s1;
	*s1 ^= *s2;
	*s0 ^= *s3;
	*s2 ^= t;
	*s3 = rotl32(*s3, 11);
	return res;
}

static inline float clampf(float x, float lo, float hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/* exp(x) for |x| <= 0.25 by Taylor to degree 6; x is clamped there. */
static inline float exp_small(float x)
{
	x = clampf(x, -0.25f, 0.25f);
	return 1.0f + x * (1.0f + x * (1.0f / 2 + x * (1.0f / 6 + x * (1.0f / 24 +
		x * (1.0f / 120 + x * (1.0f / 720))))));
}

/*
 * y rounded to the nearest integer (ties to even) for 0 <= y <= 8e6 < 2^23,
 * with float operations only: adding 2^23 leaves no fraction bits. (The
 * vectorizer takes neither truncf/floorf nor a float-to-int conversion
 * here, and a floor built from a compare turns into a branch.)
 */
static inline float round_small(float y)
{
	return (y + 8388608.0f) - 8388608.0f;
}

/* a / b where b > 0, else `otherwise`; b is made safe before dividing. */
static inline float div_or(float a, float b, float otherwise)
{
	float q = a / (b > 0.0f ? b : 1.0f);
	return b > 0.0f ? q : otherwise;
}

/*
 * One step of one stock for lanes [0, n): trade at the current close, draw
 * the next close, high and low, update the indicators, add the holding's
 * value to the value accumulator and write the stock's observation rows.
 * Order matters for the per-env cash: the caller goes through the stocks in
 * index order, so each purchase sees the cash the previous ones left.
 */
static inline __attribute__((always_inline)) void step_rows(lanes *x, const consts *k, int n)
{
	float *cl = x->f[RT_PPO_CLOSE], *hi = x->f[RT_PPO_HIGH], *lo = x->f[RT_PPO_LOW];
	float *e12 = x->f[RT_PPO_EMA12], *e26 = x->f[RT_PPO_EMA26], *sig = x->f[RT_PPO_SIGNAL];
	float *gain = x->f[RT_PPO_GAIN], *loss = x->f[RT_PPO_LOSS];
	float *cm = x->f[RT_PPO_CCI_MEAN], *cd = x->f[RT_PPO_CCI_DEV];
	float *dp = x->f[RT_PPO_DM_PLUS], *dm = x->f[RT_PPO_DM_MINUS];
	float *adx = x->f[RT_PPO_ADX], *hold = x->f[RT_PPO_HOLD];
	float *cash = x->cash, *acc = x->acc, *act = x->act;
	uint32_t *r0 = x->r[0], *r1 = x->r[1], *r2 = x->r[2], *r3 = x->r[3];

	for (int l = 0; l < n; l++) {
		float c = cl[l];

		/*
		 * Trade whole shares, the nearest to action * max_trade. A purchase
		 * is capped by round(cash/price - 1/2) <= floor(cash/price): never
		 * more than the cash pays for; the 1e-6 margin covers the rounding
		 * of the division, so cash stays >= 0.
		 */
		/* Multiply before clamping: a product inside a branch would not vectorize. */
		float y = clampf(act[l] * k->max_trade, -k->max_trade, k->max_trade);
		float qa = round_small(fabsf(y));
		float q = y < 0.0f ? -qa : qa;
		float sell = clampf(-q, 0.0f, hold[l]);
		float bp = c * k->buy_f;
		float afford = round_small(clampf(cash[l] / bp * 0.999999f - 0.5f, 0.0f, 8e6f));
		float buy = clampf(q, 0.0f, afford);
		hold[l] = hold[l] - sell + buy;
		cash[l] = cash[l] + sell * c * k->sell_f - buy * bp;

		/* Three xoshiro128** draws: four 16-bit uniforms for z, two for high/low. */
		uint32_t s0 = r0[l], s1 = r1[l], s2 = r2[l], s3 = r3[l];
		uint32_t u0 = xoshiro(&s0, &s1, &s2, &s3);
		uint32_t u1r = xoshiro(&s0, &s1, &s2, &s3);
		uint32_t u2r = xoshiro(&s0, &s1, &s2, &s3);
		r0[l] = s0;
		r1[l] = s1;
		r2[l] = s2;
		r3[l] = s3;
		int32_t ks = (int32_t)(u0 >> 16) + (int32_t)(u0 & 0xffff) +
			     (int32_t)(u1r >> 16) + (int32_t)(u1r & 0xffff) - 131070;
		float z = (float)ks * (1.7320508f / 65536.0f);
		float cn = c * exp_small(k->m + k->vol * z);
		float u1 = (float)(int32_t)(u2r >> 16) * (1.0f / 65536.0f);
		float u2 = (float)(int32_t)(u2r & 0xffff) * (1.0f / 65536.0f);
		float h = (cn > c ? cn : c) * (1.0f + k->spread * u1);
		float lw = (cn < c ? cn : c) * (1.0f - k->spread * u2);

		/* MACD and its signal. */
		e12[l] += A12 * (cn - e12[l]);
		e26[l] += A26 * (cn - e26[l]);
		float macd = e12[l] - e26[l];
		sig[l] += A9 * (macd - sig[l]);

		/* RSI, Wilder smoothing. */
		float d = cn - c;
		gain[l] += W14 * ((d > 0.0f ? d : 0.0f) - gain[l]);
		loss[l] += W14 * ((d < 0.0f ? -d : 0.0f) - loss[l]);

		/* CCI, EMA approximation of the SMA and of the mean deviation. */
		float tp = (h + lw + cn) * (1.0f / 3.0f);
		cm[l] += A20 * (tp - cm[l]);
		cd[l] += A20 * (fabsf(tp - cm[l]) - cd[l]);

		/* ADX from the directional movements. */
		float up = h - hi[l], down = lo[l] - lw;
		float pdm = ((up > down) & (up > 0.0f)) ? up : 0.0f;
		float mdm = ((down > up) & (down > 0.0f)) ? down : 0.0f;
		dp[l] += W14 * (pdm - dp[l]);
		dm[l] += W14 * (mdm - dm[l]);
		float dx = div_or(100.0f * fabsf(dp[l] - dm[l]), dp[l] + dm[l], 0.0f);
		adx[l] += W14 * (dx - adx[l]);

		cl[l] = cn;
		hi[l] = h;
		lo[l] = lw;
		acc[l] += hold[l] * cn;

		float ic = 1.0f / cn;
		x->ob[0][l] = cn * k->inv_pref;
		x->ob[1][l] = macd * ic;
		x->ob[2][l] = sig[l] * ic;
		x->ob[3][l] = div_or(gain[l], gain[l] + loss[l], 0.5f);
		x->ob[4][l] = div_or(tp - cm[l], 1.5f * cd[l], 0.0f);
		x->ob[5][l] = adx[l] * 0.01f;
		x->ob[6][l] = hold[l] * k->inv_trade;
	}
}

/*
 * Lanes [n, w) of x take lane 0's values: a split tile's part (n < w = T)
 * then still runs the vectorized T-lane loop on valid numbers, and only
 * lanes [0, n) are written back.
 */
static inline __attribute__((always_inline)) void pad_floats(float *v, int n, int w)
{
	for (int l = n; l < w; l++)
		v[l] = v[0];
}

/*
 * Copies the per-env values of envs [e, e + n) into x (before the stocks),
 * padded to w lanes.
 */
static inline __attribute__((always_inline)) void load_env(lanes *x, const rt_ppo_env *env,
							   int e, int n, int w)
{
	memcpy(x->cash, env->cash + e, (size_t)n * sizeof(float));
	pad_floats(x->cash, n, w);
	memset(x->acc, 0, (size_t)w * sizeof(float));
	for (int j = 0; j < 4; j++) {
		memcpy(x->r[j], env->rng[j] + e, (size_t)n * sizeof(uint32_t));
		for (int l = n; l < w; l++)
			x->r[j][l] = x->r[j][0];
	}
}

/* Writes them back (after the stocks). */
static inline __attribute__((always_inline)) void store_env(const lanes *x, rt_ppo_env *env,
							    int e, int n)
{
	memcpy(env->cash + e, x->cash, (size_t)n * sizeof(float));
	memcpy(env->acc + e, x->acc, (size_t)n * sizeof(float));
	for (int j = 0; j < 4; j++)
		memcpy(env->rng[j] + e, x->r[j], (size_t)n * sizeof(uint32_t));
}

/*
 * Steps stock s of envs [e, e + n): copy in (padded to w lanes), compute w
 * lanes, copy the n lanes' state and observation out.
 */
static inline __attribute__((always_inline)) void step_stock(lanes *x, rt_ppo_env *env,
							     const consts *k,
							     const float *actions, float *obs,
							     int s, int e, int n, int w)
{
	size_t o = (size_t)s * (size_t)env->ld + (size_t)e;
	size_t fs = (size_t)env->p.stocks * (size_t)env->ld;

	for (int j = 0; j < RT_PPO_NFIELD; j++) {
		memcpy(x->f[j], env->f[j] + o, (size_t)n * sizeof(float));
		pad_floats(x->f[j], n, w);
	}
	memcpy(x->act, actions + o, (size_t)n * sizeof(float));
	pad_floats(x->act, n, w);
	step_rows(x, k, w);
	for (int j = 0; j < RT_PPO_NFIELD; j++)
		memcpy(env->f[j] + o, x->f[j], (size_t)n * sizeof(float));
	for (int j = 0; j < RT_PPO_NFEAT; j++)
		memcpy(obs + (size_t)j * fs + o, x->ob[j], (size_t)n * sizeof(float));
}

static uint32_t next_scalar(rt_ppo_env *env, int e)
{
	return xoshiro(env->rng[0] + e, env->rng[1] + e, env->rng[2] + e, env->rng[3] + e);
}

/* Starts a new episode for env e: fresh prices from its stream, cash0, no shares. */
static void reset_env(rt_ppo_env *env, int e)
{
	const rt_ppo_env_params *p = &env->p;
	size_t ld = (size_t)env->ld;

	for (int s = 0; s < p->stocks; s++) {
		size_t i = (size_t)s * ld + (size_t)e;
		float u = (float)(next_scalar(env, e) >> 8) * (1.0f / 16777216.0f);
		float c = p->price_lo + (p->price_hi - p->price_lo) * u;

		for (int j = 0; j < RT_PPO_NFIELD; j++)
			env->f[j][i] = 0.0f;
		env->f[RT_PPO_CLOSE][i] = c;
		env->f[RT_PPO_HIGH][i] = c;
		env->f[RT_PPO_LOW][i] = c;
		env->f[RT_PPO_EMA12][i] = c;
		env->f[RT_PPO_EMA26][i] = c;
		env->f[RT_PPO_CCI_MEAN][i] = c;
	}
	env->cash[e] = p->cash0;
	env->value[e] = p->cash0;
	env->t[e] = 0;
}

/* Writes env e's observation column from its state (after a reset). */
static void observe_env(const rt_ppo_env *env, int e, float *obs)
{
	const rt_ppo_env_params *p = &env->p;
	size_t ld = (size_t)env->ld, fs = (size_t)p->stocks * ld;
	consts k;

	make_consts(p, &k);
	for (int s = 0; s < p->stocks; s++) {
		size_t i = (size_t)s * ld + (size_t)e;
		float *const *f = env->f;
		float c = f[RT_PPO_CLOSE][i], ic = 1.0f / c;
		float tp = (f[RT_PPO_HIGH][i] + f[RT_PPO_LOW][i] + c) * (1.0f / 3.0f);
		float g = f[RT_PPO_GAIN][i];

		obs[i] = c * k.inv_pref;
		obs[fs + i] = (f[RT_PPO_EMA12][i] - f[RT_PPO_EMA26][i]) * ic;
		obs[2 * fs + i] = f[RT_PPO_SIGNAL][i] * ic;
		obs[3 * fs + i] = div_or(g, g + f[RT_PPO_LOSS][i], 0.5f);
		obs[4 * fs + i] = div_or(tp - f[RT_PPO_CCI_MEAN][i], 1.5f * f[RT_PPO_CCI_DEV][i],
					 0.0f);
		obs[5 * fs + i] = f[RT_PPO_ADX][i] * 0.01f;
		obs[6 * fs + i] = f[RT_PPO_HOLD][i] * k.inv_trade;
	}
	obs[(size_t)RT_PPO_NFEAT * fs + (size_t)e] = env->cash[e] / p->cash0;
}

/*
 * The synthetic environment code of env e (ppo_env.h): `units` rounds of a
 * 64-bit xorshift-multiply chain that starts from the env's state (clock,
 * value, cash and its own previous result) and ends in sink[e]. Nothing but
 * this function reads sink, so no price, reward or observation depends on
 * it; the compiler cannot drop it (the result is stored) nor vectorize it
 * (each round needs the previous one, as interpreted code would). Not
 * inlined: the calibration times exactly the code the steps run.
 */
static __attribute__((noinline)) void busy_env(rt_ppo_env *env, int e, long units)
{
	uint32_t v, c;
	uint64_t x;

	memcpy(&v, env->value + e, sizeof v);
	memcpy(&c, env->cash + e, sizeof c);
	x = env->sink[e] ^ ((uint64_t)(uint32_t)env->t[e] << 32) ^ ((uint64_t)v << 16) ^ c;
	for (long i = 0; i < units; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + 1;
	env->sink[e] = x;
}

/* rt_work_fn for the calibration: env 0's synthetic code. */
static void busy_probe(void *env, long units)
{
	busy_env(env, 0, units);
}

/*
 * Ends the step of env e: its synthetic code (real envs only), reward from the new value (acc[e] holds the sum
 * of the holdings' values, the cash is added here), episode clock, the cash
 * observation, and the auto-reset with its fresh observation.
 */
static void finish_env(rt_ppo_env *env, int e, float *rewards, float *dones, float *obs)
{
	const rt_ppo_env_params *p = &env->p;
	float v = env->acc[e] + env->cash[e];

	if (env->work > 0 && e < p->num_envs)
		busy_env(env, e, env->work);
	rewards[e] = (v - env->value[e]) * p->reward_scale;
	env->value[e] = v;
	obs[(size_t)RT_PPO_NFEAT * (size_t)p->stocks * (size_t)env->ld + (size_t)e] =
		env->cash[e] / p->cash0;
	dones[e] = 0.0f;
	if (++env->t[e] >= p->episode_len) {
		dones[e] = 1.0f;
		reset_env(env, e);
		observe_env(env, e, obs);
	}
}

/*
 * Steps envs [e0, e0 + n), all in one tile, computing w >= n lanes: the
 * stocks in index order, then each env's end of step.
 */
static inline __attribute__((always_inline)) void step_lanes(rt_ppo_env *env, int e0, int n,
							     int w, const float *actions,
							     float *rewards, float *dones,
							     float *obs)
{
	consts k;
	lanes x;

	make_consts(&env->p, &k);
	load_env(&x, env, e0, n, w);
	for (int s = 0; s < env->p.stocks; s++)
		step_stock(&x, env, &k, actions, obs, s, e0, n, w);
	store_env(&x, env, e0, n);
	for (int e = e0; e < e0 + n; e++)
		finish_env(env, e, rewards, dones, obs);
}

/* A whole tile: the hot loop, every copy of a constant size. */
HOT_CLONES
static void step_tile(rt_ppo_env *env, int e0, const float *actions, float *rewards,
		      float *dones, float *obs)
{
	step_lanes(env, e0, T, T, actions, rewards, dones, obs);
}

/*
 * Envs [e0, e0 + n) of a tile split between workers, 1 <= n < T, with the
 * same T-lane loop. Apart from step_tile: copies of a variable size are
 * calls, which would halve the speed of whole tiles.
 */
HOT_CLONES
static void step_part(rt_ppo_env *env, int e0, int n, const float *actions, float *rewards,
		      float *dones, float *obs)
{
	step_lanes(env, e0, n, T, actions, rewards, dones, obs);
}

void rt_ppo_env_step_ref(rt_ppo_env *env, int e, const float *actions, float *rewards,
			 float *dones, float *obs)
{
	step_lanes(env, e, 1, 1, actions, rewards, dones, obs);
}

typedef struct step_job {
	rt_ppo_env *env;
	const float *actions;
	float *rewards, *dones, *obs;
} step_job;

/*
 * The lanes [*lo, *hi) worker w of n steps. The bare env splits whole
 * tiles, so that a worker owns whole cache lines and every step is the
 * vectorized one. With synthetic code the per-env work dwarfs a tile's
 * arithmetic and a shared cache line, so the real envs are split one by
 * one, as evenly as they go: 16 envs then still keep 2 workers busy. The
 * last worker takes the padding lanes.
 */
static void worker_lanes(const rt_ppo_env *env, int w, int n, int *lo, int *hi)
{
	long N = env->p.num_envs, ntiles = env->ld / T;

	if (env->work > 0) {
		*lo = (int)(w * N / n);
		*hi = w == n - 1 ? env->ld : (int)((w + 1) * N / n);
	} else {
		*lo = (int)(w * ntiles / n * T);
		*hi = (int)((w + 1) * ntiles / n * T);
	}
}

/* Worker w of n steps its lanes, tile by tile (or the part of a split tile). */
static void step_chunk(void *arg, int w, int n)
{
	step_job *j = arg;
	int e, hi, m;

	worker_lanes(j->env, w, n, &e, &hi);
	for (; e < hi; e += m) {
		m = (e / T + 1) * T;
		m = (m < hi ? m : hi) - e;
		if (m == T)
			step_tile(j->env, e, j->actions, j->rewards, j->dones, j->obs);
		else
			step_part(j->env, e, m, j->actions, j->rewards, j->dones, j->obs);
	}
}

void rt_ppo_env_step(rt_ppo_env *env, const float *actions, float *rewards, float *dones,
		     float *obs)
{
	step_job j = { env, actions, rewards, dones, obs };

	rt_pool_run_each(env->workers, step_chunk, &j);
}

void rt_ppo_env_observe(const rt_ppo_env *env, float *obs)
{
	for (int e = 0; e < env->ld; e++)
		observe_env(env, e, obs);
}

void rt_ppo_env_params_default(rt_ppo_env_params *p, int num_envs, int stocks)
{
	memset(p, 0, sizeof *p);
	p->num_envs = num_envs;
	p->stocks = stocks;
	p->episode_len = 200;
	p->workers = 0;
	p->seed = 1;
	p->drift = 2e-4f;
	p->vol = 0.02f;
	p->price_lo = 50.0f;
	p->price_hi = 150.0f;
	p->hl_spread = 0.01f;
	p->max_trade = 100.0f;
	p->cost = 1e-3f;
	p->cash0 = 1e6f;
	p->reward_scale = 1e-4f;
}

int rt_ppo_env_obs_dim(int stocks)
{
	return RT_PPO_NFEAT * stocks + 1;
}

int rt_ppo_env_ld(int num_envs)
{
	return (num_envs + T - 1) / T * T;
}

/* One reason the parameters cannot work, or NULL. */
static const char *bad_params(const rt_ppo_env_params *p)
{
	if (p->num_envs < 1 || p->num_envs > (1 << 24))
		return "num_envs must be in [1, 16777216]";
	if (p->stocks < 1 || p->stocks > 100000)
		return "stocks must be in [1, 100000]";
	if ((size_t)rt_ppo_env_ld(p->num_envs) * (size_t)p->stocks > ((size_t)1 << 31))
		return "num_envs * stocks is too large";
	if (p->episode_len < 1)
		return "episode_len must be at least 1";
	if (p->workers < 0 || p->workers > 1024)
		return "workers must be in [0, 1024]";
	if (!(p->vol >= 0.0f && p->vol <= 0.05f) || !(fabsf(p->drift) <= 0.05f))
		return "vol must be in [0, 0.05] and |drift| <= 0.05 per step";
	if (!(p->price_lo > 0.0f && p->price_hi >= p->price_lo))
		return "prices need 0 < price_lo <= price_hi";
	if (!(p->hl_spread >= 0.0f && p->hl_spread < 0.5f))
		return "hl_spread must be in [0, 0.5)";
	if (!(p->max_trade >= 1.0f && p->max_trade <= 1e6f))
		return "max_trade must be in [1, 1e6] shares";
	if (!(p->cost >= 0.0f && p->cost < 1.0f))
		return "cost must be in [0, 1)";
	if (!(p->cash0 > 0.0f) || !(p->reward_scale > 0.0f))
		return "cash0 and reward_scale must be positive";
	if (!(p->env_us >= 0.0 && p->env_us <= 1e5))
		return "env_us must be in [0, 100000] microseconds";
	return NULL;
}

/* 64-byte aligned, zeroed array of n 4-byte elements; NULL if out of memory. */
static void *alloc_lines(size_t n)
{
	size_t bytes = (n * 4 + 63) / 64 * 64;
	void *p = aligned_alloc(64, bytes);

	if (p)
		memset(p, 0, bytes);
	return p;
}

/* Seeds env e's xoshiro128** state from rt_rng with (seed, e). */
static void seed_env(rt_ppo_env *env, int e)
{
	rt_rng r;

	rt_rng_seed(&r, env->p.seed * 0x9e3779b97f4a7c15ull + (uint64_t)e);
	for (int j = 0; j < 4; j += 2) {
		uint64_t x = rt_rng_next(&r);
		env->rng[j][e] = (uint32_t)x;
		env->rng[j + 1][e] = (uint32_t)(x >> 32);
	}
	if ((env->rng[0][e] | env->rng[1][e] | env->rng[2][e] | env->rng[3][e]) == 0)
		env->rng[0][e] = 1; /* the one state xoshiro cannot leave */
}

int rt_ppo_env_create(const rt_ppo_env_params *p, rt_ppo_env **out, char *err,
		      size_t errlen)
{
	const char *why = bad_params(p);
	rt_ppo_env *env;
	size_t ld, n;
	int rc;

	*out = NULL;
	if (why)
		return rt_fail(err, errlen, RT_EINVAL, "environment: %s.", why);
	env = calloc(1, sizeof *env);
	if (!env)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory for the environment");
	env->p = *p;
	env->ld = rt_ppo_env_ld(p->num_envs);
	ld = (size_t)env->ld;
	n = ld * (size_t)p->stocks;
	for (int j = 0; j < RT_PPO_NFIELD; j++)
		if (!(env->f[j] = alloc_lines(n)))
			goto nomem;
	if (!(env->cash = alloc_lines(ld)) || !(env->value = alloc_lines(ld)) ||
	    !(env->acc = alloc_lines(ld)) || !(env->t = alloc_lines(ld)))
		goto nomem;
	for (int j = 0; j < 4; j++)
		if (!(env->rng[j] = alloc_lines(ld)))
			goto nomem;
	if (!(env->sink = alloc_lines(2 * ld)))
		goto nomem;
	for (int e = 0; e < env->ld; e++) {
		seed_env(env, e);
		reset_env(env, e);
	}
	/* A probe of 2^14 rounds takes tens of microseconds: well above the clock's resolution. */
	env->work = rt_work_calibrate(busy_probe, env, 1L << 14, p->env_us * 1e-6);
	/*
	 * Environment steps last microseconds, far less than a wake-up from
	 * sleep, so the workers poll through the policy inference between two
	 * rollout steps (RT_POOL_SPIN_ENVS) before they sleep.
	 */
	if (p->workers > 1) {
		rc = rt_pool_create(p->workers, RT_POOL_SPIN_ENVS, &env->workers, err, errlen);
		if (rc)
			goto fail;
	}
	*out = env;
	return 0;

nomem:
	rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory for %d environments of %d stocks",
		     p->num_envs, p->stocks);
fail:
	rt_ppo_env_destroy(env);
	return rc;
}

void rt_ppo_env_destroy(rt_ppo_env *env)
{
	if (!env)
		return;
	rt_pool_destroy(env->workers);
	free(env->sink);
	for (int j = 0; j < 4; j++)
		free(env->rng[j]);
	free(env->t);
	free(env->acc);
	free(env->value);
	free(env->cash);
	for (int j = 0; j < RT_PPO_NFIELD; j++)
		free(env->f[j]);
	free(env);
}
