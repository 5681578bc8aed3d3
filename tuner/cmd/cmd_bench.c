/* rigtune bench: one measurement of one workload at one point. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "../lock.h"
#include "../machine.h"
#include "../measure.h"
#include "../output.h"
#include "../params.h"
#include "../measure_yaml.h"

static const char bench_usage[] =
	"usage: rigtune bench WORKLOAD [KEY=VALUE ...] [--seconds S] [--no-wait] [-o FILE]\n\n"
	"Measures WORKLOAD (below) at one point in a separate process: warm-up, then\n"
	"samples of at least 10 ms until the 95% CI of the median is within 2% or S\n"
	"seconds are spent. Prints throughput with its CI, achieved GFLOP/s, the phase\n"
	"split and every sample as YAML, and the workload's own figures. Every workload\n"
	"but the GEMM itself adds gemm_peak, a 1024^3 GEMM at the same point measured\n"
	"in the same run, and the fraction of it the workload reaches.\n\n"
	"Point keys: backend=NAME device=N precision=fp64|fp32|tf32|bf16|fp16\n"
	"            batch=N threads=N workers=N pin=none|compact|spread|pcores|ecores\n"
	"            (defaults: cpu, device 0, fp32, batch 32, 1 thread, 0 workers, compact;\n"
	"            a workload ignores the knobs it does not read)\n"
	"Shape keys: the workload's, below (KEY=DEFAULT).\n\n"
	"  --seconds S         sampling time cap (default 5)\n"
	"  --no-wait           exit 3 if another rigtune is measuring on this machine\n"
	"                      (default: wait for it)\n"
	"  -o, --output FILE   write to FILE (atomically) instead of stdout\n\n"
	"Example: rigtune bench gemm m=1024 n=1024 k=1024 threads=2\n";

#define MAX_ASSIGNMENTS 64

/* The command line of bench: options, then WORKLOAD and KEY=VALUE in the order given. */
typedef struct bench_args {
	rt_measure_opts mo;
	const char *output;
	int no_wait;
	const char *workload;                 /* the first argument that is not an option */
	const char *assign[MAX_ASSIGNMENTS];  /* the others, KEY=VALUE */
	int nassign;
} bench_args;

/* An argument that is not an option: the workload, then KEY=VALUE. An exit code, or -1. */
static int positional(bench_args *a, const char *arg)
{
	if (!a->workload)
		a->workload = arg;
	else if (a->nassign == MAX_ASSIGNMENTS)
		return rt_usage_error("bench", "more than %d KEY=VALUE arguments", MAX_ASSIGNMENTS);
	else
		a->assign[a->nassign++] = arg;
	return -1;
}

/*
 * Parses the command line. getopt_long's in-order mode ("-") hands every
 * argument that is not an option over as it comes, so WORKLOAD and KEY=VALUE
 * may sit before, between and after the options, whichever way an option
 * takes its value (-oFILE, -o FILE, --output=FILE, --output FILE); after
 * "--" everything is positional. An exit code, or -1 to go on.
 */
static int parse_bench(int argc, char **argv, bench_args *a)
{
	static const struct option opts[] = {
		{"seconds", required_argument, NULL, 's'},
		{"output", required_argument, NULL, 'o'},
		{"no-wait", no_argument, NULL, 'W'},
		{NULL, 0, NULL, 0},
	};
	int c, rc = -1;
	optind = 0; /* glibc: start over, reading the optstring's mode again */
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, "-:o:", opts, NULL)) != -1) {
		switch (c) {
		case 1: rc = positional(a, optarg); break;
		case 'W': a->no_wait = 1; break;
		case 's':
			if (rt_parse_double(optarg, &a->mo.time_cap_s) || a->mo.time_cap_s <= 0)
				rc = rt_usage_error(
				    "bench", "--seconds: expected a positive number, got '%s'",
				    optarg);
			break;
		case 'o': a->output = optarg; break;
		case ':':
			rc = rt_usage_error("bench", "option '%s' needs a value", argv[optind - 1]);
			break;
		default: rc = rt_usage_error("bench", "unknown option '%s'", argv[optind - 1]);
		}
	}
	while (rc < 0 && optind < argc)
		rc = positional(a, argv[optind++]);
	return rc;
}

/*
 * The GEMM peak of this point's backend, precision and threads: a 1024^3
 * product measured in the same run, so that a workload's GFLOP/s can be
 * read as a fraction of what the machine's GEMM reaches. 0 if it fails.
 */
static double gemm_peak(const rt_point *pt, double seconds)
{
	const rt_workload *g = rt_workload_builtin(RT_GEMM_WORKLOAD);
	rt_shape sh;
	rt_shape_default(g, &sh);
	rt_measure_opts mo;
	rt_measure_defaults(&mo);
	mo.time_cap_s = seconds;
	rt_measurement m;
	double peak = 0;
	if (rt_measure(g, pt, &sh, &mo, &m, NULL, 0) == RT_OK && m.feasible)
		peak = m.median;
	rt_measurement_free(&m);
	return peak;
}

/* The cores more workers could use (the derived figures' bottleneck sentence). */
static int usable_cores(void)
{
	rt_machine *mach = calloc(1, sizeof *mach);
	int n = 0;
	if (mach && rt_machine_probe(NULL, mach, NULL, 0) == RT_OK)
		n = rt_machine_pcores(mach);
	free(mach);
	return n > 0 ? n : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static int run_bench(int argc, char **argv)
{
	rt_point pt;
	rt_shape sh;
	bench_args a = {.output = NULL};
	rt_point_default(&pt);
	rt_measure_defaults(&a.mo);
	int rc = parse_bench(argc, argv, &a);
	if (rc >= 0)
		return rc;
	char names[256], err[RT_ERRLEN];
	rt_workload_names(names, sizeof names);
	if (!a.workload)
		return rt_usage_error("bench", "missing WORKLOAD (%s)", names);
	const rt_workload *w = rt_workload_find(a.workload);
	if (!w)
		return rt_usage_error("bench", "unknown workload '%s' (%s)", a.workload, names);
	rt_shape_default(w, &sh);
	for (int i = 0; i < a.nassign; i++)
		if (rt_params_apply(w, a.assign[i], &pt, &sh, err, sizeof err))
			return rt_usage_error("bench", "%s", err);
	rt_measure_opts mo = a.mo;
	const char *output = a.output;
	if (w->check(&pt, &sh, err, sizeof err))
		return rt_usage_error("bench", "%s", err);
	mo.timeout_s = mo.time_cap_s * 3 + 60;

	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (pt.threads + pt.workers > cores)
		rt_tprintf(stderr, "rigtune: warning: %d threads + %d workers oversubscribe the %ld "
				"CPUs of this machine\n", pt.threads, pt.workers, cores);
	rt_tprintf(stderr, "rigtune: measuring %s on %s (%s, %d thread%s)...\n", w->name, pt.backend,
		rt_precision_name(pt.precision), pt.threads, pt.threads == 1 ? "" : "s");
	rt_lock lock;
	rc = rt_lock_for_command(&lock, "rigtune bench", a.no_wait, 0, err, sizeof err);
	if (rc) {
		rt_errorf("bench: %s", err);
		return rt_exit_code(rc);
	}
	rt_measurement m;
	rc = rt_measure(w, &pt, &sh, &mo, &m, err, sizeof err);
	if (rc) {
		rt_lock_release(&lock);
		rt_errorf("bench: %s", err);
		return rt_exit_code(rc);
	}
	rt_yw y;
	char *text = NULL;
	size_t len = 0;
	double peak = m.feasible && strcmp(w->name, RT_GEMM_WORKLOAD) ? gemm_peak(&pt, 1.0) : 0;
	rt_lock_release(&lock);
	rc = rt_yw_init(&y);
	if (rc == RT_OK) {
		rt_yw_map(&y, 0);
		rt_emit_measurement_fields(&y, w, &pt, &sh, &m, 0, usable_cores());
		if (peak > 0) {
			rt_yw_str(&y, "gemm_peak");
			rt_yw_map(&y, 1);
			rt_yw_knum(&y, "gflops", peak, 5);
			rt_yw_knum(&y, "fraction", m.gflops / peak, 3);
			rt_yw_end_map(&y);
		}
		rt_yw_end_map(&y);
		rc = rt_yw_finish(&y, &text, &len, err, sizeof err);
	}
	if (rc == RT_OK)
		rc = rt_output(output, text, len, err, sizeof err);
	free(text);
	if (rc == RT_OK && !m.feasible) {
		rt_errorf("bench: infeasible: %s", m.reason);
		rc = RT_ERUNTIME;
	} else if (rc) {
		rt_errorf("bench: %s", err);
	}
	rt_measurement_free(&m);
	return rt_exit_code(rc);
}

const rt_command rt_cmd_bench = {"bench", run_bench, "measure one workload at one point",
				 bench_usage, rt_help_workloads};
