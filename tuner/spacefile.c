#include "spacefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../common/rt.h"
#include "../workloads/workload.h"

/* Longest list a space file may give one parameter. */
#define MAX_VALUES 256

/* Nonzero for a plausible backend name: [a-z0-9_]+ (plugins name themselves). */
static int backend_name(const char *s)
{
	if (!*s)
		return -1;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return -1;
	return 0;
}

static int precision_name(const char *s)
{
	return rt_precision_parse(s);
}

static int pin_name(const char *s)
{
	return rt_pin_parse(s);
}

/* What each parameter of a space file may be: one table, no chain of ifs. */
typedef struct key_rule {
	const char *name;
	int (*check)(const char *value); /* categorical: -1 for an unknown name; NULL: numeric */
	long min;                        /* numeric: the smallest value allowed */
	int range;                       /* numeric: {min, max, step} allowed */
	rt_param_role role;
	const char *expect;
} key_rule;

static const key_rule rules[] = {
	{ "backend", backend_name, 0, 0, RT_ROLE_NONE, "a list of backend names" },
	{ "precision", precision_name, 0, 0, RT_ROLE_NONE,
	  "a list of precisions (fp64, fp32, tf32, bf16, fp16)" },
	{ "pin", pin_name, 0, 0, RT_ROLE_NONE,
	  "a list of pin policies (none, compact, spread, pcores)" },
	{ "batch", NULL, 1, 0, RT_ROLE_SATURATING, "a list of positive integers" },
	{ "threads", NULL, 1, 1, RT_ROLE_PEAKED,
	  "a list of positive integers or {min, max, step}" },
	{ "workers", NULL, 0, 1, RT_ROLE_PEAKED,
	  "a list of integers >= 0 or {min, max, step}" },
	/* shape keys that are knobs too: PPO's parallel environments and minibatch */
	{ "num_envs", NULL, 1, 0, RT_ROLE_SATURATING, "a list of positive integers" },
	{ "minibatch", NULL, 1, 0, RT_ROLE_NONE, "a list of positive integers" },
};

typedef struct parser {
	yaml_parser_t y;
	yaml_event_t ev;
	int have; /* ev holds an event to delete */
	const char *name;
	long auto_max;
	rt_space *s;
	char *err;
	size_t errlen;
} parser;

/* "name:LINE:COL: message" at mark m (libyaml counts from 0); returns RT_EINVAL. */
static int fail_at(parser *p, yaml_mark_t m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail_at(parser *p, yaml_mark_t m, const char *fmt, ...)
{
	if (p->err && p->errlen) {
		int k = snprintf(p->err, p->errlen, "%s:%zu:%zu: ", p->name, m.line + 1,
				 m.column + 1);
		if (k >= 0 && (size_t)k < p->errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
			va_end(ap);
		}
	}
	return RT_EINVAL;
}

/* Replaces p->ev with the next event; malformed YAML and aliases are errors. */
static int next(parser *p)
{
	if (p->have)
		yaml_event_delete(&p->ev);
	p->have = 0;
	if (!yaml_parser_parse(&p->y, &p->ev)) {
		if (p->y.error == YAML_MEMORY_ERROR)
			return rt_fail(p->err, p->errlen, RT_ENOMEM, "out of memory");
		return fail_at(p, p->y.problem_mark, "malformed YAML: %s%s%s",
			       p->y.problem ? p->y.problem : "syntax error",
			       p->y.context ? " " : "", p->y.context ? p->y.context : "");
	}
	p->have = 1;
	if (p->ev.type == YAML_ALIAS_EVENT)
		return fail_at(p, p->ev.start_mark, "aliases are not supported");
	return 0;
}

static const char *scalar(const parser *p)
{
	return (const char *)p->ev.data.scalar.value;
}

static int is_scalar(const parser *p)
{
	return p->ev.type == YAML_SCALAR_EVENT;
}

/* An integer written as a plain scalar; a quoted "16" is a string. */
static int plain_int(const parser *p, long *out)
{
	char *end;
	if (!is_scalar(p) || p->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !*scalar(p))
		return -1;
	errno = 0;
	*out = strtol(scalar(p), &end, 10);
	return errno || *end ? -1 : 0;
}

/* Reads one integer value of a range key (min, max or step) into *out. */
static int range_value(parser *p, const key_rule *r, const char *key, long *out)
{
	int rc = next(p);
	if (rc)
		return rc;
	if (strcmp(key, "max") == 0 && is_scalar(p) &&
	    p->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && strcmp(scalar(p), "auto") == 0) {
		*out = p->auto_max;
		return 0;
	}
	long lowest = strcmp(key, "step") == 0 ? 1 : r->min;
	if (plain_int(p, out) || *out < lowest)
		return fail_at(p, p->ev.start_mark, "%s: %s: expected an integer >= %ld%s", r->name,
			       key, lowest, strcmp(key, "max") == 0 ? " or auto" : "");
	return 0;
}

/* {min: A, max: B, step: C} after its MAPPING_START; adds the range. */
static int parse_range(parser *p, const key_rule *r)
{
	static const char *const keys[] = { "min", "max", "step" };
	long v[3] = { 0, 0, 1 };
	int seen[3] = { 0, 0, 0 }, rc;
	yaml_mark_t at = p->ev.start_mark;
	for (;;) {
		if ((rc = next(p)))
			return rc;
		if (p->ev.type == YAML_MAPPING_END_EVENT)
			break;
		int k = -1;
		for (int i = 0; is_scalar(p) && i < 3; i++)
			if (strcmp(scalar(p), keys[i]) == 0)
				k = i;
		if (k < 0)
			return fail_at(p, p->ev.start_mark,
				       "%s: unknown key %s%s%s (expected min, max, step)", r->name,
				       is_scalar(p) ? "'" : "", is_scalar(p) ? scalar(p) : "",
				       is_scalar(p) ? "'" : "");
		if (seen[k])
			return fail_at(p, p->ev.start_mark, "%s: duplicate key '%s'", r->name,
				       keys[k]);
		seen[k] = 1;
		if ((rc = range_value(p, r, keys[k], &v[k])))
			return rc;
	}
	if (!seen[0] || !seen[1])
		return fail_at(p, at, "%s: a range needs min and max", r->name);
	if (v[0] > v[1])
		return fail_at(p, at, "%s: impossible range: min %ld > max %ld", r->name, v[0],
			       v[1]);
	rc = rt_space_add_range(p->s, r->name, v[0], v[1], v[2], p->err, p->errlen);
	if (rc == RT_EINVAL)
		return fail_at(p, at, "%s: too many values", r->name);
	return rc < 0 ? rc : 0;
}

/* [a, b, ...] after its SEQUENCE_START; adds the categorical or ordinal parameter. */
static int parse_list(parser *p, const key_rule *r)
{
	char *strs[MAX_VALUES];
	long ints[MAX_VALUES];
	int n = 0, rc;
	yaml_mark_t at = p->ev.start_mark;
	for (;;) {
		if ((rc = next(p)))
			goto out;
		if (p->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (n == MAX_VALUES) {
			rc = fail_at(p, p->ev.start_mark, "%s: more than %d values", r->name,
				     MAX_VALUES);
			goto out;
		}
		if (r->check ? !is_scalar(p) || r->check(scalar(p)) < 0 :
			       plain_int(p, &ints[n]) || ints[n] < r->min) {
			rc = fail_at(p, p->ev.start_mark, "%s: expected %s", r->name, r->expect);
			goto out;
		}
		for (int i = 0; i < n; i++)
			if (r->check ? strcmp(strs[i], scalar(p)) == 0 : ints[i] == ints[n]) {
				rc = fail_at(p, p->ev.start_mark, "%s: value %s given twice",
					     r->name, scalar(p));
				goto out;
			}
		if (r->check && !(strs[n] = strdup(scalar(p)))) {
			rc = rt_fail(p->err, p->errlen, RT_ENOMEM, "out of memory");
			goto out;
		}
		n++;
	}
	if (n == 0) {
		rc = fail_at(p, at, "%s: empty list: expected %s", r->name, r->expect);
		goto out;
	}
	rc = r->check ? rt_space_add_categorical(p->s, r->name, (const char *const *)strs, n,
						 p->err, p->errlen)
		      : rt_space_add_ordinal(p->s, r->name, ints, n, p->err, p->errlen);
	if (rc == RT_EINVAL)
		rc = fail_at(p, at, "%s: too many values", r->name);
out:
	if (r->check)
		for (int i = 0; i < n; i++)
			free(strs[i]);
	return rc < 0 ? rc : 0;
}

/* The params: mapping after its MAPPING_START. */
static int parse_params(parser *p)
{
	int rc;
	for (;;) {
		if ((rc = next(p)))
			return rc;
		if (p->ev.type == YAML_MAPPING_END_EVENT)
			break;
		const key_rule *r = NULL;
		for (size_t i = 0; is_scalar(p) && i < RT_COUNT(rules); i++)
			if (strcmp(scalar(p), rules[i].name) == 0)
				r = &rules[i];
		if (!r)
			return fail_at(p, p->ev.start_mark,
				       "params: unknown parameter %s (expected backend, precision, "
				       "pin, batch, threads, workers, num_envs, minibatch)",
				       is_scalar(p) ? scalar(p) : "(not a name)");
		if (rt_space_find(p->s, r->name) >= 0)
			return fail_at(p, p->ev.start_mark, "params: duplicate key '%s'", r->name);
		if ((rc = next(p)))
			return rc;
		if (p->ev.type == YAML_SEQUENCE_START_EVENT)
			rc = parse_list(p, r);
		else if (p->ev.type == YAML_MAPPING_START_EVENT && r->range)
			rc = parse_range(p, r);
		else
			rc = fail_at(p, p->ev.start_mark, "%s: expected %s", r->name, r->expect);
		if (rc)
			return rc;
		rt_space_set_role(p->s, rt_space_find(p->s, r->name), r->role);
	}
	if (rt_space_nparams(p->s) == 0)
		return fail_at(p, p->ev.start_mark, "params: no parameters");
	return 0;
}

/* The whole stream: one document holding one mapping. */
static int parse_document(parser *p, char *workload, size_t wlen)
{
	int rc, seen_workload = 0, seen_params = 0;
	if ((rc = next(p)) || (rc = next(p)))
		return rc; /* STREAM_START, then DOCUMENT_START or STREAM_END */
	if (p->ev.type != YAML_DOCUMENT_START_EVENT)
		return fail_at(p, p->ev.start_mark, "empty space file");
	if ((rc = next(p)))
		return rc;
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fail_at(p, p->ev.start_mark, "expected a mapping with workload: and params:");
	yaml_mark_t top = p->ev.start_mark;
	for (;;) {
		if ((rc = next(p)))
			return rc;
		if (p->ev.type == YAML_MAPPING_END_EVENT)
			break;
		int is_w = is_scalar(p) && strcmp(scalar(p), "workload") == 0;
		int is_p = is_scalar(p) && strcmp(scalar(p), "params") == 0;
		if (!is_w && !is_p)
			return fail_at(p, p->ev.start_mark,
				       "unknown key %s (expected workload or params)",
				       is_scalar(p) ? scalar(p) : "(not a name)");
		if ((is_w && seen_workload++) || (is_p && seen_params++))
			return fail_at(p, p->ev.start_mark, "duplicate key '%s'", scalar(p));
		if ((rc = next(p)))
			return rc;
		if (is_w) {
			if (!is_scalar(p) || !*scalar(p))
				return fail_at(p, p->ev.start_mark, "workload: expected a name");
			if (workload)
				snprintf(workload, wlen, "%s", scalar(p));
		} else if (p->ev.type != YAML_MAPPING_START_EVENT) {
			return fail_at(p, p->ev.start_mark, "params: expected a mapping of "
				       "parameter: values");
		} else if ((rc = parse_params(p))) {
			return rc;
		}
	}
	if (!seen_params)
		return fail_at(p, top, "params: missing");
	if ((rc = next(p)) || (rc = next(p)))
		return rc; /* DOCUMENT_END, then STREAM_END */
	if (p->ev.type != YAML_STREAM_END_EVENT)
		return fail_at(p, p->ev.start_mark, "more than one document");
	return 0;
}

/* Runs the parser that the caller pointed at its input; owns p->s on failure. */
static int parse(parser *p, rt_space **out, char *workload, size_t wlen)
{
	if (workload && wlen)
		workload[0] = '\0';
	p->s = rt_space_create();
	int rc = p->s ? parse_document(p, workload, wlen)
		      : rt_fail(p->err, p->errlen, RT_ENOMEM, "out of memory");
	if (p->have)
		yaml_event_delete(&p->ev);
	yaml_parser_delete(&p->y);
	if (rc) {
		rt_space_destroy(p->s);
		return rc;
	}
	*out = p->s;
	return 0;
}

int rt_spacefile_parse(const char *text, size_t len, const char *name, long auto_max,
		       rt_space **out, char *workload, size_t wlen, char *err, size_t errlen)
{
	parser p = { .name = name, .auto_max = auto_max, .err = err, .errlen = errlen };
	*out = NULL;
	if (!yaml_parser_initialize(&p.y))
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&p.y, (const unsigned char *)text, len);
	return parse(&p, out, workload, wlen);
}

int rt_spacefile_load(const char *path, long auto_max, rt_space **out, char *workload,
		      size_t wlen, char *err, size_t errlen)
{
	parser p = { .name = path, .auto_max = auto_max, .err = err, .errlen = errlen };
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return rt_fail(err, errlen, RT_EIO, "%s: cannot open: %s", path, strerror(errno));
	if (!yaml_parser_initialize(&p.y)) {
		fclose(f);
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_file(&p.y, f);
	int rc = parse(&p, out, workload, wlen);
	fclose(f);
	return rc;
}
