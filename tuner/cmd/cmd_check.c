/* rigtune check: measure a baseline's points again and say what got slower, and what changed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check/check.h"
#include "commands.h"
#include "../lock.h"
#include "../output.h"
#include "../params.h"
#include "../fleet/fleet.h"

static const char check_usage[] =
	"usage: rigtune check --baseline FILE [--cmd COMMAND [--shell]] [--budget SECONDS]\n"
	"                     [--threshold PCT] [--alpha A] [--force] [--no-canary]\n"
	"                     [--quiet] [--no-wait] [-o FILE] [--store URL [--node NAME]]\n"
	"       rigtune check --a SPEC --b SPEC [--baseline FILE] [options as above]\n\n"
	"Is this machine still as fast as when FILE was measured, and if not, what\n"
	"changed? FILE is a configuration written by `rigtune tune` (its journal has\n"
	"the samples) or a journal in results/. First the machine's description is\n"
	"compared with the baseline's, field by field (driver, BLAS, kernel, governor,\n"
	"microcode, ...); a baseline from other hardware is refused. Then each\n"
	"workload's recommended and fastest points, and three sizes of the saved GEMM\n"
	"sweep per backend and precision, are measured again, interleaved, repeating\n"
	"only the undecided ones, and compared with the baseline's samples: a\n"
	"regression is significant (Mann-Whitney U, p < A) and slower than the\n"
	"threshold (the bootstrap 95% CI of the ratio of medians); a point that ran\n"
	"in the baseline and does not now is a regression too. The same for a\n"
	"configuration of `rigtune tune --cmd`, given the command again with --cmd:\n"
	"its recommended point and runner-ups are run again through it and the same\n"
	"metric. The command in a file is never run: without --cmd (or with another\n"
	"command than tune's, by its hash) the command's points are not run.\n\n"
	"A canary (a scalar compute loop and a memory read, taken after every trial\n"
	"here as in the tune) says how fast the machine itself is against the\n"
	"baseline, beside the points; it is shown only and changes no verdict (on a\n"
	"VM it moves by a third or more between runs of an unchanged machine).\n"
	"Each point is a regression or improvement (significant and past the\n"
	"threshold, in most trials and still in the last two, half the budget (20 s\n"
	"at most) after its first: a host's busy spell of a few seconds is not a\n"
	"regression), unchanged (the CI of the ratio within +-threshold), or\n"
	"inconclusive, measured again while the budget lasts and then given with about\n"
	"how many more samples would decide it. Once every point ran, one whose CI is\n"
	"wholly past the threshold is measured again before the others; one left\n"
	"inconclusive whose every sample is past the threshold below the baseline's\n"
	"median, with enough samples that chance would put them there at most A of\n"
	"the time, is a likely regression (exit 1). On each side, a trial of the slower\n"
	"half, more than half the threshold slower than that side's fastest, is left\n"
	"out as one the host slowed (a neighbour only ever slows a trial; a slower\n"
	"library slows them all).\n\n"
	"With --a and --b, before an upgrade: the points (FILE's, else gemm at its\n"
	"default shape) are measured on both sides in one session, interleaved (A B,\n"
	"B A, ...), so that the machine's drift falls on both; B is compared with A\n"
	"by pairs of trials (a regression: B slower); at --alpha 0.01 a change takes\n"
	"8 pairs at least: give each point about 30 s of --budget. There is no\n"
	"canary in A/B.\n"
	"A SPEC, given once or more per side: lib:DIR (first in LD_LIBRARY_PATH; a bare\n"
	"DIR too), plugins:DIR (RIGTUNE_BACKEND_PATH), env:NAME=VALUE,..., cmd:COMMAND\n"
	"(a `tune --cmd` configuration's command, replaced), current (as it is).\n\n"
	"  --baseline FILE     configs/<host>.yaml or results/<host>-<time>.yaml\n"
	"  --cmd COMMAND       the command of FILE's `tune --cmd` entry, word for word as\n"
	"                      tune had it (its hash must be FILE's): run it again\n"
	"  --shell             sh -c runs --cmd (and a side's cmd:), as with tune --shell\n"
	"  --a SPEC, --b SPEC  an A/B check: what each side runs with (above)\n"
	"  --budget SECONDS    time for the repeats (default: as long as the baseline's\n"
	"                      tune took, 40 at least, or 60; 60 for A/B); every point\n"
	"                      is measured at least once, and the check ends when all\n"
	"                      are decided\n"
	"  --threshold PCT     smallest change that counts, in percent (default 5)\n"
	"  --alpha A           significance level of the U test (default 0.01)\n"
	"  --force             compare with a baseline from other hardware\n"
	"  --no-canary         take no canary samples (they are shown only)\n"
	"  --quiet             no progress on stderr (the table is still printed)\n"
	"  --no-wait           exit 3 if another rigtune is measuring on this machine\n"
	"                      (by default check waits for it)\n"
	"  -o, --output FILE   write the YAML to FILE (atomically) instead of stdout\n"
	"  --store URL         also append the result (its points and machine diff) to\n"
	"                      the results store (PostgreSQL: docs/fleet.md); needs -o,\n"
	"                      the copy `rigtune store push` uploads if the store is down\n"
	"  --node NAME         the node the store records it under (default: the host)\n\n"
	"Exit status: 0 no regression (points not run, verdict not_run, are none),\n"
	"1 regression or likely regression (the table names the points),\n"
	"2 bad usage or baseline (nothing is written), 3 failure at run time.\n";

static int parse_number(const char *opt, const char *arg, double lo, double hi, double *v)
{
	if (rt_parse_double(arg, v) || !(*v > lo && *v < hi))
		return rt_usage_error("check",
				      "%s: expected a number above %g and below %g, got '%s'", opt,
				      lo, hi, arg);
	return -1;
}

/* --store and --node: where the result goes besides -o FILE. */
typedef struct check_store {
	const char *url, *node;
} check_store;

/* --a SPEC or --b SPEC (b: 1): one more thing that side runs with. An exit code, or -1. */
static int add_side(rt_check_opts *o, int b, const char *spec)
{
	char err[RT_ERRLEN];
	o->ab = 1;
	if (rt_check_side_add(&o->side[b], spec, err, sizeof err))
		return rt_usage_error("check", "--%c %s", b ? 'b' : 'a', err);
	return -1;
}

static int parse_args(int argc, char **argv, rt_check_opts *o, const char **output,
		      int *no_wait, check_store *store)
{
	static const struct option opts[] = {
		{"baseline", required_argument, NULL, 'b'},
		{"a", required_argument, NULL, 'A'},
		{"b", required_argument, NULL, 'Z'},
		{"budget", required_argument, NULL, 'B'},
		{"threshold", required_argument, NULL, 't'},
		{"alpha", required_argument, NULL, 'a'},
		{"force", no_argument, NULL, 'f'},
		{"no-canary", no_argument, NULL, 'N'},
		{"quiet", no_argument, NULL, 'q'},
		{"no-wait", no_argument, NULL, 'W'},
		{"output", required_argument, NULL, 'o'},
		{"store", required_argument, NULL, 'D'},
		{"node", required_argument, NULL, 'n'},
		{"cmd", required_argument, NULL, 'c'},
		{"shell", no_argument, NULL, 's'},
		{NULL, 0, NULL, 0},
	};
	int c, rc = -1;
	double pct;
	optind = 1;
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
		switch (c) {
		case 'b': o->baseline = optarg; break;
		case 'A':
		case 'Z': rc = add_side(o, c == 'Z', optarg); break;
		case 'B':
			rc = parse_number("--budget", optarg, 0, 7 * 86400 + 1, &o->budget_s);
			break;
		case 't':
			rc = parse_number("--threshold", optarg, 0, 100, &pct);
			o->threshold = pct / 100;
			break;
		case 'a': rc = parse_number("--alpha", optarg, 0, 0.5, &o->alpha); break;
		case 'f': o->force = 1; break;
		case 'N': o->no_canary = 1; break;
		case 'q': o->quiet = 1; break;
		case 'W': *no_wait = 1; break;
		case 'o': *output = optarg; break;
		case 'D': store->url = optarg; break;
		case 'n': store->node = optarg; break;
		case 'c': o->command = optarg; break;
		case 's': o->shell = o->side[0].shell = o->side[1].shell = 1; break;
		case ':':
			rc = rt_usage_error("check", "option '%s' needs a value", argv[optind - 1]);
			break;
		default: rc = rt_usage_error("check", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (rc < 0 && optind < argc)
		rc = rt_usage_error("check", "unexpected argument '%s'", argv[optind]);
	if (rc < 0 && o->ab && !(o->side[0].spec[0] && o->side[1].spec[0]))
		rc = rt_usage_error("check", "an A/B check needs both --a SPEC and --b SPEC");
	if (rc < 0 && !o->baseline && !o->ab)
		rc = rt_usage_error("check", "--baseline FILE is required (configs/<host>.yaml), "
					     "or --a SPEC --b SPEC");
	if (rc < 0 && store->url && (!*output || !strcmp(*output, "-")))
		rc = rt_usage_error("check", "--store needs -o FILE: the copy that `rigtune store "
					     "push` uploads when the store is down");
	if (rc < 0 && o->shell && !o->command && !o->side[0].command && !o->side[1].command)
		rc = rt_usage_error("check", "--shell says how --cmd COMMAND runs: give --cmd");
	if (rc < 0 && store->url)
		rc = rt_store_url_usage("check", store->url);
	if (rc < 0 && store->node && !store->url)
		rc = rt_usage_error("check", "--node names the node in the store: give --store URL");
	return rc;
}

/*
 * Where a finished check goes: its document to -o FILE or stdout. Every
 * destination of a result (a results store too) is one more call here, on
 * the same text.
 */
static int deliver(const char *text, size_t len, const char *output, char *err, size_t errlen)
{
	return rt_output(output, text, len, err, errlen);
}

/* The table, then the YAML; the exit status says whether anything regressed. */
static int report(const rt_check_run *run, const rt_check_opts *o, const char *output)
{
	char err[RT_ERRLEN], *text = NULL;
	size_t len = 0;
	rt_check_print_table(stderr, run);
	int rc = rt_check_emit(run, o, &text, &len, err, sizeof err);
	if (rc == RT_OK)
		rc = deliver(text, len, output, err, sizeof err);
	free(text);
	if (rc) {
		rt_errorf("check: %s", err);
		return rt_exit_code(rc);
	}
	return rt_check_regressed(run) ? 1 : 0;
}

/*
 * --store: the result as written to output, its machine beside it. A store
 * that cannot take it is a warning: the file is there for `store push`.
 */
static void upload(const check_store *cs, const rt_check_run *run, const char *output)
{
	char err[RT_ERRLEN], host[64];
	const char *node = cs->node;
	if (!node) {
		rt_fleet_default_node(host, sizeof host);
		node = host;
	}
	rt_store *s;
	rt_store_counts n = {0};
	int rc = rt_store_open(cs->url, &s, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_store_put_machine(s, node, &run->machine, run->fingerprint, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_store_push(s, node, output, &n, err, sizeof err);
	rt_store_close(s);
	if (rc)
		rt_errorf("check: store: %s; the result stays in %s (rigtune store push uploads "
			  "it)", err, output);
}

static int run_check(int argc, char **argv)
{
	rt_check_opts o;
	rt_check_opts_default(&o);
	const char *output = NULL;
	int no_wait = 0;
	check_store store = {0};
	int rc = parse_args(argc, argv, &o, &output, &no_wait, &store);
	if (rc >= 0)
		return rc;
	char err[RT_ERRLEN];
	if ((rc = rt_output_check(output, err, sizeof err)))
		return rt_output_refused("check", rc, err);
	rt_check_run *run = calloc(1, sizeof *run);
	if (!run)
		return RT_EXIT_RUNTIME;
	rc = rt_check_prepare(&o, run, err, sizeof err);
	rt_check_print_diff(stderr, run);
	rt_lock lock = {0};
	if (rc == RT_OK)
		rc = rt_lock_for_command(&lock, "rigtune check", no_wait, o.quiet, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_check_measure(&o, run, err, sizeof err);
	rt_lock_release(&lock);
	int status;
	if (rc) {
		rt_errorf("check: %s", err);
		status = rt_exit_code(rc);
	} else {
		status = report(run, &o, output);
		if (store.url && status < RT_EXIT_USAGE)
			upload(&store, run, output);
	}
	rt_check_run_free(run);
	free(run);
	return status;
}

const rt_command rt_cmd_check = {"check", run_check,
				 "measure a baseline again: what got slower, and what changed",
				 check_usage, NULL};
