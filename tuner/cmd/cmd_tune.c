/* rigtune tune: search every workload's knobs and write the recommended configuration. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "../config.h"
#include "../lock.h"
#include "../output.h"
#include "../params.h"
#include "../tune.h"
#include "../fleet/fleet.h"
#include "../../workloads/loader.h"

static const char tune_usage[] =
	"usage: rigtune tune [--workload W,...] [--backend B,...] [--budget SECONDS]\n"
	"                    [--strategy NAME] [--space FILE] [--shape KEY=VALUE,...]\n"
	"                    [--resume] [--fresh] [--replace] [--no-crossover] [--quiet]\n"
	"                    [--no-wait] [--python PATH] [--store URL [--node NAME]] [-o FILE]\n"
	"       rigtune tune --cmd 'COMMAND {knob} ...' --metric REGEX [--minimize]\n"
	"                    [--space FILE] [--name N] [--warmup N] [--timeout S] [--shell]\n"
	"                    [--unit NAME] [--budget SECONDS] [--strategy NAME] ...\n\n"
	"Searches batch size, threads, workers, precision and pinning of each workload\n"
	"(below) on every available backend within the time budget, and writes the\n"
	"recommended configuration: per workload the knee (the smallest batch, or\n"
	"whichever knob the workload saturates along, then the fewest threads and\n"
	"workers, within 5% of the best throughput) and the fastest point, their\n"
	"throughput with a 95% CI, runner-ups, env vars to export, PyTorch and JAX\n"
	"hints and the reason; then the CPU/GPU and thread crossovers.\n\n"
	"  --workload W,...    workloads to tune (default: all)\n"
	"  --backend B,...     backends to use (default: every available one)\n"
	"  --budget SECONDS    total time (default 60)\n"
	"  --strategy NAME     how to search (below; default " RT_STRATEGY_DEFAULT ")\n"
	"  --space FILE        search space (YAML; see configs/space-*.yaml) for the\n"
	"                      one workload it names\n"
	"  --shape K=V,...     your model: shape keys of the tuned workloads (below),\n"
	"                      e.g. d_model=768,seq_len=60\n"
	"  --resume            continue the newest journal of this host in results/\n"
	"  --fresh             measure everything again (no reuse of earlier trials)\n"
	"  --replace           write this tune's recommendations alone over FILE (default:\n"
	"                      add them to it, replacing only those of the same names)\n"
	"  --no-crossover      skip the crossover sweep\n"
	"  --quiet             no progress on stderr\n"
	"  --no-wait           exit 3 if another rigtune is measuring on this machine\n"
	"                      (default: wait for it)\n"
	"  --python PATH       the Python whose frameworks (PyTorch, JAX, TensorFlow) the\n"
	"                      hints follow (default: python3, else /usr/bin/python3)\n"
	"  --store URL         also append every trial to the results store (PostgreSQL,\n"
	"                      postgresql://...: docs/fleet.md); the journal keeps them\n"
	"                      all, for `rigtune store push` when the store was down\n"
	"  --node NAME         the node the store records them under (default: the host)\n"
	"  -o, --output FILE   where to write (default configs/<host>.yaml; - for stdout);\n"
	"                      the recommendations FILE holds of other workloads and\n"
	"                      commands are kept, each with its own time and machine\n\n"
	"Your own training instead of the workloads:\n"
	"  --cmd 'COMMAND'     run COMMAND for each point: split into words like a shell\n"
	"                      would (no shell runs it), {knob} replaced by the point's\n"
	"                      value, the environment and CPU binding set per point\n"
	"  --metric REGEX      POSIX extended regex with one group around the number; each\n"
	"                      match on stdout or stderr after the warm-up is a sample\n"
	"  --minimize          lower is better (a time per step)\n"
	"  --space FILE        workload: command and its knobs (default: threads and\n"
	"                      blas_threads from 1 to the cores)\n"
	"  --name N            recommendations.N in the config (default command)\n"
	"  --warmup N          matches to skip in each run (default 1)\n"
	"  --timeout S         a run that takes longer is killed (default: the budget)\n"
	"  --shell             run COMMAND with /bin/sh -c, each {knob} quoted for sh\n"
	"  --unit NAME         the metric's unit (default: the word before the group)\n\n"
	"Every trial is appended to results/<host>-<time>.yaml as it finishes; trials of\n"
	"this machine (same fingerprint) already there are reused. SIGINT, SIGTERM,\n"
	"SIGHUP or SIGQUIT stop after the current trial and write the best found so\n"
	"far (exit 130); whatever ends rigtune, SIGKILL too, ends every process its\n"
	"trials started.\n";

/* The lists of --workload and --backend: o->workloads and o->backends point into them. */
typedef struct tune_lists {
	rt_arglist workloads, backends;
} tune_lists;

/* Splits an option's list of names into out; an exit code, or -1. */
static int split_names(const char *list, const char *what, rt_arglist *l, const char **out,
		       int cap, int *n)
{
	int rc = rt_usage_list("tune", what, list, cap, l);
	if (rc < 0) {
		memcpy(out, l->item, sizeof *out * (size_t)l->n);
		*n = l->n;
	}
	return rc;
}

/* --backend's names, each one rigtune knows (rt_backend_list); an exit code, or -1. */
static int parse_backends(rt_tune_opts *o, rt_arglist *l)
{
	char names[256];
	int rc = split_names(optarg, "--backend", l, o->backends, RT_MAX_BACKENDS, &o->nbackends);
	rt_backend_names(names, sizeof names);
	for (int i = 0; rc < 0 && i < o->nbackends; i++)
		if (!rt_backend_known(o->backends[i]))
			rc = rt_usage_error("tune", "--backend: unknown backend '%s' (%s)",
					    o->backends[i], names);
	return rc;
}

/* The options of --cmd; an exit code, or -1 when c is not one of them. */
static int parse_cmd_option(int c, rt_tune_cmd *cmd)
{
	long n;
	switch (c) {
	case 'c': cmd->command = optarg; return -1;
	case 'm': cmd->metric = optarg; return -1;
	case 'M': cmd->minimize = 1; return -1;
	case 'n': cmd->name = optarg; return -1;
	case 'H': cmd->shell = 1; return -1;
	case 'U': cmd->unit = optarg; return -1;
	case 'u':
		if (rt_parse_long(optarg, &n) || n < 0 || n > 1000000)
			return rt_usage_error("tune", "--warmup: expected a count >= 0, got '%s'",
					      optarg);
		cmd->warmup = (int)n;
		return -1;
	case 'T':
		if (rt_parse_double(optarg, &cmd->timeout_s) || cmd->timeout_s <= 0)
			return rt_usage_error("tune", "--timeout: expected seconds > 0, got '%s'",
					      optarg);
		return -1;
	}
	return -2;
}

/* What --cmd needs and excludes; an exit code, or -1. */
static int check_cmd(const rt_tune_opts *o, const rt_tune_cmd *cmd)
{
	if (!cmd->command)
		return cmd->metric || cmd->minimize || cmd->name || cmd->shell || cmd->unit
			       ? rt_usage_error("tune", "--metric, --minimize, --name, --shell and "
							"--unit go with --cmd")
			       : -1;
	if (!cmd->metric)
		return rt_usage_error("tune", "--cmd needs --metric REGEX (the number to read "
					      "from its output, in one capture group)");
	if (o->nworkloads || o->nbackends || o->shape)
		return rt_usage_error("tune", "--cmd tunes your command: --workload, --backend "
					      "and --shape are for the built-in workloads");
	return -1;
}

/* What the command line says besides the tune's options. */
typedef struct tune_args {
	const char *output; /* -o; NULL: configs/<host>.yaml */
	int no_wait, replace;
	rt_store_live store;
} tune_args;

static int parse_args(int argc, char **argv, rt_tune_opts *o, rt_tune_cmd *cmd,
		      tune_lists *lists, tune_args *a)
{
	static const struct option opts[] = {
		{"workload", required_argument, NULL, 'w'}, {"backend", required_argument, NULL, 'b'},
		{"budget", required_argument, NULL, 'B'},   {"strategy", required_argument, NULL, 's'},
		{"space", required_argument, NULL, 'S'},    {"shape", required_argument, NULL, 'h'},
		{"resume", no_argument, NULL, 'r'},          {"fresh", no_argument, NULL, 'f'},
		{"no-crossover", no_argument, NULL, 'x'},    {"quiet", no_argument, NULL, 'q'},
		{"output", required_argument, NULL, 'o'},   {"no-wait", no_argument, NULL, 'W'},
		{"python", required_argument, NULL, 'P'},   {"cmd", required_argument, NULL, 'c'},
		{"metric", required_argument, NULL, 'm'},   {"minimize", no_argument, NULL, 'M'},
		{"name", required_argument, NULL, 'n'},     {"warmup", required_argument, NULL, 'u'},
		{"timeout", required_argument, NULL, 'T'},  {"shell", no_argument, NULL, 'H'},
		{"unit", required_argument, NULL, 'U'},     {"store", required_argument, NULL, 'D'},
		{"node", required_argument, NULL, 'N'},     {"replace", no_argument, NULL, 'E'},
		{NULL, 0, NULL, 0},
	};
	int c, rc = -1;
	optind = 1;
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
		if ((rc = parse_cmd_option(c, cmd)) != -2)
			continue;
		rc = -1;
		switch (c) {
		case 'P': o->python = optarg; break;
		case 'W': a->no_wait = 1; break;
		case 'E': a->replace = 1; break;
		case 'D': a->store.url = optarg; break;
		case 'N': a->store.node = optarg; break;
		case 'w':
			rc = split_names(optarg, "--workload", &lists->workloads, o->workloads,
					 RT_NWORKLOADS, &o->nworkloads);
			break;
		case 'b': rc = parse_backends(o, &lists->backends); break;
		case 'B':
			if (rt_parse_double(optarg, &o->budget_s) || o->budget_s < 1 || o->budget_s > 7 * 86400)
				rc = rt_usage_error("tune", "--budget: expected seconds from 1 to 604800, got '%s'", optarg);
			break;
		case 's': o->strategy = optarg; break;
		case 'S': o->space_file = optarg; break;
		case 'h': o->shape = optarg; break;
		case 'r': o->resume = 1; break;
		case 'f': o->fresh = 1; break;
		case 'x': o->crossover = 0; break;
		case 'q': o->quiet = 1; break;
		case 'o': a->output = optarg; break;
		case ':': rc = rt_usage_error("tune", "option '%s' needs a value", argv[optind - 1]); break;
		default: rc = rt_usage_error("tune", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (rc < 0 && optind < argc)
		rc = rt_usage_error("tune", "unexpected argument '%s'", argv[optind]);
	if (rc < 0 && a->store.url)
		rc = rt_store_url_usage("tune", a->store.url);
	if (rc < 0 && a->store.node && !a->store.url)
		rc = rt_usage_error("tune", "--node names the node in the store: give --store URL");
	if (rc < 0 && o->resume && o->fresh)
		rc = rt_usage_error("tune", "--resume and --fresh exclude each other");
	if (rc < 0)
		rc = check_cmd(o, cmd);
	if (rc < 0 && cmd->command)
		o->cmd = cmd;
	if (rc < 0 && o->space_file && !o->cmd && o->nworkloads != 1)
		rc = rt_usage_error("tune", "--space needs exactly one --workload (or --cmd)");
	return rc;
}

/*
 * Why no workload has a recommendation, RT_ERUNTIME: each one's note (the
 * cause each point failed with, or that nothing beat the naive default),
 * and the journal that has every trial.
 */
static int no_workload_recommended(const rt_tune_run *run, char *err, size_t errlen)
{
	char why[RT_ERRLEN] = "";
	for (int i = 0; i < run->nwl; i++) {
		char one[RT_ERRLEN];
		snprintf(one, sizeof one, "%s: %s", run->wl[i].name,
			 run->wl[i].note[0] ? run->wl[i].note : "no trial finished");
		rt_list_append(why, sizeof why, "; ", one);
	}
	/* the journal first: a long note is what the message's length cuts */
	return rt_fail(err, errlen, RT_ERUNTIME,
		       "no recommendation for any workload (the journal %s has every trial): %s",
		       run->journal_path, why);
}

/*
 * Why nothing can be recommended: RT_EINVAL when every run of the user's
 * command printed nothing the metric matches (the metric is wrong, not the
 * points), else RT_ERUNTIME with the last reason (the workloads' notes).
 */
static int no_recommendation(const rt_tune_run *run, char *err, size_t errlen)
{
	const rt_tune_workload *twl = &run->wl[0];
	if (!run->nwl || twl->w || !twl->ntrials)
		return no_workload_recommended(run, err, errlen);
	int bad = 0;
	for (int i = 0; i < twl->ntrials; i++)
		bad += twl->trials[i].cause == RT_CAUSE_BAD_OUTPUT;
	const char *last = twl->trials[twl->ntrials - 1].reason;
	if (bad == twl->ntrials)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--metric matched nothing the command printed in %d run%s (%s)",
			       bad, bad == 1 ? "" : "s", last);
	return rt_fail(err, errlen, RT_ERUNTIME,
		       "no run of the command gave a measurement; the last: %s (the journal %s has "
		       "every one)",
		       last, run->journal_path);
}

static void on_signal(int sig)
{
	(void)sig;
	rt_tune_interrupt();
}

static void catch_signals(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends rigtune at once */
	sigemptyset(&sa.sa_mask);
	/* a closed terminal or ssh (HUP), Ctrl-backslash (QUIT), Slurm's time limit (TERM) */
	static const int ending[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	for (size_t i = 0; i < RT_COUNT(ending); i++)
		sigaction(ending[i], &sa, NULL);
}

/* Where the configuration goes and what it keeps there (load_kept). */
typedef struct tune_output {
	const char *path;
	int replace;
	rt_config *kept; /* NULL: nothing to keep */
} tune_output;

/*
 * The configuration at out->path that this tune adds to
 * (rt_config_emit_over), read once the tune's input is checked and before
 * anything is measured (rt_tune_opts.ready), so that a file that cannot
 * take it stops the tune early: out->kept stays NULL for stdout, --replace
 * or no regular file there. RT_EINVAL "PATH:LINE:COLUMN: problem" for a file that
 * is not a configuration rigtune can read, or one of another host.
 */
static int load_kept(void *user, char *err, size_t errlen)
{
	tune_output *out = user;
	char host[256] = "";
	struct stat st;
	/* a device (-o /dev/null), a pipe, or nothing there: nothing to keep */
	if (out->replace || !strcmp(out->path, "-") || stat(out->path, &st) || !S_ISREG(st.st_mode))
		return RT_OK;
	rt_config *c = calloc(1, sizeof *c);
	if (!c)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	int rc = rt_config_load(out->path, c, err, errlen);
	gethostname(host, sizeof host - 1);
	if (rc == RT_OK && strcmp(c->hostname, host)) {
		rc = rt_fail(err, errlen, RT_EINVAL, "%s is the configuration of host %s, not of "
						     "this one (%s)", out->path, c->hostname, host);
		rt_config_free(c);
	}
	if (rc) {
		free(c);
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, " (a tune adds its recommendations to the file -o "
					      "names; --replace writes over it)");
		return rc == RT_EIO ? RT_EINVAL : rc;
	}
	out->kept = c;
	return RT_OK;
}

/* The tune, its configuration written to path over kept; an exit code. */
static int tune_and_write(rt_tune_opts *o, tune_args *a, tune_output *out)
{
	const char *path = out->path;
	char err[RT_ERRLEN], host[64];
	rt_progress progress;
	rt_progress_init(&progress, o->budget_s, o->quiet);
	rt_tune_run *run = calloc(1, sizeof *run);
	if (!run)
		return RT_EXIT_RUNTIME;
	/* --store: every trial to the results store as the journal gets it (fleet.h) */
	if (a->store.url && !a->store.node)
		rt_fleet_default_node(host, sizeof host);
	if (a->store.url)
		rt_store_live_start(&a->store, a->store.url, a->store.node ? a->store.node : host,
				    o->quiet);
	int rc = rt_tune(o, run, &progress, err, sizeof err);
	if (a->store.url)
		rt_store_live_finish(&a->store, &run->machine, run->fingerprint, run->journal_path);
	if (rc == RT_OK && !run->interrupted && !rt_tune_recommends(run))
		rc = no_recommendation(run, err, sizeof err);
	if (rc == RT_EINVAL) {
		rt_tune_run_free(run);
		free(run);
		return rt_usage_error("tune", "%s", err);
	}
	char *text = NULL;
	size_t len = 0;
	if (rc == RT_OK)
		rc = rt_config_emit_over(run, o, out->kept, &text, &len, err, sizeof err);
	if (rc == RT_OK && !a->output)
		mkdir("configs", 0755);
	if (rc == RT_OK)
		rc = rt_output(path, text, len, err, sizeof err);
	if (rc) {
		rt_errorf("tune: %s", err);
	} else if (!o->quiet && strcmp(path, "-")) {
		rt_tprintf(stderr, "rigtune: %s configuration written to %s (%.0f s, journal %s)%s\n",
			run->interrupted ? "best-so-far" : "recommended", path, run->seconds,
			run->journal_path, out->kept ? "; its other recommendations kept" : "");
	}
	int interrupted = run->interrupted;
	free(text);
	rt_tune_run_free(run);
	free(run);
	if (rc == RT_OK && interrupted)
		return RT_EXIT_INTERRUPTED;
	return rt_exit_code(rc);
}

static int run_tune(int argc, char **argv)
{
	rt_tune_opts o;
	rt_tune_cmd cmd = {.warmup = 1};
	rt_tune_opts_default(&o);
	tune_lists lists;
	tune_args a = {0};
	int rc = parse_args(argc, argv, &o, &cmd, &lists, &a);
	if (rc >= 0)
		return rc;
	char err[RT_ERRLEN], host_path[1024];
	if ((rc = rt_output_check(a.output, err, sizeof err)))
		return rt_output_refused("tune", rc, err);
	if (!a.output && rt_config_default_path(host_path, sizeof host_path))
		return rt_usage_error("tune", "the host name does not fit a file name: give -o FILE");
	tune_output out = {.path = a.output ? a.output : host_path, .replace = a.replace};
	o.ready = load_kept;
	o.ready_user = &out;
	catch_signals();
	rt_lock lock;
	if ((rc = rt_lock_for_command(&lock, "rigtune tune", a.no_wait, o.quiet, err, sizeof err))) {
		rt_errorf("tune: %s", err);
		rc = rt_exit_code(rc);
	} else {
		rc = tune_and_write(&o, &a, &out);
		rt_lock_release(&lock);
	}
	if (out.kept)
		rt_config_free(out.kept);
	free(out.kept);
	return rc;
}

/* The workloads and the strategies, from their tables. */
static void tune_help(FILE *f)
{
	int n;
	const rt_strategy *const *st = rt_strategy_list(&n);
	rt_help_workloads(f);
	fputs("\nStrategies:\n", f);
	for (int i = 0; i < n; i++)
		rt_help_item(f, st[i]->name, st[i]->description);
}

const rt_command rt_cmd_tune = {"tune", run_tune,
				"search the knobs of each workload, write the recommended config",
				tune_usage, tune_help};
