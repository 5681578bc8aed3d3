#include "yamlw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../common/rt.h"

static int append(void *data, unsigned char *bytes, size_t size)
{
	rt_yw *w = data;
	if (w->len + size + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->len + size + 1)
			cap *= 2;
		char *b = realloc(w->buf, cap);
		if (!b)
			return 0;
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, bytes, size);
	w->len += size;
	w->buf[w->len] = '\0';
	return 1;
}

/*
 * Emits an initialized event; libyaml deletes it whether or not it
 * succeeds. After a failure it is deleted here: it was leaked (the fuzzer
 * found it once a text that is not UTF-8 made failures ordinary).
 */
static void emit(rt_yw *w, yaml_event_t *ev, int init_ok)
{
	if (w->failed && init_ok)
		yaml_event_delete(ev);
	if (w->failed || !init_ok || !yaml_emitter_emit(&w->em, ev))
		w->failed = 1;
}

int rt_yw_init(rt_yw *w)
{
	memset(w, 0, sizeof *w);
	if (!yaml_emitter_initialize(&w->em))
		return RT_ENOMEM;
	yaml_emitter_set_output(&w->em, append, w);
	yaml_emitter_set_unicode(&w->em, 1);
	yaml_emitter_set_width(&w->em, 100);
	yaml_event_t ev;
	emit(w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
	return w->failed ? RT_ERUNTIME : RT_OK;
}

void rt_yw_utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

int rt_yw_start_doc(rt_yw *w, const char *key, int version, char *err, size_t errlen)
{
	int rc = rt_yw_init(w);
	if (rc)
		return rt_fail(err, errlen, rc, "cannot start the YAML emitter");
	char when[32];
	rt_yw_utc_now(when, sizeof when);
	rt_yw_map(w, 0);
	rt_yw_kint(w, key, version);
	rt_yw_kstr(w, "generated", when);
	return RT_OK;
}

void rt_yw_map(rt_yw *w, int flow)
{
	yaml_event_t ev;
	emit(w, &ev, yaml_mapping_start_event_initialize(
			     &ev, NULL, NULL, 1,
			     flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

void rt_yw_end_map(rt_yw *w)
{
	yaml_event_t ev;
	emit(w, &ev, yaml_mapping_end_event_initialize(&ev));
}

void rt_yw_seq(rt_yw *w, int flow)
{
	yaml_event_t ev;
	emit(w, &ev, yaml_sequence_start_event_initialize(
			     &ev, NULL, NULL, 1,
			     flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

void rt_yw_end_seq(rt_yw *w)
{
	yaml_event_t ev;
	emit(w, &ev, yaml_sequence_end_event_initialize(&ev));
}

/*
 * Whether a plain scalar s would load as something other than a string in
 * YAML 1.1 (PyYAML) or 1.2: a number ("2", "0123", ".5", "1e3"), a boolean
 * (yes, no, on, off, true, false; not y and n, which PyYAML reads as
 * strings), null ("", "~", "null").
 */
static int resolves_to_non_string(const char *s)
{
	static const char *const words[] = {"yes", "no", "true", "false",
					    "on", "off", "null", "~"};
	if (!*s)
		return 1;
	for (size_t i = 0; i < RT_COUNT(words); i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	char *end;
	strtod(s, &end); /* decimal, 0x hex, exponents */
	/* YAML 1.1 also reads 1_000 and 1:20 (base 60) as numbers */
	return *end == '\0' || (strspn(s, "0123456789_:.+-") == strlen(s) && strpbrk(s, "0123456789"));
}

/*
 * plain: 1 for numbers and keywords the caller means as such; 0 for text,
 * which is quoted whenever it would otherwise load as a number, a boolean
 * or null (an env var "2", a fingerprint "0123abcd...", a host "on").
 */
static void scalar(rt_yw *w, const char *s, int plain)
{
	yaml_scalar_style_t style = plain			     ? YAML_PLAIN_SCALAR_STYLE
				    : resolves_to_non_string(s) ? YAML_SINGLE_QUOTED_SCALAR_STYLE
								: YAML_ANY_SCALAR_STYLE;
	if (!w->failed && !rt_utf8_valid(s, strlen(s))) {
		rt_printable(w->not_utf8, sizeof w->not_utf8, s);
		w->failed = 1;
	}
	yaml_event_t ev;
	emit(w, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
						  (int)strlen(s), 1, 1, style));
}

void rt_yw_str(rt_yw *w, const char *s)
{
	scalar(w, s ? s : "", 0);
}

void rt_yw_int(rt_yw *w, long long v)
{
	char b[32];
	snprintf(b, sizeof b, "%lld", v);
	scalar(w, b, 1);
}

void rt_yw_text(rt_yw *w, const char *s, int plain)
{
	scalar(w, s ? s : "", plain);
}

void rt_yw_num_text(double v, int digits, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, ".nan");
	else if (isinf(v))
		snprintf(buf, len, v > 0 ? ".inf" : "-.inf");
	else
		snprintf(buf, len, "%.*g", digits, v);
}

void rt_yw_num(rt_yw *w, double v, int digits)
{
	char b[48];
	rt_yw_num_text(v, digits, b, sizeof b);
	scalar(w, b, 1);
}

void rt_yw_bool(rt_yw *w, int v)
{
	scalar(w, v ? "true" : "false", 1);
}

void rt_yw_null(rt_yw *w)
{
	scalar(w, "null", 1);
}

void rt_yw_node(rt_yw *w, yaml_document_t *doc, const yaml_node_t *n)
{
	if (!n) {
		rt_yw_null(w);
		return;
	}
	if (n->type == YAML_SCALAR_NODE) {
		scalar(w, (const char *)n->data.scalar.value,
		       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE);
	} else if (n->type == YAML_SEQUENCE_NODE) {
		rt_yw_seq(w, n->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE);
		for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
			rt_yw_node(w, doc, yaml_document_get_node(doc, *i));
		rt_yw_end_seq(w);
	} else if (n->type == YAML_MAPPING_NODE) {
		rt_yw_map(w, n->data.mapping.style == YAML_FLOW_MAPPING_STYLE);
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			rt_yw_node(w, doc, yaml_document_get_node(doc, p->key));
			rt_yw_node(w, doc, yaml_document_get_node(doc, p->value));
		}
		rt_yw_end_map(w);
	} else {
		rt_yw_null(w);
	}
}

void rt_yw_kstr(rt_yw *w, const char *k, const char *s)
{
	rt_yw_str(w, k);
	rt_yw_str(w, s);
}

void rt_yw_kint(rt_yw *w, const char *k, long long v)
{
	rt_yw_str(w, k);
	rt_yw_int(w, v);
}

void rt_yw_knum(rt_yw *w, const char *k, double v, int digits)
{
	rt_yw_str(w, k);
	rt_yw_num(w, v, digits);
}

void rt_yw_kbool(rt_yw *w, const char *k, int v)
{
	rt_yw_str(w, k);
	rt_yw_bool(w, v);
}

void rt_yw_knums(rt_yw *w, const char *k, const double *v, size_t n, int digits)
{
	rt_yw_str(w, k);
	rt_yw_seq(w, 1);
	for (size_t i = 0; i < n; i++)
		rt_yw_num(w, v[i], digits);
	rt_yw_end_seq(w);
}

int rt_yw_finish(rt_yw *w, char **text, size_t *len, char *err, size_t errlen)
{
	yaml_event_t ev;
	emit(w, &ev, yaml_document_end_event_initialize(&ev, 1));
	emit(w, &ev, yaml_stream_end_event_initialize(&ev));
	if (!w->failed && !yaml_emitter_flush(&w->em))
		w->failed = 1;
	int failed = w->failed ? (w->not_utf8[0] ? RT_EINVAL : RT_ERUNTIME) : RT_OK;
	const char *problem = w->em.problem;
	if (failed == RT_EINVAL)
		rt_fail(err, errlen, failed, "cannot write '%s' as YAML: it is not UTF-8",
			w->not_utf8);
	else if (failed)
		rt_fail(err, errlen, failed, "YAML emitter: %s",
			problem ? problem : "out of memory");
	yaml_emitter_delete(&w->em);
	if (failed) {
		free(w->buf);
		return failed;
	}
	*text = w->buf ? w->buf : strdup("");
	*len = w->len;
	return *text ? RT_OK : RT_ENOMEM;
}

void rt_yw_discard(rt_yw *w)
{
	yaml_emitter_delete(&w->em);
	free(w->buf);
	w->buf = NULL;
}
