/* rigtune report: one HTML page that shows where the machine's time goes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../gnuplot.h"
#include "../output.h"
#include "../page/page.h"

static const char report_usage[] =
    "usage: rigtune report [--config FILE] [--journal FILE ...] [--crossover FILE.csv]\n"
    "                      [--check FILE] [--watch FILE] [-o FILE.html]\n\n"
    "Draws one self-contained HTML page (inline CSS and SVG charts, no script, nothing\n"
    "fetched) from a tuning: the machine; per workload throughput against batch (or\n"
    "num_envs) for every setting measured, with 95% CIs, the knee and the fastest point\n"
    "beside the recommendation; the phase split of the recommended point and of the\n"
    "naive default with the share a GPU utilization monitor reads busy; the crossover;\n"
    "and a check's result; a watch's time line. Charts are drawn by gnuplot, which\n"
    "must be installed (a page of a watch alone needs none).\n\n"
    "  --config FILE        the configuration `tune` wrote (default: configs/<host>.yaml,\n"
    "                       unless --journal is given)\n"
    "  --journal FILE       a results journal; repeat for more (default: the one the\n"
    "                       configuration names, with the older journals of its host\n"
    "                       beside it, whose trials the run reused)\n"
    "  --crossover FILE.csv crossover observations to fit and draw (`rigtune crossover\n"
    "                       --save FILE.csv`); default: the configuration's analysis\n"
    "  --check FILE         the result of `rigtune check -o FILE`, shown at the end\n"
    "  --watch FILE         the result of `rigtune watch -o FILE`: its verdict and its\n"
    "                       time line (threads, cores, device, rate, phases shaded);\n"
    "                       alone, without --config or --journal, the page shows only it\n"
    "  -o, --output FILE    write the page to FILE (atomically) instead of stdout\n\n"
    "Example: rigtune report -o results/report.html\n";

#define MAX_JOURNALS 64

typedef struct report_args {
	rt_page_inputs in;
	const char *journals[MAX_JOURNALS];
	const char *output;
} report_args;

static int parse_args(int argc, char **argv, report_args *a)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},    {"journal", required_argument, NULL, 'j'},
	    {"crossover", required_argument, NULL, 'x'}, {"check", required_argument, NULL, 'k'},
	    {"output", required_argument, NULL, 'o'},    {"watch", required_argument, NULL, 'w'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	opterr = 0;
	a->in.journals = a->journals;
	while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->in.config = optarg;
			break;
		case 'x':
			a->in.crossover = optarg;
			break;
		case 'k':
			a->in.check = optarg;
			break;
		case 'w':
			a->in.watch = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'j':
			if (a->in.njournals == MAX_JOURNALS)
				return rt_usage_error("report", "--journal: more than %d journals",
				                      MAX_JOURNALS);
			a->journals[a->in.njournals++] = optarg;
			break;
		case ':':
			return rt_usage_error("report", "option '%s' needs a value",
			                      argv[optind - 1]);
		default:
			return rt_usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return rt_usage_error("report", "unexpected argument '%s'", argv[optind]);
	return -1;
}

/* "rigtune report -o r.html": the command line, for the page's footer. */
static void command_line(int argc, char **argv, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "rigtune");
	for (int i = 0; i < argc && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s", argv[i]);
}

static int run_report(int argc, char **argv)
{
	report_args a = {0};
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	char err[RT_ERRLEN], config[1024], gnuplot[4096], command[1024];
	if (!a.in.config && !a.in.njournals && !a.in.watch) {
		if (rt_config_default_path(config, sizeof config))
			return rt_usage_error("report",
			                      "the host name is too long for a file name");
		a.in.config = config;
	}
	rt_page *pg = malloc(sizeof *pg);
	if (!pg) {
		rt_errorf("report: out of memory");
		return RT_EXIT_RUNTIME;
	}
	rc = rt_page_load(pg, &a.in, err, sizeof err);
	if (rc) {
		free(pg);
		if (rc == RT_EINVAL)
			return rt_usage_error("report", "%s", err);
		rt_errorf("report: %s", err);
		return rt_exit_code(rc);
	}
	char *html = NULL;
	size_t len = 0;
	command_line(argc, argv, command, sizeof command);
	int watch_only = a.in.watch && !a.in.config && !a.in.njournals;
	if (!rt_gnuplot_find(gnuplot, sizeof gnuplot) && !watch_only)
		rc = rt_fail(err, sizeof err, RT_ERUNTIME,
		             "gnuplot is not installed: the report's charts are drawn with it "
		             "(Debian/Ubuntu: apt-get install gnuplot-nox)");
	if (rc == RT_OK)
		rc = rt_page_render(pg, gnuplot, command, &html, &len, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_output(a.output, html, len, err, sizeof err);
	for (int i = 0; rc == RT_OK && i < pg->nnotes; i++)
		rt_tprintf(stderr, "rigtune: report: %s\n", pg->notes[i]);
	if (rc)
		rt_errorf("report: %s", err);
	else if (a.output)
		rt_tprintf(stderr, "rigtune: report written to %s\n", a.output);
	free(html);
	rt_page_free(pg);
	free(pg);
	return rt_exit_code(rc);
}

const rt_command rt_cmd_report = {"report", run_report,
                                  "draw an HTML page of a tuning: throughput, phases, crossover",
                                  report_usage, NULL};
