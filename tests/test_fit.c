/*
 * test_fit.c: the robust curve fit, crossovers, bootstrap CI, thread ranges
 * and the smallest-batch translation. The replay fixtures in tests/data come
 * from tests/data/gen_replays.py with known curves (run from the repository
 * root, as tests/run.sh does).
 * beside: others (fits of given data)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/rng.h"
#include "../common/rt.h"
#include "../search/fit.h"
#include "../tuner/replay.h"

#define TRUE_NSTAR 293.0     /* replay_cross.csv, replay_outlier.csv */
#define TRUE_EXTRAP 1715.70  /* replay_extrap.csv */
#define BOOT_REPS 200
#define SEED 0x5eed

/* The fits and crossover of cpu/fp32 (0) against gpu/fp32 (1) in a fixture. */
typedef struct pair {
	rt_replay *r;
	rt_series s[2];
	rt_fit f[2];
	bool *outlier[2];
	rt_crossover cx;
} pair;

static void load_pair(const char *file, pair *p)
{
	char err[RT_ERRLEN], path[256];
	snprintf(path, sizeof path, "tests/data/%s", file);
	memset(p, 0, sizeof *p);
	int rc = rt_replay_read(path, &p->r, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	const char *backend[2] = {"cpu", "gpu"};
	for (int i = 0; i < 2; i++) {
		long k = rt_replay_find(p->r, backend[i], "fp32");
		assert_true(k >= 0);
		p->s[i] = rt_replay_series(&p->r->curves[k]);
		p->outlier[i] = calloc(p->s[i].count, sizeof(bool));
		assert_non_null(p->outlier[i]);
		rc = rt_fit_curve(&p->s[i], &p->f[i], p->outlier[i], err, sizeof err);
		if (rc)
			fail_msg("%s", err);
	}
	rc = rt_crossover_solve(&p->f[0], &p->f[1], &p->cx, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
}

static void free_pair(pair *p)
{
	free(p->outlier[0]);
	free(p->outlier[1]);
	rt_replay_free(p->r);
}

static double rel_err(double got, double want)
{
	return fabs(got - want) / want;
}

/* Noisy observations of c + a*n^b at half-octave sizes lo..hi, 3 repeats. */
static size_t synth(double c, double a, double b, double lo, double hi, double noise,
		    uint64_t seed, double *n, double *t)
{
	rt_rng rng;
	rt_rng_seed(&rng, seed);
	size_t m = 0;
	for (double x = lo; x <= hi * 1.0001; x *= M_SQRT2)
		for (int r = 0; r < 3; r++, m++) {
			n[m] = round(x);
			t[m] = (c + a * pow(n[m], b)) * exp(noise * rt_rng_normal(&rng));
		}
	return m;
}

static void fit_recovers_parameters(void **state)
{
	(void)state;
	double n[64], t[64];
	size_t m = synth(5e-4, 2e-13, 3.0, 32, 4096, 0.03, 1, n, t);
	rt_series s = {n, t, m};
	rt_fit f;
	char err[RT_ERRLEN];
	int rc = rt_fit_curve(&s, &f, NULL, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	print_message("# gpu-like curve: a=%.3g b=%.3f c=%.3g scale=%.4f (true 2e-13 3 5e-4 0.03)\n",
		      f.a, f.b, f.c, f.scale);
	assert_true(fabs(f.b - 3.0) < 0.1);
	assert_true(rel_err(f.c, 5e-4) < 0.05);
	/* a and b trade off; the time they predict at the top is what is pinned. */
	assert_true(rel_err(f.a * pow(4096, f.b), 2e-13 * pow(4096, 3)) < 0.05);
	assert_true(f.a > 1e-13 && f.a < 4e-13);
	assert_true(f.scale > 0.015 && f.scale < 0.05);
	assert_true(f.outliers <= 1);
	assert_true(f.n_min == 32 && f.n_max == 4096);
}

static void fit_rejects_bad_series(void **state)
{
	(void)state;
	double n[] = {64, 64, 128, 128}, t[] = {1e-3, 1.1e-3, 2e-3, 2.1e-3};
	rt_series s = {n, t, 4};
	rt_fit f;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_fit_curve(&s, &f, NULL, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "3 distinct n"));
	double n3[] = {64, 128, 256}, t3[] = {1e-3, -2e-3, 4e-3};
	rt_series s3 = {n3, t3, 3};
	assert_int_equal(rt_fit_curve(&s3, &f, NULL, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "not positive"));
}

static void crossover_in_range(void **state)
{
	(void)state;
	pair p;
	load_pair("replay_cross.csv", &p);
	char msg[256];
	rt_crossover_describe(&p.cx, "cpu/fp32", "gpu/fp32", msg, sizeof msg);
	print_message("# replay_cross: n*=%.1f (true %.1f): %s\n", p.cx.n_star, TRUE_NSTAR, msg);
	assert_int_equal(p.cx.kind, RT_CROSS_IN_RANGE);
	assert_true(rel_err(p.cx.n_star, TRUE_NSTAR) < 0.10);
	assert_int_equal(p.cx.faster_above, 1);
	assert_int_equal(p.cx.crossings, 1);
	assert_true(!strncmp(msg, "gpu/fp32 beats cpu/fp32 from n=", 31));
	assert_non_null(strstr(msg, "(in the measured range)"));
	assert_int_equal(p.f[0].outliers + p.f[1].outliers, 0);
	free_pair(&p);
}

static void bootstrap_covers_truth(void **state)
{
	(void)state;
	pair p;
	load_pair("replay_cross.csv", &p);
	rt_crossover_ci ci;
	char err[RT_ERRLEN];
	double t0 = rt_now();
	int rc = rt_crossover_bootstrap(&p.s[0], &p.s[1], BOOT_REPS, 0.95, SEED, &ci, err,
					sizeof err);
	if (rc)
		fail_msg("%s", err);
	print_message("# bootstrap %d reps in %.2f s: n*=%.1f, 95%% CI [%.1f, %.1f], "
		      "no crossover %d, failed %d (true %.1f)\n",
		      ci.reps, rt_now() - t0, p.cx.n_star, ci.lo, ci.hi, ci.no_crossover,
		      ci.failed, TRUE_NSTAR);
	assert_int_equal(ci.reps, BOOT_REPS);
	assert_int_equal(ci.crossed + ci.no_crossover + ci.failed, BOOT_REPS);
	assert_true(ci.crossed >= BOOT_REPS * 95 / 100);
	assert_true(ci.lo < TRUE_NSTAR && TRUE_NSTAR < ci.hi);
	assert_true(ci.lo < p.cx.n_star && p.cx.n_star < ci.hi);
	/* 3% noise on 45 points per curve pins n* to a few percent, not 50%. */
	assert_true(ci.hi / ci.lo < 1.25);

	rt_crossover_ci again;
	rc = rt_crossover_bootstrap(&p.s[0], &p.s[1], BOOT_REPS, 0.95, SEED, &again, err,
				    sizeof err);
	assert_int_equal(rc, 0);
	assert_true(again.lo == ci.lo && again.hi == ci.hi);
	free_pair(&p);
}

/* The outlier is the last row of replay_outlier.csv, so the last gpu observation. */
static void outlier_is_flagged_and_ignored(void **state)
{
	(void)state;
	pair clean, dirty;
	load_pair("replay_cross.csv", &clean);
	load_pair("replay_outlier.csv", &dirty);
	size_t last = dirty.s[1].count - 1;
	assert_int_equal(dirty.s[1].count, clean.s[1].count + 1);
	assert_true(dirty.outlier[1][last]);
	assert_int_equal(dirty.f[1].outliers, 1);
	assert_int_equal(dirty.f[0].outliers, 0);

	rt_crossover_ci ci;
	char err[RT_ERRLEN];
	int rc = rt_crossover_bootstrap(&clean.s[0], &clean.s[1], BOOT_REPS, 0.95, SEED, &ci,
					err, sizeof err);
	assert_int_equal(rc, 0);
	double moved = fabs(dirty.cx.n_star - clean.cx.n_star);
	print_message("# outlier: n* %.2f -> %.2f (moved %.2f, CI width %.1f)\n",
		      clean.cx.n_star, dirty.cx.n_star, moved, ci.hi - ci.lo);
	assert_true(moved < ci.hi - ci.lo);
	/* Robust, not merely lucky: the move is far below the noise. */
	assert_true(moved < 0.02 * clean.cx.n_star);
	free_pair(&clean);
	free_pair(&dirty);
}

static void parallel_curves_do_not_cross(void **state)
{
	(void)state;
	pair p;
	load_pair("replay_parallel.csv", &p);
	char msg[256];
	rt_crossover_describe(&p.cx, "cpu/fp32", "gpu/fp32", msg, sizeof msg);
	print_message("# replay_parallel: %s\n", msg);
	assert_int_equal(p.cx.kind, RT_CROSS_NONE);
	assert_true(isnan(p.cx.n_star));
	assert_int_equal(p.cx.winner, 1);
	assert_string_equal(msg, "no crossover in range: gpu/fp32 wins from n=32 to n=4096");
	free_pair(&p);
}

static void extrapolated_crossover_is_flagged(void **state)
{
	(void)state;
	pair p;
	load_pair("replay_extrap.csv", &p);
	char msg[256];
	rt_crossover_describe(&p.cx, "cpu/fp32", "gpu/fp32", msg, sizeof msg);
	print_message("# replay_extrap: n*=%.1f (true %.1f): %s\n", p.cx.n_star, TRUE_EXTRAP,
		      msg);
	assert_int_equal(p.cx.kind, RT_CROSS_EXTRAPOLATED);
	assert_true(p.cx.n_star > p.cx.range_hi);
	assert_int_equal(p.cx.winner, 0);
	assert_int_equal(p.cx.faster_above, 1);
	assert_true(rel_err(p.cx.n_star, TRUE_EXTRAP) < 0.10);
	assert_non_null(strstr(msg, "extrapolated"));
	free_pair(&p);
}

/*
 * t0 = 1e-3 + 1e-12 n^3 against t1 = 1e-5 n: curve 1 is faster below ~100,
 * slower in the middle, faster again from ~3000. The reported crossover is
 * the second one, where the side faster at large n takes over.
 */
static void two_crossings_report_the_takeover(void **state)
{
	(void)state;
	rt_fit f0 = {.a = 1e-12, .b = 3, .c = 1e-3, .n_min = 10, .n_max = 1e5};
	rt_fit f1 = {.a = 1e-5, .b = 1, .c = 0, .n_min = 10, .n_max = 1e5};
	rt_crossover cx;
	assert_int_equal(rt_crossover_solve(&f0, &f1, &cx, NULL, 0), 0);
	assert_int_equal(cx.kind, RT_CROSS_IN_RANGE);
	assert_int_equal(cx.crossings, 2);
	assert_int_equal(cx.faster_above, 1);
	assert_true(cx.n_star > 3000 && cx.n_star < 3200);
	assert_true(rel_err(rt_fit_eval(&f0, cx.n_star), rt_fit_eval(&f1, cx.n_star)) < 1e-9);
}

static void disjoint_ranges_are_rejected(void **state)
{
	(void)state;
	rt_fit f0 = {.a = 1e-12, .b = 3, .c = 1e-3, .n_min = 10, .n_max = 100};
	rt_fit f1 = {.a = 1e-5, .b = 1, .c = 0, .n_min = 200, .n_max = 1e5};
	rt_crossover cx;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_crossover_solve(&f0, &f1, &cx, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "do not overlap"));
}

/* 1, 2, 4 threads: c grows with the thread count, a shrinks with it. */
static const rt_fit thread_fits[3] = {
	{.a = 1e-10, .b = 3, .c = 1e-6, .n_min = 16, .n_max = 1024},
	{.a = 5e-11, .b = 3, .c = 2e-5, .n_min = 16, .n_max = 1024},
	{.a = 2.5e-11, .b = 3, .c = 5e-5, .n_min = 16, .n_max = 1024},
};

static void threads_pay_from_fitted_sweep(void **state)
{
	(void)state;
	double n1[64], t1[64], n4[64], t4[64], from;
	size_t m1 = synth(1e-6, 1e-10, 3, 16, 1024, 0.03, 11, n1, t1);
	size_t m4 = synth(5e-5, 2.5e-11, 3, 16, 1024, 0.03, 12, n4, t4);
	rt_series s1 = {n1, t1, m1}, s4 = {n4, t4, m4};
	rt_fit one, four;
	rt_crossover cx;
	assert_int_equal(rt_fit_curve(&s1, &one, NULL, NULL, 0), 0);
	assert_int_equal(rt_fit_curve(&s4, &four, NULL, NULL, 0), 0);
	assert_int_equal(rt_fit_threads_pay_from(&one, &four, &from, &cx, NULL, 0), 0);
	print_message("# 4 threads pay from n=%.1f (true 86.8)\n", from);
	assert_true(rel_err(from, 86.77) < 0.10);

	/* Many threads ahead everywhere: from the low end; never ahead: infinity. */
	rt_fit fast = thread_fits[2];
	fast.c = 1e-7;
	assert_int_equal(rt_fit_threads_pay_from(&thread_fits[0], &fast, &from, NULL, NULL, 0), 0);
	assert_true(from == 16);
	rt_fit slow = thread_fits[2];
	slow.a = 2e-10;
	assert_int_equal(rt_fit_threads_pay_from(&thread_fits[0], &slow, &from, NULL, NULL, 0), 0);
	assert_true(isinf(from));
}

static void best_threads_per_range(void **state)
{
	(void)state;
	const int threads[3] = {1, 2, 4};
	rt_thread_range r[4];
	size_t m;
	assert_int_equal(rt_fit_best_threads(thread_fits, threads, 3, r, 4, &m, NULL, 0), 0);
	assert_int_equal(m, 3);
	assert_int_equal(r[0].threads, 1);
	assert_int_equal(r[1].threads, 2);
	assert_int_equal(r[2].threads, 4);
	assert_true(r[0].n_lo == 16 && r[2].n_hi == 1024);
	/* Boundaries by hand: (1.9e-5 / 5e-11)^(1/3) and (3e-5 / 2.5e-11)^(1/3). */
	assert_true(rel_err(r[0].n_hi, 72.4316) < 1e-4 && r[1].n_lo == r[0].n_hi);
	assert_true(rel_err(r[1].n_hi, 106.2659) < 1e-4 && r[2].n_lo == r[1].n_hi);
	assert_int_equal(rt_fit_best_threads(thread_fits, threads, 3, r, 2, &m, NULL, 0),
			 RT_EINVAL);
}

/*
 * Hand example: square n* = 4000, seq_len 60, d_model 768, d_ff 3072 (the
 * transformer's step GEMMs: test_transformer checks it lists these two).
 * QKV: m >= 4000^3 / (768 * 2304) = 36168.98 -> batch >= 602.8 -> 603.
 * FFN up: m >= 4000^3 / (768 * 3072) = 27126.74 -> batch >= 452.1 -> 453.
 */
static void min_batch_hand_example(void **state)
{
	(void)state;
	rt_step_gemm g[3] = {{"qkv", 768, 2304, NAN}, {"ffn_up", 768, 3072, NAN}};
	size_t k = 2, binding = 99;
	long batch = 0;
	assert_int_equal(rt_fit_min_batch(4000, 60, g, k, &batch, &binding, NULL, 0), 0);
	assert_int_equal(batch, 603);
	assert_int_equal(binding, 0);

	/* A crossover fitted in m for QKV (12000 -> batch 200) takes precedence. */
	g[0].m_star = 12000;
	assert_int_equal(rt_fit_min_batch(4000, 60, g, k, &batch, &binding, NULL, 0), 0);
	assert_int_equal(batch, 453);
	assert_int_equal(binding, 1);

	/* The output projection (n = d_model) binds when added. */
	g[2] = (rt_step_gemm){"out_proj", 768, 768, NAN};
	assert_int_equal(rt_fit_min_batch(4000, 60, g, 3, &batch, &binding, NULL, 0), 0);
	assert_int_equal(batch, 1809); /* 4000^3 / 768^2 / 60 = 1808.4 */
	assert_int_equal(binding, 2);

	/* A crossover below every GEMM: batch 1. No square n* and no m*: error. */
	g[0].m_star = NAN;
	assert_int_equal(rt_fit_min_batch(10, 60, g, 3, &batch, NULL, NULL, 0), 0);
	assert_int_equal(batch, 1);
	assert_int_equal(rt_fit_min_batch(0, 60, g, 3, &batch, NULL, NULL, 0), RT_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fit_recovers_parameters),
		cmocka_unit_test(fit_rejects_bad_series),
		cmocka_unit_test(crossover_in_range),
		cmocka_unit_test(bootstrap_covers_truth),
		cmocka_unit_test(outlier_is_flagged_and_ignored),
		cmocka_unit_test(parallel_curves_do_not_cross),
		cmocka_unit_test(extrapolated_crossover_is_flagged),
		cmocka_unit_test(two_crossings_report_the_takeover),
		cmocka_unit_test(disjoint_ranges_are_rejected),
		cmocka_unit_test(threads_pay_from_fitted_sweep),
		cmocka_unit_test(best_threads_per_range),
		cmocka_unit_test(min_batch_hand_example),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
