/*
 * yaml_lookup.h (tests only): parse YAML text into a libyaml document and
 * look up scalars by a path such as "machine/cpu/cores" or "samples/3".
 */
#ifndef RT_TEST_YAML_LOOKUP_H
#define RT_TEST_YAML_LOOKUP_H

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static inline int yl_load(yaml_document_t *doc, const char *text)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return -1;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	int ok = yaml_parser_load(&p, doc);
	yaml_parser_delete(&p);
	return ok && yaml_document_get_root_node(doc) ? 0 : -1;
}

static inline yaml_node_t *yl_child(yaml_document_t *doc, yaml_node_t *n, const char *key)
{
	if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
				return yaml_document_get_node(doc, p->value);
		}
	} else if (n->type == YAML_SEQUENCE_NODE) {
		long i = strtol(key, NULL, 10);
		long len = n->data.sequence.items.top - n->data.sequence.items.start;
		if (i >= 0 && i < len)
			return yaml_document_get_node(doc, n->data.sequence.items.start[i]);
	}
	return NULL;
}

/* The node at a slash-separated path, or NULL. */
static inline yaml_node_t *yl_node(yaml_document_t *doc, const char *path)
{
	char buf[256];
	strncpy(buf, path, sizeof buf - 1);
	buf[sizeof buf - 1] = '\0';
	yaml_node_t *n = yaml_document_get_root_node(doc);
	char *save = NULL;
	for (char *tok = strtok_r(buf, "/", &save); tok && n; tok = strtok_r(NULL, "/", &save))
		n = yl_child(doc, n, tok);
	return n;
}

/* The scalar at path, or NULL. */
static inline const char *yl_str(yaml_document_t *doc, const char *path)
{
	yaml_node_t *n = yl_node(doc, path);
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static inline double yl_num(yaml_document_t *doc, const char *path)
{
	const char *s = yl_str(doc, path);
	return s ? strtod(s, NULL) : -12345.0;
}

static inline long yl_len(yaml_document_t *doc, const char *path)
{
	yaml_node_t *n = yl_node(doc, path);
	return n && n->type == YAML_SEQUENCE_NODE ? n->data.sequence.items.top - n->data.sequence.items.start : -1;
}

#endif
