/* rigtune fleet: tune or check every node through Slurm, and answer from the results store. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/platform.h"
#include "commands.h"
#include "../fleet/fleet.h"
#include "../output.h"
#include "../params.h"

static const char fleet_usage[] =
	"usage: rigtune fleet tune  --store URL (--nodes LIST | --partition P [--constraint C])\n"
	"                           [--time LIMIT] [--print] [--quiet] [-- TUNE-OPTIONS...]\n"
	"       rigtune fleet check --store URL [--nodes LIST | --partition P [--constraint C]]\n"
	"                           [--time LIMIT] [--print] [--quiet] [-- CHECK-OPTIONS...]\n"
	"       rigtune fleet report --store URL [--threshold PCT] -o FILE.html\n\n"
	"Many nodes through Slurm, the results in PostgreSQL (docs/fleet.md).\n\n"
	"tune and check submit an sbatch job array, one task a node (exclusive; rigtune\n"
	"holds the machine lock there), that runs `rigtune tune` (writing\n"
	"configs/<node>.yaml) or `rigtune check --baseline configs/<node>.yaml` on each\n"
	"node with --store URL --node <node>, in this directory (it must be shared by the\n"
	"nodes), and wait, saying how many tasks are done, running, pending and failed\n"
	"(a failed one with its node, state and log). The options after -- go to tune or\n"
	"check on every node. check then says which nodes regressed, by how much, and what\n"
	"changed on them; without --nodes or --partition it says so for the newest check\n"
	"of each node in the store, submitting nothing.\n\n"
	"report writes the fleet page: per node kind (CPU model, cores, accelerators) and\n"
	"workload the recommendation, the spread of the nodes' best throughput, and the\n"
	"nodes more than PCT below their peers, with what differs in their machine.\n\n"
	"  --store URL         the results store: postgresql://[user@]host[:port]/db\n"
	"  --nodes LIST        Slurm node list, e.g. gpu[01-16]: one task each\n"
	"  --partition P       every node of partition P (with --constraint: those with\n"
	"                      the features C)\n"
	"  --constraint C      Slurm node features, e.g. a100 (one node kind)\n"
	"  --time LIMIT        time limit of each task (Slurm's format, e.g. 0:30:00)\n"
	"  --print             print the sbatch script instead of submitting it\n"
	"  --quiet             no progress on stderr\n"
	"  --threshold PCT     how far below its peers a node is an outlier (default 10)\n"
	"  -o, --output FILE   where report writes the page\n\n"
	"SIGHUP, SIGINT, SIGQUIT or SIGTERM while tune or check waits cancel the job.\n"
	"Exit status: 0 done (check: no node regressed), 1 check: a node regressed, 2 bad\n"
	"usage, 3 a task failed, a node was not reached, Slurm or the store failed, or\n"
	"a signal cancelled the job.\n";

typedef struct fleet_args {
	rt_fleet_job job;
	int print, quiet;
	double threshold;
	const char *output;
} fleet_args;

static int parse_args(int argc, char **argv, fleet_args *a)
{
	static const struct option opts[] = {
		{"store", required_argument, NULL, 's'},     {"nodes", required_argument, NULL, 'n'},
		{"partition", required_argument, NULL, 'p'}, {"constraint", required_argument, NULL, 'C'},
		{"time", required_argument, NULL, 't'},      {"print", no_argument, NULL, 'P'},
		{"quiet", no_argument, NULL, 'q'},           {"threshold", required_argument, NULL, 'T'},
		{"output", required_argument, NULL, 'o'},    {NULL, 0, NULL, 0},
	};
	int c;
	double pct;
	optind = 2;
	opterr = 0;
	/* "+": stop at the first word that is not an option; the rest after -- is tune's or check's */
	while ((c = getopt_long(argc, argv, "+:o:", opts, NULL)) != -1) {
		switch (c) {
		case 's': a->job.store = optarg; break;
		case 'n': a->job.nodes = optarg; break;
		case 'p': a->job.partition = optarg; break;
		case 'C': a->job.constraint = optarg; break;
		case 't': a->job.time_limit = optarg; break;
		case 'P': a->print = 1; break;
		case 'q': a->quiet = 1; break;
		case 'o': a->output = optarg; break;
		case 'T':
			if (rt_parse_double(optarg, &pct) || pct <= 0 || pct >= 100)
				return rt_usage_error("fleet", "--threshold: expected a percentage "
							       "above 0 and below 100, got '%s'", optarg);
			a->threshold = pct / 100;
			break;
		case ':':
			return rt_usage_error("fleet", "option '%s' needs a value", argv[optind - 1]);
		default: return rt_usage_error("fleet", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		return rt_usage_error("fleet", "unexpected argument '%s' (options for tune or check "
					       "go after --)", argv[optind]);
	a->job.args = argv + optind;
	a->job.nargs = argc - optind;
	if (!a->job.store)
		return rt_usage_error("fleet", "--store URL is required (the results store)");
	int bad_url = rt_store_url_usage("fleet", a->job.store);
	if (bad_url >= 0)
		return bad_url;
	if (a->job.nodes && (a->job.partition || a->job.constraint))
		return rt_usage_error("fleet", "--nodes names the nodes: not with --partition or "
					       "--constraint");
	return -1;
}

/* Submits (or prints) the job array; 0 when every node's task succeeded. */
static int run_job(fleet_args *a, rt_fleet_action action)
{
	char err[RT_ERRLEN], exe[PATH_MAX], cwd[PATH_MAX], missing[1024] = "", *exclude = NULL;
	int k = rt_plat_exe_path(exe, sizeof exe) == 0;
	if (!getcwd(cwd, sizeof cwd))
		cwd[0] = '\0';
	a->job.action = action;
	a->job.rigtune = k ? exe : "rigtune";
	a->job.workdir = cwd;
	int rc = rt_fleet_count_nodes(&a->job, &exclude, err, sizeof err);
	a->job.exclude = exclude;
	char *script = NULL;
	if (!rc)
		rc = rt_fleet_script(&a->job, &script, err, sizeof err);
	int failed = 0;
	/* Slurm opens each task's log before the task runs: its directory must be there */
	if (!rc && mkdir("results", 0755) && errno != EEXIST)
		rc = rt_fail(err, sizeof err, RT_EIO, "cannot create results/: %s", strerror(errno));
	if (!rc && mkdir("results/fleet", 0755) && errno != EEXIST)
		rc = rt_fail(err, sizeof err, RT_EIO, "cannot create results/fleet: %s",
			     strerror(errno));
	if (!rc && a->print)
		fputs(script, stdout);
	if (!rc && !a->print)
		rc = rt_fleet_submit_wait(&a->job, script, a->quiet, &failed, missing, sizeof missing,
					  err, sizeof err);
	free(script);
	free(exclude);
	if (rc == RT_EINVAL)
		return rt_usage_error("fleet", "%s", err);
	if (rc) {
		rt_errorf("fleet: %s", err);
		return RT_EXIT_RUNTIME;
	}
	if (missing[0])
		rt_errorf("fleet: no task ran on %s (two tasks shared a node that was busy: submit "
			  "again with --nodes %s)", missing, missing);
	if (failed && !a->quiet)
		rt_errorf("fleet: %d task%s failed (their logs are in results/fleet/)", failed,
			  failed == 1 ? "" : "s");
	return failed || missing[0] ? RT_EXIT_RUNTIME : RT_EXIT_OK;
}

static int fleet_report(const fleet_args *a)
{
	if (!a->output)
		return rt_usage_error("fleet", "report: -o FILE.html is required");
	char err[RT_ERRLEN], *html = NULL;
	size_t len = 0;
	int outliers = 0;
	rt_store *s;
	int rc = rt_store_open(a->job.store, &s, err, sizeof err);
	if (!rc)
		rc = rt_fleet_report(s, a->threshold, &html, &len, &outliers, err, sizeof err);
	rt_store_close(s);
	if (!rc)
		rc = rt_output(a->output, html, len, err, sizeof err);
	free(html);
	if (rc) {
		rt_errorf("fleet: %s", err);
		return rt_exit_code(rc);
	}
	if (!a->quiet)
		rt_tprintf(stderr, "rigtune: fleet: page written to %s (%d outlier%s)\n", a->output,
			outliers, outliers == 1 ? "" : "s");
	return RT_EXIT_OK;
}

/* Runs the checks when nodes are named, then answers from the store. */
static int fleet_check(fleet_args *a)
{
	char since[32] = "";
	int status = RT_EXIT_OK;
	if (a->job.nodes || a->job.partition || a->job.constraint) {
		time_t now = time(NULL);
		strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		status = run_job(a, RT_FLEET_CHECK);
		if (a->print || status == RT_EXIT_USAGE)
			return status;
	}
	char err[RT_ERRLEN];
	rt_store *s;
	int regressed = 0;
	int rc = rt_store_open(a->job.store, &s, err, sizeof err);
	if (!rc)
		rc = rt_fleet_check_answer(s, since, stdout, &regressed, err, sizeof err);
	rt_store_close(s);
	if (rc) {
		rt_errorf("fleet: %s", err);
		return rt_exit_code(rc);
	}
	return status ? status : regressed ? 1 : RT_EXIT_OK;
}

static int run_fleet(int argc, char **argv)
{
	fleet_args a = {.threshold = 0.10};
	const char *action = argc > 1 ? argv[1] : "";
	if (strcmp(action, "tune") && strcmp(action, "check") && strcmp(action, "report"))
		return rt_usage_error("fleet", "expected tune, check or report, got '%s'", action);
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (!strcmp(action, "report"))
		return fleet_report(&a);
	if (!strcmp(action, "check"))
		return fleet_check(&a);
	if (!a.job.nodes && !a.job.partition && !a.job.constraint)
		return rt_usage_error("fleet", "tune: name the nodes: --nodes LIST or --partition P");
	return run_job(&a, RT_FLEET_TUNE);
}

const rt_command rt_cmd_fleet = {"fleet", run_fleet,
				 "tune or check every node through Slurm; the fleet's page",
				 fleet_usage, NULL};
