#include "spacefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"
#include "../workloads/knobs.h"
#include "../workloads/loader.h"
#include "usercmd_knobs.h"
#include "params.h"
#include "yamlr.h"

/* Longest list a space file may give one parameter. */
#define MAX_VALUES 256
/* Point knobs, and the shape keys of every workload (or a command's knobs). */
#define MAX_RULES (RT_SPACE_MAX_PARAMS + RT_MAX_SHAPE_KEYS * RT_NWORKLOADS)

/* 0 for a backend rigtune knows, -1 otherwise: a typo is an error. */
static int backend_name(const char *s)
{
	return rt_backend_known(s) ? 0 : -1;
}

static int precision_name(const char *s)
{
	return rt_precision_parse(s);
}

static int pin_name(const char *s)
{
	return rt_pin_parse(s);
}

static int device_name(const char *s)
{
	return rt_cmdknobs_device_check(s);
}

/* A value of a user's own knob: any name a point holds (a list of integers only is ordinal). */
static int user_value(const char *s)
{
	return *s && strlen(s) < RT_CMD_VALUE_LEN ? 0 : -1;
}

/* What one parameter of a space file may be. */
typedef struct key_rule {
	const char *name;
	int (*check)(const char *value); /* a name's check: -1 for an unknown one (a choice
					    knob's are its names) */
	long min;                        /* numeric: the smallest value allowed */
	int range;                       /* numeric: {min, max, step} allowed */
	rt_param_role role;
	const char *expect;
	const rt_knob *knob;             /* the knob table's row, which a workload must read */
	long max;                        /* numeric: the largest value allowed; 0: no bound */
} key_rule;

/* [all] as a list of backends: every backend rigtune knows (rt_backend_list). */
#define ALL "all"

/*
 * The knobs of a user's command (tuner/usercmd_knobs.h); any other name is the
 * user's own knob. The knee's role is set from the file's knee: (batch).
 */
#define RANGE_EXPECT(what) "a list of " what " or {min, max, step}"
/* max: set from the knob's row (rules_for_command) */
static const key_rule command_rules[] = {
	{"batch", NULL, 1, 1, RT_ROLE_NONE, RANGE_EXPECT("positive integers"), NULL, 0},
	{"threads", NULL, 1, 1, RT_ROLE_PEAKED, RANGE_EXPECT("positive integers"), NULL, 0},
	{"blas_threads", NULL, 1, 1, RT_ROLE_PEAKED, RANGE_EXPECT("positive integers"), NULL, 0},
	{"workers", NULL, 0, 1, RT_ROLE_PEAKED, RANGE_EXPECT("integers >= 0"), NULL, 0},
	{"precision", precision_name, 0, 0, RT_ROLE_NONE,
	 "a list of precisions (fp64, fp32, tf32, bf16, fp16)", NULL, 0},
	{"device", device_name, 0, 0, RT_ROLE_NONE, "a list of devices (cpu, cuda:N, hip:N)", NULL,
	 0},
	{"pin", pin_name, 0, 0, RT_ROLE_NONE,
	 "a list of pin policies (none, compact, spread, pcores, ecores)", NULL, 0},
};
_Static_assert(RT_CMD_VALUE_LEN == 128, "USER_EXPECT says 128");
#define USER_EXPECT "a list of values (numbers or names, under 128 characters)"
#define DEFAULT_KNEE "batch"

/* The keys a space may search and how (see spacefile.h). */
typedef struct rules {
	key_rule r[MAX_RULES];
	char expect[MAX_RULES][160];
	char backends[300]; /* the backends' expect: "[all] or a list of: cpu, ..." */
	int n;
	const rt_workload *w; /* NULL: any workload */
	int command;          /* a user's command: command_rules, and the user's own knobs */
} rules;

static key_rule *rule_named(rules *rs, const char *name)
{
	for (int i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].name, name))
			return &rs->r[i];
	return NULL;
}

/* "a list of positive integers", "a list of integers >= 0", and " or {min, max, step}". */
static void numbers_expect(long min, int range, char *buf, size_t len)
{
	if (min == 1)
		snprintf(buf, len, "a list of positive integers%s", range ? " or {min, max, step}" : "");
	else
		snprintf(buf, len, "a list of integers >= %ld%s", min,
			 range ? " or {min, max, step}" : "");
}

/* Adds the shape keys of w not there yet; the knee's key saturates. */
static void add_shape_keys(rules *rs, const rt_workload *w)
{
	for (int k = 0; k < w->nkeys && rs->n < MAX_RULES; k++) {
		const rt_shape_key *key = &w->keys[k];
		if (rule_named(rs, key->name))
			continue;
		key_rule *r = &rs->r[rs->n];
		numbers_expect(key->min, 0, rs->expect[rs->n], sizeof rs->expect[0]);
		*r = (key_rule){key->name, NULL, key->min, 0, RT_ROLE_NONE, rs->expect[rs->n], NULL,
				key->max};
		rs->n++;
	}
}

/* The rule of a row of the knob table. */
static key_rule knob_rule(const rt_knob *k, char *expect, size_t len)
{
	int range = (k->flags & RT_KF_RANGE) != 0;
	key_rule r = {k->name, NULL, k->min, range,
		      k->flags & RT_KF_PEAKED ? RT_ROLE_PEAKED : RT_ROLE_NONE, expect, k, k->max};
	if (k->kind == RT_KNOB_INT) {
		numbers_expect(k->min, range, expect, len);
		return r;
	}
	if (k->kind == RT_KNOB_BACKEND)
		r.check = backend_name;
	char names[128];
	rt_knob_choices(k, ", ", names, sizeof names);
	snprintf(expect, len, "a list of %s (%s)", k->plural ? k->plural : k->name, names);
	return r;
}

/* The knobs a space may search, from the knob table: the named ones first, then the numbers. */
static void add_point_rules(rules *rs)
{
	for (int numbers = 0; numbers < 2; numbers++)
		for (int i = 0; i < RT_NKNOBS; i++) {
			const rt_knob *k = &rt_knobs[i];
			if ((k->flags & RT_KF_FIXED) || (k->kind == RT_KNOB_INT) != numbers)
				continue;
			rs->r[rs->n] = knob_rule(k, rs->expect[rs->n], sizeof rs->expect[0]);
			rs->n++;
		}
}

/*
 * The rules of a space for workload w (NULL: for any registered workload):
 * the point knobs, its shape keys, and the knee's key saturating.
 */
static void rules_for(const rt_workload *w, rules *rs)
{
	int count;
	const rt_workload *const *all = rt_workload_list(&count);
	memset(rs, 0, sizeof *rs);
	rs->w = w;
	add_point_rules(rs);
	char names[256];
	rt_backend_names(names, sizeof names);
	snprintf(rs->backends, sizeof rs->backends, "[" ALL "] or a list of backends (%s)", names);
	rule_named(rs, "backend")->expect = rs->backends;
	for (int i = 0; i < count; i++)
		if (!w || all[i] == w)
			add_shape_keys(rs, all[i]);
	for (int i = 0; i < count; i++) {
		key_rule *r = NULL;
		if ((!w || all[i] == w) && all[i]->knee)
			r = rule_named(rs, all[i]->knee);
		if (r)
			r->role = RT_ROLE_SATURATING;
	}
}

/* The rules of a command's space: its knobs; the user's own join as they come. */
static void rules_for_command(rules *rs)
{
	memset(rs, 0, sizeof *rs);
	rs->command = 1;
	memcpy(rs->r, command_rules, sizeof command_rules);
	rs->n = (int)RT_COUNT(command_rules);
	for (int i = 0; i < rs->n; i++) { /* a CPU count or a batch: its row's bound */
		const rt_knob *row = rt_cmd_knob_row(rs->r[i].name);
		rs->r[i].max = row && row->kind == RT_KNOB_INT ? row->max : 0;
	}
}

typedef struct parser {
	rt_yr y;
	long auto_max;
	rules rules;
	rt_space *s;
	const char *knee;      /* a command's knee: (NULL: batch when it is searched) */
	const rt_ynode *knee_node;
} parser;

/* The text of a scalar for messages: 'name', or a stand-in for a non-scalar. */
static const char *shown(const rt_ynode *n)
{
	return rt_yr_scalar(n) ? rt_yr_scalar(n) : "(not a name)";
}

/* An integer written as a plain scalar; a quoted "16" is a string. */
static int plain_int(const rt_ynode *n, long *out)
{
	return rt_yr_plain(n) && rt_parse_long(rt_yr_scalar(n), out) == RT_OK ? 0 : -1;
}

/* The index of the first key of map before pair i with the same text as pair i's, or -1. */
static int earlier_key(const parser *p, const rt_ynode *map, int i)
{
	const rt_ynode *k, *v, *kj;
	rt_yr_pair(&p->y, map, i, &k, &v);
	for (int j = 0; j < i && rt_yr_scalar(k); j++) {
		rt_yr_pair(&p->y, map, j, &kj, &v);
		if (rt_yr_scalar(kj) && !strcmp(rt_yr_scalar(kj), rt_yr_scalar(k)))
			return j;
	}
	return -1;
}

/*
 * Whether v is past the rule's largest value (a thread count of 10^8 a
 * command's binding would take): RT_EINVAL at node n, else 0.
 */
static int above_max(parser *p, const key_rule *r, const rt_ynode *n, long v)
{
	if (!r->max || v <= r->max)
		return 0;
	return rt_yr_bad(&p->y, n, "%s: %ld is more than %ld", r->name, v, r->max);
}

/* One integer of a range (min, max or step) into *out. */
static int range_value(parser *p, const key_rule *r, const char *key, const rt_ynode *v,
		       long *out)
{
	if (!strcmp(key, "max") && rt_yr_plain(v) && !strcmp(rt_yr_scalar(v), "auto")) {
		*out = p->auto_max;
		return 0;
	}
	long lowest = strcmp(key, "step") == 0 ? 1 : r->min;
	if (plain_int(v, out) || *out < lowest)
		return rt_yr_bad(&p->y, v, "%s: %s: expected an integer >= %ld%s", r->name, key,
				 lowest, strcmp(key, "max") == 0 ? " or auto" : "");
	return strcmp(key, "step") ? above_max(p, r, v, *out) : 0;
}

/* {min: A, max: B, step: C}: adds the range. */
static int parse_range(parser *p, const key_rule *r, const rt_ynode *map)
{
	static const char *const keys[] = {"min", "max", "step"};
	long v[3] = {0, 0, 1};
	int seen[3] = {0, 0, 0}, rc;
	for (int i = 0; i < rt_yr_npairs(map); i++) {
		const rt_ynode *kn, *vn;
		rt_yr_pair(&p->y, map, i, &kn, &vn);
		int k = -1;
		for (int j = 0; rt_yr_scalar(kn) && j < 3; j++)
			if (!strcmp(rt_yr_scalar(kn), keys[j]))
				k = j;
		if (k < 0)
			return rt_yr_bad(&p->y, kn,
					 "%s: unknown key '%s' (expected min, max, step)", r->name,
					 shown(kn));
		if (seen[k])
			return rt_yr_bad(&p->y, kn, "%s: duplicate key '%s'", r->name, keys[k]);
		seen[k] = 1;
		if ((rc = range_value(p, r, keys[k], vn, &v[k])))
			return rc;
	}
	if (!seen[0] || !seen[1])
		return rt_yr_bad(&p->y, map, "%s: a range needs min and max", r->name);
	if (v[0] > v[1])
		return rt_yr_bad(&p->y, map, "%s: impossible range: min %ld > max %ld", r->name,
				 v[0], v[1]);
	rc = rt_space_add_range(p->s, r->name, v[0], v[1], v[2], p->y.err, p->y.errlen);
	if (rc == RT_EINVAL)
		return rt_yr_bad(&p->y, map, "%s: too many values", r->name);
	return rc < 0 ? rc : 0;
}

/* Whether a rule of names takes s: one of its choice knob's names, or one its check takes. */
static int accepts(const key_rule *r, const char *s)
{
	rt_point pt;
	if (r->knob && r->knob->kind == RT_KNOB_CHOICE)
		return rt_knob_set(r->knob, s, &pt, NULL, 0) == RT_OK;
	return r->check(s) >= 0;
}

/*
 * Checks item i of a list against the rule (numeric: integers from its
 * minimum; else names its check accepts) and the items before it.
 */
static int list_item(parser *p, const key_rule *r, int numeric, const rt_ynode *seq, int i,
		     long *ints)
{
	const rt_ynode *n = rt_yr_item(&p->y, seq, i);
	if (!numeric ? !rt_yr_scalar(n) || !accepts(r, rt_yr_scalar(n))
		     : plain_int(n, &ints[i]) || ints[i] < r->min)
		return rt_yr_bad(&p->y, n, "%s: expected %s", r->name, r->expect);
	if (numeric && above_max(p, r, n, ints[i]))
		return RT_EINVAL;
	for (int j = 0; j < i; j++) {
		const char *other = rt_yr_scalar(rt_yr_item(&p->y, seq, j));
		if (!numeric ? !strcmp(other, rt_yr_scalar(n)) : ints[j] == ints[i])
			return rt_yr_bad(&p->y, n, "%s: value %s given twice", r->name,
					 rt_yr_scalar(n));
	}
	return 0;
}

/*
 * backend: [all]: every backend rigtune knows (those not available here are
 * the caller's to leave out, as for a list). 1 when seq is [all] (the
 * parameter added, or an error in *rc), 0 when it does not say all.
 */
static int all_backends(parser *p, const key_rule *r, const rt_ynode *seq, int *rc)
{
	int n = rt_yr_nitems(seq), named = -1;
	for (int i = 0; i < n; i++) {
		const char *s = rt_yr_scalar(rt_yr_item(&p->y, seq, i));
		if (s && !strcmp(s, ALL))
			named = i;
	}
	if (strcmp(r->name, "backend") || named < 0)
		return 0;
	if (n > 1) {
		*rc = rt_yr_bad(&p->y, rt_yr_item(&p->y, seq, named),
				"%s: " ALL " stands for every backend: give it alone", r->name);
		return 1;
	}
	char names[RT_MAX_BACKENDS][RT_BACKEND_NAMELEN];
	const char *strs[RT_MAX_BACKENDS];
	int count = rt_backend_list(names, RT_MAX_BACKENDS);
	for (int i = 0; i < count; i++)
		strs[i] = names[i];
	*rc = rt_space_add_categorical(p->s, r->name, strs, count, p->y.err, p->y.errlen);
	if (*rc == RT_EINVAL)
		*rc = rt_yr_bad(&p->y, seq, "%s: too many values", r->name);
	return 1;
}

/* Whether every item of seq is an integer written plainly (a user's knob is then ordinal). */
static int all_plain_ints(const rt_ynode *seq, const rt_yr *y)
{
	long v;
	for (int i = 0; i < rt_yr_nitems(seq); i++)
		if (plain_int(rt_yr_item(y, seq, i), &v))
			return 0;
	return 1;
}

/* [a, b, ...]: adds the categorical or ordinal parameter. */
static int parse_list(parser *p, const key_rule *r, const rt_ynode *seq)
{
	const char *strs[MAX_VALUES];
	long ints[MAX_VALUES];
	int n = rt_yr_nitems(seq), rc;
	int numeric = r->knob ? r->knob->kind == RT_KNOB_INT
			      : !r->check || (r->check == user_value && all_plain_ints(seq, &p->y));
	if (n == 0)
		return rt_yr_bad(&p->y, seq, "%s: empty list: expected %s", r->name, r->expect);
	if (all_backends(p, r, seq, &rc))
		return rc < 0 ? rc : 0;
	if (n > MAX_VALUES)
		return rt_yr_bad(&p->y, rt_yr_item(&p->y, seq, MAX_VALUES),
				 "%s: more than %d values", r->name, MAX_VALUES);
	for (int i = 0; i < n; i++) {
		if ((rc = list_item(p, r, numeric, seq, i, ints)))
			return rc;
		strs[i] = rt_yr_scalar(rt_yr_item(&p->y, seq, i));
	}
	rc = !numeric ? rt_space_add_categorical(p->s, r->name, strs, n, p->y.err, p->y.errlen)
		      : rt_space_add_ordinal(p->s, r->name, ints, n, p->y.err, p->y.errlen);
	if (rc == RT_EINVAL)
		return rt_yr_bad(&p->y, seq, "%s: too many values", r->name);
	return rc < 0 ? rc : 0;
}

/*
 * A user's own knob of a command's space: a rule for name, kept while the
 * document is (name points into it). NULL with the error in *rc when the
 * name cannot be a knob.
 */
static const key_rule *user_rule(parser *p, const rt_ynode *kn, int *rc)
{
	rules *rs = &p->rules;
	const char *name = rt_yr_scalar(kn);
	const char *bad = name ? rt_cmdknobs_name_bad(name) : "not a scalar";
	if (bad) {
		*rc = rt_yr_bad(&p->y, kn, "params: %s cannot name a knob: %s", shown(kn), bad);
		return NULL;
	}
	if (rs->n == MAX_RULES) {
		*rc = rt_yr_bad(&p->y, kn, "params: too many knobs");
		return NULL;
	}
	rs->r[rs->n] = (key_rule){name, user_value, 0, 0, RT_ROLE_NONE, USER_EXPECT, NULL, 0};
	return &rs->r[rs->n++];
}

/* The rule for key kn of params:, or an error naming why there is none. */
static int find_rule(parser *p, const rt_ynode *kn, const key_rule **out)
{
	const char *name = rt_yr_scalar(kn);
	const key_rule *r = name ? rule_named(&p->rules, name) : NULL;
	const rt_workload *w = p->rules.w;
	if (!r && p->rules.command) {
		int rc = 0;
		*out = user_rule(p, kn, &rc);
		return rc;
	}
	if (r && r->knob && !rt_workload_reads(w, r->knob))
		return rt_yr_bad(&p->y, kn,
				 "params: %s does not read '%s': searching it wastes trials",
				 w->name, name);
	if (!r) {
		char known[512] = "";
		for (int i = 0; i < p->rules.n; i++)
			if (!p->rules.r[i].knob || rt_workload_reads(w, p->rules.r[i].knob))
				rt_list_append(known, sizeof known, ", ", p->rules.r[i].name);
		return rt_yr_bad(&p->y, kn, "params: unknown parameter %s (expected %s)", shown(kn),
				 known);
	}
	*out = r;
	return 0;
}

/* The params: mapping. */
static int parse_params(parser *p, const rt_ynode *map)
{
	int rc;
	if (rt_yr_npairs(map) == 0)
		return rt_yr_bad(&p->y, map, "params: no parameters");
	for (int i = 0; i < rt_yr_npairs(map); i++) {
		const rt_ynode *kn, *vn;
		const key_rule *r = NULL;
		rt_yr_pair(&p->y, map, i, &kn, &vn);
		if ((rc = find_rule(p, kn, &r)))
			return rc;
		if (earlier_key(p, map, i) >= 0)
			return rt_yr_bad(&p->y, kn, "params: duplicate key '%s'", r->name);
		if (vn->type == YAML_SEQUENCE_NODE)
			rc = parse_list(p, r, vn);
		else if (vn->type == YAML_MAPPING_NODE && r->range)
			rc = parse_range(p, r, vn);
		else
			rc = rt_yr_bad(&p->y, vn, "%s: expected %s", r->name, r->expect);
		if (rc)
			return rc;
		rt_space_set_role(p->s, rt_space_find(p->s, r->name), r->role);
	}
	return 0;
}

/* workload: NAME, which a command's space and a workload's space tell apart. */
static int check_workload(parser *p, const rt_ynode *vn, char *workload, size_t wlen)
{
	const char *name = rt_yr_scalar(vn);
	if (!name || !*name)
		return rt_yr_bad(&p->y, vn, "workload: expected a name");
	if (p->rules.command && strcmp(name, RT_SPACE_COMMAND))
		return rt_yr_bad(&p->y, vn,
				 "workload: tune --cmd takes a space with workload: " RT_SPACE_COMMAND
				 ", not '%s'",
				 name);
	if (!p->rules.command && !strcmp(name, RT_SPACE_COMMAND))
		return rt_yr_bad(&p->y, vn,
				 "workload: " RT_SPACE_COMMAND " is the space of your own command: "
				 "give it to rigtune tune --cmd");
	if (workload)
		snprintf(workload, wlen, "%s", name);
	return 0;
}

/*
 * A command's knee: the knob the file names (a numeric one), else batch when
 * it is searched; it saturates.
 */
static int set_knee(parser *p)
{
	const char *knee = p->knee ? p->knee : DEFAULT_KNEE;
	int k = rt_space_find(p->s, knee);
	if (p->knee && (k < 0 || !rt_space_numeric(p->s, k)))
		return rt_yr_bad(&p->y, p->knee_node,
				 "knee: '%s' is not a knob of params: with numbers for values", knee);
	if (k >= 0 && rt_space_numeric(p->s, k)) {
		rt_space_set_role(p->s, k, RT_ROLE_SATURATING);
		p->knee = rt_space_name(p->s, k);
	} else {
		p->knee = NULL;
	}
	return 0;
}

/* The one document: a mapping with workload: and params: (and a command's knee:). */
static int parse_root(parser *p, const rt_ynode *root, char *workload, size_t wlen)
{
	const rt_ynode *params = NULL;
	const char *expected = p->rules.command ? "workload, params or knee" : "workload or params";
	int rc;
	if (root->type != YAML_MAPPING_NODE)
		return rt_yr_bad(&p->y, root, "expected a mapping with workload: and params:");
	for (int i = 0; i < rt_yr_npairs(root); i++) {
		const rt_ynode *kn, *vn;
		rt_yr_pair(&p->y, root, i, &kn, &vn);
		const char *k = rt_yr_scalar(kn);
		int is_w = k && !strcmp(k, "workload"), is_p = k && !strcmp(k, "params");
		int is_k = k && p->rules.command && !strcmp(k, "knee");
		if (!is_w && !is_p && !is_k)
			return rt_yr_bad(&p->y, kn, "unknown key %s (expected %s)", shown(kn),
					 expected);
		if (earlier_key(p, root, i) >= 0)
			return rt_yr_bad(&p->y, kn, "duplicate key '%s'", k);
		if (is_w && (rc = check_workload(p, vn, workload, wlen)))
			return rc;
		if (is_k && !(p->knee = rt_yr_scalar(vn)))
			return rt_yr_bad(&p->y, vn, "knee: expected the name of a knob");
		p->knee_node = is_k ? vn : p->knee_node;
		if (is_p && vn->type != YAML_MAPPING_NODE)
			return rt_yr_bad(&p->y, vn,
					 "params: expected a mapping of parameter: values");
		if (is_p)
			params = vn;
	}
	if (!params)
		return rt_yr_bad(&p->y, root, "params: missing");
	if ((rc = parse_params(p, params)))
		return rc;
	return p->rules.command ? set_knee(p) : 0;
}

/* Parses text with the rules already in p; *out gets the space. */
static int parse_text(parser *p, const char *text, size_t len, const char *name,
		      rt_space **out, char *workload, size_t wlen, char *err, size_t errlen)
{
	*out = NULL;
	if (workload && wlen)
		workload[0] = '\0';
	p->s = rt_space_create();
	if (!p->s)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	/* one document, and only one, is a space file */
	int rc = rt_yr_load(&p->y, name, text, len, err, errlen);
	if (rc == RT_OK)
		rc = parse_root(p, rt_yr_root(&p->y), workload, wlen);
	rt_yr_free(&p->y);
	if (rc) {
		rt_space_destroy(p->s);
		return rc;
	}
	*out = p->s;
	return 0;
}

int rt_spacefile_parse(const char *text, size_t len, const char *name, const rt_workload *w,
		       long auto_max, rt_space **out, char *workload, size_t wlen, char *err,
		       size_t errlen)
{
	parser p = {.auto_max = auto_max};
	rules_for(w, &p.rules);
	return parse_text(&p, text, len, name, out, workload, wlen, err, errlen);
}

int rt_spacefile_parse_command(const char *text, size_t len, const char *name, long auto_max,
			       rt_space **out, char *knee, size_t klen, char *err, size_t errlen)
{
	parser p = {.auto_max = auto_max};
	rules_for_command(&p.rules);
	int rc = parse_text(&p, text, len, name, out, NULL, 0, err, errlen);
	if (knee && klen)
		snprintf(knee, klen, "%s", rc == RT_OK && p.knee ? p.knee : "");
	return rc;
}

int rt_spacefile_load(const char *path, const rt_workload *w, long auto_max, rt_space **out,
		      char *workload, size_t wlen, char *err, size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = rt_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = rt_spacefile_parse(text, len, path, w, auto_max, out, workload, wlen, err, errlen);
	free(text);
	return rc;
}

int rt_spacefile_load_command(const char *path, long auto_max, rt_space **out, char *knee,
			      size_t klen, char *err, size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = rt_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = rt_spacefile_parse_command(text, len, path, auto_max, out, knee, klen, err, errlen);
	free(text);
	return rc;
}
