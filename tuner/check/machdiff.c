/*
 * machdiff.c: check's machine diff (machdiff.h), a walk of the machine's
 * field table over two machines.
 */
#include "machdiff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rt.h"

#define PATH_MAX_LEN 512
#define MEMORY_TOLERANCE 0.05

/* Whether the diff holds all it may list: the walk stops there (truncated). */
static int full(rt_mdiff *d)
{
	if (d->n >= RT_MDIFF_MAX_ENTRIES)
		d->truncated = 1;
	return d->n >= RT_MDIFF_MAX_ENTRIES;
}

/* An entry at the end of the list v (n of them, room for cap). */
static int push_to(rt_mdiff_entry **v, size_t *n, size_t *cap, const char *field,
		   const char *before, const char *after, int hardware)
{
	if (*n == *cap) {
		size_t more = *cap ? 2 * *cap : 16;
		rt_mdiff_entry *w = realloc(*v, more * sizeof *w);
		if (!w)
			return RT_ENOMEM;
		*v = w;
		*cap = more;
	}
	rt_mdiff_entry *e = &(*v)[*n];
	e->field = strdup(field);
	e->before = before ? strdup(before) : NULL;
	e->after = after ? strdup(after) : NULL;
	e->hardware = hardware;
	(*n)++; /* counted even when half-made, so that rt_mdiff_free frees it */
	if (!e->field || (before && !e->before) || (after && !e->after))
		return RT_ENOMEM;
	return RT_OK;
}

static int push(rt_mdiff *d, const char *field, const char *before, const char *after,
		int hardware)
{
	if (full(d))
		return RT_OK;
	return push_to(&d->v, &d->n, &d->cap, field, before, after, hardware);
}

/* The moment's state of a field on both sides, where it differs: shown apart. */
static int push_state(rt_mdiff *d, const char *field, const char *before, const char *after)
{
	if (!before || !after || !strcmp(before, after) || d->nstate >= RT_MDIFF_MAX_ENTRIES)
		return RT_OK;
	return push_to(&d->state, &d->nstate, &d->state_cap, field, before, after, 0);
}

/*
 * Whether a and b are two readings of one memory size: numbers within
 * MEMORY_TOLERANCE of each other. The memory a machine reports moves with
 * the kernel's reservations and, in a VM, its balloon; that is no change of
 * the machine.
 */
static int same_memory(const char *a, const char *b)
{
	char *ea, *eb;
	double x = strtod(a, &ea), y = strtod(b, &eb);
	if (*ea || *eb || ea == a || eb == b)
		return 0;
	return fabs(x - y) <= MEMORY_TOLERANCE * fmax(fabs(x), fabs(y));
}

/* A value: its text on each side, NULL where that side does not write it. */
static int diff_leaf(rt_mdiff *d, const char *path, const rt_mfield *f, const char *ta,
		     const char *tb)
{
	if (f->flags & RT_MF_STATE)
		return push_state(d, path, ta, tb);
	if (ta && tb && (!strcmp(ta, tb) || ((f->flags & RT_MF_NEAR) && same_memory(ta, tb))))
		return RT_OK;
	return push(d, path, ta, tb, (f->flags & RT_MF_HARDWARE) != 0);
}

/*
 * path + ".label" (a field) or "[label]" (an item) into path at len; the
 * new length, or 0 when it does not fit (deeper than any machine).
 */
static size_t path_push(char *path, size_t len, const char *label, int item)
{
	int n = item ? snprintf(path + len, PATH_MAX_LEN - len, "[%s]", label)
		     : snprintf(path + len, PATH_MAX_LEN - len, "%s%s", len ? "." : "", label);
	return n >= 0 && len + (size_t)n < PATH_MAX_LEN ? len + (size_t)n : 0;
}

static int diff_fields(rt_mdiff *d, char *path, size_t len, const rt_mfield *fields,
		       const rt_mctx *a, const rt_mctx *b);

/* The key field of a sequence's items: the text that names item i of c. */
static void item_key(const rt_mfield *seq, const rt_mctx *c, int i, char *buf)
{
	rt_mctx item = rt_mfield_item(seq, c, i);
	for (const rt_mfield *f = seq->sub; f->key; f++)
		if (f->flags & RT_MF_KEY) {
			rt_mfield_text(f, &item, buf, RT_MF_TEXT_LEN);
			return;
		}
	RT_BUG_ON(1); /* every sequence of the table names a key field */
}

/* The item of c's sequence whose key is key: its index, -1 if none. */
static int item_by_key(const rt_mfield *seq, const rt_mctx *c, const char *key)
{
	char k[RT_MF_TEXT_LEN];
	for (int i = 0; c && i < rt_mfield_count(seq, c); i++) {
		item_key(seq, c, i, k);
		if (!strcmp(k, key))
			return i;
	}
	return -1;
}

/* Item "[key]" of a sequence: ia, ib its index on each side, -1 where it is not. */
static int diff_item(rt_mdiff *d, char *path, size_t len, const rt_mfield *seq,
		     const char *key, const rt_mctx *a, int ia, const rt_mctx *b, int ib)
{
	size_t n = path_push(path, len, key, 1);
	int rc = RT_OK;
	if (n && !full(d)) {
		rt_mctx ca = ia >= 0 ? rt_mfield_item(seq, a, ia) : (rt_mctx){0};
		rt_mctx cb = ib >= 0 ? rt_mfield_item(seq, b, ib) : (rt_mctx){0};
		rc = diff_fields(d, path, n, seq->sub, ia >= 0 ? &ca : NULL, ib >= 0 ? &cb : NULL);
	}
	path[len] = '\0';
	return rc;
}

/*
 * A sequence: a's items matched with b's by key, then the items only b
 * has. An empty sequence on one side only is the value "[]".
 */
static int diff_seq(rt_mdiff *d, char *path, size_t len, const rt_mfield *f, const rt_mctx *a,
		    const rt_mctx *b)
{
	int na = a ? rt_mfield_count(f, a) : 0, nb = b ? rt_mfield_count(f, b) : 0, rc = RT_OK;
	if (!na && !nb)
		return diff_leaf(d, path, f, a ? "[]" : NULL, b ? "[]" : NULL);
	char key[RT_MF_TEXT_LEN];
	for (int i = 0; rc == RT_OK && i < na; i++) {
		item_key(f, a, i, key);
		rc = diff_item(d, path, len, f, key, a, i, b, item_by_key(f, b, key));
	}
	for (int i = 0; rc == RT_OK && i < nb; i++) {
		item_key(f, b, i, key);
		if (item_by_key(f, a, key) < 0)
			rc = diff_item(d, path, len, f, key, a, -1, b, i);
	}
	return rc;
}

/* Field f, written by a and b where they are not NULL. */
static int diff_field(rt_mdiff *d, char *path, size_t len, const rt_mfield *f, const rt_mctx *a,
		      const rt_mctx *b)
{
	size_t n = path_push(path, len, f->key, 0);
	char ta[RT_MF_TEXT_LEN], tb[RT_MF_TEXT_LEN];
	int rc = RT_OK;
	if (n && !full(d)) {
		if (f->kind == RT_MF_MAP)
			rc = diff_fields(d, path, n, f->sub, a, b);
		else if (f->kind == RT_MF_SEQ)
			rc = diff_seq(d, path, n, f, a, b);
		else
			rc = diff_leaf(d, path, f, a && rt_mfield_text(f, a, ta, sizeof ta) ? ta : NULL,
				       b && rt_mfield_text(f, b, tb, sizeof tb) ? tb : NULL);
	}
	path[len] = '\0';
	return rc;
}

/* Whether c (NULL: absent) writes field f. */
static int writes(const rt_mfield *f, const rt_mctx *c)
{
	char text[RT_MF_TEXT_LEN];
	return c && rt_mfield_text(f, c, text, sizeof text);
}

/* The fields a writes, in the table's order, then those only b writes. */
static int diff_fields(rt_mdiff *d, char *path, size_t len, const rt_mfield *fields,
		       const rt_mctx *a, const rt_mctx *b)
{
	int rc = RT_OK;
	for (const rt_mfield *f = fields; rc == RT_OK && f->key; f++)
		if (!(f->flags & RT_MF_NODIFF) && writes(f, a))
			rc = diff_field(d, path, len, f, a, writes(f, b) ? b : NULL);
	for (const rt_mfield *f = fields; rc == RT_OK && f->key; f++)
		if (!(f->flags & RT_MF_NODIFF) && !writes(f, a) && writes(f, b))
			rc = diff_field(d, path, len, f, NULL, b);
	return rc;
}

int rt_mdiff_compute(const rt_machine *a, const rt_machine *b, rt_mdiff *d)
{
	char path[PATH_MAX_LEN] = "";
	rt_mctx ca = {.m = a, .obj = a, .index = 0, .count = 1};
	rt_mctx cb = {.m = b, .obj = b, .index = 0, .count = 1};
	memset(d, 0, sizeof *d);
	return diff_fields(d, path, 0, rt_machine_fields, &ca, &cb);
}

void rt_mdiff_free(rt_mdiff *d)
{
	rt_mdiff_entry *lists[] = {d->v, d->state};
	size_t counts[] = {d->n, d->nstate};
	for (size_t l = 0; l < RT_COUNT(lists); l++) {
		for (size_t i = 0; i < counts[l]; i++) {
			free(lists[l][i].field);
			free(lists[l][i].before);
			free(lists[l][i].after);
		}
		free(lists[l]);
	}
	memset(d, 0, sizeof *d);
}

const rt_mdiff_entry *rt_mdiff_find(const rt_mdiff *d, const char *field)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].field, field))
			return &d->v[i];
	return NULL;
}

int rt_mdiff_is_hardware(const rt_mdiff_entry *e)
{
	return e->hardware;
}
