/*
 * apply.h: using a recommendation (`rigtune exec`, `rigtune env`): one entry
 * of a configuration, its environment and the CPUs its pin policy binds.
 *
 * The entry is a built-in workload's (its point's pin, threads + workers) or
 * the user's command's (its knobs: pin, and max(threads, blas_threads) +
 * workers CPUs: usercmd_knobs.h).
 */
#ifndef RT_APPLY_H
#define RT_APPLY_H

#include <stddef.h>

#include "config.h"

/* The most --allow-env options one command takes. */
#define RT_APPLY_MAX_ALLOW 16

/* What exec and env were asked for on their command line. */
typedef struct rt_apply_opts {
	const char *config;   /* --config FILE, or NULL: configs/<host>.yaml */
	const char *workload; /* --workload NAME, or NULL: the only entry */
	/* --allow-env NAME: variables beyond rigtune's own that the user lets the config set */
	const char *allow[RT_APPLY_MAX_ALLOW];
	int nallow;
} rt_apply_opts;

typedef struct rt_applied {
	rt_config cfg;
	const rt_config_rec *rec;
	int pin;    /* rt_pin of the recommended point; RT_PIN_NONE: no binding */
	int cpus;   /* how many its pin policy binds */
} rt_applied;

/*
 * Checks the env: of an entry of configuration c: every name can be
 * exported by a shell and is owned by rigtune (envnames.h rt_env_owned) or one of
 * allow[0..nallow). RT_EINVAL "FILE:LINE:COLUMN: env: NAME ..." naming the
 * first that is not, and how to allow it.
 */
int rt_env_check(const rt_config *c, const rt_config_kvs *env, const char *const *allow,
		 int nallow, char *err, size_t errlen);

/*
 * Loads the configuration o->config (NULL: configs/<host>.yaml) and its
 * entry o->workload (NULL: its only entry). RT_EINVAL naming the file for a
 * file that cannot be read, a malformed configuration (FILE:LINE:COLUMN), an
 * entry that is not there (the message lists those that are), one without a
 * recommendation (and why), several entries and no name, or a variable of
 * its env: that rigtune does not own and o->allow does not name.
 */
int rt_apply_load(const rt_apply_opts *o, rt_applied *a, char *err, size_t errlen);
void rt_apply_free(rt_applied *a);

/*
 * The PUs the entry binds to, as a list ("0-3,8"), into buf; "" when it
 * binds none. RT_ERUNTIME when the topology cannot be read.
 */
int rt_apply_cpulist(const rt_applied *a, char *buf, size_t len, char *err, size_t errlen);

/*
 * The options of exec and env (--config FILE, --workload NAME, --allow-env
 * NAME) from argv into o, stopping at the first word that is not one (or
 * after --): optind is then the command's first word. Returns an exit code
 * for bad usage, else -1.
 */
int rt_apply_args(const char *cmd, int argc, char **argv, rt_apply_opts *o);

#endif
