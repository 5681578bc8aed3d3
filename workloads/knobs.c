/* The knob table (knobs.h) and the codec of a point that walks it. */
#include "knobs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A numeric or choice knob is stored as an int (an enum is one). */
_Static_assert(sizeof(rt_precision) == sizeof(int) && sizeof(rt_pin) == sizeof(int),
	       "a choice knob's field is read as an int");

/* A workload's knobs are bits of an unsigned (RT_KNOB_BIT). */
_Static_assert(RT_NKNOBS <= 32, "rt_workload.knobs has a bit per knob");

const rt_knob rt_knobs[RT_NKNOBS] = {
#define RT_KNOB_ROW(name, ctype, kind, def, min, max, choices, flags, label, plural)          \
	{#name, kind, offsetof(rt_point, name), sizeof(ctype), def, min, max, choices, flags, label, \
	 plural},
	RT_POINT_KNOBS(RT_KNOB_ROW)
#undef RT_KNOB_ROW
};

/* The host's backend, a point's default. */
#define DEFAULT_BACKEND "cpu"

const rt_knob *rt_knob_find(const char *name)
{
	for (int i = 0; i < RT_NKNOBS; i++)
		if (!strcmp(rt_knobs[i].name, name))
			return &rt_knobs[i];
	return NULL;
}

static int *int_field(const rt_knob *k, rt_point *pt)
{
	return (int *)((char *)pt + k->offset);
}

static const int *int_field_c(const rt_knob *k, const rt_point *pt)
{
	return (const int *)((const char *)pt + k->offset);
}

static char *text_field(const rt_knob *k, rt_point *pt)
{
	return (char *)pt + k->offset;
}

static const char *text_field_c(const rt_knob *k, const rt_point *pt)
{
	return (const char *)pt + k->offset;
}

long rt_knob_get(const rt_knob *k, const rt_point *pt)
{
	return k->kind == RT_KNOB_BACKEND ? 0 : *int_field_c(k, pt);
}

const char *rt_knob_text(const rt_knob *k, const rt_point *pt, char *buf, size_t len)
{
	long v = rt_knob_get(k, pt);
	if (k->kind == RT_KNOB_BACKEND)
		snprintf(buf, len, "%s", text_field_c(k, pt));
	else if (k->kind == RT_KNOB_CHOICE)
		snprintf(buf, len, "%s", v >= k->min && v <= k->max ? k->choices[v] : "?");
	else
		snprintf(buf, len, "%ld", v);
	return buf;
}

void rt_knob_choices(const rt_knob *k, const char *sep, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (long i = k->min; k->kind == RT_KNOB_CHOICE && i <= k->max; i++)
		rt_list_append(buf, len, sep, k->choices[i]);
}

int rt_knob_set_long(const rt_knob *k, long v, rt_point *pt, char *err, size_t errlen)
{
	if (k->kind == RT_KNOB_BACKEND)
		return rt_fail(err, errlen, RT_EINVAL, "%s: expected a name", k->name);
	if (v < k->min || v > k->max)
		return rt_fail(err, errlen, RT_EINVAL, "%s=%ld: must be between %ld and %ld",
			       k->name, v, k->min, k->max);
	*int_field(k, pt) = (int)v;
	return RT_OK;
}

/* A backend's name, if it fits; whether rigtune knows it is the loader's (rt_params_set asks). */
static int set_backend(const rt_knob *k, const char *value, rt_point *pt, char *err,
		       size_t errlen)
{
	if (strlen(value) >= k->size)
		return rt_fail(err, errlen, RT_EINVAL, "%s: '%s' is longer than %zu characters",
			       k->name, value, k->size - 1);
	snprintf(text_field(k, pt), k->size, "%s", value);
	return RT_OK;
}

int rt_knob_choice(const rt_knob *k, const char *name)
{
	for (long i = k->min; k->kind == RT_KNOB_CHOICE && i <= k->max; i++)
		if (!strcmp(k->choices[i], name))
			return (int)i;
	return -1;
}

static int set_choice(const rt_knob *k, const char *value, rt_point *pt, char *err,
		      size_t errlen)
{
	int i = rt_knob_choice(k, value);
	if (i >= 0)
		return rt_knob_set_long(k, i, pt, err, errlen);
	char names[128];
	rt_knob_choices(k, " ", names, sizeof names);
	return rt_fail(err, errlen, RT_EINVAL, "%s: '%s' is not one of %s", k->name, value, names);
}

static int set_number(const rt_knob *k, const char *value, rt_point *pt, char *err,
		      size_t errlen)
{
	char *end;
	errno = 0;
	long v = strtol(value, &end, 10);
	if (!*value || *end || errno)
		return rt_fail(err, errlen, RT_EINVAL, "%s: expected an integer, got '%s'", k->name,
			       value);
	return rt_knob_set_long(k, v, pt, err, errlen);
}

int rt_knob_set(const rt_knob *k, const char *value, rt_point *pt, char *err, size_t errlen)
{
	switch (k->kind) {
	case RT_KNOB_BACKEND:
	case RT_KNOB_TEXT: /* no row of rt_point's table: a name in a field all the same */
		return set_backend(k, value, pt, err, errlen);
	case RT_KNOB_CHOICE:
		return set_choice(k, value, pt, err, errlen);
	case RT_KNOB_INT:
		break;
	}
	return set_number(k, value, pt, err, errlen);
}

void rt_point_default(rt_point *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < RT_NKNOBS; i++) {
		const rt_knob *k = &rt_knobs[i];
		if (k->kind == RT_KNOB_BACKEND)
			snprintf(text_field(k, p), k->size, "%s", DEFAULT_BACKEND);
		else
			*int_field(k, p) = (int)k->def;
	}
}

/* 1 when a and b set knob k alike. */
static int knob_equal(const rt_knob *k, const rt_point *a, const rt_point *b)
{
	if (k->kind == RT_KNOB_BACKEND)
		return !strcmp(text_field_c(k, a), text_field_c(k, b));
	return *int_field_c(k, a) == *int_field_c(k, b);
}

int rt_point_equal(const rt_point *a, const rt_point *b)
{
	for (int i = 0; i < RT_NKNOBS; i++)
		if (!knob_equal(&rt_knobs[i], a, b))
			return 0;
	return 1;
}

int rt_point_same_but(const rt_point *a, const rt_point *b, const rt_workload *w,
		      const char *except)
{
	for (int i = 0; i < RT_NKNOBS; i++) {
		const rt_knob *k = &rt_knobs[i];
		if (rt_workload_reads(w, k) && (!except || strcmp(k->name, except)) &&
		    !knob_equal(k, a, b))
			return 0;
	}
	return 1;
}

double rt_point_distance(const rt_point *a, const rt_point *b)
{
	/* The differences first, then the sizes in table order: the sum rounds as it always has. */
	double d = 0;
	for (int i = 0; i < RT_NKNOBS; i++)
		if (!(rt_knobs[i].flags & RT_KF_LOG))
			d += !knob_equal(&rt_knobs[i], a, b);
	for (int i = 0; i < RT_NKNOBS; i++) {
		const rt_knob *k = &rt_knobs[i];
		if (k->flags & RT_KF_LOG)
			d += fabs(log((1.0 + rt_knob_get(k, a)) / (1.0 + rt_knob_get(k, b))));
	}
	return d;
}

long rt_point_cores(const rt_point *pt)
{
	long n = 0;
	for (int i = 0; i < RT_NKNOBS; i++)
		if (rt_knobs[i].flags & RT_KF_CORES)
			n += rt_knob_get(&rt_knobs[i], pt);
	return n;
}

int rt_workload_reads(const rt_workload *w, const rt_knob *k)
{
	return !w || (k->flags & RT_KF_ALL) || (w->knobs & (1u << (k - rt_knobs)));
}

/* 1 when pt sets knob k to its default. */
static int at_default(const rt_knob *k, const rt_point *pt)
{
	rt_point def;
	rt_point_default(&def);
	return knob_equal(k, pt, &def);
}

int rt_knob_written(const rt_knob *k, const rt_point *pt, const rt_workload *w)
{
	return rt_workload_reads(w, k) && !((k->flags & RT_KF_TERSE) && at_default(k, pt));
}

void rt_point_text(const rt_point *pt, const rt_workload *w, const char *sep, char *buf,
		   size_t len)
{
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < RT_NKNOBS; i++) {
		const rt_knob *k = &rt_knobs[i];
		char v[64], item[96];
		if (!rt_knob_written(k, pt, w))
			continue;
		snprintf(item, sizeof item, "%s=%s", k->name, rt_knob_text(k, pt, v, sizeof v));
		rt_list_append(buf, len, sep, item);
	}
}

/*
 * Where knob k goes in a short label: the names that are always shown
 * (backend, precision) lead, the labelled numbers follow, a quiet name
 * (a pin policy not the default) ends it.
 */
static int label_group(const rt_knob *k)
{
	return *k->label ? 1 : (k->flags & RT_KF_QUIET) ? 2 : 0;
}

int rt_knob_leads(const rt_knob *k)
{
	return label_group(k) == 0;
}

void rt_knob_words(const rt_knob *k, const rt_point *pt, char *buf, size_t len)
{
	char v[64];
	rt_knob_text(k, pt, v, sizeof v);
	size_t n = strlen(k->name);
	if (rt_knob_leads(k))
		snprintf(buf, len, "%s", v);
	else if (k->flags & RT_KF_CORES) /* "1 worker": the name less its plural s */
		snprintf(buf, len, "%s %.*s", v, (int)(rt_knob_get(k, pt) == 1 ? n - 1 : n), k->name);
	else
		snprintf(buf, len, "%s %s", k->name, v);
}

void rt_point_label(const rt_point *pt, const rt_workload *w, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (int g = 0; g < 3; g++)
		for (int i = 0; i < RT_NKNOBS; i++) {
			const rt_knob *k = &rt_knobs[i];
			char v[64], item[96];
			if (label_group(k) != g || !rt_workload_reads(w, k) ||
			    ((k->flags & RT_KF_QUIET) && at_default(k, pt)))
				continue;
			rt_knob_text(k, pt, v, sizeof v);
			snprintf(item, sizeof item, "%s%s%s", k->label, *k->label ? "=" : "", v);
			rt_list_append(buf, len, " ", item);
		}
}
