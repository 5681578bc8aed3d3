/* rigtune crossover: where the GPU starts beating the CPU, and more threads start paying. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../lock.h"
#include "../crossover.h"
#include "../machine.h"
#include "../output.h"
#include "../params.h"
#include "../../workloads/loader.h"

static const char crossover_usage[] =
	"usage: rigtune crossover [--backend B,...] [--precision P,...] [--shape KEY=VALUE,...]\n"
	"                         [--replay FILE.csv] [--save FILE.csv] [--plot FILE.svg]\n"
	"                         [--seconds S] [--max-n N] [--quiet] [--no-wait] [-o FILE]\n\n"
	"Sweeps square GEMMs over log-spaced sizes on every backend (the CPU with all\n"
	"usable cores and with one; GPUs with data resident and with transfers), fits\n"
	"t(n) = c + a*n^b to each curve with a robust loss, and reports where the\n"
	"curves cross (n*, with a bootstrap 95% CI), from which size more CPU threads\n"
	"pay, and the best thread count per size range.\n\n"
	"  --backend B,...     backends to sweep (default: all found)\n"
	"  --precision P,...   precisions (fp64 fp32 tf32 bf16 fp16; default fp32)\n"
	"  --shape K=V,...     your model: shape keys of the workload whose step GEMMs\n"
	"                      are swept (below; others keep their defaults); adds\n"
	"                      sweeps of those GEMMs (m = batch x rows per sample) and\n"
	"                      the smallest batch that puts every one of them past n*\n"
	"  --replay FILE.csv   fit these observations instead of measuring\n"
	"                      (header backend,precision,n,seconds; one row each)\n"
	"  --save FILE.csv     write the measured square observations in that format\n"
	"  --plot FILE.svg     draw the curves and n* (with gnuplot; without it, write\n"
	"                      FILE.gp, its data inline, and say so)\n"
	"  --seconds S         time cap per measured size (default 0.3)\n"
	"  --max-n N           largest square size (default 2048)\n"
	"  --quiet             no progress on stderr\n"
	"  --no-wait           exit 3 if another rigtune is measuring on this machine\n"
	"                      (default: wait for it)\n"
	"  -o, --output FILE   write the YAML to FILE (atomically) instead of stdout\n\n"
	"Example: rigtune crossover --shape seq_len=60,d_model=768 --plot xo.svg\n";

typedef struct xo_args {
	rt_crossover_sweep_opts sweep;
	rt_crossover_shape shape;
	rt_arglist backends; /* sweep.backends points into it */
	const char *replay, *save, *plot, *output;
	int no_wait;
} xo_args;

static int parse_backends(xo_args *a, const char *list)
{
	int rc = rt_usage_list("crossover", "--backend", list, RT_MAX_BACKENDS, &a->backends);
	for (int i = 0; rc < 0 && i < a->backends.n; i++) {
		char names[256];
		rt_backend_names(names, sizeof names);
		if (!rt_backend_known(a->backends.item[i]))
			rc = rt_usage_error("crossover", "--backend: unknown backend '%s' (%s)",
					    a->backends.item[i], names);
	}
	a->sweep.backends = a->backends.item;
	a->sweep.nbackends = a->backends.n;
	return rc;
}

static int parse_precisions(xo_args *a, const char *list)
{
	rt_arglist l;
	int rc = rt_usage_list("crossover", "--precision", list, RT_ARGLIST_MAX_ITEMS, &l);
	a->sweep.precisions = 0;
	for (int i = 0; rc < 0 && i < l.n; i++) {
		int p = rt_precision_parse(l.item[i]);
		if (p < 0)
			return rt_usage_error("crossover",
					      "--precision: unknown precision '%s' (fp64 fp32 "
					      "tf32 bf16 fp16)",
					      l.item[i]);
		a->sweep.precisions |= RT_PREC_BIT(p);
	}
	return rc;
}

/* The first workload of the registry that lists the GEMMs of its step, or NULL. */
static const rt_workload *model_workload(void)
{
	int count;
	const rt_workload *const *all = rt_workload_list(&count);
	for (int i = 0; i < count; i++)
		if (all[i]->step_gemms)
			return all[i];
	return NULL;
}

static int parse_shape(xo_args *a, const char *list)
{
	char err[RT_ERRLEN];
	const rt_workload *w = model_workload();
	rt_shape sh;
	rt_arglist l;
	if (!w)
		return rt_usage_error("crossover",
				      "--shape: no workload lists the GEMMs of its step");
	rt_shape_default(w, &sh);
	int rc = rt_usage_list("crossover", "--shape", list, RT_ARGLIST_MAX_ITEMS, &l);
	for (int i = 0; rc < 0 && i < l.n; i++)
		if (rt_params_apply_shape(w, l.item[i], &sh, err, sizeof err))
			return rt_usage_error("crossover", "--shape: %s", err);
	if (rc < 0 && rt_crossover_shape_of(w, &sh, &a->shape, err, sizeof err))
		return rt_usage_error("crossover", "--shape: %s", err);
	return rc;
}

/* The model workload's shape keys, for --help. */
static void crossover_help(FILE *f)
{
	const rt_workload *w = model_workload();
	if (!w)
		return;
	fprintf(f, "--shape keys (the %s workload's, with their defaults):", w->name);
	for (int k = 0; k < w->nkeys; k++)
		fprintf(f, " %s=%ld", w->keys[k].name, w->keys[k].def);
	fputc('\n', f);
}

static int parse_args(int argc, char **argv, xo_args *a)
{
	static const struct option opts[] = {
		{"backend", required_argument, NULL, 'b'}, {"precision", required_argument, NULL, 'p'},
		{"shape", required_argument, NULL, 's'},   {"replay", required_argument, NULL, 'r'},
		{"save", required_argument, NULL, 'S'},    {"plot", required_argument, NULL, 'P'},
		{"seconds", required_argument, NULL, 't'}, {"max-n", required_argument, NULL, 'n'},
		{"quiet", no_argument, NULL, 'q'},          {"output", required_argument, NULL, 'o'},
		{"no-wait", no_argument, NULL, 'W'},        {NULL, 0, NULL, 0},
	};
	int c, rc = -1;
	long v;
	optind = 1;
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
		switch (c) {
		case 'b': rc = parse_backends(a, optarg); break;
		case 'p': rc = parse_precisions(a, optarg); break;
		case 's': rc = parse_shape(a, optarg); break;
		case 'r': a->replay = optarg; break;
		case 'S': a->save = optarg; break;
		case 'P': a->plot = optarg; break;
		case 'o': a->output = optarg; break;
		case 'q': a->sweep.quiet = 1; break;
		case 'W': a->no_wait = 1; break;
		case 't':
			if (rt_parse_double(optarg, &a->sweep.seconds_per_point) ||
			    a->sweep.seconds_per_point <= 0)
				rc = rt_usage_error("crossover", "--seconds: expected a positive number, got '%s'", optarg);
			break;
		case 'n':
			if (rt_parse_long(optarg, &v) || v < 64 || v > 65536)
				rc = rt_usage_error("crossover", "--max-n: expected an integer from 64 to 65536, got '%s'", optarg);
			a->sweep.max_n = (double)v;
			break;
		case ':': rc = rt_usage_error("crossover", "option '%s' needs a value", argv[optind - 1]); break;
		default: rc = rt_usage_error("crossover", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (rc < 0 && optind < argc)
		rc = rt_usage_error("crossover", "unexpected argument '%s'", argv[optind]);
	return rc;
}

/* Measures, or reads the replay; fills d. */
static int gather(xo_args *a, rt_crossover_data *d, char *skipped, size_t slen, char *err, size_t errlen)
{
	skipped[0] = '\0';
	if (a->replay) {
		memset(d, 0, sizeof *d);
		return rt_replay_read(a->replay, &d->square, err, errlen);
	}
	rt_machine *m = malloc(sizeof *m);
	if (!m)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	int rc = rt_machine_probe(NULL, m, err, errlen);
	a->sweep.usable_cores = rc ? 1 : rt_machine_pcores(m);
	free(m);
	if (rc)
		return rc;
	rt_lock lock;
	rc = rt_lock_for_command(&lock, "rigtune crossover", a->no_wait, a->sweep.quiet, err,
				 errlen);
	if (rc == RT_OK)
		rc = rt_crossover_sweep(&a->sweep, &a->shape, d, skipped, slen, err, errlen);
	rt_lock_release(&lock);
	if (rc == RT_OK && a->save)
		rc = rt_replay_write(a->save, d->square, err, errlen);
	return rc;
}

static int run_crossover(int argc, char **argv)
{
	xo_args a = {.sweep = {.precisions = RT_PREC_BIT(RT_FP32), .seconds_per_point = 0.3,
			       .max_n = 2048}};
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	char err[RT_ERRLEN], skipped[1024], note[1024] = "";
	rt_crossover_data d = {0};
	rt_crossover_analysis an = {0};
	char *text = NULL;
	size_t len = 0;
	rc = gather(&a, &d, skipped, sizeof skipped, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_crossover_fit(&d, &a.shape, &an, err, sizeof err);
	if (rc == RT_OK && a.plot && (rc = rt_crossover_plot(&an, a.plot, note, sizeof note)))
		snprintf(err, sizeof err, "%s", note);
	if (rc == RT_OK) {
		rt_yw w;
		rc = rt_yw_init(&w);
		if (rc == RT_OK) {
			rt_yw_map(&w, 0);
			rt_yw_str(&w, "crossover_source");
			rt_yw_str(&w, a.replay ? a.replay : "measured");
			if (skipped[0])
				rt_yw_kstr(&w, "unavailable", skipped);
			rt_yw_str(&w, "crossover");
			rt_crossover_emit(&w, &an, &d, &a.shape);
			rt_yw_end_map(&w);
			rc = rt_yw_finish(&w, &text, &len, err, sizeof err);
		}
	}
	if (rc == RT_OK)
		rc = rt_output(a.output, text, len, err, sizeof err);
	if (rc == RT_EINVAL)
		rt_usage_error("crossover", "%s", err);
	else if (rc)
		rt_errorf("crossover: %s", err);
	else if (a.plot)
		rt_tprintf(stderr, "rigtune: %s\n", note);
	free(text);
	rt_crossover_analysis_free(&an);
	rt_crossover_data_free(&d);
	return rt_exit_code(rc);
}

const rt_command rt_cmd_crossover = {"crossover", run_crossover,
				     "fit where the GPU beats the CPU and more threads pay",
				     crossover_usage, crossover_help};
