/* rigtune bench: one measurement of one workload at one point. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "machine.h"
#include "measure.h"
#include "output.h"
#include "params.h"
#include "report.h"

static const char bench_usage[] =
	"usage: rigtune bench WORKLOAD [KEY=VALUE ...] [--seconds S] [-o FILE]\n\n"
	"Measures WORKLOAD (below) at one point in a separate process: warm-up, then\n"
	"samples of at least 10 ms until the 95% CI of the median is within 2% or S\n"
	"seconds are spent. Prints throughput with its CI, achieved GFLOP/s, the phase\n"
	"split and every sample as YAML, and the workload's own figures. Every workload\n"
	"but the GEMM itself adds gemm_peak, a 1024^3 GEMM at the same point measured\n"
	"in the same run, and the fraction of it the workload reaches.\n\n"
	"Point keys: backend=NAME device=N precision=fp64|fp32|tf32|bf16|fp16\n"
	"            batch=N threads=N workers=N pin=none|compact|spread|pcores\n"
	"            (defaults: cpu, device 0, fp32, batch 32, 1 thread, 0 workers, compact;\n"
	"            a workload ignores the knobs it does not read)\n"
	"Shape keys: the workload's, below (KEY=DEFAULT).\n\n"
	"  --seconds S         sampling time cap (default 5)\n"
	"  -o, --output FILE   write to FILE (atomically) instead of stdout\n\n"
	"Example: rigtune bench gemm m=1024 n=1024 k=1024 threads=2\n";

/* Parses the options (KEY=VALUE arguments are skipped); an exit code, or -1 to go on. */
static int parse_bench(int argc, char **argv, rt_measure_opts *mo, const char **output)
{
	static const struct option opts[] = {
		{"seconds", required_argument, NULL, 's'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:", opts, NULL)) != -1 || optind < argc) {
		if (c == -1) { /* a positional argument: keep parsing after it */
			optind++;
			continue;
		}
		switch (c) {
		case 's':
			if (rt_parse_double(optarg, &mo->time_cap_s) || mo->time_cap_s <= 0)
				return rt_usage_error("bench", "--seconds: expected a positive number, got '%s'", optarg);
			break;
		case 'o': *output = optarg; break;
		case ':': return rt_usage_error("bench", "option '%s' needs a value", argv[optind - 1]);
		default: return rt_usage_error("bench", "unknown option '%s'", argv[optind - 1]);
		}
	}
	return -1;
}

/*
 * The GEMM peak of this point's backend, precision and threads: a 1024^3
 * product measured in the same run, so that a workload's GFLOP/s can be
 * read as a fraction of what the machine's GEMM reaches. 0 if it fails.
 */
static double gemm_peak(const rt_point *pt, double seconds)
{
	const rt_workload *g = rt_workload_find(RT_GEMM_WORKLOAD);
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
	rt_measure_opts mo;
	const char *output = NULL;
	rt_point_default(&pt);
	rt_measure_defaults(&mo);
	char names[256];
	rt_workload_names(names, sizeof names);
	if (argc < 2 || argv[1][0] == '-')
		return rt_usage_error("bench", "missing WORKLOAD (%s)", names);
	const rt_workload *w = rt_workload_find(argv[1]);
	if (!w)
		return rt_usage_error("bench", "unknown workload '%s' (%s)", argv[1], names);
	rt_shape_default(w, &sh);
	int rc = parse_bench(argc, argv, &mo, &output);
	if (rc >= 0)
		return rc;

	char err[RT_ERRLEN];
	for (int i = 2; i < argc; i++) {
		if (argv[i][0] == '-') { /* an option and, unless --opt=value, its value */
			if (!strchr(argv[i], '=') && i + 1 < argc)
				i++;
			continue;
		}
		if (rt_params_apply(w, argv[i], &pt, &sh, err, sizeof err))
			return rt_usage_error("bench", "%s", err);
	}
	if (w->check(&pt, &sh, err, sizeof err))
		return rt_usage_error("bench", "%s", err);
	mo.timeout_s = mo.time_cap_s * 3 + 60;

	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (pt.threads + pt.workers > cores)
		fprintf(stderr, "rigtune: warning: %d threads + %d workers oversubscribe the %ld "
				"CPUs of this machine\n", pt.threads, pt.workers, cores);
	fprintf(stderr, "rigtune: measuring %s on %s (%s, %d thread%s)...\n", w->name, pt.backend,
		rt_precision_name(pt.precision), pt.threads, pt.threads == 1 ? "" : "s");
	rt_measurement m;
	rc = rt_measure(w, &pt, &sh, &mo, &m, err, sizeof err);
	if (rc) {
		rt_errorf("bench: %s", err);
		return rt_exit_code(rc);
	}
	rt_yw y;
	char *text = NULL;
	size_t len = 0;
	double peak = m.feasible && strcmp(w->name, RT_GEMM_WORKLOAD) ? gemm_peak(&pt, 1.0) : 0;
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
