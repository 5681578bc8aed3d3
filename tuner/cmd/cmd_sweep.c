/* rigtune sweep: a hyper-parameter sweep at this machine's recommendation. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../output.h"
#include "../params.h"
#include "../sweep/sweep.h"

static const char sweep_usage[] =
	"usage: rigtune sweep --from FILE --workload W --format F\n"
	"                     [--params FILE] [--cmd 'COMMAND {param} ...' --objective REGEX\n"
	"                     | --function module:name] [--direction minimize|maximize]\n"
	"                     [--metric NAME] [--trials N] [--steps-per-trial N] [--quiet]\n"
	"                     [-o FILE]\n\n"
	"Writes a hyper-parameter sweep for a real engine from a recommendation\n"
	"(configs/<host>.yaml, written by `rigtune tune`): the hardware knobs (backend,\n"
	"precision, threads, workers, pin) and their environment fixed at the\n"
	"recommendation; the batch (or the workload's knee key, below) from the knee to\n"
	"the largest value that fits in memory (measured where tune reached it,\n"
	"estimated from the workload's memory model otherwise); your hyper-parameters\n"
	"from --params; the knee as the first trial; and the time per trial and for the\n"
	"whole sweep from the measured throughput (also on stderr).\n\n"
	"  --from FILE           the recommendation to sweep around\n"
	"  --workload W          its entry to use: a workload below\n"
	"  --format F            the engine it is written for: a format below\n"
	"  --params FILE         your hyper-parameters, a YAML mapping of names to\n"
	"                        {values: [...]} or {low: L, high: H, scale: log|linear,\n"
	"                        type: float|int}\n"
	"  --cmd 'COMMAND ...'   your training, run without a shell; {name} is replaced\n"
	"                        by the value of a parameter, the batch or a fixed knob\n"
	"  --objective REGEX     the number to optimize in the command's output: a Python\n"
	"                        regular expression with one group, the last match of a\n"
	"                        line counts (e.g. 'val_loss[ =:]+([0-9.eE+-]+)')\n"
	"  --function mod:name   or a Python function fn(params: dict) -> float\n"
	"  --direction D         minimize (default) or maximize\n"
	"  --metric NAME         the metric's name (W&B reads what your program logs under\n"
	"                        it; default: the word that starts --objective)\n"
	"  --trials N            trials of the sweep (default 20)\n"
	"  --steps-per-trial N   training steps of one trial, for the time estimate\n"
	"                        (default 1000)\n"
	"  --quiet               nothing on stderr but errors\n"
	"  -o, --output FILE     where to write (default stdout; - for stdout)\n\n"
	"A missing or unreadable --from or --params file is bad input (exit 2), as is a\n"
	"configuration without the workload; exit 3 when the output cannot be written.\n";

typedef struct sweep_args {
	const char *from, *format, *params, *output;
	rt_sweep_opts opts;
	rt_sweep_objective obj;
	int quiet;
} sweep_args;

static int parse_count(const char *opt, const char *s, long max, double *out)
{
	long v;
	if (rt_parse_long(s, &v) || v < 1 || v > max)
		return rt_usage_error("sweep", "%s: expected a whole number from 1 to %ld, got '%s'",
				      opt, max, s);
	*out = (double)v;
	return -1;
}

static int parse_direction(const char *s, rt_sweep_direction *d)
{
	if (!strcmp(s, "minimize") || !strcmp(s, "maximize")) {
		*d = s[1] == 'i' ? RT_SWEEP_MINIMIZE : RT_SWEEP_MAXIMIZE;
		return -1;
	}
	return rt_usage_error("sweep", "--direction: expected minimize or maximize, got '%s'", s);
}

static int check_args(const sweep_args *a)
{
	char names[128];
	rt_sweep_format_names(names, sizeof names);
	if (!a->from || !a->opts.workload || !a->format)
		return rt_usage_error("sweep", "--from, --workload and --format are needed");
	if (!rt_sweep_format_find(a->format))
		return rt_usage_error("sweep", "--format: unknown format '%s' (%s)", a->format,
				      names);
	if (a->obj.cmd && a->obj.function)
		return rt_usage_error("sweep", "--cmd and --function exclude each other");
	if (a->obj.regex && !a->obj.cmd)
		return rt_usage_error("sweep", "--objective reads the output of --cmd: give both");
	return -1;
}

static int parse_args(int argc, char **argv, sweep_args *a)
{
	static const struct option opts[] = {
		{"from", required_argument, NULL, 'F'},      {"workload", required_argument, NULL, 'w'},
		{"format", required_argument, NULL, 'f'},    {"params", required_argument, NULL, 'p'},
		{"cmd", required_argument, NULL, 'c'},       {"objective", required_argument, NULL, 'O'},
		{"function", required_argument, NULL, 'u'},  {"direction", required_argument, NULL, 'd'},
		{"metric", required_argument, NULL, 'm'},    {"trials", required_argument, NULL, 't'},
		{"steps-per-trial", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},           {"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	double trials = 20;
	int c, rc = -1;
	optind = 1;
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
		switch (c) {
		case 'F': a->from = optarg; break;
		case 'w': a->opts.workload = optarg; break;
		case 'f': a->format = optarg; break;
		case 'p': a->params = optarg; break;
		case 'c': a->obj.cmd = optarg; break;
		case 'O': a->obj.regex = optarg; break;
		case 'u': a->obj.function = optarg; break;
		case 'd': rc = parse_direction(optarg, &a->obj.direction); break;
		case 'm': a->obj.metric = optarg; break;
		case 't': rc = parse_count("--trials", optarg, 1000000, &trials); break;
		case 's':
			rc = parse_count("--steps-per-trial", optarg, 1000000000, &a->opts.steps_per_trial);
			break;
		case 'q': a->quiet = 1; break;
		case 'o': a->output = optarg; break;
		case ':': rc = rt_usage_error("sweep", "option '%s' needs a value", argv[optind - 1]); break;
		default: rc = rt_usage_error("sweep", "unknown option '%s'", argv[optind - 1]);
		}
	}
	a->opts.trials = (int)trials;
	if (rc < 0 && optind < argc)
		rc = rt_usage_error("sweep", "unexpected argument '%s'", argv[optind]);
	return rc < 0 ? check_args(a) : rc;
}

/* The metric's name by default: the word --objective starts with ("val_loss ..."). */
static void default_metric(rt_sweep_objective *obj, char *buf, size_t len)
{
	const char *re = obj->regex;
	size_t n = 0;
	if (obj->metric || !re || !(isalpha((unsigned char)re[0]) || re[0] == '_'))
		return;
	while (isalnum((unsigned char)re[n]) || re[n] == '_')
		n++;
	snprintf(buf, len, "%.*s", (int)n, re);
	obj->metric = buf;
}

/* Names a --params file may not use: the point's keys and the workload's knee key. */
static int load_params(const sweep_args *a, const rt_sweep_plan *plan, rt_sweep_params *p,
		       char *err, size_t errlen)
{
	const char *reserved[] = {"backend", "device", "precision", "batch",
				  "threads", "workers", "pin",       plan->axis};
	memset(p, 0, sizeof *p);
	if (!a->params)
		return RT_OK;
	return rt_sweep_params_load(a->params, reserved, (int)RT_COUNT(reserved), p, err, errlen);
}

/* Input that cannot be read is bad input: exit 2, as a malformed file is. */
static int input_exit(int rc)
{
	return rc == RT_EIO ? RT_EXIT_USAGE : rt_exit_code(rc);
}

static int make_sweep(const sweep_args *a, rt_sweep_objective *obj, const rt_config *cfg,
		      rt_sweep_plan *plan, rt_sweep_params *params)
{
	char err[RT_ERRLEN], metric[64];
	const rt_sweep_format *fmt = rt_sweep_format_find(a->format);
	int rc = rt_sweep_plan_make(cfg, &a->opts, plan, err, sizeof err);
	if (rc == RT_OK)
		rc = load_params(a, plan, params, err, sizeof err);
	default_metric(obj, metric, sizeof metric);
	if (rc == RT_OK)
		rc = rt_sweep_objective_check(obj, plan, params, err, sizeof err);
	char *text = NULL;
	size_t len = 0;
	if (rc == RT_OK)
		rc = rt_sweep_write(fmt, plan, params, obj, &text, &len, err, sizeof err);
	if (rc) {
		rt_errorf("sweep: %s", err);
		return input_exit(rc);
	}
	if (!a->quiet) {
		rt_sweep_describe(stderr, plan, "rigtune: ");
		if (!fmt->uses_objective && (obj->cmd || obj->function))
			rt_errorf("sweep: --format %s does not run your training: --cmd, "
				  "--objective and --function are not in it",
				  fmt->name);
	}
	rc = rt_output(a->output, text, len, err, sizeof err);
	free(text);
	if (rc) {
		rt_errorf("sweep: %s", err);
		return rt_exit_code(rc);
	}
	if (!a->quiet && a->output && strcmp(a->output, "-"))
		fprintf(stderr, "rigtune: %s sweep written to %s\n", fmt->name, a->output);
	return RT_EXIT_OK;
}

static int run_sweep(int argc, char **argv)
{
	sweep_args a = {.opts = {.steps_per_trial = 1000}};
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	char err[RT_ERRLEN];
	if ((rc = rt_output_check(a.output, err, sizeof err)))
		return rt_output_refused("sweep", rc, err);
	rt_config *cfg = calloc(1, sizeof *cfg);
	rt_sweep_plan *plan = calloc(1, sizeof *plan);
	rt_sweep_params *params = calloc(1, sizeof *params);
	if (!cfg || !plan || !params) {
		rc = RT_EXIT_RUNTIME;
	} else if ((rc = rt_config_load(a.from, cfg, err, sizeof err))) {
		rt_errorf("sweep: %s", err);
		rc = input_exit(rc);
	} else {
		rc = make_sweep(&a, &a.obj, cfg, plan, params);
		rt_config_free(cfg);
	}
	if (params)
		rt_sweep_params_free(params);
	free(params);
	free(plan);
	free(cfg);
	return rc;
}

/* The formats, from their table; the workloads with a knee to sweep, from the registry. */
static void sweep_help(FILE *f)
{
	fputs("\nFormats:\n", f);
	for (int i = 0; rt_sweep_format_at(i); i++)
		rt_help_item(f, rt_sweep_format_at(i)->name, rt_sweep_format_at(i)->summary);
	int count;
	const rt_workload *const *all = rt_workload_list(&count);
	char what[96];
	fputs("\nWorkloads:\n", f);
	for (int i = 0; i < count; i++) {
		if (!all[i]->knee)
			continue;
		snprintf(what, sizeof what, "sweeps %s from the knee to the largest that fits",
			 all[i]->knee);
		rt_help_item(f, all[i]->name, what);
	}
}

const rt_command rt_cmd_sweep = {"sweep", run_sweep,
				 "write an Optuna, Ray Tune, W&B, Hydra or grid sweep at the recommendation",
				 sweep_usage, sweep_help};
