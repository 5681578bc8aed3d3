/* apply.c: one entry of a configuration, ready to run with (apply.h). */
#include "apply.h"

#include <ctype.h>
#include <getopt.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "envnames.h"
#include "usercmd_knobs.h"
#include "machine.h"
#include "params.h"
#include "pin.h"

/* The entry called name, or the only one; an error that lists them otherwise. */
static int pick(const rt_config *c, const char *name, const rt_config_rec **out, char *err,
		size_t errlen)
{
	char names[512] = "";
	for (int i = 0; i < c->nrecs; i++)
		rt_list_append(names, sizeof names, ", ", c->recs[i].name);
	if (!name && c->nrecs == 1)
		name = c->recs[0].name;
	if (!name)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s has %d recommendations (%s): name one with --workload", c->path,
			       c->nrecs, names);
	*out = rt_config_find(c, name);
	if (!*out)
		return rt_fail(err, errlen, RT_EINVAL, "%s has no recommendation for '%s' (it has: %s)",
			       c->path, name, names[0] ? names : "none");
	if ((*out)->none)
		return rt_fail(err, errlen, RT_EINVAL, "%s: '%s' has no recommendation: %s", c->path,
			       name, (*out)->none);
	return RT_OK;
}

/* The usable cores of this machine, for a command without thread knobs. */
static int usable_cores(void)
{
	static rt_machine m; /* large: not on the stack */
	return rt_machine_probe(NULL, &m, NULL, 0) == RT_OK ? rt_machine_pcores(&m) : 1;
}

/* A command's entry: its knobs say the pin policy and the CPUs. */
static int command_binding(rt_applied *a, char *err, size_t errlen)
{
	rt_cmd_point pt;
	int rc = rt_config_command_point(&a->cfg, &a->rec->recommended, &pt, err, errlen);
	if (rc)
		return rc;
	a->pin = rt_cmdknobs_pin(&pt);
	a->cpus = a->pin == RT_PIN_NONE ? 0 : rt_cmdknobs_cpus(&pt, usable_cores());
	return RT_OK;
}

/* A built-in workload's entry: its point, checked as on the command line. */
static int workload_binding(rt_applied *a, const rt_workload *w, char *err, size_t errlen)
{
	rt_point pt;
	rt_shape sh;
	int rc = rt_config_point_decode(&a->cfg, &a->rec->recommended, w, &pt, &sh, err, errlen);
	a->pin = pt.pin;
	a->cpus = pt.threads + pt.workers;
	return rc;
}

static int is_env_name(const char *k)
{
	size_t n = strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			     "0123456789_");
	return *k && !k[n] && !isdigit((unsigned char)k[0]);
}

static int allowed(const char *k, const char *const *allow, int nallow)
{
	for (int i = 0; i < nallow; i++)
		if (!strcmp(k, allow[i]))
			return 1;
	return rt_env_owned(k);
}

int rt_env_check(const rt_config *c, const rt_config_kvs *env, const char *const *allow,
		 int nallow, char *err, size_t errlen)
{
	rt_yr r = rt_yr_with_err(&c->yr, err, errlen);
	for (int i = 0; i < env->n; i++) {
		const char *k = env->kv[i].key;
		if (!is_env_name(k))
			return rt_yr_bad(&r, env->kv[i].node,
					 "env: '%s' cannot name an environment variable", k);
		if (!allowed(k, allow, nallow))
			return rt_yr_bad(&r, env->kv[i].node,
					 "env: %s is not a variable rigtune's knobs set (thread "
					 "counts, OpenMP's wait, visible devices, binding, "
					 "RIGTUNE_<KNOB>): a "
					 "configuration may not set it (pass --allow-env %s to "
					 "let it)",
					 k, k);
	}
	return RT_OK;
}

int rt_apply_load(const rt_apply_opts *o, rt_applied *a, char *err, size_t errlen)
{
	char def[1024];
	const char *path = o->config;
	memset(a, 0, sizeof *a);
	if (!path && rt_config_default_path(def, sizeof def) == RT_OK)
		path = def;
	if (!path)
		return rt_fail(err, errlen, RT_EINVAL, "the host name is too long for a config path");
	int rc = rt_config_load(path, &a->cfg, err, errlen);
	if (rc)
		return RT_EINVAL; /* a file that cannot be read is bad input here: its message says */
	rc = pick(&a->cfg, o->workload, &a->rec, err, errlen);
	if (rc == RT_OK)
		rc = rt_env_check(&a->cfg, &a->rec->env, o->allow, o->nallow, err, errlen);
	if (rc == RT_OK) {
		const rt_workload *w = rt_workload_find(a->rec->name);
		int is_command = rt_yr_get(&a->cfg.yr, a->rec->node, "command") != NULL;
		rc = w && !is_command ? workload_binding(a, w, err, errlen)
				      : command_binding(a, err, errlen);
	}
	if (rc)
		rt_apply_free(a);
	return rc;
}

void rt_apply_free(rt_applied *a)
{
	rt_config_free(&a->cfg);
	a->rec = NULL;
}

int rt_apply_cpulist(const rt_applied *a, char *buf, size_t len, char *err, size_t errlen)
{
	if (len)
		buf[0] = '\0';
	if (a->pin == RT_PIN_NONE)
		return RT_OK;
	hwloc_topology_t t;
	if (hwloc_topology_init(&t) || hwloc_topology_load(t))
		return rt_fail(err, errlen, RT_ERUNTIME, "hwloc cannot load the topology");
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int rc = set ? rt_pin_cpuset(t, (rt_pin)a->pin, a->cpus, set) : RT_ENOMEM;
	if (rc == RT_OK)
		hwloc_bitmap_list_snprintf(buf, len, set);
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(t);
	return rc ? rt_fail(err, errlen, RT_ERUNTIME, "cannot pick the %s PUs",
			    rt_pin_name((rt_pin)a->pin))
		  : RT_OK;
}

int rt_apply_args(const char *cmd, int argc, char **argv, rt_apply_opts *o)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"workload", required_argument, NULL, 'w'},
		{"allow-env", required_argument, NULL, 'A'},
		{NULL, 0, NULL, 0},
	};
	int c;
	memset(o, 0, sizeof *o);
	optind = 1;
	opterr = 0;
	/* '+': stop at the command's first word, whose options are its own */
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 'w': o->workload = optarg; break;
		case 'A':
			if (o->nallow == RT_APPLY_MAX_ALLOW)
				return rt_usage_error(cmd, "more than %d --allow-env options",
						      RT_APPLY_MAX_ALLOW);
			o->allow[o->nallow++] = optarg;
			break;
		case ':':
			return rt_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			return rt_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	return -1;
}
