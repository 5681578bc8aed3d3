#include "params.h"

#include "../workloads/knobs.h"
#include "../workloads/loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_arglist_split(const char *list, const char *what, int max, rt_arglist *l, char *err,
		     size_t errlen)
{
	size_t len = strlen(list);
	l->n = 0;
	if (max > RT_ARGLIST_MAX_ITEMS)
		max = RT_ARGLIST_MAX_ITEMS;
	if (len > RT_ARGLIST_MAX_CHARS)
		return rt_fail(err, errlen, RT_EINVAL, "%s: longer than %d characters (%zu)", what,
			       RT_ARGLIST_MAX_CHARS, len);
	if (!len)
		return rt_fail(err, errlen, RT_EINVAL, "%s: expected a comma-separated list, got "
			       "nothing", what);
	memcpy(l->buf, list, len + 1);
	for (char *item = l->buf;;) {
		char *comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		if (!*item)
			return rt_fail(err, errlen, RT_EINVAL, "%s: empty item %d in '%s'", what,
				       l->n + 1, list);
		if (l->n == max)
			return rt_fail(err, errlen, RT_EINVAL, "%s: more than %d items in '%s'",
				       what, max, list);
		l->item[l->n++] = item;
		if (!comma)
			return RT_OK;
		item = comma + 1;
	}
}

/* v into *out when it is in [min, max]; RT_EINVAL naming key otherwise. */
static int check_range(const char *key, long v, long min, long max, long *out, char *err,
		       size_t errlen)
{
	if (v < min || v > max)
		return rt_fail(err, errlen, RT_EINVAL, "%s=%ld: must be between %ld and %ld",
			       key, v, min, max);
	*out = v;
	return RT_OK;
}

static int set_long(const char *key, const char *val, long min, long max, long *out,
		    char *err, size_t errlen)
{
	long v;
	if (rt_parse_long(val, &v))
		return rt_fail(err, errlen, RT_EINVAL, "%s: expected an integer, got '%s'",
			       key, val);
	return check_range(key, v, min, max, out, err, errlen);
}

static int unknown_key(const rt_workload *w, const char *key, int with_point, char *err,
		       size_t errlen)
{
	char shape[256] = "", point[160] = "";
	for (int i = 0; i < w->nkeys; i++)
		rt_list_append(shape, sizeof shape, " ", w->keys[i].name);
	for (int i = 0; with_point && i < RT_NKNOBS; i++)
		rt_list_append(point, sizeof point, " ", rt_knobs[i].name);
	return rt_fail(err, errlen, RT_EINVAL, "unknown key '%s' for %s (%s%s%sshape keys: %s)",
		       key, w->name, with_point ? "point keys: " : "", point,
		       with_point ? "; " : "", shape);
}

/* Splits "key=value" into key (cut to fit) and *val; RT_EINVAL for anything else. */
static int split_assignment(const char *arg, char *key, size_t keylen, const char **val,
			    char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return rt_fail(err, errlen, RT_EINVAL, "expected KEY=VALUE, got '%s'", arg);
	snprintf(key, keylen, "%.*s", (int)(eq - arg), arg);
	*val = eq + 1;
	return RT_OK;
}

int rt_params_apply_shape(const rt_workload *w, const char *arg, rt_shape *sh, char *err,
			  size_t errlen)
{
	char key[64];
	const char *val;
	RT_TRY(split_assignment(arg, key, sizeof key, &val, err, errlen));
	int k = rt_shape_index(w, key);
	if (k < 0)
		return unknown_key(w, key, 0, err, errlen);
	return set_long(key, val, w->keys[k].min, w->keys[k].max, &sh->v[k], err, errlen);
}

/* The knob (*k) or else the shape key of w (*s) called key; RT_EINVAL listing both if neither. */
static int find_key(const rt_workload *w, const char *key, const rt_knob **k, int *s, char *err,
		    size_t errlen)
{
	*k = rt_knob_find(key);
	*s = *k ? -1 : rt_shape_index(w, key);
	return *k || *s >= 0 ? RT_OK : unknown_key(w, key, 1, err, errlen);
}

/* A knob from its text; a backend's name must be one the loader knows. */
static int set_knob(const rt_knob *k, const char *val, rt_point *pt, char *err, size_t errlen)
{
	if (k->kind == RT_KNOB_BACKEND && !rt_backend_known(val)) {
		char names[256];
		rt_backend_names(names, sizeof names);
		return rt_fail(err, errlen, RT_EINVAL, "%s: '%s' is not one of %s", k->name, val,
			       names);
	}
	return rt_knob_set(k, val, pt, err, errlen);
}

int rt_params_set(const rt_workload *w, const char *key, const char *val, rt_point *pt,
		  rt_shape *sh, char *err, size_t errlen)
{
	const rt_knob *k;
	int s;
	RT_TRY(find_key(w, key, &k, &s, err, errlen));
	if (k)
		return set_knob(k, val, pt, err, errlen);
	return set_long(key, val, w->keys[s].min, w->keys[s].max, &sh->v[s], err, errlen);
}

int rt_params_set_long(const rt_workload *w, const char *key, long v, rt_point *pt,
		       rt_shape *sh, char *err, size_t errlen)
{
	const rt_knob *k;
	int s;
	RT_TRY(find_key(w, key, &k, &s, err, errlen));
	if (k)
		return rt_knob_set_long(k, v, pt, err, errlen);
	return check_range(key, v, w->keys[s].min, w->keys[s].max, &sh->v[s], err, errlen);
}

int rt_params_apply(const rt_workload *w, const char *arg, rt_point *pt, rt_shape *sh,
		    char *err, size_t errlen)
{
	char key[64];
	const char *val;
	RT_TRY(split_assignment(arg, key, sizeof key, &val, err, errlen));
	return rt_params_set(w, key, val, pt, sh, err, errlen);
}
