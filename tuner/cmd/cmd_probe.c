/* rigtune probe: the machine as YAML. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../backends.h"
#include "commands.h"
#include "../frameworks.h"
#include "../machine.h"
#include "../output.h"
#include "../settings.h"

extern char **environ; /* POSIX: the program declares it (macOS's unistd.h does not) */

static const char probe_usage[] =
	"usage: rigtune probe [--topology FILE.xml] [--python PATH] [-o FILE]\n\n"
	"Prints the machine as YAML: packages, NUMA nodes, cores, SMT, CPU kinds\n"
	"(P/E cores), caches, OS, governor, memory, the BLAS library and every\n"
	"backend's devices (or why it has none), and the fingerprint that makes\n"
	"two measurements comparable.\n\n"
	"  --topology FILE.xml  read an hwloc XML export instead of this machine\n"
	"                       (make one with: lstopo --of xml FILE.xml)\n"
	"  --python PATH        also the ML frameworks that Python has (PyTorch: version,\n"
	"                       BLAS and its threading, OpenMP, thread pools, GPUs; JAX\n"
	"                       and its CPU client; TensorFlow, gymnasium, SB3), each\n"
	"                       probed in a child with a deadline, and which of your\n"
	"                       thread and precision variables each reads or ignores\n"
	"  -o, --output FILE    write to FILE (atomically) instead of stdout\n";

static int run_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{"topology", required_argument, NULL, 't'},
		{"python", required_argument, NULL, 'p'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	const char *topology = NULL, *output = NULL, *python = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
		switch (c) {
		case 't': topology = optarg; break;
		case 'p': python = optarg; break;
		case 'o': output = optarg; break;
		case ':': return rt_usage_error("probe", "option '%s' needs a value", argv[optind - 1]);
		default: return rt_usage_error("probe", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return rt_usage_error("probe", "unexpected argument '%s'", argv[optind]);

	char err[RT_ERRLEN];
	rt_machine *m = malloc(sizeof *m);
	rt_frameworks *fw = calloc(1, sizeof *fw);
	if (!m || !fw) {
		free(m);
		free(fw);
		return RT_EXIT_RUNTIME;
	}
	char *text = NULL;
	size_t len = 0;
	int rc = rt_machine_probe(topology, m, err, sizeof err);
	if (rc == RT_OK && !topology)
		rt_probe_accelerators(m);
	if (rc == RT_OK && python &&
	    (rc = rt_frameworks_probe(python, RT_FRAMEWORK_DEADLINE_S, RT_FW_TIME_SB3_STEP, fw, err,
				       sizeof err))) {
		rc = rt_usage_error("probe", "--python: %s", err);
		goto out;
	}
	if (rc == RT_OK) {
		rt_yw w;
		rc = rt_yw_init(&w);
		if (rc == RT_OK) {
			rt_yw_map(&w, 0);
			rt_yw_str(&w, "machine");
			rt_machine_emit(&w, m);
			if (python) {
				rt_yw_str(&w, "frameworks");
				rt_frameworks_emit(&w, fw);
				rt_settings_emit(&w, fw, environ);
			}
			rt_yw_end_map(&w);
			rc = rt_yw_finish(&w, &text, &len, err, sizeof err);
		}
	}
	if (rc == RT_OK)
		rc = rt_output(output, text, len, err, sizeof err);
	if (rc)
		rt_errorf("probe: %s", err);
	rc = rt_exit_code(rc);
out:
	free(text);
	free(m);
	free(fw);
	return rc;
}

const rt_command rt_cmd_probe = {"probe", run_probe, "describe this machine (or an hwloc XML topology)",
				 probe_usage, NULL};
