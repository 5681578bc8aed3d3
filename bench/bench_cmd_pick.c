/*
 * bench_cmd_pick: is the pick of `rigtune tune --cmd` within 3% of the best
 * of a full grid (issue 31, item 5)? On the PyTorch example, as the README
 * runs it:
 *
 *   1. rigtune tune --fresh --cmd 'PYTHON examples/torch_transformer.py
 *      --batch {batch} --steps 100 --seconds 2' --metric 'samples/s
 *      ([0-9.]+)' --space examples/space-torch-transformer.yaml --budget S
 *      (batch 16/32/64 x intra-op threads x BLAS threads: 12 points on two
 *      cores), in a directory of its own (no journal to reuse);
 *   2. every point of that space, run the same way with the environment the
 *      tune gave it, in R interleaved rounds (each round runs every point
 *      once, in an order rotated and reversed from round to round);
 *
 * then prints each point's median samples/s and its ratio to the grid's
 * best (per round, the median over rounds), and the ratios of the tune's
 * recommended and fastest points: target >= 0.97. It also prints how long
 * the tune took against its budget.
 *
 *   build/bench/bench_cmd_pick [--python PATH] [--budget S] [--rounds R] [--rigtune PATH]
 *
 * Run from the source tree. Without PyTorch for the Python (default
 * /usr/bin/python3) it says so and exits 0. About budget + 12 x R x 4 s.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../search/stats.h"
#include "../tuner/config.h"
#include "../tuner/usercmd.h"
#include "../tuner/usercmd_knobs.h"

#define EXAMPLE "examples/torch_transformer.py"
#define SPACE "examples/space-torch-transformer.yaml"
#define METRIC "samples/s ([0-9.]+)"
#define MAX_POINTS 64
#define MAX_ROUNDS 16

typedef struct point {
	long batch, threads, blas;
	double run[MAX_ROUNDS]; /* each round's run median; 0 when it failed */
} point;

typedef struct bench {
	char python[PATH_MAX], example[PATH_MAX], space[PATH_MAX], rigtune[PATH_MAX];
	double budget;
	int rounds, np;
	point p[MAX_POINTS];
} bench;

/* One run of argv with env: its median, 0 when it failed (said on stderr). */
static double run_median(char *const *argv, char *const *env, const char *what)
{
	rt_metric m;
	rt_measurement out;
	char err[RT_ERRLEN];
	double med = 0;
	if (rt_metric_init(&m, METRIC, 1, err, sizeof err))
		return 0;
	rt_usercmd c = {.argv = argv, .env = env, .timeout_s = 600};
	if (rt_usercmd_measure(&c, &m, &out, err, sizeof err) == RT_OK && out.feasible)
		med = out.median;
	else
		fprintf(stderr, "bench_cmd_pick: %s: %s\n", what, out.reason[0] ? out.reason : err);
	rt_measurement_free(&out);
	rt_metric_free(&m);
	return med;
}

/* The tune, as a user runs it, in dir; its wall seconds into *secs. 0 on success. */
static int tune(const bench *b, const char *dir, double *secs)
{
	char cmd[3 * PATH_MAX], budget[32], out[PATH_MAX + 32], err[RT_ERRLEN];
	snprintf(cmd, sizeof cmd, "%s %s --batch {batch} --steps 100 --seconds 2", b->python,
		 b->example);
	snprintf(budget, sizeof budget, "%g", b->budget);
	snprintf(out, sizeof out, "%s/config.yaml", dir);
	char *argv[] = {(char *)b->rigtune, "tune", "--fresh", "--quiet", "--cmd", cmd, "--metric",
			METRIC, "--space", (char *)b->space, "--budget", budget, "-o", out, NULL};
	char *cwd = getcwd(NULL, 0);
	rt_usercmd_exit x;
	rt_usercmd c = {.argv = argv, .timeout_s = 3 * b->budget + 120};
	int rc = cwd && chdir(dir) == 0 ? rt_usercmd_run(&c, &x, err, sizeof err) : RT_EIO;
	if (cwd && chdir(cwd))
		rc = RT_EIO;
	free(cwd);
	*secs = rc ? 0 : x.seconds;
	if (rc || !WIFEXITED(x.status) || WEXITSTATUS(x.status)) {
		fprintf(stderr, "bench_cmd_pick: the tune failed: %s\n", rc ? err : x.last_err);
		return -1;
	}
	return 0;
}

/* The grid of the space on `cores` cores: batch 16/32/64 x threads x BLAS threads. */
static void grid(bench *b, int cores)
{
	static const long batches[] = {16, 32, 64};
	for (size_t i = 0; i < RT_COUNT(batches); i++)
		for (long t = 1; t <= cores; t++)
			for (long bl = 1; bl <= cores && b->np < MAX_POINTS; bl++)
				b->p[b->np++] = (point){.batch = batches[i], .threads = t, .blas = bl};
}

static void run_point(const bench *b, point *p, int round)
{
	char batch[24], threads[24], blas[24], what[64];
	snprintf(batch, sizeof batch, "%ld", p->batch);
	snprintf(threads, sizeof threads, "%ld", p->threads);
	snprintf(blas, sizeof blas, "%ld", p->blas);
	rt_knob_value kv[] = {{"batch", batch}, {"threads", threads}, {"blas_threads", blas}};
	rt_cmd_point pt;
	rt_usercmd_env env;
	int rc = rt_cmd_point_of(kv, 3, &pt, NULL, 0);
	RT_BUG_ON(rc); /* three integers are a point */
	rt_cmdknobs_env(&pt, NULL, &env);
	char *argv[] = {(char *)b->python, (char *)b->example, "--batch", batch, "--steps", "100",
			"--seconds", "2", NULL};
	snprintf(what, sizeof what, "(%ld, %ld, %ld)", p->batch, p->threads, p->blas);
	p->run[round] = run_median(argv, env.ptr, what);
}

/* Point i against point ref: the median over the rounds both ran of their ratio. */
static double paired_ratio(const bench *b, int i, int ref)
{
	double r[MAX_ROUNDS];
	int n = 0;
	for (int k = 0; k < b->rounds; k++)
		if (b->p[i].run[k] > 0 && b->p[ref].run[k] > 0)
			r[n++] = b->p[i].run[k] / b->p[ref].run[k];
	return n ? rt_median(r, (size_t)n) : 0;
}

static double point_median(const bench *b, int i)
{
	double v[MAX_ROUNDS];
	int n = 0;
	for (int k = 0; k < b->rounds; k++)
		if (b->p[i].run[k] > 0)
			v[n++] = b->p[i].run[k];
	return n ? rt_median(v, (size_t)n) : 0;
}

/* The grid's point that the configuration's entry `role` names, -1 if none. */
static int point_of(const bench *b, const rt_config *c, const char *role)
{
	const rt_config_rec *rec = rt_config_find(c, "command");
	if (!rec || rec->none)
		return -1;
	const rt_config_kvs *kv = !strcmp(role, "recommended") ? &rec->recommended.point
							       : &rec->fastest.point;
	const char *bs = rt_config_kv_get(kv, "batch"), *t = rt_config_kv_get(kv, "threads");
	const char *bl = rt_config_kv_get(kv, "blas_threads");
	for (int i = 0; bs && t && bl && i < b->np; i++)
		if (b->p[i].batch == atol(bs) && b->p[i].threads == atol(t) && b->p[i].blas == atol(bl))
			return i;
	return -1;
}

static void report(const bench *b, const rt_config *c, double tune_s)
{
	int ref = 0;
	for (int i = 1; i < b->np; i++)
		if (point_median(b, i) > point_median(b, ref))
			ref = i;
	printf("bench_cmd_pick: %s %s, %d points x %d rounds interleaved; ratio: per round against "
	       "the grid's best, median over rounds\n",
	       b->python, EXAMPLE, b->np, b->rounds);
	printf("%-18s %10s %8s\n", "(batch, T, BLAS)", "samples/s", "ratio");
	for (int i = 0; i < b->np; i++)
		printf("(%3ld, %ld, %ld)%8s %10.2f %8.3f%s\n", b->p[i].batch, b->p[i].threads,
		       b->p[i].blas, "", point_median(b, i), paired_ratio(b, i, ref),
		       i == ref ? "  grid's best" : "");
	const char *roles[] = {"recommended", "fastest"};
	for (int r = 0; r < 2; r++) {
		int i = point_of(b, c, roles[r]);
		if (i < 0)
			printf("tune --cmd %s: not a point of the grid\n", roles[r]);
		else
			printf("tune --cmd %-11s (%ld, %ld, %ld): %.3f of the grid's best%s\n", roles[r],
			       b->p[i].batch, b->p[i].threads, b->p[i].blas, paired_ratio(b, i, ref),
			       r == 0 ? " (target >= 0.97)" : "");
	}
	const char *reason = rt_config_scalar(c, "recommendations.command.reason");
	printf("tune --cmd took %.1f s of its %.0f s budget; its reason: %s\n", tune_s, b->budget,
	       reason ? reason : "-");
}

static int parse(int argc, char **argv, bench *b)
{
	static const struct option opts[] = {
		{"python", required_argument, NULL, 'p'}, {"budget", required_argument, NULL, 'b'},
		{"rounds", required_argument, NULL, 'r'}, {"rigtune", required_argument, NULL, 'R'},
		{NULL, 0, NULL, 0}};
	for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		if (c == 'p')
			snprintf(b->python, sizeof b->python, "%s", optarg);
		else if (c == 'b')
			b->budget = atof(optarg);
		else if (c == 'r')
			b->rounds = atoi(optarg);
		else if (c == 'R' && !realpath(optarg, b->rigtune))
			return -1;
		else if (c != 'R')
			return -1;
	}
	if (b->rounds < 1 || b->rounds > MAX_ROUNDS || b->budget < 1)
		return -1;
	return realpath(EXAMPLE, b->example) && realpath(SPACE, b->space) ? 0 : -1;
}

int main(int argc, char **argv)
{
	static bench b = {.python = "/usr/bin/python3", .budget = 300, .rounds = 4};
	if (!realpath("build/rigtune", b.rigtune))
		b.rigtune[0] = '\0';
	if (parse(argc, argv, &b) || !b.rigtune[0]) {
		fprintf(stderr, "usage: bench_cmd_pick [--python PATH] [--budget S] [--rounds 1-%d] "
				"[--rigtune PATH] (from the source tree)\n",
			MAX_ROUNDS);
		return 2;
	}
	char probe[PATH_MAX + 64];
	snprintf(probe, sizeof probe, "%s -c 'import torch' 2>/dev/null", b.python);
	if (system(probe) != 0) {
		printf("bench_cmd_pick: skipped: %s has no torch\n", b.python);
		return 0;
	}
	static const char *const unset[] = {"OMP_NUM_THREADS", "MKL_NUM_THREADS",
					    "OPENBLAS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"};
	for (size_t i = 0; i < RT_COUNT(unset); i++)
		unsetenv(unset[i]);
	char dir[] = "/tmp/rigtune-bench-cmd-XXXXXX", path[sizeof dir + 16];
	double tune_s;
	rt_config c;
	char err[RT_ERRLEN];
	if (!mkdtemp(dir) || tune(&b, dir, &tune_s))
		return 1;
	snprintf(path, sizeof path, "%s/config.yaml", dir);
	if (rt_config_load(path, &c, err, sizeof err)) {
		fprintf(stderr, "bench_cmd_pick: %s\n", err);
		return 1;
	}
	grid(&b, (int)sysconf(_SC_NPROCESSORS_ONLN));
	/* each round forward or backward, from a rotating start: no point keeps a place */
	for (int r = 0; r < b.rounds; r++)
		for (int i = 0; i < b.np; i++) {
			int k = r % 2 ? b.np - 1 - i : i;
			run_point(&b, &b.p[(k + r / 2) % b.np], r);
		}
	report(&b, &c, tune_s);
	rt_config_free(&c);
	return 0;
}
