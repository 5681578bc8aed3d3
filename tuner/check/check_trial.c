/* check_trial.c: one trial of a check's point, and the sides of an A/B check (check_trial.h). */
#include "check_trial.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/platform.h"
#include "../pin.h"
#include "../usercmd_knobs.h"

/* Each trial as tune measures one, so that its samples are alike (tune.c). */
#define TRIAL_CAP_S 1.0

static void trial_opts(rt_measure_opts *mo)
{
	rt_measure_defaults(mo);
	mo->warmup_s = 0.1;
	mo->min_samples = 5;
	mo->rel_ci = 0.03;
	mo->time_cap_s = TRIAL_CAP_S;
	mo->timeout_s = 30 + 4 * mo->time_cap_s;
}

/* ---- sides ---- */

static int add_env(rt_check_side *s, const char *spec, const char *name, const char *value,
		   char *err, size_t errlen)
{
	if (s->nenv == RT_SIDE_MAX_ENV)
		return rt_fail(err, errlen, RT_EINVAL, "%s: more than %d variables on one side",
			       spec, RT_SIDE_MAX_ENV);
	int n = snprintf(s->env[s->nenv], sizeof s->env[0], "%s=%s", name, value);
	if (n < 0 || (size_t)n >= sizeof s->env[0])
		return rt_fail(err, errlen, RT_EINVAL, "%s: too long", spec);
	s->nenv++;
	return RT_OK;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int need_dir(const char *spec, const char *dir, char *err, size_t errlen)
{
	return is_dir(dir) ? RT_OK
			   : rt_fail(err, errlen, RT_EINVAL, "%s: %s is not a directory", spec, dir);
}

/* lib:DIR, before whatever library path this process has (LD_LIBRARY_PATH; macOS's DYLD_). */
static int add_lib(rt_check_side *s, const char *spec, const char *dir, char *err,
		   size_t errlen)
{
	const char *old = getenv(RT_LIBRARY_PATH_VAR);
	char value[1024];
	int rc = need_dir(spec, dir, err, errlen);
	if (rc)
		return rc;
	int n = snprintf(value, sizeof value, "%s%s%s", dir, old && *old ? ":" : "",
			 old ? old : "");
	if (n < 0 || (size_t)n >= sizeof value)
		return rt_fail(err, errlen, RT_EINVAL, "%s: too long", spec);
	return add_env(s, spec, RT_LIBRARY_PATH_VAR, value, err, errlen);
}

/* env:K=V,K=V */
static int add_vars(rt_check_side *s, const char *spec, const char *list, char *err,
		    size_t errlen)
{
	char copy[1024];
	if ((size_t)snprintf(copy, sizeof copy, "%s", list) >= sizeof copy)
		return rt_fail(err, errlen, RT_EINVAL, "%s: too long", spec);
	int rc = RT_OK;
	for (char *save = NULL, *kv = strtok_r(copy, ",", &save); rc == RT_OK && kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq || eq == kv)
			return rt_fail(err, errlen, RT_EINVAL, "%s: '%s' is not NAME=VALUE", spec,
				       kv);
		*eq = '\0';
		rc = add_env(s, spec, kv, eq + 1, err, errlen);
	}
	return rc;
}

int rt_check_side_add(rt_check_side *s, const char *spec, char *err, size_t errlen)
{
	size_t used = strlen(s->spec);
	snprintf(s->spec + used, sizeof s->spec - used, "%s%s", used ? "; " : "", spec);
	if (!strcmp(spec, "current"))
		return RT_OK;
	if (!strncmp(spec, "lib:", 4))
		return add_lib(s, spec, spec + 4, err, errlen);
	if (!strncmp(spec, "plugins:", 8)) {
		int rc = need_dir(spec, spec + 8, err, errlen);
		return rc ? rc : add_env(s, spec, "RIGTUNE_BACKEND_PATH", spec + 8, err, errlen);
	}
	if (!strncmp(spec, "env:", 4))
		return add_vars(s, spec, spec + 4, err, errlen);
	if (!strncmp(spec, "cmd:", 4) && spec[4]) {
		s->command = spec + 4;
		return RT_OK;
	}
	if (is_dir(spec))
		return add_lib(s, spec, spec, err, errlen);
	return rt_fail(err, errlen, RT_EINVAL,
		       "%s: expected lib:DIR, plugins:DIR, env:NAME=VALUE,..., cmd:COMMAND, "
		       "current or a library directory",
		       spec);
}

/* ---- environments ---- */

/* Variables for a child: the side's, then more; NULL-terminated in env (cap entries). */
typedef struct child_env {
	int n;
	char *ptr[RT_SIDE_MAX_ENV + RT_CMD_MAX_ENV + 2];
} child_env;

static void env_add(child_env *e, char *var)
{
	if (e->n < (int)RT_COUNT(e->ptr) - 1)
		e->ptr[e->n++] = var;
	e->ptr[e->n] = NULL;
}

static void env_side(child_env *e, const rt_check_side *s)
{
	e->n = 0;
	e->ptr[0] = NULL;
	for (int i = 0; s && i < s->nenv; i++)
		env_add(e, (char *)s->env[i]);
}

/* ---- a built-in workload on a side: `rigtune bench` ---- */

#define MAX_ARGS 32

typedef struct bench_args {
	int n;
	char *argv[MAX_ARGS + 1];
	char text[MAX_ARGS][64];
} bench_args;

static void arg(bench_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void arg(bench_args *a, const char *fmt, ...)
{
	RT_BUG_ON(a->n >= MAX_ARGS);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->text[a->n], sizeof a->text[0], fmt, ap);
	va_end(ap);
	a->argv[a->n] = a->text[a->n];
	a->argv[++a->n] = NULL;
}

/* This binary's path (too long for a bench_args text: not copied), or "rigtune" from PATH. */
static char *self_exe(void)
{
	static char path[PATH_MAX];
	return rt_plat_exe_path(path, sizeof path) == 0 ? path : (char *)"rigtune";
}

/* rigtune bench W KEY=VALUE ... --seconds CAP -o - */
static void bench_argv(const rt_base_point *b, const char *rigtune, bench_args *a)
{
	const rt_point *pt = &b->pt;
	a->n = 0;
	if (rigtune)
		arg(a, "%s", rigtune);
	else
		a->argv[a->n++] = self_exe();
	arg(a, "bench");
	arg(a, "%s", b->w->name);
	arg(a, "backend=%s", pt->backend);
	arg(a, "device=%d", pt->device);
	arg(a, "precision=%s", rt_precision_name(pt->precision));
	arg(a, "batch=%d", pt->batch);
	arg(a, "threads=%d", pt->threads);
	arg(a, "workers=%d", pt->workers);
	arg(a, "pin=%s", rt_pin_name(pt->pin));
	for (int i = 0; i < b->w->nkeys; i++)
		arg(a, "%s=%ld", b->w->keys[i].name, b->sh.v[i]);
	arg(a, "--seconds");
	arg(a, "%g", TRIAL_CAP_S);
}

typedef struct text_buf {
	char *s;
	size_t len, cap;
	int failed;
} text_buf;

/* Keeps stdout, line by line (the bench's YAML). */
static void keep_line(void *user, int is_err, const char *line)
{
	text_buf *t = user;
	size_t n = strlen(line);
	if (is_err || t->failed)
		return;
	if (t->len + n + 2 > t->cap) {
		size_t cap = 2 * (t->len + n + 2);
		char *s = realloc(t->s, cap);
		if (!s) {
			t->failed = 1;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
	memcpy(t->s + t->len, line, n);
	t->len += n;
	t->s[t->len++] = '\n';
	t->s[t->len] = '\0';
}

/* The measurement in the bench's YAML: its samples, or why it did not run. */
static int read_bench(const text_buf *t, rt_measurement *m, char *err, size_t errlen)
{
	rt_yr r;
	int rc = rt_yr_load(&r, "rigtune bench's output", t->s, t->len, err, errlen);
	const rt_ynode *root = rc ? NULL : rt_yr_root(&r);
	const char *why = root ? rt_yr_scalar(rt_yr_get(&r, root, "infeasible")) : NULL;
	if (root && why) {
		const char *cause = rt_yr_scalar(rt_yr_get(&r, root, "cause"));
		snprintf(m->reason, sizeof m->reason, "%s", why);
		m->cause = cause && rt_cause_parse(cause) >= 0 ? (rt_cause)rt_cause_parse(cause)
							       : RT_CAUSE_CRASH;
	} else if (root) {
		rc = rt_yr_need_nums(&r, root, "samples", &m->samples, &m->nsamples);
		if (rc == RT_OK && rt_yr_get(&r, root, "contention"))
			rc = rt_yr_need_num(&r, root, "contention", &m->contention);
		m->feasible = rc == RT_OK && m->nsamples > 0;
	}
	rt_yr_free(&r);
	return rc;
}

static int bench_trial(const rt_base_point *b, const rt_check_side *s, const char *rigtune,
		       const char *lockdir, rt_measurement *m, char *err, size_t errlen)
{
	bench_args a;
	child_env env;
	char lock[1100];
	text_buf out = {0};
	bench_argv(b, rigtune, &a);
	env_side(&env, s);
	/* this check holds the machine's lock: the bench measures on its behalf */
	snprintf(lock, sizeof lock, "RIGTUNE_LOCK_DIR=%s", lockdir);
	env_add(&env, lock);
	rt_usercmd uc = {.argv = a.argv, .env = env.ptr, .pin = RT_PIN_NONE,
			 .timeout_s = 30 + 4 * TRIAL_CAP_S, .line = keep_line, .user = &out};
	rt_usercmd_exit x;
	int rc = rt_usercmd_run(&uc, &x, err, errlen);
	m->seconds = x.seconds;
	if (rc == RT_OK && out.failed)
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	if (rc == RT_OK && out.len)
		rc = read_bench(&out, m, err, errlen);
	if (rc == RT_OK && !m->feasible && !m->reason[0]) {
		snprintf(m->reason, sizeof m->reason, "rigtune bench: %.200s",
			 x.timed_out ? "timed out" : x.last_err[0] ? x.last_err : "no samples");
		m->cause = x.timed_out ? RT_CAUSE_TIMEOUT : RT_CAUSE_CRASH;
	}
	free(out.s);
	return rc;
}

/* ---- a user's command ---- */

static int command_trial(const rt_base_point *b, const rt_check_side *s,
			 const rt_machine *here, rt_measurement *m, char *err, size_t errlen)
{
	const rt_base_command *c = b->cmd;
	rt_cmd_template tpl = {0};
	rt_metric metric = {0};
	rt_knob_value shown[RT_CMD_MAX_KNOBS];
	const rt_cmd_point *pt = &b->knobs;
	rt_usercmd_env point_env;
	child_env env;
	char **argv = NULL;
	int side_cmd = s && s->command;
	const char *text = side_cmd ? s->command : c->run;
	/* a point whose command check was not given is not run (check_run.c init_points) */
	RT_BUG_ON(!text);
	int rc = rt_cmd_template_parse(text, side_cmd ? s->shell : c->run_shell, &tpl, err,
				       errlen);
	if (rc == RT_OK)
		rc = rt_metric_init(&metric, c->regex, c->warmup, err, errlen);
	rt_cmdknobs_placeholders(pt, shown);
	if (rc == RT_OK)
		rc = rt_cmd_template_expand(&tpl, shown, pt->n, &argv, err, errlen);
	rt_cmdknobs_env(pt, here, &point_env);
	env_side(&env, s);
	for (int i = 0; i < point_env.n; i++)
		env_add(&env, point_env.var[i]);
	/* placed and capped as tune ran it: a trial measured otherwise is not comparable */
	rt_usercmd uc = {.argv = argv, .env = env.ptr, .timeout_s = 60 + 4 * b->trial_s};
	rt_cmdknobs_limits(pt, here, &uc);
	if (rc == RT_OK)
		rc = rt_usercmd_measure(&uc, &metric, m, err, errlen);
	rt_argv_free(argv);
	rt_metric_free(&metric);
	rt_cmd_template_free(&tpl);
	return rc;
}

/* A minimized metric is compared as its inverse (higher is better), as its baseline is. */
static void invert_samples(rt_measurement *m)
{
	for (int i = 0; i < m->nsamples; i++)
		m->samples[i] = m->samples[i] != 0 ? 1 / m->samples[i] : 0;
}

int rt_check_trial(const rt_base_point *b, const rt_check_side *s, const char *rigtune,
		   const char *lockdir, const rt_machine *here, rt_measurement *m, char *err,
		   size_t errlen)
{
	rt_measure_opts mo;
	if (!b->cmd && !s) {
		trial_opts(&mo);
		return rt_measure(b->w, &b->pt, &b->sh, &mo, m, err, errlen);
	}
	memset(m, 0, sizeof *m);
	int rc = b->cmd ? command_trial(b, s, here, m, err, errlen)
			: bench_trial(b, s, rigtune, lockdir, m, err, errlen);
	if (rc == RT_OK && m->feasible && b->cmd && b->cmd->minimize)
		invert_samples(m);
	if (rc == RT_OK && m->feasible)
		rt_measurement_summarize(m);
	return rc;
}
