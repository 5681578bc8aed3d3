/*
 * yamlw.h: a small layer over libyaml's event emitter that writes YAML into
 * memory. Errors are sticky: after the first failure every call does nothing
 * and rt_yw_finish() reports it, so callers emit a whole document and check
 * once. Block style unless a begin call asks for flow ({a: 1} / [1, 2]).
 *
 *   rt_yw w; rt_yw_init(&w);
 *   rt_yw_map(&w, 0); rt_yw_kint(&w, "batch", 64); rt_yw_end_map(&w);
 *   char *text; size_t len; if (rt_yw_finish(&w, &text, &len, err, n)) ...
 */
#ifndef RT_YAMLW_H
#define RT_YAMLW_H

#include <stddef.h>
#include <yaml.h>

typedef struct rt_yw {
	yaml_emitter_t em;
	int failed;
	char not_utf8[48]; /* the start of a text that was not UTF-8, printable; "" */
	char *buf;
	size_t len, cap;
} rt_yw;

int rt_yw_init(rt_yw *w); /* starts the stream and the document */
/*
 * rt_yw_init, then the top mapping of one of rigtune's documents opened with
 * "KEY: VERSION" (its schema) and "generated:" (the UTC time now). RT_OK, or
 * the error with its sentence in err.
 */
int rt_yw_start_doc(rt_yw *w, const char *key, int version, char *err, size_t errlen);
/* The UTC time now as "generated:" writes it (2026-11-26T14:01:00Z); len >= 21. */
void rt_yw_utc_now(char *buf, size_t len);
void rt_yw_map(rt_yw *w, int flow);
void rt_yw_end_map(rt_yw *w);
void rt_yw_seq(rt_yw *w, int flow);
void rt_yw_end_seq(rt_yw *w);
void rt_yw_str(rt_yw *w, const char *s);
/*
 * A scalar's text as it is: plain (1) for a number or keyword made by one of
 * the writers below (rt_yw_num_text), else as rt_yw_str writes it.
 */
void rt_yw_text(rt_yw *w, const char *s, int plain);
void rt_yw_int(rt_yw *w, long long v);
/* A number with up to `digits` significant digits, plain (no exponent if short). */
void rt_yw_num(rt_yw *w, double v, int digits);
/* The text rt_yw_num writes for v ("15.63", ".nan"); len >= 48. */
void rt_yw_num_text(double v, int digits, char *buf, size_t len);
void rt_yw_bool(rt_yw *w, int v);
void rt_yw_null(rt_yw *w);
/* key: value shorthands for maps. */
void rt_yw_kstr(rt_yw *w, const char *k, const char *s);
void rt_yw_kint(rt_yw *w, const char *k, long long v);
void rt_yw_knum(rt_yw *w, const char *k, double v, int digits);
void rt_yw_kbool(rt_yw *w, const char *k, int v);
/* Sequence of numbers, in flow style: key: [1.5, 2.5] */
void rt_yw_knums(rt_yw *w, const char *k, const double *v, size_t n, int digits);

/*
 * Node n of a parsed document (yamlr.h's reader) written again as it was
 * read: mappings and sequences in their style, each scalar plain where it
 * was plain (a number stays a number) and quoted where it was quoted (a '2'
 * stays a string). For carrying a part of a document rigtune wrote before
 * into a new one as data, never as text. The reader's limits (depth, no
 * aliases) bound the walk.
 */
void rt_yw_node(rt_yw *w, yaml_document_t *doc, const yaml_node_t *n);

/*
 * Ends the document and the stream. On success *text (malloc'd, caller frees,
 * NUL-terminated) and *len get the YAML; on failure returns RT_ERUNTIME, or
 * RT_EINVAL "cannot write 'TEXT...' as YAML: it is not UTF-8" when a text
 * was not (a backend name from a CSV: YAML is UTF-8, libyaml refuses it).
 * Either way the emitter is released.
 */
int rt_yw_finish(rt_yw *w, char **text, size_t *len, char *err, size_t errlen);
/* Releases everything without producing text (for error paths). */
void rt_yw_discard(rt_yw *w);

#endif
