/*
 * sweep_formats.c: the table of sweep formats (one row a format: its name,
 * summary for --help, check and writer), and the ones that are a
 * configuration file: a W&B sweep (its documented schema: program, method,
 * metric, parameters with values or distribution/min/max, command with the
 * environment), a Hydra Optuna-sweeper override file, JSON Lines.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_impl.h"

static const rt_sweep_format rt_sweep_wandb, rt_sweep_hydra, rt_sweep_grid;

static const rt_sweep_format *const formats[] = {
	&rt_sweep_optuna, &rt_sweep_ray, &rt_sweep_wandb, &rt_sweep_hydra, &rt_sweep_grid,
};

const rt_sweep_format *rt_sweep_format_find(const char *name)
{
	for (size_t i = 0; i < RT_COUNT(formats); i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}

const rt_sweep_format *rt_sweep_format_at(int i)
{
	return i >= 0 && (size_t)i < RT_COUNT(formats) ? formats[i] : NULL;
}

void rt_sweep_format_names(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < RT_COUNT(formats) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 formats[i]->name);
}

/* ---- the objective ----------------------------------------------------------- */

static int name_len(const char *s)
{
	int n = 0;
	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

static int known_name(const char *s, int n, const rt_sweep_plan *plan,
		      const rt_sweep_params *params)
{
	if ((int)strlen(plan->axis) == n && !strncmp(s, plan->axis, (size_t)n))
		return 1;
	for (int i = 0; i < plan->fixed->n; i++)
		if ((int)strlen(plan->fixed->kv[i].key) == n &&
		    !strncmp(s, plan->fixed->kv[i].key, (size_t)n))
			return 1;
	for (int i = 0; i < params->n; i++)
		if ((int)strlen(params->p[i].name) == n && !strncmp(s, params->p[i].name, (size_t)n))
			return 1;
	return 0;
}

/* {name} names a parameter, the batch key or a fixed knob; {{ and }} are braces. */
static int check_cmd(const char *cmd, const rt_sweep_plan *plan, const rt_sweep_params *params,
		     char *err, size_t errlen)
{
	for (const char *s = cmd; *s; s++) {
		if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
			s++;
			continue;
		}
		if (*s == '}')
			return rt_fail(err, errlen, RT_EINVAL,
				       "--cmd: a lone '}' at column %d (write }} for a brace)",
				       (int)(s - cmd) + 1);
		if (*s != '{')
			continue;
		int n = name_len(s + 1);
		if (!n || s[n + 1] != '}')
			return rt_fail(err, errlen, RT_EINVAL,
				       "--cmd: a lone '{' at column %d (write {NAME} for a "
				       "parameter, {{ for a brace)",
				       (int)(s - cmd) + 1);
		if (!known_name(s + 1, n, plan, params))
			return rt_fail(err, errlen, RT_EINVAL,
				       "--cmd: {%.*s} names no parameter (there are %s, the fixed "
				       "knobs and those of --params)",
				       n, s + 1, plan->axis);
		s += n + 1;
	}
	return RT_OK;
}

/* Capturing groups: '(' not escaped, not in [...], not followed by '?'. */
static int count_groups(const char *re)
{
	int n = 0, in_class = 0;
	for (const char *s = re; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		else if (in_class)
			in_class = *s != ']';
		else if (*s == '[')
			in_class = 1 + (s[1] == ']' ? (int)(s++, 0) : 0);
		else if (*s == '(' && s[1] != '?')
			n++;
	}
	return n;
}

static int check_function(const char *fn, char *err, size_t errlen)
{
	const char *colon = strchr(fn, ':');
	int ok = colon && colon > fn && name_len(colon + 1) == (int)strlen(colon + 1);
	for (const char *s = fn; ok && s < colon; s++)
		ok = isalnum((unsigned char)*s) || *s == '_' || (*s == '.' && s > fn);
	if (!ok)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--function: expected module:name (a Python module and a "
			       "function of it), got '%s'",
			       fn);
	return RT_OK;
}

int rt_sweep_objective_check(const rt_sweep_objective *obj, const rt_sweep_plan *plan,
			     const rt_sweep_params *params, char *err, size_t errlen)
{
	const char *const options[] = {"--cmd", "--objective", "--function", "--metric"};
	const char *const given[] = {obj->cmd, obj->regex, obj->function, obj->metric};
	for (size_t i = 0; i < RT_COUNT(options); i++)
		if (given[i] && !rt_sweep_utf8_valid(given[i]))
			return rt_fail(err, errlen, RT_EINVAL,
				       "%s: not valid UTF-8 (the engines read the sweep as UTF-8)",
				       options[i]);
	if (obj->cmd)
		RT_TRY(check_cmd(obj->cmd, plan, params, err, errlen));
	if (obj->regex && count_groups(obj->regex) != 1)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--objective: expected a regular expression with exactly one "
			       "group, the number (e.g. 'val_loss[ =:]+([0-9.eE+-]+)'), got %d "
			       "groups in '%s'",
			       count_groups(obj->regex), obj->regex);
	if (obj->regex && strstr(obj->regex, "[:"))
		return rt_fail(err, errlen, RT_EINVAL,
			       "--objective: Python's re, which runs it, has no [:class:] "
			       "(write [0-9] or \\d)");
	if (obj->function)
		RT_TRY(check_function(obj->function, err, errlen));
	return RT_OK;
}

int rt_sweep_write(const rt_sweep_format *fmt, const rt_sweep_plan *plan,
		   const rt_sweep_params *params, const rt_sweep_objective *obj, char **text,
		   size_t *len, char *err, size_t errlen)
{
	RT_TRY(fmt->check(obj, err, errlen));
	*text = NULL;
	FILE *f = open_memstream(text, len);
	if (!f)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	int rc = fmt->emit(f, plan, params, obj, err, errlen);
	if (fclose(f) && rc == RT_OK)
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

/* ---- a parameter's values ----------------------------------------------------- */

/* The value at u in [0, 1) of a range, on its scale (an int's range is [low, high + 1)). */
static double range_value(const rt_sweep_param *p, double u)
{
	if (p->integer) {
		double hi = p->high + 1;
		double v = p->log ? exp(log(p->low) + u * (log(hi) - log(p->low)))
				  : p->low + u * (hi - p->low);
		return fmin(floor(v), p->high);
	}
	return p->log ? exp(log(p->low) + u * (log(p->high) - log(p->low)))
		      : p->low + u * (p->high - p->low);
}

/* A parameter's value in YAML or JSON: choice idx of its values, or x of its range. */
static void put_param_value(FILE *f, const rt_sweep_param *p, int idx, double x)
{
	if (!p->is_range)
		rt_sweep_put_value(f, &p->values[idx], 0);
	else if (p->integer)
		fprintf(f, "%.0f", x);
	else
		rt_sweep_put_float(f, x);
}

/* ---- W&B ------------------------------------------------------------------------- */

static void put_yaml_list_item(FILE *f, const char *text)
{
	fputs("  - ", f);
	rt_sweep_put_str(f, text);
	fputc('\n', f);
}

/* One parameter in W&B's schema: values, or a distribution with min and max. */
static void wandb_param(FILE *f, const rt_sweep_param *p)
{
	fputs("  ", f);
	rt_sweep_put_str(f, p->name);
	fputs(":\n", f);
	if (!p->is_range) {
		fputs("    values: [", f);
		for (int v = 0; v < p->nvalues; v++) {
			fputs(v ? ", " : "", f);
			rt_sweep_put_value(f, &p->values[v], 0);
		}
		fputs("]\n", f);
		return;
	}
	static const char *const dist[2][2] = {
		{"uniform", "log_uniform_values"},
		{"int_uniform", "q_log_uniform_values"},
	};
	fprintf(f, "    distribution: %s\n", dist[p->integer][p->log]);
	if (p->integer) {
		fprintf(f, "    min: %.0f\n    max: %.0f\n", p->low, p->high);
		if (p->log)
			fputs("    q: 1\n", f);
		return;
	}
	fputs("    min: ", f);
	rt_sweep_put_float(f, p->low);
	fputs("\n    max: ", f);
	rt_sweep_put_float(f, p->high);
	fputc('\n', f);
}

static int wandb_check(const rt_sweep_objective *obj, char *err, size_t errlen)
{
	if (!obj->cmd)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--format wandb: W&B runs a program: give it as --cmd 'python3 "
			       "train.py ...'");
	if (!obj->metric)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--format wandb: W&B optimizes a metric your program logs with "
			       "wandb.log: name it with --metric NAME");
	return RT_OK;
}

/* The words of --cmd; W&B's command is a list, so quoting cannot be kept. */
static int split_blanks(const char *cmd, char *buf, size_t len, char **words, int cap, int *n,
			char *err, size_t errlen)
{
	if (strpbrk(cmd, "'\"\\"))
		return rt_fail(err, errlen, RT_EINVAL,
			       "--cmd: W&B's command is a list of words: write it without "
			       "quotes or backslashes for --format wandb");
	snprintf(buf, len, "%s", cmd);
	*n = 0;
	char *save = NULL;
	for (char *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (*n == cap)
			return rt_fail(err, errlen, RT_EINVAL, "--cmd: more than %d words", cap);
		words[(*n)++] = w;
	}
	if (!*n)
		return rt_fail(err, errlen, RT_EINVAL, "--cmd: empty");
	return RT_OK;
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && !strcmp(s + a - b, tail);
}

/*
 * A word after the program: kept as a fixed argument, or 1 word (--NAME={NAME})
 * or 2 words (--NAME {NAME}) that W&B's ${args} stands for.
 */
static int wandb_arg(char **w, int left, int *skip, char *err, size_t errlen)
{
	char want[160];
	*skip = 0;
	if (!rt_sweep_has_placeholder(w[0]) && !(left > 1 && rt_sweep_has_placeholder(w[1])))
		return RT_OK;
	if (!strncmp(w[0], "--", 2) && strchr(w[0], '=')) {
		int n = (int)(strchr(w[0], '=') - w[0]) - 2;
		snprintf(want, sizeof want, "--%.*s={%.*s}", n, w[0] + 2, n, w[0] + 2);
		*skip = !strcmp(w[0], want);
	} else if (!strncmp(w[0], "--", 2) && left > 1) {
		snprintf(want, sizeof want, "{%s}", w[0] + 2);
		*skip = strcmp(w[1], want) ? 0 : 2;
	}
	if (!*skip)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--cmd: W&B hands every parameter to the program as --NAME=VALUE "
			       "(its ${args}): write '--NAME {NAME}' for each, '%s%s%s' is not",
			       w[0], left > 1 ? " " : "", left > 1 ? w[1] : "");
	return RT_OK;
}

static int wandb_command(FILE *f, const rt_sweep_plan *plan, const char *cmd, char *err,
			 size_t errlen)
{
	char buf[4096], *w[256];
	int n = 0, prog = 0;
	RT_TRY(split_blanks(cmd, buf, sizeof buf, w, (int)RT_COUNT(w), &n, err, errlen));
	while (prog < n && !ends_with(w[prog], ".py"))
		prog++;
	if (prog == n)
		prog = 0;
	if (rt_sweep_has_placeholder(w[prog]))
		return rt_fail(err, errlen, RT_EINVAL, "--cmd: the program '%s' has a placeholder",
			       w[prog]);
	fputs("program: ", f);
	rt_sweep_put_str(f, w[prog]);
	fputs("\ncommand:\n  - ${env}\n", f);
	for (int i = 0; i < plan->env->n; i++) {
		char *kv = NULL;
		if (asprintf(&kv, "%s=%s", plan->env->kv[i].key, plan->env->kv[i].value) < 0)
			return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		put_yaml_list_item(f, kv);
		free(kv);
	}
	if (plan->npus) {
		char list[RT_SWEEP_MAX_PUS * 5] = "";
		for (int i = 0; i < plan->npus; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d",
				 i ? "," : "", plan->pus[i]);
		fputs("  - taskset\n  - -c\n", f);
		put_yaml_list_item(f, list);
	}
	for (int i = 0; i < prog; i++)
		put_yaml_list_item(f, w[i]);
	if (!prog && ends_with(w[prog], ".py"))
		fputs("  - ${interpreter}\n", f);
	fputs("  - ${program}\n", f);
	for (int i = prog + 1, skip; i < n; i += skip ? skip : 1) {
		RT_TRY(wandb_arg(&w[i], n - i, &skip, err, errlen));
		if (!skip)
			put_yaml_list_item(f, w[i]);
	}
	fputs("  - ${args}\n", f);
	return RT_OK;
}

static void put_sweep_name(FILE *f, const rt_sweep_plan *plan)
{
	char name[300];
	rt_sweep_study_name(plan, name, sizeof name);
	rt_sweep_put_str(f, name);
}

static int wandb_emit(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		      const rt_sweep_objective *obj, char *err, size_t errlen)
{
	char metric[256];
	rt_sweep_line_text(obj->metric, metric, sizeof metric);
	rt_sweep_describe(f, plan, "# ");
	fprintf(f, "#\n# Run: wandb sweep THIS; then wandb agent SWEEP_ID on each machine.\n"
		   "# Your program gets every parameter as --NAME=VALUE (the fixed knobs too)\n"
		   "# and must wandb.log the metric %s.\n",
		metric);
	RT_TRY(wandb_command(f, plan, obj->cmd, err, errlen));
	fputs("name: ", f);
	put_sweep_name(f, plan);
	char mean[32];
	rt_sweep_duration(rt_sweep_mean_seconds(plan), mean, sizeof mean);
	char desc[256];
	snprintf(desc, sizeof desc,
		 "%s from the knee (%ld) to %ld, hardware knobs fixed by rigtune; about %s per "
		 "trial",
		 plan->axis, plan->knee, plan->batch[plan->nbatch - 1].value, mean);
	fputs("\ndescription: ", f);
	rt_sweep_put_str(f, desc);
	fprintf(f, "\nmethod: bayes\nmetric:\n  name: ");
	rt_sweep_put_str(f, obj->metric);
	fprintf(f, "\n  goal: %s\nrun_cap: %d\nparameters:\n  ",
		obj->direction == RT_SWEEP_MAXIMIZE ? "maximize" : "minimize", plan->trials);
	rt_sweep_put_str(f, plan->axis);
	fputs(":\n    values: [", f);
	for (int i = 0; i < plan->nbatch; i++)
		fprintf(f, "%s%ld", i ? ", " : "", plan->batch[i].value);
	fputs("]\n", f);
	for (int i = 0; i < params->n; i++)
		wandb_param(f, &params->p[i]);
	for (int i = 0; i < plan->fixed->n; i++) {
		if (!strcmp(plan->fixed->kv[i].key, plan->axis))
			continue;
		fputs("  ", f);
		rt_sweep_put_str(f, plan->fixed->kv[i].key);
		fputs(":\n    value: ", f);
		rt_sweep_put_text(f, plan->fixed->kv[i].value);
		fputc('\n', f);
	}
	return RT_OK;
}

static int no_check(const rt_sweep_objective *obj, char *err, size_t errlen)
{
	(void)obj;
	(void)err;
	(void)errlen;
	return RT_OK;
}

static const rt_sweep_format rt_sweep_wandb = {
	"wandb", "a W&B sweep configuration (wandb sweep FILE; wandb agent on each machine)", 1,
	wandb_check, wandb_emit,
};

/* ---- Hydra ------------------------------------------------------------------------ */

/* A string in Hydra's override grammar: single-quoted, \' and \\ escaped. */
static void hydra_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/*
 * An Optuna distribution in Hydra's override grammar, as its Optuna sweeper
 * converts it: choice() a categorical, interval() a float (int() of it an
 * int, both inclusive), tag(log, ...) on a log scale. range() is not used:
 * its stop is exclusive in Hydra's grammar but inclusive in the sweeper's
 * conversion.
 */
static void hydra_param(FILE *f, const rt_sweep_param *p)
{
	char *text = NULL;
	size_t len;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return;
	if (!p->is_range) {
		fputs("choice(", m);
		for (int v = 0; v < p->nvalues; v++) {
			fputs(v ? ", " : "", m);
			if (p->values[v].type == RT_SV_STR)
				hydra_str(m, p->values[v].str);
			else
				rt_sweep_put_value(m, &p->values[v], 0);
		}
		fputs(")", m);
	} else {
		fputs(p->log ? "tag(log, " : "", m);
		fputs(p->integer ? "int(interval(" : "interval(", m);
		if (p->integer) {
			fprintf(m, "%.0f, %.0f", p->low, p->high);
		} else {
			rt_sweep_put_float(m, p->low);
			fputs(", ", m);
			rt_sweep_put_float(m, p->high);
		}
		fputs(p->integer ? "))" : ")", m);
		fputs(p->log ? ")" : "", m);
	}
	fclose(m);
	fputs("      ", f);
	rt_sweep_put_str(f, p->name);
	fputs(": ", f);
	rt_sweep_put_str(f, text);
	fputc('\n', f);
	free(text);
}

/*
 * Hydra reads every string of the file through OmegaConf, which resolves
 * ${...} in it (an environment variable, a resolver the application
 * registered): a string of the inputs must not hold one. RT_EINVAL naming it.
 */
static int hydra_literal(const char *what, const char *s, char *err, size_t errlen)
{
	char text[256];
	if (!strstr(s, "${"))
		return RT_OK;
	rt_sweep_line_text(s, text, sizeof text);
	return rt_fail(err, errlen, RT_EINVAL,
		       "--format hydra: %s '%s' holds '${', which OmegaConf would resolve as an "
		       "interpolation",
		       what, text);
}

/* Every string of the inputs that the Hydra file carries, checked by hydra_literal. */
static int hydra_check_inputs(const rt_sweep_plan *plan, const rt_sweep_params *params,
			      char *err, size_t errlen)
{
	const rt_config_kvs *kvs[2] = {plan->fixed, plan->env};
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < kvs[k]->n; i++) {
			RT_TRY(hydra_literal("the key", kvs[k]->kv[i].key, err, errlen));
			RT_TRY(hydra_literal("the value", kvs[k]->kv[i].value, err, errlen));
		}
	RT_TRY(hydra_literal("the host name", plan->cfg->hostname, err, errlen));
	for (int i = 0; i < params->n; i++)
		for (int v = 0; !params->p[i].is_range && v < params->p[i].nvalues; v++)
			if (params->p[i].values[v].type == RT_SV_STR)
				RT_TRY(hydra_literal("the --params value", params->p[i].values[v].str,
						     err, errlen));
	return RT_OK;
}

/* key: "value" at indent, both quoted. */
static void hydra_kv(FILE *f, const char *indent, const char *key, const char *value,
		     void (*put)(FILE *f, const char *value))
{
	fputs(indent, f);
	rt_sweep_put_str(f, key);
	fputs(": ", f);
	put(f, value);
	fputc('\n', f);
}

/*
 * The swept keys at the top of the config with a value, the knee with every
 * parameter at its middle (what a run without --multirun takes): Hydra's
 * config is a struct, so the sweeper's overrides (batch=64) need the keys to
 * be there.
 */
static void hydra_defaults(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params)
{
	fputs("\n# The swept values, read as cfg.", f);
	fputs(plan->axis, f);
	fputs(", ...; without --multirun: the knee, each parameter at its middle.\n", f);
	rt_sweep_put_str(f, plan->axis);
	fprintf(f, ": %ld\n", plan->knee);
	for (int i = 0; i < params->n; i++) {
		const rt_sweep_param *p = &params->p[i];
		rt_sweep_put_str(f, p->name);
		fputs(": ", f);
		put_param_value(f, p, p->nvalues / 2, range_value(p, 0.5));
		fputc('\n', f);
	}
}

static int hydra_emit(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		      const rt_sweep_objective *obj, char *err, size_t errlen)
{
	RT_TRY(hydra_check_inputs(plan, params, err, errlen));
	fputs("# @package _global_\n", f);
	rt_sweep_describe(f, plan, "# ");
	fputs("#\n# Put this file in your app's config directory as experiment/rigtune.yaml and\n"
	      "# run: python3 train.py --multirun +experiment=rigtune (hydra-optuna-sweeper).\n"
	      "# Your @hydra.main function returns the objective; the fixed knobs are\n"
	      "# rigtune.* (${rigtune.threads}, ...), the environment is hydra.job.env_set.\n"
	      "defaults:\n  - override /hydra/sweeper: optuna\n\nrigtune:\n",
	      f);
	for (int i = 0; i < plan->fixed->n; i++)
		if (strcmp(plan->fixed->kv[i].key, plan->axis))
			hydra_kv(f, "  ", plan->fixed->kv[i].key, plan->fixed->kv[i].value,
				 rt_sweep_put_text);
	hydra_defaults(f, plan, params);
	fputs("\nhydra:\n  job:\n    env_set:\n", f);
	for (int i = 0; i < plan->env->n; i++)
		hydra_kv(f, "      ", plan->env->kv[i].key, plan->env->kv[i].value,
			 rt_sweep_put_str);
	fprintf(f, "  sweeper:\n    direction: %s\n    study_name: ",
		obj->direction == RT_SWEEP_MAXIMIZE ? "maximize" : "minimize");
	put_sweep_name(f, plan);
	fprintf(f, "\n    storage: null\n    n_trials: %d\n    n_jobs: 1\n    params:\n      ",
		plan->trials);
	rt_sweep_put_str(f, plan->axis);
	fputs(": \"choice(", f);
	for (int i = 0; i < plan->nbatch; i++)
		fprintf(f, "%s%ld", i ? ", " : "", plan->batch[i].value);
	fputs(")\"\n", f);
	for (int i = 0; i < params->n; i++)
		hydra_param(f, &params->p[i]);
	return RT_OK;
}

static const rt_sweep_format rt_sweep_hydra = {
	"hydra", "a Hydra override file for hydra-optuna-sweeper (hydra.sweeper.params)", 0,
	no_check, hydra_emit,
};

/* ---- grid: JSON Lines ------------------------------------------------------------- */

/* The radical inverse of i in base b: the Halton sequence's coordinate. */
static double radical_inverse(unsigned long i, unsigned b)
{
	double f = 1, r = 0;
	for (; i; i /= b) {
		f /= b;
		r += f * (double)(i % b);
	}
	return r;
}

static const unsigned primes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23,  29,  31,  37,
				  41, 43, 47, 53, 59, 61, 67, 71, 73,  79,  83,  89,
				  97, 101, 103, 107, 109, 113, 127, 131, 137, 139};

/* One trial of the grid: an index per finite dimension, a number per range. */
typedef struct grid_trial {
	int batch;
	int idx[RT_SWEEP_MAX_PARAMS];
	double x[RT_SWEEP_MAX_PARAMS];
} grid_trial;

/*
 * Point j of a shifted Halton sequence: the batch coordinate starts at the
 * knee, the others in the middle of their range, so trial 0 is the knee with
 * every parameter at its middle value.
 */
static void halton_trial(const rt_sweep_plan *plan, const rt_sweep_params *params,
			 unsigned long j, grid_trial *t)
{
	t->batch = (int)(radical_inverse(j, primes[0]) * plan->nbatch);
	for (int d = 0; d < params->n; d++) {
		const rt_sweep_param *p = &params->p[d];
		double u = fmod(radical_inverse(j, primes[d + 1]) + 0.5, 1.0);
		if (p->is_range)
			t->x[d] = range_value(p, u);
		else
			t->idx[d] = (int)(u * p->nvalues);
	}
}

static int same_trial(const grid_trial *a, const grid_trial *b, const rt_sweep_params *params)
{
	if (a->batch != b->batch)
		return 0;
	for (int d = 0; d < params->n; d++)
		if (params->p[d].is_range ? a->x[d] != b->x[d] : a->idx[d] != b->idx[d])
			return 0;
	return 1;
}

static void grid_line(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		      int i, const grid_trial *t)
{
	const rt_sweep_batch *b = &plan->batch[t->batch];
	fprintf(f, "{\"trial\": %d, \"params\": {", i);
	rt_sweep_put_str(f, plan->axis);
	fprintf(f, ": %ld", b->value);
	for (int d = 0; d < params->n; d++) {
		const rt_sweep_param *p = &params->p[d];
		fputs(", ", f);
		rt_sweep_put_str(f, p->name);
		fputs(": ", f);
		put_param_value(f, p, t->idx[d], t->x[d]);
	}
	fputs("}, \"fixed\": ", f);
	rt_sweep_put_fixed(f, plan);
	fputs(", \"env\": ", f);
	rt_sweep_put_env(f, plan);
	fputs(", \"pus\": ", f);
	rt_sweep_put_pus(f, plan);
	fprintf(f, ", \"estimated_seconds\": %.1f}\n", b->seconds);
}

/* How many distinct trials the finite dimensions allow; 0 when a range is continuous. */
static double grid_size(const rt_sweep_plan *plan, const rt_sweep_params *params)
{
	double n = plan->nbatch;
	for (int d = 0; d < params->n; d++) {
		const rt_sweep_param *p = &params->p[d];
		if (p->is_range && !p->integer)
			return 0;
		n *= p->is_range ? p->high - p->low + 1 : p->nvalues;
	}
	return n;
}

/*
 * plan->trials distinct trials (fewer when the finite dimensions have fewer)
 * from the Halton sequence: they cover every dimension evenly, and trial 0 is
 * the knee.
 */
static int grid_emit(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		     const rt_sweep_objective *obj, char *err, size_t errlen)
{
	(void)obj;
	double size = grid_size(plan, params);
	int want = size && size < plan->trials ? (int)size : plan->trials;
	grid_trial *t = calloc((size_t)want, sizeof *t);
	if (!t)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	int n = 0;
	for (unsigned long j = 0; n < want && j < 1000ul * (unsigned long)want + 100000; j++) {
		halton_trial(plan, params, j, &t[n]);
		int dup = 0;
		for (int k = 0; size && k < n && !dup; k++)
			dup = same_trial(&t[k], &t[n], params);
		if (!dup) {
			grid_line(f, plan, params, n, &t[n]);
			n++;
		}
	}
	free(t);
	return RT_OK;
}

static const rt_sweep_format rt_sweep_grid = {
	"grid", "JSON Lines, one trial a line, for any other scheduler", 0, no_check, grid_emit,
};
