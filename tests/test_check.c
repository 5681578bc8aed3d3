/*
 * check: the canary's file and measurement, the machine's change taken from
 * two canary series, the sides of an A/B check, and the result document
 * written and read back by the one module that owns it (check_doc.c).
 * beside: others (the check's statistics on given samples)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/platform.h"
#include "../common/rng.h"
#include "../common/rt.h"
#include "../tuner/canary.h"
#include "../tuner/check/check.h"
#include "../tuner/check/check_canary.h"
#include "../tuner/check/check_likely.h"
#include "../tuner/check/check_pairs.h"

static char dir[] = "/tmp/rt-test-check-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ---- the canary's file ---- */

static void canary_path_is_beside_the_journal(void **state)
{
	(void)state;
	char buf[128];
	assert_int_equal(rt_canary_path("results/vm-20261124-080928.yaml", buf, sizeof buf), RT_OK);
	assert_string_equal(buf, "results/vm-20261124-080928-canary.csv");
	assert_int_equal(rt_canary_path("results/journal.txt", buf, sizeof buf), RT_EINVAL);
	assert_int_equal(rt_canary_path("results/a-long-name.yaml", buf, 10), RT_EINVAL);
}

static void canary_file_round_trip(void **state)
{
	(void)state;
	char path[128], err[256];
	snprintf(path, sizeof path, "%s/trip-canary.csv", dir);
	rt_canary_sample in[3] = {{1795507769, 1.54926, 7.73259},
				  {1795507770, 4.27867, 8.7655},
				  {1795507771, 2.5, 11.25}};
	for (int i = 0; i < 3; i++)
		assert_int_equal(rt_canary_append(path, &in[i], err, sizeof err), RT_OK);
	rt_canary_sample *out;
	size_t n;
	int older = 1;
	assert_int_equal(rt_canary_read(path, &out, &n, &older, err, sizeof err), RT_OK);
	assert_int_equal(n, 3);
	assert_int_equal(older, 0);
	for (int i = 0; i < 3; i++) {
		assert_float_equal(out[i].t, in[i].t, 0.5);
		assert_float_equal(out[i].compute, in[i].compute, 1e-5);
		assert_float_equal(out[i].memory, in[i].memory, 1e-4);
	}
	free(out);
	/* one header, then one line per sample */
	FILE *f = fopen(path, "r");
	char line[128];
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal(line, "unix_time,compute_v2,memory_v2\n");
	fclose(f);
}

/*
 * An older rigtune's canary (version 1, threads unbound) reads as none, and
 * a tune that goes on with its journal adds nothing to it.
 */
static void canary_file_of_version_1_is_not_compared(void **state)
{
	(void)state;
	char path[128], err[256];
	const char *v1 = "unix_time,compute,memory\n1795507769,3.5,22\n1795507770,6.2,24\n";
	snprintf(path, sizeof path, "%s/v1-canary.csv", dir);
	write_text(path, v1);
	rt_canary_sample *v = (rt_canary_sample *)1, s = {1795507771, 6.9, 25};
	size_t n = 9;
	int older = 0;
	assert_int_equal(rt_canary_read(path, &v, &n, &older, err, sizeof err), RT_OK);
	assert_int_equal(older, 1);
	assert_int_equal(n, 0);
	assert_null(v);
	assert_int_equal(rt_canary_append(path, &s, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "v1-canary.csv: its first line is not 'unix_time,compute_v2"));
	char *text;
	size_t len;
	assert_int_equal(rt_read_file(path, &text, &len, err, sizeof err), RT_OK);
	assert_string_equal(text, v1);
	free(text);
}

static void canary_file_errors_name_the_line(void **state)
{
	(void)state;
	char path[128], err[256];
	rt_canary_sample *v;
	size_t n;
	int older;
	snprintf(path, sizeof path, "%s/bad-canary.csv", dir);
	write_text(path, "unix_time,compute_v2,memory_v2\n# a comment\n1,2,3\n1,abc,3\n");
	assert_int_equal(rt_canary_read(path, &v, &n, &older, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "bad-canary.csv:4: "));
	assert_null(v);
	write_text(path, "time,compute\n1,2,3\n");
	assert_int_equal(rt_canary_read(path, &v, &n, &older, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "bad-canary.csv:1: expected the header"));
	write_text(path, "unix_time,compute_v2,memory_v2\n1,2,0\n");
	assert_int_equal(rt_canary_read(path, &v, &n, &older, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, ":2: "));
	/* a last write cut short: its line is dropped, the rest read */
	write_text(path, "unix_time,compute_v2,memory_v2\n1,2,3\n\n2,4,5\n3,4.5");
	assert_int_equal(rt_canary_read(path, &v, &n, &older, err, sizeof err), RT_OK);
	assert_int_equal(n, 2);
	assert_float_equal(v[1].compute, 4, 0);
	free(v);
	snprintf(path, sizeof path, "%s/none-canary.csv", dir);
	assert_int_equal(rt_canary_read(path, &v, &n, &older, err, sizeof err), RT_EIO);
}

static void canary_measures_both_halves(void **state)
{
	(void)state;
	rt_canary_sample s;
	assert_int_equal(rt_canary_measure(&s), RT_OK);
	assert_true(s.compute > 0.01 && s.compute < 1000);
	assert_true(s.memory > 0.01 && s.memory < 10000);
	assert_true(s.t > 1.7e9);
}

/*
 * Its threads bind to the CPUs the process may use, not to the machine's
 * first ones: in a child kept to the last CPU alone, a sample is taken.
 */
static void canary_binds_within_the_affinity(void **state)
{
	(void)state;
	if (!rt_plat_can_bind())
		skip(); /* macOS binds no thread */
	rt_cpuset all, last;
	assert_int_equal(rt_plat_cpus_allowed(&all), 0);
	int top = -1;
	for (int c = 0; c < RT_CPUSET_MAX; c++)
		top = rt_cpuset_has(&all, c) ? c : top;
	rt_cpuset_zero(&last);
	rt_cpuset_add(&last, top);
	pid_t pid = fork();
	if (pid == 0) {
		rt_canary_sample s;
		_exit(rt_plat_bind(&last) == 0 && rt_canary_measure(&s) == RT_OK && s.compute > 0
			      ? 0
			      : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- the machine's change ---- */

/* n samples around (compute, memory), 3% noise from the seeded generator. */
static rt_canary_sample *series(size_t n, double compute, double memory, uint64_t seed)
{
	rt_rng r;
	rt_rng_seed(&r, seed);
	rt_canary_sample *v = calloc(n, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		double a = (double)(rt_rng_next(&r) % 1000) / 1000 - 0.5;
		double b = (double)(rt_rng_next(&r) % 1000) / 1000 - 0.5;
		v[i] = (rt_canary_sample){1.8e9 + (double)i, compute * (1 + 0.06 * a),
					  memory * (1 + 0.06 * b)};
	}
	return v;
}

static void canaries(rt_baseline *b, rt_check_canary *c, double now_speed)
{
	memset(b, 0, sizeof *b);
	memset(c, 0, sizeof *c);
	b->canary = series(30, 4.0, 12.0, 1);
	b->ncanary = 30;
	c->v = series(30, 4.0 * now_speed, 12.0 * now_speed, 2);
	c->n = c->cap = 30;
}

/* The canary compared as a check does. */
static int compare(rt_check_canary *c, const rt_baseline *b, rt_canary_use use)
{
	char err[256];
	return rt_check_canary_compare(c, b, use, 1, err, sizeof err);
}

/*
 * A machine 20% slower by its canary: both halves said, with the compute
 * half's CI, and said to be shown only (check_canary.h: it decides nothing
 * until it reads its own noise in 95% of the checks of an unchanged machine).
 */
static void a_slower_machine_is_said_by_its_canary(void **state)
{
	(void)state;
	rt_baseline b;
	rt_check_canary c;
	canaries(&b, &c, 0.8);
	assert_true(rt_check_canary_wanted(&b, RT_CANARY_USE));
	assert_int_equal(compare(&c, &b, RT_CANARY_USE), RT_OK);
	assert_true(c.compared);
	assert_float_equal(c.cmp.ratio, 0.8, 0.02);
	assert_true(c.cmp.ci_hi < 0.85 && c.cmp.ci_lo > 0.75);
	assert_float_equal(c.memory_ratio, 0.8, 0.02);
	assert_non_null(strstr(c.says, "compute -2"));
	assert_non_null(strstr(c.says, "; memory -2"));
	assert_non_null(strstr(c.says, "shown only, the points are compared as measured"));
	free(b.canary);
	rt_check_canary_free(&c);

	/* the same machine: about no change, said the same way */
	canaries(&b, &c, 1.0);
	assert_int_equal(compare(&c, &b, RT_CANARY_USE), RT_OK);
	assert_float_equal(c.cmp.ratio, 1, 0.02);
	assert_true(c.cmp.ci_lo < 1 && c.cmp.ci_hi > 1);
	assert_non_null(strstr(c.says, "shown only"));

	/* --no-canary and A/B: none, and said why */
	assert_int_equal(compare(&c, &b, RT_CANARY_OFF), RT_OK);
	assert_false(c.compared);
	assert_string_equal(c.says, "none (--no-canary)");
	assert_false(rt_check_canary_wanted(&b, RT_CANARY_OFF));
	assert_int_equal(compare(&c, &b, RT_CANARY_AB), RT_OK);
	assert_non_null(strstr(c.says, "A and B were measured interleaved"));
	assert_false(rt_check_canary_wanted(&b, RT_CANARY_AB));
	free(b.canary);
	rt_check_canary_free(&c);

	/* an old baseline without a canary: said so */
	memset(&b, 0, sizeof b);
	assert_int_equal(compare(&c, &b, RT_CANARY_USE), RT_OK);
	assert_false(c.compared);
	assert_non_null(strstr(c.says, "the baseline has none"));
	assert_false(rt_check_canary_wanted(&b, RT_CANARY_USE));
}

/*
 * A regression on a machine whose canary read it slower (its CI below 1):
 * the check suggests a host's spell, whether the canary moved 3% or 20%; not
 * when it read the same, or faster, or was off.
 */
static void a_canary_that_read_slower_is_a_suspicion(void **state)
{
	(void)state;
	const struct {
		double speed;
		rt_canary_use use;
		int suspect;
	} cases[] = {{0.97, RT_CANARY_USE, 1}, {0.8, RT_CANARY_USE, 1},
		     {1.0, RT_CANARY_USE, 0},  {1.03, RT_CANARY_USE, 0},
		     {0.97, RT_CANARY_OFF, 0}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rt_baseline b;
		rt_check_canary c;
		char says[640] = "untouched";
		canaries(&b, &c, cases[i].speed);
		assert_int_equal(compare(&c, &b, cases[i].use), RT_OK);
		assert_int_equal(rt_check_canary_suspect(&c, says, sizeof says), cases[i].suspect);
		if (cases[i].suspect) {
			char pct[32];
			snprintf(pct, sizeof pct, "machine %.0f", 100 * (1 - cases[i].speed));
			assert_non_null(strstr(says, "the canary read the "));
			assert_non_null(strstr(says, pct));
			assert_non_null(strstr(says, "% slower too (95% CI -"));
			assert_non_null(strstr(says, "(--a, --b)"));
		} else {
			assert_string_equal(says, "untouched");
		}
		free(b.canary);
		rt_check_canary_free(&c);
	}
}

/* 1 +- amount, uniform, from r. */
static double noise(rt_rng *r, double amount)
{
	return 1 + amount * ((double)(rt_rng_next(r) % 10000) / 10000 - 0.5) * 2;
}

/* ---- the sides of an A/B check ---- */

static void sides_from_specs(void **state)
{
	(void)state;
	rt_check_side s;
	char err[256];
	memset(&s, 0, sizeof s);
	const char *old = getenv("LD_LIBRARY_PATH");
	assert_int_equal(rt_check_side_add(&s, "lib:/tmp", err, sizeof err), RT_OK);
	assert_int_equal(s.nenv, 1);
	assert_int_equal(strncmp(s.env[0], "LD_LIBRARY_PATH=/tmp", 20), 0);
	assert_true(!old || !*old || strstr(s.env[0], old));
	assert_int_equal(rt_check_side_add(&s, "env:OPENBLAS_CORETYPE=Haswell,X=1", err,
					   sizeof err),
			 RT_OK);
	assert_int_equal(s.nenv, 3);
	assert_string_equal(s.env[1], "OPENBLAS_CORETYPE=Haswell");
	assert_string_equal(s.env[2], "X=1");
	assert_int_equal(rt_check_side_add(&s, "plugins:/tmp", err, sizeof err), RT_OK);
	assert_string_equal(s.env[3], "RIGTUNE_BACKEND_PATH=/tmp");
	assert_int_equal(rt_check_side_add(&s, "cmd:python3 train.py --batch {batch}", err,
					   sizeof err),
			 RT_OK);
	assert_string_equal(s.command, "python3 train.py --batch {batch}");
	assert_string_equal(s.spec, "lib:/tmp; env:OPENBLAS_CORETYPE=Haswell,X=1; plugins:/tmp; "
				    "cmd:python3 train.py --batch {batch}");
	memset(&s, 0, sizeof s);
	assert_int_equal(rt_check_side_add(&s, "current", err, sizeof err), RT_OK);
	assert_int_equal(s.nenv, 0);
	assert_int_equal(rt_check_side_add(&s, "/tmp", err, sizeof err), RT_OK);
	assert_int_equal(strncmp(s.env[0], "LD_LIBRARY_PATH=/tmp", 20), 0);

	assert_int_equal(rt_check_side_add(&s, "lib:/no/such/dir", err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "lib:/no/such/dir: /no/such/dir is not a directory");
	assert_int_equal(rt_check_side_add(&s, "env:=1", err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "is not NAME=VALUE"));
	assert_int_equal(rt_check_side_add(&s, "openblas", err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "openblas: expected lib:DIR"));
}

/* ---- A/B by pairs of trials ---- */

static void pairs_tell_a_difference_from_a_drift(void **state)
{
	(void)state;
	rt_compare_opts o = {.alpha = 0.01, .threshold = 0.05, .reps = 2000, .seed = 1};
	rt_mwu significant = {.p = 1e-4}, not_significant = {.p = 0.3};
	rt_comparison c;
	/* B 20% slower in every pair */
	double slower[8] = {log(0.8), log(0.79), log(0.81), log(0.8),
			    log(0.82), log(0.8), log(0.79), log(0.81)};
	rt_compare_pairs(slower, 8, &significant, &o, &c);
	assert_int_equal(c.change, RT_CHANGE_SLOWER);
	assert_float_equal(c.ratio, 0.8, 1e-9);
	assert_true(c.ci_hi < 0.95 && c.ci_lo >= 0.79 - 1e-9);
	assert_int_equal(c.now_n, 8);
	assert_float_equal(c.test.p, 2.0 / 256, 1e-12); /* the signed-rank test's smallest at 8 */
	/* the pooled samples alone do not make it: their test must agree */
	rt_compare_pairs(slower, 8, &not_significant, &o, &c);
	assert_int_equal(c.change, RT_CHANGE_UNDECIDED);
	/* nor do 5 pairs, however pooled samples say: the pairs' own test cannot reach 0.01 */
	rt_compare_pairs(slower, 5, &significant, &o, &c);
	assert_int_equal(c.change, RT_CHANGE_UNDECIDED);
	assert_float_equal(c.test.p, 2.0 / 32, 1e-12);
	/* a machine that drifts between rounds: the pairs disagree, nothing is called */
	double drift[6] = {0.15, -0.12, 0.1, -0.2, 0.12, -0.1};
	rt_compare_pairs(drift, 6, &significant, &o, &c);
	assert_int_equal(c.change, RT_CHANGE_UNDECIDED);
	assert_true(c.ci_lo < 1 && c.ci_hi > 1);
	assert_true(c.more_samples > 0);
	/* the same within 1%: SAME */
	double same[6] = {0.005, -0.004, 0.002, -0.006, 0.003, 0.001};
	rt_compare_pairs(same, 6, &not_significant, &o, &c);
	assert_int_equal(c.change, RT_CHANGE_SAME);
	/* two pairs decide nothing: 20% slower needs 6 more, for the signed-rank test */
	rt_compare_pairs(slower, 2, &significant, &o, &c);
	assert_int_equal(c.change, RT_CHANGE_UNDECIDED);
	assert_int_equal(c.more_samples, 6);
}

/*
 * An A/B check as the check runs one (check_run.c): rounds of a trial per
 * side (8 samples each, the order alternating), the machine drifting up to
 * +-drift between rounds and each trial off by up to 3%, side B at b_speed;
 * after each round the pairs are compared with the pooled samples' test and
 * the check stops at the first decision, or after `rounds`. The decision.
 */
static rt_change ab_session(double b_speed, double drift, int rounds, uint64_t seed)
{
	rt_rng r;
	rt_rng_seed(&r, seed);
	rt_compare_opts o = {.alpha = 0.01, .threshold = 0.02, .reps = 1000, .seed = seed};
	double a[8 * 16], b[8 * 16], pairs[16], machine = 1;
	rt_comparison c = {.change = RT_CHANGE_UNDECIDED};
	for (int n = 0; n < rounds && c.change == RT_CHANGE_UNDECIDED; n++) {
		machine *= noise(&r, drift);
		double ta = machine * noise(&r, 0.03), tb = machine * b_speed * noise(&r, 0.03);
		for (int i = 0; i < 8; i++) {
			a[8 * n + i] = 100 * ta * noise(&r, 0.01);
			b[8 * n + i] = 100 * tb * noise(&r, 0.01);
		}
		pairs[n] = log(rt_median(b + 8 * n, 8) / rt_median(a + 8 * n, 8));
		rt_mwu pooled;
		assert_int_equal(rt_mann_whitney(b, 8 * (size_t)(n + 1), a, 8 * (size_t)(n + 1),
						 &pooled),
				 RT_OK);
		rt_compare_pairs(pairs, (size_t)n + 1, &pooled, &o, &c);
	}
	return c.change;
}

/*
 * A/B at --threshold 2 over the 12 pairs 30 s gives on a busy machine: B 5%
 * slower is found nearly always though the machine drifts 3% between rounds
 * (it falls on both sides of a pair); B the same is called slower or faster
 * rarely (the pooled samples' test alone, stopping at the first pair that
 * looks changed, did so 31 times in 200).
 */
static void pairs_find_five_percent_and_rarely_cry_wolf(void **state)
{
	(void)state;
	int found = 0, alarms = 0;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		found += ab_session(0.95, 0.03, 12, seed) == RT_CHANGE_SLOWER;
		rt_change same = ab_session(1.0, 0.03, 12, 1000 + seed);
		alarms += same == RT_CHANGE_SLOWER || same == RT_CHANGE_FASTER;
	}
	print_message("# A/B: 5%% slower found %d of 200, the same called changed %d of 200\n",
		      found, alarms);
	assert_true(found >= 190);
	assert_true(alarms <= 10);
}

/* ---- the result, written and read back ---- */

static double *values(int n, double around, uint64_t seed)
{
	rt_rng r;
	rt_rng_seed(&r, seed);
	double *v = malloc(sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++)
		v[i] = around * (1 + 0.01 * ((double)(rt_rng_next(&r) % 1000) / 1000 - 0.5));
	return v;
}

static void result_reads_back_as_written(void **state)
{
	(void)state;
	const rt_workload *gemm = rt_workload_find("gemm");
	rt_check_run run;
	rt_check_opts o;
	rt_check_opts_default(&o);
	memset(&run, 0, sizeof run);
	rt_base_point b = {.name = "gemm", .unit = gemm->unit, .w = gemm,
			   .roles = RT_BASE_RECOMMENDED | RT_BASE_FASTEST,
			   .samples = values(10, 100, 1), .nsamples = 10, .trials = 2};
	rt_point_default(&b.pt);
	b.pt.threads = 2;
	rt_shape_default(gemm, &b.sh);
	snprintf(run.base.path, sizeof run.base.path, "configs/vm.yaml");
	run.base.points = &b;
	run.base.npoints = 1;
	rt_check_point p = {.base = &b, .samples = values(12, 80, 2), .nsamples = 12, .trials = 2,
			    .verdict = RT_VERDICT_REGRESSION};
	snprintf(p.reason, sizeof p.reason, "20.0%% slower");
	/* the medians compared: a baseline trial left out, so not the pooled ones */
	p.cmp = (rt_comparison){.ratio = 0.8, .ci_lo = 0.79, .ci_hi = 0.81, .test = {.p = 1e-5},
				.base_left_out = 1};
	p.base_median = 101.5;
	p.now_median = 73.08;
	run.points = &p;
	run.npoints = 1;
	run.counts[RT_VERDICT_REGRESSION] = 1;
	snprintf(run.canary.says, sizeof run.canary.says, "compute -10.0%% [95%% CI -12.0, -8.0]");

	char *text, err[256], path[128];
	size_t len;
	assert_int_equal(rt_check_emit(&run, &o, &text, &len, err, sizeof err), RT_OK);
	assert_non_null(strstr(text, "  says: compute -10.0% [95% CI -12.0, -8.0]\n"));
	assert_null(strstr(text, "speed:")); /* the canary divides nothing */
	assert_null(strstr(text, "raw_ratio"));
	assert_non_null(strstr(text, "  baseline: {median: 101.5, n: 10, trials: 2, left_out: 1}\n"));
	assert_non_null(strstr(text, "  now: {median: 73.08, n: 12, trials: 2, left_out: 0}\n"));
	snprintf(path, sizeof path, "%s/check.yaml", dir);
	write_text(path, text);
	free(text);

	rt_checkdoc d;
	assert_int_equal(rt_checkdoc_load(path, &d, err, sizeof err), RT_OK);
	assert_string_equal(d.baseline, "configs/vm.yaml");
	assert_string_equal(d.result, "regression");
	assert_float_equal(d.threshold, 0.05, 1e-9);
	assert_int_equal(d.npoints, 1);
	assert_string_equal(d.points[0].workload, "gemm");
	assert_string_equal(d.points[0].roles, "recommended, fastest");
	assert_non_null(strstr(d.points[0].point, "threads=2"));
	assert_int_equal(d.points[0].verdict, RT_VERDICT_REGRESSION);
	assert_float_equal(d.points[0].ratio, 0.8, 1e-9);
	assert_float_equal(d.points[0].ci_lo, 0.79, 1e-9);
	assert_float_equal(d.points[0].base_median, 101.5, 1e-9);
	assert_float_equal(d.points[0].now_median, 73.08, 1e-9);
	assert_int_equal(d.counts[RT_VERDICT_REGRESSION], 1);
	rt_checkdoc_free(&d);
	free(b.samples);
	free(p.samples);
}

/*
 * The chance that nn samples all fall past the threshold below the
 * baseline's median under no change: ((k + 1) / (nb + 1))^nn, k of the
 * baseline's samples being there (check_likely.h).
 */
static void below_chance_counts_the_baselines_own(void **state)
{
	(void)state;
	double base[9] = {100, 101, 99, 102, 98, 100, 97, 103, 90}; /* median 100; 90 past 5% */
	assert_float_equal(rt_check_below_chance(base, 9, 1, 0.05), 2.0 / 10, 1e-12);
	assert_float_equal(rt_check_below_chance(base, 9, 3, 0.05), 0.008, 1e-12);
	assert_float_equal(rt_check_below_chance(base, 9, 2, 0.20), 0.01, 1e-12); /* none past 20% */
	assert_float_equal(rt_check_below_chance(base, 0, 3, 0.05), 1, 0);
}

/*
 * A likely regression: every sample now past the threshold below the
 * baseline's median, with enough samples; one sample within the threshold,
 * too few samples for the baseline's spread, or one sample now: not.
 */
static void likely_regression_needs_every_sample_past_and_enough(void **state)
{
	(void)state;
	/* a baseline with one slow trial's samples (left out by the comparison) */
	/* median 99, so the cut is 94.05; 2 of 9 at or below it: q = 3/10 */
	double base[9] = {100, 101, 99, 102, 98, 100, 97, 55, 54};
	double now[4] = {11, 12, 10.5, 11.5}; /* a library 9x slower: below 54 too */
	assert_true(rt_check_every_sample_slower(base, 9, now, 4, 0.05, 0.01)); /* 0.3^4 */
	assert_false(rt_check_every_sample_slower(base, 9, now, 3, 0.05, 0.01)); /* 0.3^3 */
	double half[3] = {52, 56, 58}; /* half as fast: past the cut, not past every sample */
	assert_true(rt_check_every_sample_slower(base, 9, half, 3, 0.05, 0.03));
	double close[3] = {11, 12, 94.5}; /* 94.5 > 94.05 */
	assert_false(rt_check_every_sample_slower(base, 9, close, 3, 0.05, 0.03));
	double edge[3] = {11, 12, 94.0};
	assert_true(rt_check_every_sample_slower(base, 9, edge, 3, 0.05, 0.03));
	/* 2 samples: 0.3^2 = 0.09 > 0.01, too few for this baseline's spread */
	assert_false(rt_check_every_sample_slower(base, 9, now, 2, 0.05, 0.01));
	assert_false(rt_check_every_sample_slower(base, 9, now, 1, 0.05, 0.5));
	assert_false(rt_check_every_sample_slower(base, 0, now, 3, 0.05, 0.01));
	double fast[3] = {200, 210, 205}; /* faster is no regression */
	assert_false(rt_check_every_sample_slower(base, 9, fast, 3, 0.05, 0.01));
}

/* Samples of one distribution on both sides, round after round: the count of likely regressions. */
static int aa_alarms(rt_rng *r, int rounds, size_t nn, double spread, double threshold)
{
	int alarms = 0;
	for (int round = 0; round < rounds; round++) {
		double base[12], now[16];
		for (int i = 0; i < 12; i++)
			base[i] = 100 * (1 + spread * rt_rng_normal(r));
		for (size_t i = 0; i < nn; i++)
			now[i] = 100 * (1 + spread * rt_rng_normal(r));
		alarms += rt_check_every_sample_slower(base, 12, now, nn, threshold, 0.01);
	}
	return alarms;
}

/*
 * A/A: samples of one distribution on both sides are a likely regression at
 * most alpha (0.01) of the time: 4 samples now against 12 with a spread of
 * 3% never in 20000 at the 5% threshold, nor often with a VM's 20%; 8 at a
 * 1% threshold (nearly at the median) under 1% too.
 */
static void likely_regression_rarely_cries_wolf(void **state)
{
	(void)state;
	rt_rng r;
	rt_rng_seed(&r, 46);
	assert_int_equal(aa_alarms(&r, 20000, 4, 0.03, 0.05), 0);
	int wide = aa_alarms(&r, 20000, 4, 0.20, 0.05); /* a VM's spread of 20% */
	assert_in_range(wide, 0, 200);
	int near_median = aa_alarms(&r, 20000, 8, 0.03, 0.01);
	assert_in_range(near_median, 0, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(canary_path_is_beside_the_journal),
	    cmocka_unit_test(canary_file_round_trip),
	    cmocka_unit_test(canary_file_errors_name_the_line),
	    cmocka_unit_test(canary_file_of_version_1_is_not_compared),
	    cmocka_unit_test(canary_measures_both_halves),
	    cmocka_unit_test(canary_binds_within_the_affinity),
	    cmocka_unit_test(a_slower_machine_is_said_by_its_canary),
	    cmocka_unit_test(a_canary_that_read_slower_is_a_suspicion),
	    cmocka_unit_test(sides_from_specs),
	    cmocka_unit_test(pairs_tell_a_difference_from_a_drift),
	    cmocka_unit_test(pairs_find_five_percent_and_rarely_cry_wolf),
	    cmocka_unit_test(result_reads_back_as_written),
	    cmocka_unit_test(below_chance_counts_the_baselines_own),
	    cmocka_unit_test(likely_regression_needs_every_sample_past_and_enough),
	    cmocka_unit_test(likely_regression_rarely_cries_wolf),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
