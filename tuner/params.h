/*
 * params.h: KEY=VALUE arguments for a workload: point keys (the knob table,
 * workloads/knobs.h) and the workload's shape keys;
 * the comma-separated lists of options that hold them (and names).
 */
#ifndef RT_PARAMS_H
#define RT_PARAMS_H

#include "../workloads/workload.h"

/*
 * Applies one "key=value" to pt or sh. RT_EINVAL with a sentence naming the
 * argument for a malformed assignment, an unknown key (the message lists the
 * keys there are), a value that is not a number, or one out of range.
 */
int rt_params_apply(const rt_workload *w, const char *arg, rt_point *pt, rt_shape *sh,
		    char *err, size_t errlen);

/* The same for key and its value apart (a file's mapping, a space's parameter). */
int rt_params_set(const rt_workload *w, const char *key, const char *val, rt_point *pt,
		  rt_shape *sh, char *err, size_t errlen);

/* The same for a number: a space's numeric parameter, with no text between. */
int rt_params_set_long(const rt_workload *w, const char *key, long v, rt_point *pt,
		       rt_shape *sh, char *err, size_t errlen);

/* The same for a shape key of w alone: a point key is an unknown key here. */
int rt_params_apply_shape(const rt_workload *w, const char *arg, rt_shape *sh, char *err,
			  size_t errlen);

/*
 * A comma-separated list given to an option ("--shape d_model=768,seq_len=60",
 * "--backend cpu,cuda"), split into its items: a copy of the list with the
 * commas cut, and the items pointing into it. Every option that takes such a
 * list splits it here, so that each refuses what does not fit instead of
 * cutting it short.
 */
#define RT_ARGLIST_MAX_CHARS 512
#define RT_ARGLIST_MAX_ITEMS 32
typedef struct rt_arglist {
	char buf[RT_ARGLIST_MAX_CHARS + 1];
	const char *item[RT_ARGLIST_MAX_ITEMS];
	int n;
} rt_arglist;

/*
 * Splits list at its commas into l; what names the option in messages.
 * RT_EINVAL with "WHAT: problem" for a list longer than RT_ARGLIST_MAX_CHARS
 * characters, one with more than max items (RT_ARGLIST_MAX_ITEMS at most),
 * an empty list, or an empty item ("a,,b", a comma at either end).
 * Example: "cpu,cuda" gives n = 2, item[0] "cpu", item[1] "cuda".
 */
int rt_arglist_split(const char *list, const char *what, int max, rt_arglist *l, char *err,
		     size_t errlen);

#endif
