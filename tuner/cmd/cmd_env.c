/* rigtune env: a recommendation's environment as export lines for a shell. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../apply.h"
#include "commands.h"
#include "../pin.h"
#include "../settings.h"
#include "../usercmd.h"

extern char **environ; /* POSIX: the program declares it (macOS's unistd.h does not) */

static const char env_usage[] =
	"usage: rigtune env [--config FILE] [--workload NAME] [--allow-env NAME ...]\n\n"
	"Prints the environment of a recommendation as `export NAME=value` lines for a\n"
	"POSIX shell (eval \"$(rigtune env)\"), every value quoted for the shell, and, as\n"
	"a comment, the CPUs its pin policy binds (rigtune exec binds them; taskset -c\n"
	"LIST does too), and which of the thread and precision variables set in your\n"
	"environment the configuration's frameworks read or ignore. A configuration\n"
	"sets only the variables rigtune's knobs own\n"
	"(thread counts, visible devices, OMP_PROC_BIND, OMP_PLACES, RIGTUNE_<KNOB>):\n"
	"any other is refused (exit 2) unless --allow-env names it.\n\n"
	"  --config FILE     the configuration (default configs/<host>.yaml)\n"
	"  --workload NAME   its entry: a workload, or the --name of a tuned command\n"
	"                    (default: the only one)\n"
	"  --allow-env NAME  let the configuration set NAME too (repeat for more)\n";

/* The export lines; RT_ENOMEM. */
static int print_exports(const rt_config_kvs *env)
{
	for (int i = 0; i < env->n; i++) {
		char *q = rt_shell_quote_dup(env->kv[i].value);
		if (!q)
			return RT_ENOMEM;
		printf("export %s=%s\n", env->kv[i].key, q);
		free(q);
	}
	return RT_OK;
}

/* What the frameworks the configuration was tuned for do with the variables set here. */
static void your_settings(const rt_config *c)
{
	rt_frameworks *f = malloc(sizeof *f);
	if (!f)
		return;
	rt_frameworks_read(&c->yr, rt_yr_get(&c->yr, rt_yr_root(&c->yr), "frameworks"), f);
	rt_settings_comment(stdout, f, environ);
	free(f);
}

static int run_env(int argc, char **argv)
{
	rt_apply_opts o;
	int rc = rt_apply_args("env", argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (optind < argc)
		return rt_usage_error("env", "unexpected argument '%s'", argv[optind]);
	char err[RT_ERRLEN], cpus[256];
	rt_applied a;
	if (rt_apply_load(&o, &a, err, sizeof err))
		return rt_usage_error("env", "%s", err);
	rc = rt_apply_cpulist(&a, cpus, sizeof cpus, err, sizeof err);
	if (rc == RT_OK && cpus[0] && !rt_plat_can_bind()) /* macOS */
		printf("# pin %s: %s (rigtune exec does)\n", rt_pin_name((rt_pin)a.pin),
		       rt_pin_steer_said((rt_pin)a.pin));
	else if (rc == RT_OK && cpus[0])
		printf("# pin %s: bind to CPUs %s (rigtune exec does; so does taskset -c %s)\n",
		       rt_pin_name((rt_pin)a.pin), cpus, cpus);
	if (rc == RT_OK)
		your_settings(&a.cfg);
	if (rc == RT_OK && (rc = print_exports(&a.rec->env)))
		rt_fail(err, sizeof err, rc, "out of memory");
	rt_apply_free(&a);
	if (rc)
		rt_errorf("env: %s", err);
	return rt_exit_code(rc);
}

const rt_command rt_cmd_env = {"env", run_env, "print a recommendation's environment for a shell",
			       env_usage, NULL};
