/* cmdpoint.c: a command's point, its rows made at run time, and its codec (cmdpoint.h). */
#include "cmdpoint.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../workloads/knobs.h"
#include "params.h"

/*
 * The rows of a command's own knobs and of the user's: a kind each, no
 * field of rt_point. A knob rigtune acts on (threads, workers, batch,
 * blas_threads: a CPU count, a binding) is within its row's range in a
 * space file (spacefile.c) and in a document read back; the user's own
 * numbers are only passed on as text, and bound nothing.
 */
static const rt_knob blas_threads_row = {"blas_threads", RT_KNOB_INT, 0, 0, 1, 1,
					 4096 /* as threads */, NULL, 0, "", NULL};
static const rt_knob device_row = {"device", RT_KNOB_TEXT, 0, 0, 0, 0, 0, NULL, 0, "", NULL};
static const rt_knob user_number = {"", RT_KNOB_INT, 0, 0, 0, LONG_MIN, LONG_MAX, NULL, 0, "",
				    NULL};
static const rt_knob user_name = {"", RT_KNOB_TEXT, 0, 0, 0, 0, 0, NULL, 0, "", NULL};

/* The knobs a command shares with the built-in table (spacefile.c's rules for a command). */
static const char *const shared[] = {"batch", "threads", "workers", "precision", "pin"};

const rt_knob *rt_cmd_knob_row(const char *name)
{
	if (!strcmp(name, blas_threads_row.name))
		return &blas_threads_row;
	if (!strcmp(name, device_row.name))
		return &device_row;
	for (size_t i = 0; i < RT_COUNT(shared); i++)
		if (!strcmp(name, shared[i]))
			return rt_knob_find(name);
	return NULL;
}

void rt_cmd_point_at(const rt_space *s, const int *idx, rt_cmd_point *pt)
{
	int n = rt_space_nparams(s);
	/* a command's space has a knob per parameter: RT_CMD_MAX_KNOBS is the space's bound */
	RT_BUG_ON(n > RT_CMD_MAX_KNOBS);
	pt->n = n;
	for (int p = 0; p < n; p++) {
		rt_cmd_knob *k = &pt->k[p];
		const char *name = rt_space_name(s, p);
		const rt_knob *row = rt_cmd_knob_row(name);
		snprintf(k->name, sizeof k->name, "%s", name);
		if (rt_space_numeric(s, p)) {
			k->row = row ? row : &user_number;
			k->num = rt_space_int_at(s, p, idx[p]);
			snprintf(k->text, sizeof k->text, "%ld", k->num);
		} else {
			k->row = row ? row : &user_name;
			snprintf(k->text, sizeof k->text, "%s", rt_space_str_at(s, p, idx[p]));
			k->num = k->row->kind == RT_KNOB_CHOICE ? rt_knob_choice(k->row, k->text)
								 : 0;
		}
	}
}

const rt_cmd_knob *rt_cmd_point_find(const rt_cmd_point *pt, const char *name)
{
	for (int i = 0; i < pt->n; i++)
		if (!strcmp(pt->k[i].name, name))
			return &pt->k[i];
	return NULL;
}

long rt_cmd_point_num(const rt_cmd_point *pt, const char *name, long otherwise)
{
	const rt_cmd_knob *k = rt_cmd_point_find(pt, name);
	return k ? k->num : otherwise;
}

/* 1 when text is an integer as printf writes one ("7", not "07" or "+7"), into *v. */
static int integer_as_written(const char *text, long *v)
{
	char back[32];
	if (rt_parse_long(text, v) != RT_OK)
		return 0;
	snprintf(back, sizeof back, "%ld", *v);
	return !strcmp(back, text);
}

/* The value of knob k from its text, by its row. */
static int value_of(rt_cmd_knob *k, const char *value, char *err, size_t errlen)
{
	if (!*value)
		return rt_fail(err, errlen, RT_EINVAL, "%s: expected a value", k->name);
	if (strlen(value) >= sizeof k->text)
		return rt_fail(err, errlen, RT_EINVAL, "%s: a value longer than %zu characters",
			       k->name, sizeof k->text - 1);
	snprintf(k->text, sizeof k->text, "%s", value);
	k->num = 0;
	if (k->row->kind == RT_KNOB_CHOICE && (k->num = rt_knob_choice(k->row, value)) < 0) {
		char names[128];
		rt_knob_choices(k->row, " ", names, sizeof names);
		return rt_fail(err, errlen, RT_EINVAL, "%s: '%s' is not one of %s", k->name, value,
			       names);
	}
	if (k->row->kind == RT_KNOB_INT && rt_parse_long(value, &k->num) != RT_OK)
		return rt_fail(err, errlen, RT_EINVAL, "%s: expected an integer, got '%s'", k->name,
			       value);
	if (k->row->kind == RT_KNOB_INT && (k->num < k->row->min || k->num > k->row->max))
		return rt_fail(err, errlen, RT_EINVAL, "%s: %ld is out of range [%ld, %ld]", k->name,
			       k->num, k->row->min, k->row->max);
	return RT_OK;
}

int rt_cmd_point_add(rt_cmd_point *pt, const char *name, const char *value, char *err,
		     size_t errlen)
{
	long v;
	if (pt->n >= RT_CMD_MAX_KNOBS)
		return rt_fail(err, errlen, RT_EINVAL, "more than %d knobs", RT_CMD_MAX_KNOBS);
	if (!*name || strlen(name) >= RT_KNOB_NAMELEN)
		return rt_fail(err, errlen, RT_EINVAL, "'%s': a knob's name has 1 to %d characters",
			       name, RT_KNOB_NAMELEN - 1);
	if (rt_cmd_point_find(pt, name))
		return rt_fail(err, errlen, RT_EINVAL, "%s: given twice", name);
	rt_cmd_knob *k = &pt->k[pt->n];
	snprintf(k->name, sizeof k->name, "%s", name);
	k->row = rt_cmd_knob_row(name);
	if (!k->row)
		k->row = integer_as_written(value, &v) ? &user_number : &user_name;
	int rc = value_of(k, value, err, errlen);
	if (rc == RT_OK)
		pt->n++;
	return rc;
}

int rt_cmd_point_of(const rt_knob_value *kv, int n, rt_cmd_point *pt, char *err, size_t errlen)
{
	pt->n = 0;
	for (int i = 0; i < n; i++)
		RT_TRY(rt_cmd_point_add(pt, kv[i].name, kv[i].value, err, errlen));
	return RT_OK;
}

int rt_cmd_point_equal(const rt_cmd_point *a, const rt_cmd_point *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++) {
		const rt_cmd_knob *o = rt_cmd_point_find(b, a->k[i].name);
		if (!o || strcmp(o->text, a->k[i].text))
			return 0;
	}
	return 1;
}

void rt_cmd_point_text(const rt_cmd_point *pt, const char *sep, char *buf, size_t len)
{
	const char *last = "";
	if (len)
		buf[0] = '\0';
	/* names are distinct: each round takes the least name after the last one taken */
	for (int round = 0; round < pt->n; round++) {
		const rt_cmd_knob *next = NULL;
		for (int i = 0; i < pt->n; i++)
			if (strcmp(pt->k[i].name, last) > 0 &&
			    (!next || strcmp(pt->k[i].name, next->name) < 0))
				next = &pt->k[i];
		RT_BUG_ON(!next);
		char item[RT_KNOB_NAMELEN + RT_CMD_VALUE_LEN + 1];
		snprintf(item, sizeof item, "%s=%s", next->name, next->text);
		rt_list_append(buf, len, sep, item);
		last = next->name;
	}
}

void rt_cmd_point_emit(rt_yw *w, const rt_cmd_point *pt, int plain_numbers)
{
	rt_yw_map(w, 1);
	for (int i = 0; i < pt->n; i++) {
		const rt_cmd_knob *k = &pt->k[i];
		rt_yw_str(w, k->name);
		if (plain_numbers && k->row->kind == RT_KNOB_INT)
			rt_yw_int(w, k->num);
		else
			rt_yw_str(w, k->text);
	}
	rt_yw_end_map(w);
}

int rt_cmd_point_decode(const rt_yr *r, const rt_ynode *map, const char *what,
			rt_cmd_point *pt)
{
	int rc = rt_yr_expect(r, map, YAML_MAPPING_NODE, what);
	pt->n = 0;
	for (int i = 0; rc == RT_OK && i < rt_yr_npairs(map); i++) {
		const rt_ynode *k, *v;
		char why[RT_ERRLEN];
		rt_yr_pair(r, map, i, &k, &v);
		if (!rt_yr_scalar(k) || !rt_yr_scalar(v))
			return rt_yr_bad(r, k, "%s: expected name: value pairs", what);
		if (rt_cmd_point_add(pt, rt_yr_scalar(k), rt_yr_scalar(v), why, sizeof why))
			return rt_yr_bad(r, k, "%s: %s", what, why);
	}
	return rc;
}
