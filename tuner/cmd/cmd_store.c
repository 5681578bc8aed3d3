/* rigtune store push: upload journals and check results that the store missed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../fleet/fleet.h"

static const char store_usage[] =
	"usage: rigtune store push --store URL [--node NAME] FILE...\n\n"
	"Uploads to the results store (PostgreSQL) what a node kept while the store was\n"
	"unreachable: each FILE is a journal (results/<host>-<time>.yaml: every trial)\n"
	"or the result of `rigtune check` (-o FILE: its points and machine diff). Rows\n"
	"have natural keys: what the store has already is left as it is, so pushing a\n"
	"file twice, or one that was partly uploaded, counts nothing twice.\n\n"
	"  --store URL         libpq connection URI: postgresql://[user@]host[:port]/db\n"
	"                      (no password: ~/.pgpass, PGPASSFILE or PGPASSWORD)\n"
	"  --node NAME         the node the rows are recorded under (default: this host;\n"
	"                      use the name tune and check were given with --node)\n\n"
	"Prints one line per file: rows added and rows already there.\n"
	"Exit status: 0 pushed, 2 bad usage or file, 3 the store failed.\n";

static int run_store(int argc, char **argv)
{
	static const struct option opts[] = {
		{"store", required_argument, NULL, 's'},
		{"node", required_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	const char *url = NULL, *node = NULL;
	char host[64];
	if (argc < 2 || strcmp(argv[1], "push"))
		return rt_usage_error("store", "expected the action 'push', got '%s'",
				      argc < 2 ? "" : argv[1]);
	int c;
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 's': url = optarg; break;
		case 'n': node = optarg; break;
		case ':': return rt_usage_error("store", "option '%s' needs a value", argv[optind - 1]);
		default: return rt_usage_error("store", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!url)
		return rt_usage_error("store", "--store URL is required");
	int bad_url = rt_store_url_usage("store", url);
	if (bad_url >= 0)
		return bad_url;
	if (optind >= argc)
		return rt_usage_error("store", "push: name the journals or check results to upload");
	if (!node) {
		rt_fleet_default_node(host, sizeof host);
		node = host;
	}
	char err[RT_ERRLEN];
	rt_store *s;
	int rc = rt_store_open(url, &s, err, sizeof err);
	for (int i = optind; rc == RT_OK && i < argc; i++) {
		rt_store_counts n = {0};
		rc = rt_store_push(s, node, argv[i], &n, err, sizeof err);
		if (rc == RT_OK)
			rt_tprintf(stdout, "%s: %ld added, %ld already in the store\n", argv[i], n.added,
			       n.present);
	}
	rt_store_close(s);
	if (rc == RT_EINVAL)
		return rt_usage_error("store", "%s", err);
	if (rc)
		rt_errorf("store: %s", err);
	return rt_exit_code(rc);
}

const rt_command rt_cmd_store = {"store", run_store,
				 "upload journals and check results to the results store",
				 store_usage, NULL};
