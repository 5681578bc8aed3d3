/*
 * cmdpoint.h: a point of a user's command (`rigtune tune --cmd`), its knobs
 * as rows of the knob table made at run time, and the one codec of such a
 * point: from a space's index, from a document's text, to YAML and text,
 * equality.
 *
 * A command's space names its knobs (spacefile.h); each knob of a point
 * has a row (an rt_knob of workloads/knobs.h) that says its kind and
 * meaning: the built-in table's row of the same name (batch, threads,
 * workers, precision, pin: a choice's value is its index, as in rt_point),
 * a command's own (blas_threads, a number; device, a name that
 * usercmd_knobs.h gives a meaning), or, for a knob of the user's, a number
 * or a name. The journal, the configuration, apply and check read and write
 * a command's knobs through here alone, as they do rt_point's through
 * knobs.h. What a point sets in the process is usercmd_knobs.h's.
 */
#ifndef RT_CMDPOINT_H
#define RT_CMDPOINT_H

#include <stddef.h>

#include "../search/space.h"
#include "knob.h"
#include "yamlr.h"
#include "yamlw.h"

/* Most knobs a command's space may have (a space's parameters). */
#define RT_CMD_MAX_KNOBS RT_SPACE_MAX_PARAMS
/* Longest value a command's knob may have, and its end. */
#define RT_CMD_VALUE_LEN 128

struct rt_knob; /* workloads/knobs.h */

/* One knob of a command's point: its name, its row and its value. */
typedef struct rt_cmd_knob {
	char name[RT_KNOB_NAMELEN];
	const struct rt_knob *row;          /* its kind (RT_KNOB_INT, _CHOICE, _TEXT) and meaning */
	long num;                    /* a number; a choice's index; 0 for a name */
	char text[RT_CMD_VALUE_LEN]; /* the value as written: "32", "bf16", "adam w" */
} rt_cmd_knob;

/* A point: its knobs in the space's (or the document's) order. */
typedef struct rt_cmd_point {
	int n;
	rt_cmd_knob k[RT_CMD_MAX_KNOBS];
} rt_cmd_point;

/*
 * The row of a command's knob called name (threads, workers, batch,
 * blas_threads, precision, pin, device): its kind and, for a number, its
 * range; NULL for a knob of the user's own.
 */
const struct rt_knob *rt_cmd_knob_row(const char *name);

/* The point of space s at idx: each parameter's value, a number or a name, as its row. */
void rt_cmd_point_at(const rt_space *s, const int *idx, rt_cmd_point *pt);

/*
 * Adds knob name with value, from text (a document's): a number where its
 * row is one (or, for a user's knob, where the text is an integer as
 * written), one of a choice's names. RT_EINVAL "name: problem" for a
 * value its row does not take, a name twice, too long a name or value,
 * more than RT_CMD_MAX_KNOBS knobs.
 */
int rt_cmd_point_add(rt_cmd_point *pt, const char *name, const char *value, char *err,
		     size_t errlen);
/* The point of n name/value texts (a baseline's knobs); as rt_cmd_point_add. */
int rt_cmd_point_of(const rt_knob_value *kv, int n, rt_cmd_point *pt, char *err, size_t errlen);

/* Knob name of pt, NULL if it has none. */
const rt_cmd_knob *rt_cmd_point_find(const rt_cmd_point *pt, const char *name);
/* The number (a choice's index) of knob name, otherwise when pt has no such knob. */
long rt_cmd_point_num(const rt_cmd_point *pt, const char *name, long otherwise);

/* 1 when a and b have the same knobs (in any order), each with the same value. */
int rt_cmd_point_equal(const rt_cmd_point *a, const rt_cmd_point *b);

/*
 * "batch=32 opt=adam w threads=1": the knobs in name order, sep (one
 * character) between them; RT_CMD_POINT_TEXT holds the longest.
 */
#define RT_CMD_POINT_TEXT (RT_CMD_MAX_KNOBS * (RT_KNOB_NAMELEN + RT_CMD_VALUE_LEN + 1))
void rt_cmd_point_text(const rt_cmd_point *pt, const char *sep, char *buf, size_t len);

/*
 * The knobs as a flow mapping, in pt's order: numbers as YAML numbers when
 * plain_numbers (a configuration), else every value as a string (a journal,
 * which has always written them so).
 */
void rt_cmd_point_emit(rt_yw *w, const rt_cmd_point *pt, int plain_numbers);
/* A mapping of name: value scalars (what) into pt; RT_EINVAL "FILE:L:C: what: ..." */
int rt_cmd_point_decode(const rt_yr *r, const rt_ynode *map, const char *what,
			rt_cmd_point *pt);

#endif
