#include "yamlw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Emits an initialized event; libyaml deletes it whether or not it succeeds. */
static void emit(rt_yw *w, yaml_event_t *ev, int init_ok)
{
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

/* plain: 1 lets libyaml choose plain style (numbers), 0 quotes when needed. */
static void scalar(rt_yw *w, const char *s, int plain)
{
	yaml_event_t ev;
	emit(w, &ev, yaml_scalar_event_initialize(
			     &ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
			     plain ? YAML_PLAIN_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE));
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

void rt_yw_num(rt_yw *w, double v, int digits)
{
	char b[48];
	if (isnan(v))
		snprintf(b, sizeof b, ".nan");
	else if (isinf(v))
		snprintf(b, sizeof b, v > 0 ? ".inf" : "-.inf");
	else
		snprintf(b, sizeof b, "%.*g", digits, v);
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
	int failed = w->failed;
	const char *problem = w->em.problem;
	if (failed)
		rt_fail(err, errlen, RT_ERUNTIME, "YAML emitter: %s",
			problem ? problem : "out of memory");
	yaml_emitter_delete(&w->em);
	if (failed) {
		free(w->buf);
		return RT_ERUNTIME;
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

void rt_yw_node(rt_yw *w, yaml_document_t *doc, yaml_node_t *node)
{
	switch (node->type) {
	case YAML_SCALAR_NODE:
		scalar(w, (const char *)node->data.scalar.value,
		       node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE);
		break;
	case YAML_SEQUENCE_NODE:
		rt_yw_seq(w, node->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE);
		for (yaml_node_item_t *i = node->data.sequence.items.start;
		     i < node->data.sequence.items.top; i++)
			rt_yw_node(w, doc, yaml_document_get_node(doc, *i));
		rt_yw_end_seq(w);
		break;
	case YAML_MAPPING_NODE:
		rt_yw_map(w, node->data.mapping.style == YAML_FLOW_MAPPING_STYLE);
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			rt_yw_node(w, doc, yaml_document_get_node(doc, p->key));
			rt_yw_node(w, doc, yaml_document_get_node(doc, p->value));
		}
		rt_yw_end_map(w);
		break;
	default:
		rt_yw_null(w);
	}
}
