/* rigtune watch: how a training run uses the machine, and what holds it back. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../output.h"
#include "../watch/watch.h"

#define DEFAULT_RATE_HZ 10.0
#define MAX_RATE_HZ 50.0

static const char watch_usage[] =
	"usage: rigtune watch [--metric REGEX] [--rate HZ] [-o FILE] [--quiet] -- COMMAND [ARG...]\n"
	"       rigtune watch --pid PID [--rate HZ] [-o FILE] [--quiet]\n\n"
	"Runs COMMAND (or follows the running process PID) and samples, at a fixed rate and\n"
	"without stopping it, how it and every process it starts use the machine: each\n"
	"thread's CPU time and name, the cores kept busy, the rest of the machine's load,\n"
	"the resident memory, and where NVML finds a GPU its busy time (NVML's own samples\n"
	"and its per-process ones). The run is cut into phases by what binds it (device,\n"
	"one_thread, threads, wait_io, wait_sleep); their shares of wall time, a verdict in\n"
	"words with its figures, what a monitor reading once a second would have shown, and\n"
	"the rigtune step that addresses it go to stderr at the end and into the YAML.\n"
	"COMMAND's own output goes to stderr; its processes end with it, and on Ctrl-C.\n"
	"Exit status: 0 when watching worked, whatever COMMAND's (the YAML has it); 130\n"
	"after Ctrl-C or SIGTERM, with what was watched written.\n\n"
	"  --metric REGEX  a rate COMMAND prints (POSIX ERE, one capture group around the\n"
	"                  number, as tune --cmd reads it), kept on the same clock\n"
	"  --rate HZ       samples per second (default 10, at most 50)\n"
	"  --pid PID       follow a running process and its children until it exits\n"
	"  -o, --output FILE  write the YAML to FILE (atomically) instead of stdout\n"
	"  --quiet         no progress and no echo of COMMAND's output\n\n"
	"Example: rigtune watch --metric 'samples/s ([0-9.]+)' -o watch.yaml -- python3 train.py\n"
	"         rigtune report --watch watch.yaml -o watch.html\n";

typedef struct watch_args {
	rt_watch_opts o;
	const char *output;
} watch_args;

static int parse_number(const char *opt, const char *text, double lo, double hi, double *v)
{
	char *end;
	*v = strtod(text, &end);
	if (end == text || *end || !(*v >= lo && *v <= hi))
		return rt_usage_error("watch", "%s '%s': a number from %g to %g", opt, text, lo, hi);
	return -1;
}

static int parse_args(int argc, char **argv, watch_args *a)
{
	static const struct option opts[] = {
		{"metric", required_argument, NULL, 'm'}, {"rate", required_argument, NULL, 'r'},
		{"pid", required_argument, NULL, 'p'},    {"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},        {NULL, 0, NULL, 0},
	};
	int c, rc;
	double v;
	optind = 1;
	opterr = 0;
	a->o.rate_hz = DEFAULT_RATE_HZ;
	while ((c = getopt_long(argc, argv, "+:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			a->o.metric = optarg;
			break;
		case 'r':
			if ((rc = parse_number("--rate", optarg, 1, MAX_RATE_HZ, &a->o.rate_hz)) >= 0)
				return rc;
			break;
		case 'p':
			if ((rc = parse_number("--pid", optarg, 1, 4194304, &v)) >= 0)
				return rc;
			if (v != (double)(pid_t)v)
				return rt_usage_error("watch", "--pid '%s': not a process id", optarg);
			a->o.pid = (pid_t)v;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'q':
			a->o.quiet = 1;
			break;
		case ':':
			return rt_usage_error("watch", "option '%s' needs a value", argv[optind - 1]);
		default:
			return rt_usage_error("watch", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (a->o.pid && optind < argc)
		return rt_usage_error("watch", "give either --pid or a command, not both");
	if (a->o.pid && a->o.metric)
		return rt_usage_error("watch", "--metric reads a command's output: not with --pid");
	if (a->o.metric && strlen(a->o.metric) > RT_WATCH_REGEX_MAX)
		return rt_usage_error("watch", "--metric is %zu bytes; watch takes a regex of at most "
					       "%d",
				      strlen(a->o.metric), RT_WATCH_REGEX_MAX);
	if (!a->o.pid && optind >= argc)
		return rt_usage_error("watch", "no command to watch (give it after --, or --pid)");
	if (!a->o.pid)
		a->o.argv = argv + optind;
	return -1;
}

/* The summary on stderr: the shares, the phases' count, the verdict and the step. */
static void summary(const rt_watch_run *r)
{
	fprintf(stderr, "rigtune: watch: %.1f s, %d samples, %d phase%s:", r->wall_s, r->nticks,
		r->nphases, r->nphases == 1 ? "" : "s");
	for (int c = 0; c < RT_WC_N; c++)
		if (r->share[c] > 0)
			fprintf(stderr, " %s %.0f%%", rt_watch_class_name(c), 100 * r->share[c]);
	fprintf(stderr, "\nrigtune: watch: %s\nrigtune: watch: next: %s\n", r->verdict, r->step);
}

static int run_watch(int argc, char **argv)
{
	watch_args a = {0};
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	char err[RT_ERRLEN];
	if ((rc = rt_output_check(a.output, err, sizeof err)))
		return rt_output_refused("watch", rc, err);
	rt_watch_run *r = calloc(1, sizeof *r);
	if (!r) {
		rt_errorf("watch: out of memory");
		return RT_EXIT_RUNTIME;
	}
	if (!a.o.quiet)
		fprintf(stderr, "rigtune: watch: sampling at %g Hz%s\n", a.o.rate_hz,
			a.o.pid ? "" : "; the command's output follows");
	rc = rt_watch(&a.o, r, err, sizeof err);
	char *yaml = NULL;
	size_t len = 0;
	if (rc == RT_OK)
		rc = rt_watch_yaml(r, &yaml, &len, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_output(a.output, yaml, len, err, sizeof err);
	if (rc == RT_OK && !a.o.quiet)
		summary(r);
	if (rc == RT_EINVAL) {
		rc = rt_usage_error("watch", "%s", err);
	} else if (rc) {
		rt_errorf("watch: %s", err);
		rc = rt_exit_code(rc);
	} else if (a.output && !a.o.quiet) {
		fprintf(stderr, "rigtune: watch written to %s\n", a.output);
	}
	if (rc == RT_EXIT_OK && r->interrupted)
		rc = RT_EXIT_INTERRUPTED;
	free(yaml);
	rt_watch_free(r);
	free(r);
	return rc;
}

const rt_command rt_cmd_watch = {"watch", run_watch,
				 "watch a command's threads, cores and GPU: phases and what binds it",
				 watch_usage, NULL};
