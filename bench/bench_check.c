/*
 * bench_check: how often `rigtune check` raises a false alarm on an
 * unchanged machine, and how often it catches a known slowdown of the
 * component it checks, over long enough to meet the host's drift.
 *
 *   build/bench/bench_check [--rounds N] [--minutes M] [--slowdown F]
 *       [--workloads W,...] [--tune-seconds S] [--rebase]
 *       [--ab-slowdown F] [--ab-threshold PCT] [--ab-budget S] [--no-ab]
 *       [--cmd COMMAND --metric REGEX] [--space FILE] [--slow-env NAME=VALUE,...]
 *       [--budget S]
 *   (defaults: 40 rounds and 30 minutes, whichever ends later; 0.10; gemm;
 *    20 s; A/B: 0.05, 2%, 30 s)
 *
 * With --cmd the baseline is a `rigtune tune --cmd COMMAND --metric REGEX
 * [--space FILE]` process (a real script: give its paths absolute, it runs in
 * the temporary directory), the checks are `check --baseline ... --cmd
 * COMMAND` (its trials are the check's children, so what is preloaded into
 * the check reaches the script's processes), and there is no A/B (its one
 * point is gemm's). --slow-env replaces the slowed check's libslowblas with
 * the environment given, for a component that is not the BLAS (a Python
 * environment step: examples/trading_env.py's TRADING_ENV_SLOWDOWN).
 * --budget is the A/A and slowed checks' --budget (default: check's own).
 * Without --cmd, --space is the tune's space for the one workload of
 * --workloads, which it names (a precision the tune would not pick, say:
 * --workloads transformer --space bench/space-transformer-fp32.yaml).
 *
 * It tunes WORKLOADS on the CPU for S seconds into a baseline (in a
 * temporary directory), then runs rounds of checks, each a `rigtune check`
 * process (build/rigtune) whose YAML is read back:
 *   A/A        check --baseline, nothing changed;
 *   slowed     the same with build/bench/libslowblas.so preloaded into the
 *              check and SLOWBLAS_SLOWDOWN=F: every GEMM of its trials (the
 *              check's children) through OpenBLAS or oneDNN takes 1 / (1 - F)
 *              of its time, the rest of the trial and the canary (measured in
 *              the check's own process, no BLAS) as fast as they are; A/A and
 *              slowed go first in turns;
 *   A/B        gemm at its default shape (no baseline: one point, so that
 *              the budget gives it the 8 pairs or more a decision takes);
 *              in even rounds A/B same: check --a current --b current; in odd
 *              rounds A/B slow: --b env:LD_PRELOAD=libslowblas.so,
 *              SLOWBLAS_SLOWDOWN=F_ab (side B's bench processes);
 * the first two with check's default budget (the tune's time) and
 * threshold, the A/B ones with --budget S_ab and --threshold PCT (a
 * comparison in one session cancels the drift, so a smaller change can be
 * told). The slowdown the checks saw (the median now/base against the
 * A/A checks') is printed beside the one applied: the slowdown falls on the
 * GEMMs only, so a workload with other work in its step sees less of it.
 * With --rebase every round tunes a new baseline first: the false alarms
 * are then the check's own, without the drift of a machine whose speed
 * changes over minutes. BENCH_CHECK_VERBOSE=1 shows each check's stderr.
 *
 * Every check's YAML stays in the temporary directory (rNN-aa.yaml,
 * rNN-slowed.yaml, rNN-ab-same.yaml, rNN-ab-slow.yaml), to read why a check
 * raised an alarm or missed. Rates come with their 95% Wilson score intervals. The load the run met
 * (the 1-minute load average, min and max over the rounds) is printed, and
 * each round's seconds. Then the same per workload and precision (a GEMM
 * sweep's sizes apart): the A/A checks with a regression among its points,
 * its share of unchanged verdicts, and the slowed checks that found one.
 *
 * Targets (issue 24): A/A false alarms <= 5%, detection >= 95% of a 10%
 * slowdown, A/B detection >= 95% of a 5% difference; issue 33: >= 90% of an
 * A/A check's verdicts unchanged, per workload a baseline can hold: one
 * run with --workloads gemm,transformer,ppo gives each its line.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../search/stats.h"
#include "../tuner/check/check.h"
#include "../tuner/config.h"
#include "../tuner/lock.h"
#include "../tuner/output.h"
#include "../tuner/tune.h"
#include "../tuner/usercmd.h"

#define MAX_ROUNDS 1000
#define MAX_GROUPS 12
#define MAX_ARGS 24
#define MAX_ENV 8

/* ---- one check: `rigtune check` as a process, its YAML read back ---- */

/*
 * A check's verdicts on the points of one workload and precision ("gemm
 * bf16"), a GEMM sweep's sizes apart ("gemm fp32 sweep"): the calibration
 * per workload that issue 33 asks for.
 */
typedef struct group {
	char name[48];
	int counts[RT_NVERDICT];
	double log_ratios; /* the sum of log(now / baseline), over ratios of them */
	int ratios;
} group;

typedef struct outcome {
	int status; /* 0 pass, 1 regression, -1 failed */
	group groups[MAX_GROUPS];
	int ngroups;
	double seconds;
	int counts[RT_NVERDICT];
	double ratio;      /* the median over its points of now / baseline */
	double canary;     /* the canary's compute half now / baseline (shown only); 0: none */
	double contention; /* the most other processes took of a trial's cores */
} outcome;

/* What one kind of check runs: its arguments after `rigtune check`, and environment. */
typedef struct check_cmd {
	const char *args[MAX_ARGS]; /* NULL-terminated */
	char *env[MAX_ENV];         /* "NAME=value", NULL-terminated */
} check_cmd;

/* The check's stderr, shown with BENCH_CHECK_VERBOSE (its progress and table). */
static void show_line(void *user, int is_err, const char *line)
{
	if (is_err && user)
		fprintf(stderr, "    | %s\n", line);
}

/* The index of the group named NAME among the n of v; -1 when none is. */
static int group_index(const group *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return i;
	return -1;
}

/* The group named NAME in v (n of them), added when new; NULL when MAX_GROUPS are there. */
static group *group_named(group *v, int *n, const char *name)
{
	int i = group_index(v, *n, name);
	if (i >= 0)
		return &v[i];
	if (*n == MAX_GROUPS)
		return NULL;
	v[*n] = (group){0};
	snprintf(v[*n].name, sizeof v[*n].name, "%s", name);
	return &v[(*n)++];
}

/* Counts point p's verdict and ratio (0: none) in its group of out. */
static void count_point(const rt_yr *r, const rt_ynode *p, double ratio, outcome *out)
{
	const char *wl = rt_yr_scalar(rt_yr_get(r, p, "workload"));
	const char *prec = rt_yr_scalar(rt_yr_at(r, p, "point.precision"));
	const char *verdict = rt_yr_scalar(rt_yr_get(r, p, "verdict"));
	char name[48];
	snprintf(name, sizeof name, "%s%s%s%s", wl ? wl : "?", prec ? " " : "", prec ? prec : "",
		 rt_yr_get(r, p, "curve") ? " sweep" : "");
	group *g = group_named(out->groups, &out->ngroups, name);
	for (int v = 0; g && verdict && v < RT_NVERDICT; v++)
		g->counts[v] += !strcmp(verdict, rt_verdict_name((rt_verdict)v));
	if (g && ratio > 0) {
		g->log_ratios += log(ratio);
		g->ratios++;
	}
}

/* The median of the points' ratios, their worst contention, and their verdicts by group. */
static void read_points(const rt_yr *r, const rt_ynode *points, outcome *out)
{
	double v[64];
	int n = 0;
	for (int i = 0; i < rt_yr_nitems(points) && n < 64; i++) {
		const rt_ynode *p = rt_yr_item(r, points, i);
		double x;
		if (rt_yr_number(r, rt_yr_get(r, p, "ratio"), "ratio", &x) != RT_OK)
			x = 0; /* null: infeasible or never run */
		count_point(r, p, x, out);
		if (x > 0)
			v[n++] = x;
		if (rt_yr_number(r, rt_yr_at(r, p, "contention.now"), "contention", &x) == RT_OK)
			out->contention = fmax(out->contention, x);
	}
	out->ratio = n ? rt_median(v, (size_t)n) : 0;
}

static int read_result(const char *path, outcome *out, char *err, size_t errlen)
{
	rt_yr r;
	int rc = rt_yr_load_file(&r, path, err, errlen);
	if (rc)
		return rc;
	const rt_ynode *root = rt_yr_root(&r), *summary = rt_yr_get(&r, root, "summary");
	for (int v = 0; v < RT_NVERDICT; v++) {
		long k = 0;
		if (rt_yr_get(&r, summary, rt_verdict_name((rt_verdict)v)))
			rc = rc ? rc : rt_yr_need_int(&r, summary, rt_verdict_name((rt_verdict)v), 0,
						      1000, &k);
		out->counts[v] = (int)k;
	}
	if (rt_yr_number(&r, rt_yr_at(&r, root, "canary.ratio"), "canary.ratio", &out->canary))
		out->canary = 0; /* null: no canary compared */
	read_points(&r, rt_yr_get(&r, root, "points"), out);
	rt_yr_free(&r);
	return rc;
}

/*
 * `rigtune ARGS...` with ENV added, its exit code returned (-1: it did not
 * run or ended on a signal, ERR says why).
 */
static int run_rigtune(char **argv, char **env, double *seconds, char *err, size_t errlen)
{
	rt_usercmd uc = {.argv = argv, .env = env, .pin = RT_PIN_NONE, .line = show_line,
			 .user = getenv("BENCH_CHECK_VERBOSE")};
	rt_usercmd_exit x;
	int rc = rt_usercmd_run(&uc, &x, err, errlen);
	*seconds = x.seconds;
	int code = rc == RT_OK && WIFEXITED(x.status) ? WEXITSTATUS(x.status) : -1;
	if (rc == RT_OK && code != 0 && code != 1)
		rt_fail(err, errlen, RT_ERUNTIME, "exit %d: %s", code, x.last_err);
	return code;
}

/* One check, its YAML kept as rNN-KIND.yaml in the run's directory. */
static outcome check_once(const char *rigtune, const check_cmd *c, int round, const char *kind)
{
	outcome out = {.status = -1};
	char *argv[MAX_ARGS + 6], err[RT_ERRLEN];
	int n = 0;
	argv[n++] = (char *)rigtune;
	argv[n++] = "check";
	for (int i = 0; c->args[i]; i++)
		argv[n++] = (char *)c->args[i];
	argv[n++] = "-o";
	argv[n++] = "result.yaml";
	argv[n] = NULL;
	unlink("result.yaml");
	int code = run_rigtune(argv, (char **)c->env, &out.seconds, err, sizeof err);
	int rc = code == 0 || code == 1 ? read_result("result.yaml", &out, err, sizeof err)
					: RT_ERUNTIME;
	if (rc == RT_OK)
		out.status = code;
	else
		fprintf(stderr, "bench_check: rigtune check failed: %s\n", err);
	char keep[64];
	snprintf(keep, sizeof keep, "r%02d-%s.yaml", round + 1, kind);
	rename("result.yaml", keep);
	return out;
}

/* ---- the command line ---- */

typedef struct bench_opts {
	int rounds, rebase, ab;
	double minutes, slowdown, tune_s, ab_slowdown, ab_threshold, ab_budget, budget;
	const char *workloads, *cmd, *metric, *space, *slow_env;
	char space_path[PATH_MAX]; /* --space made absolute: the run works in a temporary directory */
} bench_opts;

/* ---- the baseline ---- */

static int make_baseline(const bench_opts *b, const char *path)
{
	char list[128];
	rt_tune_opts o;
	rt_tune_opts_default(&o);
	snprintf(list, sizeof list, "%s", b->workloads);
	for (char *save = NULL, *w = strtok_r(list, ",", &save);
	     w && o.nworkloads < RT_NWORKLOADS; w = strtok_r(NULL, ",", &save))
		o.workloads[o.nworkloads++] = w;
	o.backends[0] = "cpu";
	o.nbackends = 1;
	o.budget_s = b->tune_s;
	o.space_file = b->space;
	o.quiet = 1;
	o.fresh = 1;
	rt_progress pr;
	rt_progress_init(&pr, b->tune_s, 1);
	char err[RT_ERRLEN], *text = NULL;
	size_t len;
	rt_tune_run *run = calloc(1, sizeof *run);
	int rc = run ? rt_tune(&o, run, &pr, err, sizeof err) : RT_ENOMEM;
	if (rc == RT_OK)
		rc = rt_config_emit(run, &o, &text, &len, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_write_file(path, text, len, err, sizeof err);
	if (rc)
		fprintf(stderr, "bench_check: tune: %s\n", err);
	free(text);
	if (run)
		rt_tune_run_free(run);
	free(run);
	return rc;
}

/*
 * A `tune --cmd` configuration as the baseline: rigtune tune as a process
 * (what a user runs), with the run's lock directory in ENV.
 */
static int make_cmd_baseline(const char *rigtune, const bench_opts *b, char **env,
			     const char *path)
{
	char budget[32], err[RT_ERRLEN];
	snprintf(budget, sizeof budget, "%g", b->tune_s);
	char *argv[16] = {(char *)rigtune, "tune", "--cmd", (char *)b->cmd, "--metric",
			  (char *)b->metric, "--budget", budget, "--fresh", "--quiet",
			  "-o", (char *)path};
	int n = 12;
	if (b->space) {
		argv[n++] = "--space";
		argv[n++] = (char *)b->space;
	}
	argv[n] = NULL;
	double seconds;
	int code = run_rigtune(argv, env, &seconds, err, sizeof err);
	if (code == 0)
		return RT_OK;
	fprintf(stderr, "bench_check: tune --cmd: %s\n", code == 1 ? "exit 1" : err);
	return RT_ERUNTIME;
}

/* The baseline of this run: the built-in workloads, or the command's configuration. */
static int baseline(const char *rigtune, const bench_opts *b, char **env)
{
	return b->cmd ? make_cmd_baseline(rigtune, b, env, "baseline.yaml")
		      : make_baseline(b, "baseline.yaml");
}

/* ---- rates ---- */

/* The 95% Wilson score interval of k successes in n trials. */
static void wilson(int k, int n, double *lo, double *hi)
{
	const double z = 1.959964;
	double p = (double)k / n, z2 = z * z / n;
	double mid = (p + z2 / 2) / (1 + z2);
	double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n)) / (1 + z2);
	*lo = fmax(0, mid - half);
	*hi = fmin(1, mid + half);
}

/* One kind of check over the rounds. */
typedef struct tally {
	const char *name;
	int alarms, failed, n;
	int counts[RT_NVERDICT];
	double ratio[MAX_ROUNDS], worst_s, sum_s;
	/* per group: its verdicts over the rounds, the checks it was in, and those with a
	   regression among its points */
	group groups[MAX_GROUPS];
	int group_checks[MAX_GROUPS], group_alarms[MAX_GROUPS], ngroups;
} tally;

static void count_groups(tally *t, const outcome *o)
{
	for (int i = 0; i < o->ngroups; i++) {
		group *g = group_named(t->groups, &t->ngroups, o->groups[i].name);
		if (!g)
			continue;
		for (int v = 0; v < RT_NVERDICT; v++)
			g->counts[v] += o->groups[i].counts[v];
		g->log_ratios += o->groups[i].log_ratios;
		g->ratios += o->groups[i].ratios;
		t->group_alarms[g - t->groups] += rt_verdict_regressions(o->groups[i].counts) > 0;
		t->group_checks[g - t->groups]++;
	}
}

static void count(tally *t, const outcome *o)
{
	count_groups(t, o);
	t->failed += o->status < 0;
	t->alarms += o->status == 1;
	for (int v = 0; v < RT_NVERDICT; v++)
		t->counts[v] += o->counts[v];
	t->ratio[t->n % MAX_ROUNDS] = o->ratio;
	t->worst_s = fmax(t->worst_s, o->seconds);
	t->sum_s += o->seconds;
	t->n++;
}

/* k in percent of all the verdicts counted. */
static double percent_of(int k, const int *counts)
{
	int all = 0;
	for (int v = 0; v < RT_NVERDICT; v++)
		all += counts[v];
	return all ? 100.0 * k / all : 0;
}

static void print_rate(const char *what, const tally *t, const char *target)
{
	double lo, hi;
	if (!t->n)
		return;
	wilson(t->alarms, t->n, &lo, &hi);
	printf("%-26s %3d of %3d (%5.1f%%, 95%% CI %.1f%% to %.1f%%; target %s); checks took "
	       "%.1f s on average, %.1f s at most%s\n",
	       what, t->alarms, t->n, 100.0 * t->alarms / t->n, 100 * lo, 100 * hi, target,
	       t->sum_s / t->n, t->worst_s, t->failed ? " (some checks failed)" : "");
	printf("  verdicts:");
	for (int v = 0; v < RT_NVERDICT; v++)
		printf(" %s %d", rt_verdict_name((rt_verdict)v), t->counts[v]);
	/* on an unchanged machine the common answer must be unchanged, not inconclusive */
	printf(" (unchanged %.0f%%)\n", percent_of(t->counts[RT_VERDICT_UNCHANGED], t->counts));
}

/* How much slower the slowed checks saw a group's points than the A/A checks (geometric means). */
static double seen_slowdown(const group *slow, const group *aa)
{
	if (!slow->ratios || !aa->ratios)
		return NAN;
	return 1 - exp(slow->log_ratios / slow->ratios - aa->log_ratios / aa->ratios);
}

/*
 * Per group: the A/A checks with a regression among its points (a false
 * alarm there) and its unchanged share, and the slowed checks that found
 * a regression among its points (detection there), with the slowdown they
 * saw: a workload whose step is not all GEMMs sees less than the BLAS's.
 */
static void print_groups(const tally *aa, const tally *slow)
{
	if (!aa->ngroups)
		return;
	printf("by workload and precision (A/A: checks with a regression among its points, and "
	       "its verdicts unchanged; slowed: checks that found one, its verdicts regression, "
	       "and how much slower its points were than in the A/A checks):\n");
	for (int i = 0; i < aa->ngroups; i++) {
		const group *a = &aa->groups[i];
		int k = group_index(slow->groups, slow->ngroups, a->name);
		double lo, hi;
		wilson(aa->group_alarms[i], aa->group_checks[i], &lo, &hi);
		printf("  %-22s A/A %3d of %3d (95%% CI %.1f%% to %.1f%%), unchanged %3.0f%%", a->name,
		       aa->group_alarms[i], aa->group_checks[i], 100 * lo, 100 * hi,
		       percent_of(a->counts[RT_VERDICT_UNCHANGED], a->counts));
		if (k >= 0) {
			const group *s = &slow->groups[k];
			wilson(slow->group_alarms[k], slow->group_checks[k], &lo, &hi);
			printf(" | slowed %3d of %3d (95%% CI %.1f%% to %.1f%%), regression %3.0f%%, "
			       "seen %.1f%% slower",
			       slow->group_alarms[k], slow->group_checks[k], 100 * lo, 100 * hi,
			       percent_of(rt_verdict_regressions(s->counts), s->counts),
			       100 * seen_slowdown(s, a));
		}
		printf("\n");
	}
}

/* The median of a tally's ratios, over the checks that measured one (0: none did). */
static double median_ratio(const tally *t)
{
	double v[MAX_ROUNDS];
	size_t n = 0;
	for (int i = 0; i < t->n && i < MAX_ROUNDS; i++)
		if (t->ratio[i] > 0)
			v[n++] = t->ratio[i];
	return n ? rt_median(v, n) : 0;
}

/* How much slower the slowed checks saw their points than the unslowed ones. */
static void print_effect(const char *what, const char *applied, const tally *slow,
			 const tally *same)
{
	double a = median_ratio(slow), b = median_ratio(same);
	if (a > 0 && b > 0)
		printf("  %s: %s, the checks saw their points %.1f%% slower (median now/base "
		       "against the unslowed checks')\n",
		       what, applied, 100 * (1 - a / b));
	else
		printf("  %s: %s, no point measured on both (every trial set aside or failed)\n",
		       what, applied);
}

static double load1(void)
{
	double l[1];
	return getloadavg(l, 1) == 1 ? l[0] : NAN;
}

/* ---- parsing ---- */

/* --slow-env: NAME=VALUE, comma-separated, that fit the slowed check's environment. */
static int slow_env_ok(const char *list)
{
	if (!list)
		return 1;
	int n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n <= MAX_ENV - 2 && strchr(list, '=') && !strstr(list, ",,") &&
	       list[0] != ',' && list[strlen(list) - 1] != ',';
}

static int parse(int argc, char **argv, bench_opts *b)
{
	static const struct option opts[] = {
		{"rounds", required_argument, NULL, 'r'},
		{"minutes", required_argument, NULL, 'm'},
		{"slowdown", required_argument, NULL, 's'},
		{"workloads", required_argument, NULL, 'w'},
		{"tune-seconds", required_argument, NULL, 't'},
		{"rebase", no_argument, NULL, 'R'},
		{"ab-slowdown", required_argument, NULL, 'S'},
		{"ab-threshold", required_argument, NULL, 'T'},
		{"ab-budget", required_argument, NULL, 'B'},
		{"no-ab", no_argument, NULL, 'N'},
		{"cmd", required_argument, NULL, 'c'},
		{"metric", required_argument, NULL, 'M'},
		{"space", required_argument, NULL, 'p'},
		{"slow-env", required_argument, NULL, 'e'},
		{"budget", required_argument, NULL, 'b'},
		{NULL, 0, NULL, 0},
	};
	*b = (bench_opts){.rounds = 40, .minutes = 30, .slowdown = 0.10, .tune_s = 20, .ab = 1,
			  .ab_slowdown = 0.05, .ab_threshold = 2, .ab_budget = 30,
			  .workloads = "gemm"};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r': b->rounds = atoi(optarg); break;
		case 'm': b->minutes = atof(optarg); break;
		case 's': b->slowdown = atof(optarg); break;
		case 'w': b->workloads = optarg; break;
		case 't': b->tune_s = atof(optarg); break;
		case 'R': b->rebase = 1; break;
		case 'S': b->ab_slowdown = atof(optarg); break;
		case 'T': b->ab_threshold = atof(optarg); break;
		case 'B': b->ab_budget = atof(optarg); break;
		case 'N': b->ab = 0; break;
		case 'c': b->cmd = optarg; break;
		case 'M': b->metric = optarg; break;
		case 'p': b->space = optarg; break;
		case 'e': b->slow_env = optarg; break;
		case 'b': b->budget = atof(optarg); break;
		default: return -1;
		}
	}
	int ok = optind == argc && b->rounds >= 1 && b->rounds <= MAX_ROUNDS &&
		 b->minutes >= 0 && b->slowdown > 0 && b->slowdown < 0.9 && b->tune_s >= 2 &&
		 b->ab_slowdown > 0 && b->ab_slowdown < 0.9 && b->ab_threshold > 0 &&
		 b->ab_threshold < 100 && b->ab_budget >= 2 && (b->budget == 0 || b->budget >= 2) &&
		 !b->cmd == !b->metric && slow_env_ok(b->slow_env) &&
		 (b->cmd || !b->space || !strchr(b->workloads, ',')); /* a space is one workload's */
	if (ok && b->space) {
		if (!realpath(b->space, b->space_path)) {
			fprintf(stderr, "bench_check: --space %s: %s\n", b->space, strerror(errno));
			return -1;
		}
		b->space = b->space_path;
	}
	if (b->cmd)
		b->ab = 0; /* A/B's one point is gemm's, not the command's */
	return ok ? 0 : -1;
}

/* NAME beside build/bench/bench_check, in build/ (UP "..") or build/bench/ (UP "."). */
static void beside_self(const char *up, const char *name, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	snprintf(buf, len, "%s/%s/%s", dirname(self), up, name);
}

/* The checks of a round, as `rigtune check` runs them. */
typedef struct checks {
	check_cmd aa, slow, ab_same, ab_slow;
	char lock[PATH_MAX + 32], preload[PATH_MAX + 32], slowdown[64], budget_aa[32];
	char side_b[2 * PATH_MAX], budget[32], threshold[32], *slow_env;
} checks;

/* The slowed check's environment: --slow-env's NAME=VALUE words, else libslowblas. */
static void slowed_env(checks *c, const bench_opts *b)
{
	int n = 1; /* env[0] is the lock */
	if (!b->slow_env) {
		c->slow.env[n++] = c->preload;
		c->slow.env[n++] = c->slowdown;
	} else if ((c->slow_env = strdup(b->slow_env))) {
		for (char *save = NULL, *w = strtok_r(c->slow_env, ",", &save); w && n < MAX_ENV - 1;
		     w = strtok_r(NULL, ",", &save))
			c->slow.env[n++] = w;
	}
	c->slow.env[n] = NULL;
}

/*
 * A/A and slowed: check against the baseline at its defaults (with --cmd,
 * the command given again), the slowed one with libslowblas preloaded into
 * the check (its trials are its children) or --slow-env's environment.
 * A/B (gemm at its default shape, one point: the pairs the signed-rank test
 * needs, 8 at least, fit in the budget; the baseline's 4 points would get 2
 * or 3 each): --a current against --b current, or --b with libslowblas. Every
 * check takes its lock in a directory of this run's: this process holds the
 * machine's.
 */
static void make_checks(checks *c, const bench_opts *b, const char *lockdir)
{
	char lib[PATH_MAX];
	beside_self(".", "libslowblas.so", lib, sizeof lib);
	snprintf(c->lock, sizeof c->lock, "RIGTUNE_LOCK_DIR=%s", lockdir);
	snprintf(c->preload, sizeof c->preload, "LD_PRELOAD=%s", lib);
	snprintf(c->slowdown, sizeof c->slowdown, "SLOWBLAS_SLOWDOWN=%g", b->slowdown);
	snprintf(c->side_b, sizeof c->side_b, "env:LD_PRELOAD=%s,SLOWBLAS_SLOWDOWN=%g", lib,
		 b->ab_slowdown);
	snprintf(c->budget, sizeof c->budget, "%g", b->ab_budget);
	snprintf(c->budget_aa, sizeof c->budget_aa, "%g", b->budget);
	snprintf(c->threshold, sizeof c->threshold, "%g", b->ab_threshold);
	c->aa = (check_cmd){.args = {"--baseline", "baseline.yaml"}, .env = {c->lock}};
	int n = 2;
	if (b->cmd) {
		c->aa.args[n++] = "--cmd";
		c->aa.args[n++] = b->cmd;
	}
	if (b->budget > 0) {
		c->aa.args[n++] = "--budget";
		c->aa.args[n++] = c->budget_aa;
	}
	c->slow = c->aa;
	slowed_env(c, b);
	c->ab_same = (check_cmd){.args = {"--a", "current", "--b", "current", "--budget", c->budget,
					  "--threshold", c->threshold, NULL},
				 .env = {c->lock}};
	c->ab_slow = c->ab_same;
	c->ab_slow.args[3] = c->side_b;
}

/* What the slowed check changes, in words. */
static void describe_slowdown(const bench_opts *b, char *buf, size_t len)
{
	if (b->slow_env)
		snprintf(buf, len, "the environment %s", b->slow_env);
	else
		snprintf(buf, len, "the BLAS %.0f%% slower (libslowblas)", 100 * b->slowdown);
}

int main(int argc, char **argv)
{
	bench_opts b;
	if (parse(argc, argv, &b)) {
		fprintf(stderr, "usage: bench_check [--rounds N] [--minutes M] [--slowdown F] "
				"[--workloads W,...]\n"
				"                   [--tune-seconds S] [--rebase] [--ab-slowdown F] "
				"[--ab-threshold PCT]\n"
				"                   [--ab-budget S] [--no-ab] [--budget S]\n"
				"                   [--cmd COMMAND --metric REGEX] [--space FILE] "
				"[--slow-env NAME=VALUE,...]\n");
		return 2;
	}
	/* the machine's measuring lock for the whole run: no other rigtune measures meanwhile */
	rt_lock lock;
	char err[RT_ERRLEN], rigtune[PATH_MAX + 16];
	beside_self("..", "rigtune", rigtune, sizeof rigtune);
	if (rt_lock_for_command(&lock, "bench_check", 0, 0, err, sizeof err)) {
		fprintf(stderr, "bench_check: %s\n", err);
		return 3;
	}
	char dir[] = "/tmp/rigtune-bench-check-XXXXXX", lockdir[PATH_MAX];
	if (!mkdtemp(dir) || chdir(dir)) {
		perror("bench_check: temporary directory");
		return 3;
	}
	snprintf(lockdir, sizeof lockdir, "%s/locks", dir);
	if (mkdir(lockdir, 0700)) {
		perror("bench_check: lock directory");
		return 3;
	}
	checks *c = calloc(1, sizeof *c);
	if (!c)
		return 3;
	make_checks(c, &b, lockdir);
	if (b.cmd)
		printf("bench_check: baseline: tune --cmd '%s' --metric '%s'%s%s --budget %g",
		       b.cmd, b.metric, b.space ? " --space " : "", b.space ? b.space : "", b.tune_s);
	else
		printf("bench_check: baseline: tune --workload %s --backend cpu%s%s --budget %g",
		       b.workloads, b.space ? " --space " : "", b.space ? b.space : "", b.tune_s);
	printf(" (in %s)%s\n", dir, b.rebase ? ", again before every round" : "");
	fflush(stdout);
	if (baseline(rigtune, &b, c->aa.env))
		return 3;
	char what[256];
	describe_slowdown(&b, what, sizeof what);
	printf("bench_check: rounds of A/A and %s (%s budget, default threshold)%s, until %d "
	       "rounds and %.0f minutes\n",
	       what, b.budget > 0 ? c->budget_aa : "default",
	       b.ab ? ", A/B same and A/B with B's BLAS slower" : "", b.rounds, b.minutes);
	if (b.ab)
		printf("bench_check: A/B: B's BLAS %.0f%% slower, --budget %g --threshold %g\n",
		       100 * b.ab_slowdown, b.ab_budget, b.ab_threshold);
	fflush(stdout);
	tally aa = {0}, slow = {0}, ab_same = {0}, ab_slow = {0};
	double t0 = rt_now(), load_lo = INFINITY, load_hi = 0;
	for (int r = 0; r < MAX_ROUNDS && (r < b.rounds || rt_now() - t0 < 60 * b.minutes); r++) {
		if (b.rebase && r > 0 && baseline(rigtune, &b, c->aa.env))
			return 3;
		double l = load1(), tr = rt_now();
		load_lo = fmin(load_lo, l);
		load_hi = fmax(load_hi, l);
		/* which goes first alternates, so that a drift within the round falls on both */
		outcome x, y;
		if (r % 2 == 0) {
			x = check_once(rigtune, &c->aa, r, "aa");
			y = check_once(rigtune, &c->slow, r, "slowed");
		} else {
			y = check_once(rigtune, &c->slow, r, "slowed");
			x = check_once(rigtune, &c->aa, r, "aa");
		}
		count(&aa, &x);
		count(&slow, &y);
		printf("  round %2d (%4.1f min, load %.1f): A/A %-10s now/base %.3f canary %.3f | "
		       "slowed %-10s %.3f canary %.3f",
		       r + 1, (tr - t0) / 60, l, x.status == 1 ? "REGRESSION" : "pass", x.ratio,
		       x.canary, y.status == 1 ? "regression" : "MISSED", y.ratio, y.canary);
		if (b.ab && r % 2 == 0) {
			outcome u = check_once(rigtune, &c->ab_same, r, "ab-same");
			count(&ab_same, &u);
			printf(" | A/B same %-10s B/A %.3f", u.status == 1 ? "REGRESSION" : "pass",
			       u.ratio);
		} else if (b.ab) {
			outcome v = check_once(rigtune, &c->ab_slow, r, "ab-slow");
			count(&ab_slow, &v);
			printf(" | A/B slow %-10s B/A %.3f", v.status == 1 ? "regression" : "MISSED",
			       v.ratio);
		}
		printf(" (%.0f s)\n", rt_now() - tr);
		fflush(stdout);
	}
	printf("bench_check: %d rounds in %.1f minutes; 1-minute load average %.1f to %.1f on "
	       "%ld CPUs; every check's YAML is in %s (rNN-KIND.yaml)\n",
	       aa.n, (rt_now() - t0) / 60, load_lo, load_hi, sysconf(_SC_NPROCESSORS_ONLN), dir);
	print_rate("false alarms (A/A):", &aa, "<= 5%");
	print_rate("detection (slowed):", &slow, ">= 95%");
	print_effect("slowed", what, &slow, &aa);
	print_groups(&aa, &slow);
	if (b.ab) {
		print_rate("A/B false alarms (same):", &ab_same, "<= 5%");
		print_rate("A/B detection (B slower):", &ab_slow, ">= 95%");
		snprintf(what, sizeof what, "B's BLAS %.0f%% slower (libslowblas)",
			 100 * b.ab_slowdown);
		print_effect("A/B slow", what, &ab_slow, &ab_same);
	}
	free(c->slow_env);
	free(c);
	rt_lock_release(&lock);
	return 0;
}
