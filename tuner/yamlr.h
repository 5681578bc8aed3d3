/*
 * yamlr.h: reading YAML with libyaml's document API, every problem reported
 * as "NAME:LINE:COLUMN: problem" (RT_EINVAL) so that a user can find it.
 *
 * A reader is a view of one parsed document. rt_yr_load() parses a text that
 * holds one document and owns it; a caller that walks a stream of documents
 * itself (the journal) wraps each parsed document with rt_yr_view(). Nodes
 * stay valid until rt_yr_free() (or until the viewed document is deleted).
 *
 *   rt_yr r;
 *   if (rt_yr_load_file(&r, path, err, n)) ...;
 *   const char *host;
 *   rc = rt_yr_need_str(&r, rt_yr_root(&r), "host", &host);
 *   rt_yr_free(&r);
 *
 * Getters that start with need_ fail when the key is missing or has another
 * type; rt_yr_get() and rt_yr_at() return NULL instead, for optional keys.
 */
#ifndef RT_YAMLR_H
#define RT_YAMLR_H

#include <stddef.h>
#include <yaml.h>

#include "../common/rt.h"

typedef yaml_node_t rt_ynode;

typedef struct rt_yr {
	const char *name;      /* what messages call the text: a file name */
	yaml_document_t *doc;
	char *err;
	size_t errlen;
	yaml_document_t own;   /* the document rt_yr_load parsed */
	int owned;
} rt_yr;

/*
 * What a reader takes in. No file rigtune reads or writes comes near these:
 * they stop a crafted one from taking minutes or gigabytes (a `[[[...`
 * 200,000 deep, an alias that expands a few KB into millions of nodes).
 */
#define RT_YR_MAX_BYTES RT_READ_MAX_BYTES
#define RT_YR_MAX_DEPTH 64
/*
 * Values (scalars and collections) in one document. A loaded node costs
 * libyaml about 200 bytes however short its text: an 8 MiB flow sequence
 * `[1,1,1,...` took 695 MB. This many cost about 50 MB; a journal's trial
 * holds at most RT_CMD_MAX_SAMPLES samples, a configuration a few thousand
 * values.
 */
#define RT_YR_MAX_NODES (1 << 18)

/*
 * Screens text before it is loaded: RT_EINVAL "NAME: N bytes..." over
 * RT_YR_MAX_BYTES, "NAME:L:C: an alias (*x)..." (no format of rigtune's
 * uses anchors and aliases; a cyclic one would hang a walk, nested ones
 * explode it), "NAME:L:C: nested deeper than..." past RT_YR_MAX_DEPTH, "NAME:L:C:
 * more than N values..." past RT_YR_MAX_NODES in a document. Stops
 * at the first problem without a full parse; malformed YAML passes here,
 * for the loader to report as it does (the journal keeps a torn last
 * document). rt_yr_load calls it; a caller that loads a stream itself calls
 * it first.
 */
int rt_yr_screen(const char *name, const char *text, size_t len, char *err, size_t errlen);

/* A reader over doc, which the caller keeps and deletes. */
void rt_yr_view(rt_yr *r, const char *name, yaml_document_t *doc, char *err, size_t errlen);

/*
 * Parses text (len bytes) as one YAML document, screened (rt_yr_screen).
 * RT_EINVAL "NAME:L:C: problem" for malformed YAML (invalid UTF-8 or a NUL
 * at the line and column of its byte), an empty text or a second document;
 * RT_ENOMEM. name is
 * kept by pointer: it must outlive the reader.
 */
int rt_yr_load(rt_yr *r, const char *name, const char *text, size_t len, char *err,
	       size_t errlen);
/* The same for a file; RT_EIO "cannot read PATH: why" when it cannot be read. */
int rt_yr_load_file(rt_yr *r, const char *path, char *err, size_t errlen);
void rt_yr_free(rt_yr *r); /* accepts a reader that failed to load */

/*
 * A view of r's document whose messages go to err (for a reader kept past
 * the call that loaded it, whose own buffer is gone); never freed.
 */
rt_yr rt_yr_with_err(const rt_yr *r, char *err, size_t errlen);

const rt_ynode *rt_yr_root(const rt_yr *r);

/* RT_EINVAL with "NAME:LINE:COLUMN: " and the message, at node n (NULL: 1:1). */
int rt_yr_bad(const rt_yr *r, const rt_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rt_yr_bad_mark(const rt_yr *r, yaml_mark_t mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Why parser p stopped, in its own words at the place it stopped:
 * RT_EINVAL "NAME:LINE:COLUMN: malformed YAML: ...", or RT_ENOMEM. For a
 * caller that loads documents itself (rt_yr_view).
 */
int rt_yr_parse_error(const rt_yr *r, const yaml_parser_t *p);

/* The text of a scalar node, NULL for any other node (or NULL). */
const char *rt_yr_scalar(const rt_ynode *n);
/* Whether n is a scalar written without quotes (a number, true, null...). */
int rt_yr_plain(const rt_ynode *n);
/* Whether n is null: absent, `~`, `null` or nothing after the colon. */
int rt_yr_is_null(const rt_ynode *n);

/* Mappings and sequences; counts are 0 for a node of another type. */
int rt_yr_npairs(const rt_ynode *map);
void rt_yr_pair(const rt_yr *r, const rt_ynode *map, int i, const rt_ynode **key,
		const rt_ynode **value);
int rt_yr_nitems(const rt_ynode *seq);
const rt_ynode *rt_yr_item(const rt_yr *r, const rt_ynode *seq, int i);

/* The value of key in map, NULL when map is not a mapping or has no such key. */
const rt_ynode *rt_yr_get(const rt_yr *r, const rt_ynode *map, const char *key);
/*
 * The node at a dotted path of mapping keys from n ("search.journal"), NULL
 * when any step is missing.
 */
const rt_ynode *rt_yr_at(const rt_yr *r, const rt_ynode *n, const char *path);

/* RT_EINVAL "WHAT: expected a mapping" unless n has the type. */
int rt_yr_expect(const rt_yr *r, const rt_ynode *n, yaml_node_type_t type, const char *what);
/* Every key of map is a plain scalar among the n names of allowed. */
int rt_yr_only_keys(const rt_yr *r, const rt_ynode *map, const char *what,
		    const char *const *allowed, size_t n);

/* The value of key, which must be there and of the given type. */
int rt_yr_need(const rt_yr *r, const rt_ynode *map, const char *key, yaml_node_type_t type,
	       const rt_ynode **out);
int rt_yr_need_str(const rt_yr *r, const rt_ynode *map, const char *key, const char **s);

/* A number as rt_yw_num writes it (.nan, .inf and -.inf included). */
int rt_yr_number(const rt_yr *r, const rt_ynode *n, const char *what, double *v);
int rt_yr_need_num(const rt_yr *r, const rt_ynode *map, const char *key, double *v);
/* A whole number from lo to hi. */
int rt_yr_integer(const rt_yr *r, const rt_ynode *n, const char *what, long lo, long hi,
		  long *v);
int rt_yr_need_int(const rt_yr *r, const rt_ynode *map, const char *key, long lo, long hi,
		   long *v);
/* true or false. */
int rt_yr_need_bool(const rt_yr *r, const rt_ynode *map, const char *key, int *v);
/* The numbers of a sequence into a new array (*v NULL when it is empty). */
int rt_yr_need_nums(const rt_yr *r, const rt_ynode *map, const char *key, double **v, int *n);
/*
 * The reader rule (docs/security.md): a number a loop, an allocation, a
 * time budget or a drawing's axis depends on is finite and from lo to hi
 * where it is read. .nan, .inf and anything outside are RT_EINVAL
 * "NAME:L:C: WHAT: V is out of range [LO, HI]" at its node.
 */
int rt_yr_in_range(const rt_yr *r, const rt_ynode *n, const char *what, double lo, double hi,
		   double v);
/*
 * Bounds for what a measurement may say, in any unit (a throughput, a
 * time, a ratio): far beyond anything measured, small enough that a chart's
 * axis over it has a few dozen decades, not thousands or an infinity.
 */
#define RT_YR_MAX_MEASURE 1e18
/* rt_yr_number, finite and from lo to hi. */
int rt_yr_number_in(const rt_yr *r, const rt_ynode *n, const char *what, double lo, double hi,
		    double *v);
/* rt_yr_need_num, finite and from lo to hi. */
int rt_yr_need_num_in(const rt_yr *r, const rt_ynode *map, const char *key, double lo, double hi,
		      double *v);
/* rt_yr_need_nums, each number finite and from lo to hi. */
int rt_yr_need_nums_in(const rt_yr *r, const rt_ynode *map, const char *key, double lo,
		       double hi, double **v, int *n);
/*
 * The kind and version of a rigtune document, from its root: a mapping with
 * `key: version` (rigtune: 1 for a configuration, rigtune_check: 1 for a
 * check's result). A document of another kind is RT_EINVAL "not WHAT (it is
 * a results journal; WHAT is what `COMMAND` writes, with `KEY: VERSION`)",
 * another version "KEY: schema N; this rigtune reads schema VERSION".
 */
int rt_yr_need_schema(const rt_yr *r, const rt_ynode *root, const char *key, long version,
		      const char *what, const char *command);
/* Exactly two numbers, [low, high] (a ci95, a range), into v. */
int rt_yr_need_pair(const rt_yr *r, const rt_ynode *map, const char *key, double v[2]);
/* rt_yr_need_pair, both finite and from lo to hi. */
int rt_yr_need_pair_in(const rt_yr *r, const rt_ynode *map, const char *key, double lo,
		       double hi, double v[2]);

#endif
