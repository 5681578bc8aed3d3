/*
 * tune_usercmd.c: the user's own command as a target of tune's loop (tune
 * --cmd, tune_target.h). A point is the knobs of its space; each run is the
 * command with the point's placeholders, environment and binding
 * (usercmd_knobs.h), measured by the metric (usercmd.h); the journal keys a
 * trial by the command's hash and the knobs.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usercmd_knobs.h"
#include "../common/clock.h"
#include "pin.h"
#include "spacefile.h"
#include "tune.h"
#include "tune_target.h"
#include "../search/stats.h"

#define DEFAULT_NAME "command"
/* The space of a command without --space: both thread pools, 1 to the usable cores. */
static const char default_space[] = "workload: " RT_SPACE_COMMAND "\n"
				    "params:\n"
				    "  threads: {min: 1, max: auto}\n"
				    "  blas_threads: {min: 1, max: auto}\n";

struct rt_tune_command {
	rt_cmd_template tpl;
	rt_metric metric;
	char hash[17];
	char name[64];
	char unit[64];
	double timeout_s;
};

/*
 * Each thread pool fits the usable cores. Workers are not counted against
 * them: worker processes that mostly wait (vector environments on their
 * pipes) can outnumber the cores and still pay (examples/README.md), and the
 * command is measured, not modelled.
 */
static int cmd_feasible(const tune_ctx *c, const int *idx, int *cpus)
{
	rt_cmd_point p;
	int usable = c->run->usable_cores;
	rt_cmd_point_at(c->twl->space, idx, &p);
	*cpus = rt_cmdknobs_cpus(&p, usable);
	return rt_cmd_point_num(&p, "threads", 0) <= usable &&
	       rt_cmd_point_num(&p, "blas_threads", 0) <= usable;
}

static const rt_journal_record *cmd_find(const tune_ctx *c, const rt_tune_trial *t)
{
	rt_cmd_point p;
	rt_cmd_point_at(c->twl->space, t->idx, &p);
	return rt_journal_find_knobs(c->reuse, c->nreuse, c->run->fingerprint, c->twl->cmd->hash,
				     &p);
}

/*
 * Seconds a run of t's point is predicted to take, from this tune's runs so
 * far (0: none yet): its own last run when it ran, else a run's fixed cost
 * (from its start to the first match: the interpreter, an import of PyTorch
 * that takes seconds, the model's construction) plus its time after that,
 * each the median of the runs so far. The rate the command prints leaves
 * the fixed cost out; the budget cannot.
 */
static double predicted_run(const tune_ctx *c, const rt_tune_trial *t)
{
	const rt_tune_workload *twl = c->twl;
	double fixed[64], after[64];
	int n = 0;
	size_t np = sizeof(int) * (size_t)rt_space_nparams(twl->space);
	for (int i = twl->ntrials - 1; i >= 0 && n < (int)RT_COUNT(fixed); i--) {
		const rt_tune_trial *u = &twl->trials[i];
		if (u == t || u->reused || u->skipped || !(u->seconds > 0))
			continue;
		if (!memcmp(u->idx, t->idx, np))
			return u->seconds;
		fixed[n] = u->setup_seconds;
		after[n++] = u->seconds - u->setup_seconds;
	}
	return n ? rt_median(fixed, (size_t)n) + rt_median(after, (size_t)n) : 0;
}

/* A run not started: predicted to end past the budget (RT_SKIP_BUDGET, a timeout foreseen). */
static int skip_run(rt_measurement *m, double predicted, double left)
{
	memset(m, 0, sizeof *m);
	m->skipped = RT_SKIP_BUDGET;
	m->cause = RT_CAUSE_TIMEOUT;
	m->seconds = predicted;
	snprintf(m->reason, sizeof m->reason, "predicted %.2g s a run, %.2g s left in the budget",
		 predicted, left > 0 ? left : 0);
	return RT_OK;
}

static int cmd_measure(const tune_ctx *c, const rt_tune_trial *t, double cap, rt_measurement *m,
		       char *err, size_t errlen)
{
	struct rt_tune_command *cmd = c->twl->cmd;
	rt_cmd_point p;
	rt_knob_value shown[RT_CMD_MAX_KNOBS];
	rt_usercmd_env env;
	char **argv;
	(void)cap; /* the command decides how long it runs; the budget and the timeout bound it */
	double predicted = predicted_run(c, t), left = c->deadline - rt_clock_now();
	if (c->deadline > 0 && predicted > left)
		return skip_run(m, predicted, left);
	rt_cmd_point_at(c->twl->space, t->idx, &p);
	rt_cmdknobs_placeholders(&p, shown);
	rt_cmdknobs_env(&p, &c->run->machine, &env);
	int rc = rt_cmd_template_expand(&cmd->tpl, shown, p.n, &argv, err, errlen);
	if (rc)
		return rc;
	rt_usercmd uc = {.argv = argv,
			 .env = env.ptr,
			 .timeout_s = cmd->timeout_s,
			 .stop = rt_tune_stop_requested};
	rt_cmdknobs_limits(&p, &c->run->machine, &uc);
	rc = rt_usercmd_measure(&uc, &cmd->metric, m, err, errlen);
	rt_argv_free(argv);
	return rc;
}

static int cmd_append(const tune_ctx *c, const rt_tune_trial *t, const rt_measurement *m,
		      char *err, size_t errlen)
{
	const struct rt_tune_command *cmd = c->twl->cmd;
	rt_cmd_point p;
	rt_cmd_point_at(c->twl->space, t->idx, &p);
	rt_journal_trial jt = {.role = RT_TRIAL_SEARCH, .hash = cmd->hash, .name = cmd->name,
			       .unit = cmd->unit, .knobs = &p, .m = m};
	return rt_journal_append(c->journal, &jt, err, errlen);
}

const rt_tune_target rt_tune_target_command = {
	.feasible = cmd_feasible,
	.point = NULL, /* the space file checked every value */
	.find = cmd_find,
	.measure = cmd_measure,
	.append = cmd_append,
	.confirm = 1,
};

/* ---- setting up ---- */

static int word_char(char c)
{
	return isalnum((unsigned char)c) || c == '/' || c == '_' || c == '-' || c == '%';
}

/*
 * The metric's unit: the word just before the capture group ("samples/s
 * ([0-9.]+)" -> samples/s), else the one just after it, else "value".
 */
static void unit_of(const char *regex, char *unit, size_t len)
{
	const char *open = strchr(regex, '('), *close = open ? strchr(open, ')') : NULL;
	const char *end = open, *start;
	while (end && end > regex && !word_char(end[-1]))
		end--;
	for (start = end; start && start > regex && word_char(start[-1]); start--)
		;
	if (start && end > start) {
		snprintf(unit, len, "%.*s", (int)(end - start), start);
		return;
	}
	for (start = close ? close + 1 : NULL; start && *start && !word_char(*start); start++)
		;
	for (end = start; end && word_char(*end); end++)
		;
	if (start && end > start)
		snprintf(unit, len, "%.*s", (int)(end - start), start);
	else
		snprintf(unit, len, "value");
}

/*
 * The space: --space (workload: command), or both thread pools from 1 to the
 * usable cores. Its knee knob saturates (config.c takes the knee along it).
 */
static int load_space(const rt_tune_opts *o, const rt_tune_run *run, rt_tune_workload *twl,
		      char *err, size_t errlen)
{
	int rc = o->space_file ? rt_spacefile_load_command(o->space_file, run->usable_cores,
							   &twl->space, NULL, 0, err, errlen)
			       : rt_spacefile_parse_command(default_space, strlen(default_space),
							    "<default command space>",
							    run->usable_cores, &twl->space, NULL, 0,
							    err, errlen);
	return rc == RT_EIO ? RT_EINVAL : rc; /* a --space that cannot be read is bad input */
}

/* Every placeholder of the command is a knob of the space. */
static int check_placeholders(const rt_tune_opts *o, const rt_tune_workload *twl, char *err,
			      size_t errlen)
{
	char names[RT_CMD_MAX_KNOBS * 2][RT_KNOB_NAMELEN], knobs[512] = "";
	int n = rt_cmd_template_names(&twl->cmd->tpl, names, (int)RT_COUNT(names));
	for (int p = 0; p < rt_space_nparams(twl->space); p++)
		rt_list_append(knobs, sizeof knobs, ", ", rt_space_name(twl->space, p));
	for (int i = 0; i < n && i < (int)RT_COUNT(names); i++)
		if (rt_space_find(twl->space, names[i]) < 0)
			return rt_fail(err, errlen, RT_EINVAL,
				       "the command's placeholder {%s} has no knob in %s (its "
				       "knobs: %s)",
				       names[i], o->space_file ? o->space_file : "the default space",
				       knobs);
	return RT_OK;
}

static int name_ok(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.-", name[i]))
			return 0;
	return n > 0 && n < 64;
}

int rt_tune_command_setup(const rt_tune_opts *o, const rt_tune_run *run,
			  rt_tune_workload *twl, char *err, size_t errlen)
{
	const rt_tune_cmd *co = o->cmd;
	struct rt_tune_command *cmd = calloc(1, sizeof *cmd);
	if (!cmd)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	twl->cmd = cmd;
	const char *name = co->name ? co->name : DEFAULT_NAME;
	if (!name_ok(name))
		return rt_fail(err, errlen, RT_EINVAL,
			       "--name '%s': expected letters, digits, _ . - (under 64)", name);
	snprintf(cmd->name, sizeof cmd->name, "%s", name);
	int rc = rt_cmd_template_parse(co->command, co->shell, &cmd->tpl, err, errlen);
	if (rc == RT_OK)
		rc = rt_metric_init(&cmd->metric, co->metric, co->warmup, err, errlen);
	if (rc == RT_OK)
		rc = load_space(o, run, twl, err, errlen);
	if (rc == RT_OK)
		rc = check_placeholders(o, twl, err, errlen);
	if (rc)
		return rc;
	rt_cmd_template_hash(&cmd->tpl, co->metric, co->warmup, co->minimize, cmd->hash);
	if (co->unit)
		snprintf(cmd->unit, sizeof cmd->unit, "%s", co->unit);
	else
		unit_of(co->metric, cmd->unit, sizeof cmd->unit);
	cmd->timeout_s = co->timeout_s > 0 ? co->timeout_s : o->budget_s;
	twl->name = cmd->name;
	twl->unit = cmd->unit;
	twl->minimize = co->minimize;
	return RT_OK;
}

void rt_tune_command_free(struct rt_tune_command *cmd)
{
	if (!cmd)
		return;
	rt_cmd_template_free(&cmd->tpl);
	rt_metric_free(&cmd->metric);
	free(cmd);
}

const char *rt_tune_command_hash(const struct rt_tune_command *cmd)
{
	return cmd->hash;
}

int rt_tune_command_argv(const struct rt_tune_command *cmd, const rt_space *s, const int *idx,
			 char *buf, size_t len)
{
	rt_cmd_point p;
	rt_knob_value shown[RT_CMD_MAX_KNOBS];
	char **argv;
	rt_cmd_point_at(s, idx, &p);
	rt_cmdknobs_placeholders(&p, shown);
	int rc = rt_cmd_template_expand(&cmd->tpl, shown, p.n, &argv, NULL, 0);
	if (rc == RT_OK) {
		rt_argv_format(argv, buf, len);
		rt_argv_free(argv);
	}
	return rc;
}

void rt_tune_command_env(const rt_space *s, const int *idx, const rt_machine *m,
			 rt_usercmd_env *env)
{
	rt_cmd_point p;
	rt_cmd_point_at(s, idx, &p);
	rt_cmdknobs_env(&p, m, env);
}
