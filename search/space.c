#include "space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"

typedef struct param {
	char *name;
	rt_param_kind kind;
	rt_param_role role;
	int n;
	char **strs; /* categorical */
	long *ints;  /* ordinal */
	long lo, step; /* range: value vi is lo + vi * step */
} param;

struct rt_space {
	int np;
	param p[RT_SPACE_MAX_PARAMS];
	rt_feasible_fn feasible;
	void *feasible_user;
};

rt_space *rt_space_create(void)
{
	return calloc(1, sizeof(rt_space));
}

static void param_free(param *p)
{
	if (p->strs)
		for (int i = 0; i < p->n; i++)
			free(p->strs[i]);
	free(p->strs);
	free(p->ints);
	free(p->name);
}

void rt_space_destroy(rt_space *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->np; i++)
		param_free(&s->p[i]);
	free(s);
}

/*
 * Checks what every adder checks (room, a fresh non-empty name, n > 0, the
 * grid staying under RT_SPACE_MAX_GRID) and claims the next slot with a copy
 * of the name into *out. The slot counts only after param_commit.
 */
static int param_begin(rt_space *s, const char *name, int64_t n, param **out, char *err,
		       size_t errlen)
{
	if (s->np >= RT_SPACE_MAX_PARAMS)
		return rt_fail(err, errlen, RT_EINVAL, "more than %d parameters",
			       RT_SPACE_MAX_PARAMS);
	if (!name || !*name)
		return rt_fail(err, errlen, RT_EINVAL, "a parameter needs a name");
	if (rt_space_find(s, name) >= 0)
		return rt_fail(err, errlen, RT_EINVAL, "%s: parameter given twice", name);
	if (n <= 0)
		return rt_fail(err, errlen, RT_EINVAL, "%s: no values", name);
	if ((uint64_t)n > RT_SPACE_MAX_GRID / rt_space_grid_size(s))
		return rt_fail(err, errlen, RT_EINVAL, "%s: the grid would exceed %llu points",
			       name, (unsigned long long)RT_SPACE_MAX_GRID);
	param *p = &s->p[s->np];
	memset(p, 0, sizeof *p);
	p->name = strdup(name);
	if (!p->name)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	p->n = (int)n;
	*out = p;
	return 0;
}

/* Publishes the slot that param_begin claimed; returns its index. */
static int param_commit(rt_space *s)
{
	return s->np++;
}

int rt_space_add_categorical(rt_space *s, const char *name, const char *const *values,
			     int n, char *err, size_t errlen)
{
	param *p;
	int rc = param_begin(s, name, n, &p, err, errlen);
	if (rc)
		return rc;
	p->kind = RT_PARAM_CATEGORICAL;
	p->strs = calloc((size_t)n, sizeof *p->strs);
	if (!p->strs)
		goto nomem;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			if (strcmp(values[i], values[j]) == 0) {
				rt_fail(err, errlen, RT_EINVAL, "%s: value %s given twice", name,
					values[i]);
				param_free(p);
				return RT_EINVAL;
			}
		p->strs[i] = strdup(values[i]);
		if (!p->strs[i])
			goto nomem;
	}
	return param_commit(s);
nomem:
	param_free(p);
	return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
}

int rt_space_set_categorical(rt_space *s, int p, const char *const *values, int n, char *err,
			     size_t errlen)
{
	RT_BUG_ON(p < 0 || p >= s->np || s->p[p].kind != RT_PARAM_CATEGORICAL);
	if (n > 0 && (uint64_t)n > RT_SPACE_MAX_GRID / (rt_space_grid_size(s) / (uint64_t)s->p[p].n))
		return rt_fail(err, errlen, RT_EINVAL, "%s: the grid would exceed %llu points",
			       s->p[p].name, (unsigned long long)RT_SPACE_MAX_GRID);
	rt_space *fresh = rt_space_create();
	if (!fresh)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	/* the adder checks the values; its param takes the old one's place */
	int rc = rt_space_add_categorical(fresh, s->p[p].name, values, n, err, errlen);
	if (rc >= 0) {
		param old = s->p[p];
		s->p[p] = fresh->p[0];
		s->p[p].role = old.role;
		fresh->p[0] = old; /* freed with fresh */
		rc = 0;
	}
	rt_space_destroy(fresh);
	return rc;
}

int rt_space_extend_ordinal(rt_space *s, int p, long value, char *err, size_t errlen)
{
	RT_BUG_ON(p < 0 || p >= s->np || s->p[p].kind != RT_PARAM_ORDINAL);
	param *q = &s->p[p];
	if (value <= q->ints[q->n - 1])
		return rt_fail(err, errlen, RT_EINVAL, "%s: %ld is not above its largest value %ld",
			       q->name, value, q->ints[q->n - 1]);
	if (rt_space_grid_size(s) / (uint64_t)q->n * (uint64_t)(q->n + 1) > RT_SPACE_MAX_GRID)
		return rt_fail(err, errlen, RT_EINVAL, "%s: the grid would exceed %llu points",
			       q->name, (unsigned long long)RT_SPACE_MAX_GRID);
	long *ints = realloc(q->ints, sizeof *ints * (size_t)(q->n + 1));
	if (!ints)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	ints[q->n++] = value;
	q->ints = ints;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

int rt_space_add_ordinal(rt_space *s, const char *name, const long *values, int n,
			 char *err, size_t errlen)
{
	param *p;
	int rc = param_begin(s, name, n, &p, err, errlen);
	if (rc)
		return rc;
	p->kind = RT_PARAM_ORDINAL;
	p->ints = malloc((size_t)n * sizeof *p->ints);
	if (!p->ints) {
		param_free(p);
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	}
	memcpy(p->ints, values, (size_t)n * sizeof *p->ints);
	qsort(p->ints, (size_t)n, sizeof *p->ints, cmp_long);
	for (int i = 1; i < n; i++)
		if (p->ints[i] == p->ints[i - 1]) {
			long v = p->ints[i];
			param_free(p);
			return rt_fail(err, errlen, RT_EINVAL, "%s: value %ld given twice", name, v);
		}
	return param_commit(s);
}

int rt_space_add_range(rt_space *s, const char *name, long lo, long hi, long step,
		       char *err, size_t errlen)
{
	if (step <= 0)
		return rt_fail(err, errlen, RT_EINVAL, "%s: step %ld is not positive",
			       name ? name : "?", step);
	if (lo > hi)
		return rt_fail(err, errlen, RT_EINVAL, "%s: empty range %ld..%ld",
			       name ? name : "?", lo, hi);
	int64_t n = ((int64_t)hi - (int64_t)lo) / step + 1;
	param *p;
	int rc = param_begin(s, name, n, &p, err, errlen);
	if (rc)
		return rc;
	p->kind = RT_PARAM_RANGE;
	p->lo = lo;
	p->step = step;
	return param_commit(s);
}

void rt_space_set_role(rt_space *s, int p, rt_param_role role)
{
	if (p >= 0 && p < s->np)
		s->p[p].role = role;
}

void rt_space_set_feasible(rt_space *s, rt_feasible_fn fn, void *user)
{
	s->feasible = fn;
	s->feasible_user = user;
}

int rt_space_nparams(const rt_space *s)
{
	return s->np;
}

int rt_space_find(const rt_space *s, const char *name)
{
	for (int i = 0; i < s->np; i++)
		if (strcmp(s->p[i].name, name) == 0)
			return i;
	return -1;
}

const char *rt_space_name(const rt_space *s, int p)
{
	return s->p[p].name;
}

rt_param_kind rt_space_kind(const rt_space *s, int p)
{
	return s->p[p].kind;
}

rt_param_role rt_space_role(const rt_space *s, int p)
{
	return s->p[p].role;
}

int rt_space_numeric(const rt_space *s, int p)
{
	return rt_space_kind(s, p) != RT_PARAM_CATEGORICAL;
}

int rt_space_size(const rt_space *s, int p)
{
	return s->p[p].n;
}

long rt_space_int_at(const rt_space *s, int p, int vi)
{
	const param *q = &s->p[p];
	switch (q->kind) {
	case RT_PARAM_ORDINAL:
		return q->ints[vi];
	case RT_PARAM_RANGE:
		return q->lo + (long)vi * q->step;
	default:
		return vi;
	}
}

const char *rt_space_str_at(const rt_space *s, int p, int vi)
{
	const param *q = &s->p[p];
	return q->kind == RT_PARAM_CATEGORICAL ? q->strs[vi] : NULL;
}

/* Writes value vi of parameter p as text; returns the length it needed. */
static int format_value(const rt_space *s, int p, int vi, char *buf, size_t len)
{
	const char *str = rt_space_str_at(s, p, vi);
	if (str)
		return snprintf(buf, len, "%s", str);
	return snprintf(buf, len, "%ld", rt_space_int_at(s, p, vi));
}

int rt_space_value_int(const rt_space *s, const int *idx, const char *name, long *out)
{
	int p = rt_space_find(s, name);
	if (p < 0 || s->p[p].kind == RT_PARAM_CATEGORICAL)
		return RT_EINVAL;
	*out = rt_space_int_at(s, p, idx[p]);
	return 0;
}

int rt_space_format(const rt_space *s, const int *idx, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (int p = 0; p < s->np; p++) {
		size_t room = used < len ? len - used : 0;
		int k = snprintf(room ? buf + used : NULL, room, "%s%s=", p ? " " : "",
				 s->p[p].name);
		used += (size_t)k;
		room = used < len ? len - used : 0;
		used += (size_t)format_value(s, p, idx[p], room ? buf + used : NULL, room);
	}
	return (int)used;
}

uint64_t rt_space_grid_size(const rt_space *s)
{
	uint64_t g = 1;
	for (int p = 0; p < s->np; p++)
		g *= (uint64_t)s->p[p].n;
	return g;
}

uint64_t rt_space_rank(const rt_space *s, const int *idx)
{
	uint64_t r = 0;
	for (int p = 0; p < s->np; p++)
		r = r * (uint64_t)s->p[p].n + (uint64_t)idx[p];
	return r;
}

void rt_space_unrank(const rt_space *s, uint64_t rank, int *idx)
{
	for (int p = s->np - 1; p >= 0; p--) {
		idx[p] = (int)(rank % (uint64_t)s->p[p].n);
		rank /= (uint64_t)s->p[p].n;
	}
}

void rt_space_first(const rt_space *s, int *idx)
{
	memset(idx, 0, (size_t)s->np * sizeof *idx);
}

int rt_space_next(const rt_space *s, int *idx)
{
	for (int p = s->np - 1; p >= 0; p--) {
		if (++idx[p] < s->p[p].n)
			return 1;
		idx[p] = 0;
	}
	return 0;
}

int rt_space_feasible(const rt_space *s, const int *idx)
{
	for (int p = 0; p < s->np; p++)
		if (idx[p] < 0 || idx[p] >= s->p[p].n)
			return 0;
	return s->feasible ? s->feasible(s, idx, s->feasible_user) != 0 : 1;
}

uint64_t rt_space_count_feasible(const rt_space *s)
{
	int idx[RT_SPACE_MAX_PARAMS];
	uint64_t n = 0;
	int more = 1;
	for (rt_space_first(s, idx); more; more = rt_space_next(s, idx))
		n += rt_space_feasible(s, idx) != 0;
	return n;
}
