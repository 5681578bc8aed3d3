#include "yamlr.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"

void rt_yr_view(rt_yr *r, const char *name, yaml_document_t *doc, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->name = name;
	r->doc = doc;
	r->err = err;
	r->errlen = errlen;
}

/*
 * Where the reader (bytes to characters: invalid UTF-8, a NUL) stopped. It
 * sets no mark, only the byte offset: the line and column are counted in
 * the text the parser reads (a string, as every reader here gives it).
 */
static yaml_mark_t reader_mark(const yaml_parser_t *p)
{
	yaml_mark_t m = {p->problem_offset, 0, 0};
	const unsigned char *text = p->input.string.start, *end = p->input.string.end;
	if (!text || p->problem_offset > (size_t)(end - text))
		return m;
	for (size_t i = 0; i < p->problem_offset; i++) {
		m.column += (text[i] & 0xC0) != 0x80; /* characters, as libyaml's marks count */
		if (text[i] == '\n') {
			m.line++;
			m.column = 0;
		}
	}
	return m;
}

int rt_yr_parse_error(const rt_yr *r, const yaml_parser_t *p)
{
	if (p->error == YAML_MEMORY_ERROR)
		return rt_fail(r->err, r->errlen, RT_ENOMEM, "out of memory");
	if (p->error == YAML_READER_ERROR && p->problem_value >= 0)
		return rt_yr_bad_mark(r, reader_mark(p), "malformed YAML: %s (0x%02X)",
				      p->problem ? p->problem : "unreadable text",
				      (unsigned)p->problem_value);
	if (p->error == YAML_READER_ERROR)
		return rt_yr_bad_mark(r, reader_mark(p), "malformed YAML: %s",
				      p->problem ? p->problem : "unreadable text");
	return rt_yr_bad_mark(r, p->problem_mark, "malformed YAML: %s%s%s",
			      p->context ? p->context : "", p->context ? ": " : "",
			      p->problem ? p->problem : "syntax error");
}

/* What the screen has seen of the document it is in. */
typedef struct screen_state {
	int depth;    /* collections open */
	long nodes;   /* scalars and collections so far */
} screen_state;

/*
 * What one event does to the screen: an alias is refused, a collection
 * nests, a node counts against the document's RT_YR_MAX_NODES.
 */
static int screen_event(const rt_yr *r, const yaml_event_t *e, screen_state *s)
{
	switch (e->type) {
	case YAML_DOCUMENT_START_EVENT:
		s->nodes = 0;
		return RT_OK;
	case YAML_ALIAS_EVENT:
		return rt_yr_bad_mark(r, e->start_mark,
				      "an alias (*%s): rigtune's files never use anchors and "
				      "aliases; write the value out",
				      (const char *)e->data.alias.anchor);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (++s->depth > RT_YR_MAX_DEPTH)
			return rt_yr_bad_mark(r, e->start_mark,
					      "nested deeper than %d levels; rigtune's files "
					      "never are",
					      RT_YR_MAX_DEPTH);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		--s->depth;
		return RT_OK;
	case YAML_SCALAR_EVENT:
		break;
	default:
		return RT_OK;
	}
	if (++s->nodes > RT_YR_MAX_NODES)
		return rt_yr_bad_mark(r, e->start_mark,
				      "more than %d values in one document; rigtune's files never "
				      "have as many",
				      RT_YR_MAX_NODES);
	return RT_OK;
}

int rt_yr_screen(const char *name, const char *text, size_t len, char *err, size_t errlen)
{
	if (len > RT_YR_MAX_BYTES)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s: %zu bytes; rigtune reads YAML of at most %d MiB", name, len,
			       RT_YR_MAX_BYTES >> 20);
	rt_yr r;
	rt_yr_view(&r, name, NULL, err, errlen);
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	screen_state s = {0};
	int rc = RT_OK, end = 0;
	while (rc == RT_OK && !end) {
		yaml_event_t e;
		if (!yaml_parser_parse(&p, &e))
			break; /* the loader says why, in its own words */
		rc = screen_event(&r, &e, &s);
		end = e.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&p);
	return rc;
}

/* After the one document: nothing but the end of the stream. */
static int no_second_document(rt_yr *r, yaml_parser_t *p)
{
	yaml_document_t next;
	if (!yaml_parser_load(p, &next))
		return rt_yr_parse_error(r, p);
	int rc = RT_OK;
	if (yaml_document_get_root_node(&next))
		rc = rt_yr_bad_mark(r, next.start_mark, "a second document; expected one");
	yaml_document_delete(&next);
	return rc;
}

int rt_yr_load(rt_yr *r, const char *name, const char *text, size_t len, char *err,
	       size_t errlen)
{
	rt_yr_view(r, name, NULL, err, errlen);
	RT_TRY(rt_yr_screen(name, text, len, err, errlen));
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = RT_OK;
	if (!yaml_parser_load(&p, &r->own)) {
		rc = rt_yr_parse_error(r, &p);
	} else {
		r->owned = 1;
		r->doc = &r->own;
		if (!yaml_document_get_root_node(&r->own))
			rc = rt_yr_bad(r, NULL, "empty: no YAML document");
		else
			rc = no_second_document(r, &p);
	}
	yaml_parser_delete(&p);
	if (rc)
		rt_yr_free(r);
	return rc;
}

int rt_yr_load_file(rt_yr *r, const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	rt_yr_view(r, path, NULL, err, errlen);
	int rc = rt_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = rt_yr_load(r, path, text, len, err, errlen);
	free(text);
	return rc;
}

void rt_yr_free(rt_yr *r)
{
	if (r->owned)
		yaml_document_delete(&r->own);
	r->owned = 0;
	r->doc = NULL;
}

rt_yr rt_yr_with_err(const rt_yr *r, char *err, size_t errlen)
{
	rt_yr v;
	rt_yr_view(&v, r->name, r->doc, err, errlen);
	return v;
}

const rt_ynode *rt_yr_root(const rt_yr *r)
{
	return r->doc ? yaml_document_get_root_node(r->doc) : NULL;
}

static int vbad(const rt_yr *r, yaml_mark_t mark, const char *fmt, va_list ap)
{
	char msg[RT_ERRLEN];
	vsnprintf(msg, sizeof msg, fmt, ap);
	return rt_fail(r->err, r->errlen, RT_EINVAL, "%s:%zu:%zu: %s", r->name, mark.line + 1,
		       mark.column + 1, msg);
}

int rt_yr_bad_mark(const rt_yr *r, yaml_mark_t mark, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vbad(r, mark, fmt, ap);
	va_end(ap);
	return rc;
}

int rt_yr_bad(const rt_yr *r, const rt_ynode *n, const char *fmt, ...)
{
	yaml_mark_t mark = {0, 0, 0};
	if (n)
		mark = n->start_mark;
	va_list ap;
	va_start(ap, fmt);
	int rc = vbad(r, mark, fmt, ap);
	va_end(ap);
	return rc;
}

const char *rt_yr_scalar(const rt_ynode *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int rt_yr_plain(const rt_ynode *n)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

int rt_yr_is_null(const rt_ynode *n)
{
	const char *s = rt_yr_scalar(n);
	return !n || (rt_yr_plain(n) && (!*s || !strcmp(s, "~") || !strcmp(s, "null")));
}

int rt_yr_npairs(const rt_ynode *map)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return 0;
	return (int)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

void rt_yr_pair(const rt_yr *r, const rt_ynode *map, int i, const rt_ynode **key,
		const rt_ynode **value)
{
	const yaml_node_pair_t *p = &map->data.mapping.pairs.start[i];
	*key = yaml_document_get_node(r->doc, p->key);
	*value = yaml_document_get_node(r->doc, p->value);
}

int rt_yr_nitems(const rt_ynode *seq)
{
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return 0;
	return (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

const rt_ynode *rt_yr_item(const rt_yr *r, const rt_ynode *seq, int i)
{
	return yaml_document_get_node(r->doc, seq->data.sequence.items.start[i]);
}

const rt_ynode *rt_yr_get(const rt_yr *r, const rt_ynode *map, const char *key)
{
	for (int i = 0; i < rt_yr_npairs(map); i++) {
		const rt_ynode *k, *v;
		rt_yr_pair(r, map, i, &k, &v);
		const char *s = rt_yr_scalar(k);
		if (s && !strcmp(s, key))
			return v;
	}
	return NULL;
}

const rt_ynode *rt_yr_at(const rt_yr *r, const rt_ynode *n, const char *path)
{
	char key[128];
	while (n && *path) {
		size_t len = strcspn(path, ".");
		if (len >= sizeof key)
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		n = rt_yr_get(r, n, key);
		path += len + (path[len] == '.');
	}
	return n;
}

static const char *const type_names[] = {
	[YAML_NO_NODE] = "nothing",
	[YAML_SCALAR_NODE] = "a scalar",
	[YAML_SEQUENCE_NODE] = "a sequence",
	[YAML_MAPPING_NODE] = "a mapping",
};

int rt_yr_expect(const rt_yr *r, const rt_ynode *n, yaml_node_type_t type, const char *what)
{
	if (n && n->type == type)
		return RT_OK;
	return rt_yr_bad(r, n, "%s: expected %s", what, type_names[type]);
}

int rt_yr_only_keys(const rt_yr *r, const rt_ynode *map, const char *what,
		    const char *const *allowed, size_t n)
{
	for (int i = 0; i < rt_yr_npairs(map); i++) {
		const rt_ynode *k, *v;
		rt_yr_pair(r, map, i, &k, &v);
		const char *s = rt_yr_scalar(k);
		if (!s)
			return rt_yr_bad(r, k, "%s: a key must be a plain name", what);
		size_t j = 0;
		while (j < n && strcmp(allowed[j], s))
			j++;
		if (j == n)
			return rt_yr_bad(r, k, "%s: unknown key '%s'", what, s);
	}
	return RT_OK;
}

int rt_yr_need(const rt_yr *r, const rt_ynode *map, const char *key, yaml_node_type_t type,
	       const rt_ynode **out)
{
	*out = rt_yr_get(r, map, key);
	if (!*out)
		return rt_yr_bad(r, map, "missing key '%s'", key);
	return rt_yr_expect(r, *out, type, key);
}

int rt_yr_need_str(const rt_yr *r, const rt_ynode *map, const char *key, const char **s)
{
	const rt_ynode *n;
	int rc = rt_yr_need(r, map, key, YAML_SCALAR_NODE, &n);
	if (rc == RT_OK)
		*s = rt_yr_scalar(n);
	return rc;
}

int rt_yr_number(const rt_yr *r, const rt_ynode *n, const char *what, double *v)
{
	const char *s = rt_yr_plain(n) ? rt_yr_scalar(n) : NULL;
	if (s && !strcmp(s, ".nan"))
		*v = NAN;
	else if (s && (!strcmp(s, ".inf") || !strcmp(s, "-.inf")))
		*v = s[0] == '-' ? -INFINITY : INFINITY;
	else if (!s || rt_parse_double(s, v))
		return rt_yr_bad(r, n, "%s: expected a number", what);
	return RT_OK;
}

int rt_yr_need_num(const rt_yr *r, const rt_ynode *map, const char *key, double *v)
{
	const rt_ynode *n = rt_yr_get(r, map, key);
	if (!n)
		return rt_yr_bad(r, map, "missing key '%s'", key);
	return rt_yr_number(r, n, key, v);
}

int rt_yr_integer(const rt_yr *r, const rt_ynode *n, const char *what, long lo, long hi,
		  long *v)
{
	const char *s = rt_yr_plain(n) ? rt_yr_scalar(n) : NULL;
	if (!s || rt_parse_long(s, v))
		return rt_yr_bad(r, n, "%s: expected a whole number", what);
	if (*v < lo || *v > hi)
		return rt_yr_bad(r, n, "%s: %ld is out of range [%ld, %ld]", what, *v, lo, hi);
	return RT_OK;
}

int rt_yr_need_int(const rt_yr *r, const rt_ynode *map, const char *key, long lo, long hi,
		   long *v)
{
	const rt_ynode *n = rt_yr_get(r, map, key);
	if (!n)
		return rt_yr_bad(r, map, "missing key '%s'", key);
	return rt_yr_integer(r, n, key, lo, hi, v);
}

int rt_yr_need_bool(const rt_yr *r, const rt_ynode *map, const char *key, int *v)
{
	const char *s;
	int rc = rt_yr_need_str(r, map, key, &s);
	if (rc)
		return rc;
	if (!rt_yr_plain(rt_yr_get(r, map, key)) || (strcmp(s, "true") && strcmp(s, "false")))
		return rt_yr_bad(r, rt_yr_get(r, map, key), "%s: expected true or false", key);
	*v = s[0] == 't';
	return RT_OK;
}

int rt_yr_need_nums(const rt_yr *r, const rt_ynode *map, const char *key, double **v, int *n)
{
	const rt_ynode *seq;
	*v = NULL;
	*n = 0;
	int rc = rt_yr_need(r, map, key, YAML_SEQUENCE_NODE, &seq);
	int count = rt_yr_nitems(seq);
	if (rc || count == 0)
		return rc;
	double *out = malloc(sizeof *out * (size_t)count);
	if (!out)
		return rt_fail(r->err, r->errlen, RT_ENOMEM, "out of memory");
	for (int i = 0; i < count && rc == RT_OK; i++)
		rc = rt_yr_number(r, rt_yr_item(r, seq, i), key, &out[i]);
	if (rc) {
		free(out);
		return rc;
	}
	*v = out;
	*n = count;
	return RT_OK;
}

int rt_yr_need_pair(const rt_yr *r, const rt_ynode *map, const char *key, double v[2])
{
	double *nums;
	int n, rc = rt_yr_need_nums(r, map, key, &nums, &n);
	if (rc == RT_OK && n != 2)
		rc = rt_yr_bad(r, rt_yr_get(r, map, key), "%s: expected [low, high]", key);
	if (rc == RT_OK)
		memcpy(v, nums, 2 * sizeof *v);
	free(nums);
	return rc;
}

/* The documents rigtune writes, by the key that says which one a document is. */
static const struct {
	const char *key, *name;
} kinds[] = {
	{"rigtune", "a configuration"},
	{"rigtune_journal", "a results journal"},
	{"rigtune_check", "a check result"},
};

int rt_yr_need_schema(const rt_yr *r, const rt_ynode *root, const char *key, long version,
		      const char *what, const char *command)
{
	if (!rt_yr_get(r, root, key)) {
		const char *is = "YAML of another kind";
		for (size_t i = 0; i < RT_COUNT(kinds); i++)
			if (rt_yr_get(r, root, kinds[i].key))
				is = kinds[i].name;
		return rt_yr_bad(r, root,
				 "not %s (it is %s; %s is what `%s` writes, with `%s: %ld`)", what,
				 is, what, command, key, version);
	}
	long schema;
	int rc = rt_yr_need_int(r, root, key, 0, 1000000, &schema);
	if (rc == RT_OK && schema != version)
		rc = rt_yr_bad(r, rt_yr_get(r, root, key),
			       "%s: schema %ld; this rigtune reads schema %ld", key, schema, version);
	return rc;
}

int rt_yr_in_range(const rt_yr *r, const rt_ynode *n, const char *what, double lo, double hi,
		   double v)
{
	if (isfinite(v) && v >= lo && v <= hi)
		return RT_OK;
	return rt_yr_bad(r, n, "%s: %g is out of range [%g, %g]", what, v, lo, hi);
}

int rt_yr_number_in(const rt_yr *r, const rt_ynode *n, const char *what, double lo, double hi,
		    double *v)
{
	RT_TRY(rt_yr_number(r, n, what, v));
	return rt_yr_in_range(r, n, what, lo, hi, *v);
}

int rt_yr_need_num_in(const rt_yr *r, const rt_ynode *map, const char *key, double lo, double hi,
		      double *v)
{
	RT_TRY(rt_yr_need_num(r, map, key, v));
	return rt_yr_in_range(r, rt_yr_get(r, map, key), key, lo, hi, *v);
}

int rt_yr_need_nums_in(const rt_yr *r, const rt_ynode *map, const char *key, double lo,
		       double hi, double **v, int *n)
{
	RT_TRY(rt_yr_need_nums(r, map, key, v, n));
	const rt_ynode *seq = rt_yr_get(r, map, key);
	for (int i = 0; i < *n; i++)
		if (rt_yr_in_range(r, rt_yr_item(r, seq, i), key, lo, hi, (*v)[i])) {
			free(*v);
			*v = NULL;
			*n = 0;
			return RT_EINVAL;
		}
	return RT_OK;
}

int rt_yr_need_pair_in(const rt_yr *r, const rt_ynode *map, const char *key, double lo,
		       double hi, double v[2])
{
	RT_TRY(rt_yr_need_pair(r, map, key, v));
	const rt_ynode *seq = rt_yr_get(r, map, key);
	for (int i = 0; i < 2; i++)
		RT_TRY(rt_yr_in_range(r, rt_yr_item(r, seq, i), key, lo, hi, v[i]));
	return RT_OK;
}
