/*
 * knobs.h: the knob table, where every knob of a built-in workload's point
 * is one row, and the one codec of a point that walks it.
 *
 * A row says a knob's name, its C type in rt_point, its kind (a number, one
 * of a list of names, a backend's name), its default and range, its role in
 * the search (a count of cores, a size compared on a log scale), which
 * workloads read it, its label in a short point label ("t=4") and what a
 * space file's list of its values is called.
 * rt_point's fields, the KEY=VALUE arguments, the YAML of a point
 * (configurations, journals, check results), equality, the screening's
 * distance and the labels (a chart's series label too) all come from the
 * rows, so that adding a knob to a built-in workload is its row, the
 * workload's use of it (a bit in its `knobs`, its reading of pt->NAME) and
 * its docs.
 *
 * The rows are RT_POINT_KNOBS in workload.h, beside the rt_point they make.
 * A user's command's point (tuner/cmdpoint.h) is a row per knob made at run
 * time: these rows where a knob has their name (batch, threads, workers,
 * precision, pin), a command's own (blas_threads, device), or a number or a
 * name of the user's; it reads its values with rt_knob_choice and
 * rt_knob_choices.
 */
#ifndef RT_KNOBS_H
#define RT_KNOBS_H

#include "workload.h"

#include <stddef.h>

/* What a knob's value is; RT_KNOB_TEXT (any name: a user's command's own) is no rt_point's. */
typedef enum rt_knob_kind {
	RT_KNOB_INT,
	RT_KNOB_CHOICE,
	RT_KNOB_BACKEND,
	RT_KNOB_TEXT,
} rt_knob_kind;

/* The names of the choice knobs' values, by value (names.c). */
extern const char *const rt_precision_names[RT_NPRECISION];
extern const char *const rt_pin_names[RT_NPIN];

enum {
	RT_KF_ALL = 1u << 0,     /* every workload reads it (else a bit in rt_workload.knobs) */
	RT_KF_LOG = 1u << 1,     /* a size: the screening compares it on a log scale */
	RT_KF_CORES = 1u << 2,   /* counts cores: the point's sum must fit the usable cores */
	RT_KF_TERSE = 1u << 3,   /* written (YAML, text) only when not its default */
	RT_KF_QUIET = 1u << 4,   /* shown in a short label only when not its default */
	RT_KF_RANGE = 1u << 5,   /* a space may give it as {min, max, step} */
	RT_KF_PEAKED = 1u << 6,  /* throughput rises along it, then falls: the search's role */
	RT_KF_FIXED = 1u << 7,   /* no space searches it (set by KEY=VALUE alone) */
	RT_KF_JOINS = 1u << 8,   /* a chart's series label joins it to the knob before: cuda:1 */
};

/* One row of the table. */
typedef struct rt_knob {
	const char *name;
	rt_knob_kind kind;
	size_t offset; /* of its field in rt_point */
	size_t size;   /* of its field */
	long def, min, max;
	const char *const *choices; /* a choice knob's names, max + 1 of them */
	unsigned flags; /* RT_KF_* */
	const char *label;
	const char *plural; /* a choice knob's values in messages: "precisions" */
} rt_knob;

/* The table, RT_NKNOBS rows in rt_point's order. */
extern const rt_knob rt_knobs[RT_NKNOBS];

/* The row named name, NULL if none. */
const rt_knob *rt_knob_find(const char *name);

/* A numeric knob's value (a choice's index); a backend's name has none (0). */
long rt_knob_get(const rt_knob *k, const rt_point *pt);
/* A knob's value as text into buf ("4", "bf16", "cpu"); returns buf. */
const char *rt_knob_text(const rt_knob *k, const rt_point *pt, char *buf, size_t len);

/*
 * Sets knob k of pt from its text: a number in range, one of its names, a
 * backend's name that fits (rt_params_set also asks the loader whether it is
 * one rigtune knows: the loader stands above this table). RT_EINVAL with
 * "NAME: problem" otherwise.
 */
int rt_knob_set(const rt_knob *k, const char *value, rt_point *pt, char *err, size_t errlen);
/* Sets a numeric knob (a choice by index) from v; RT_EINVAL if out of its range. */
int rt_knob_set_long(const rt_knob *k, long v, rt_point *pt, char *err, size_t errlen);
/* The index of a choice knob's value name ("bf16": RT_BF16), -1 when it is none of its names. */
int rt_knob_choice(const rt_knob *k, const char *name);
/* "fp64 fp32 tf32 bf16 fp16": a choice knob's names, sep between them; "" for another. */
void rt_knob_choices(const rt_knob *k, const char *sep, char *buf, size_t len);

/*
 * 1 when a and b set alike every knob w reads (w NULL: every knob) but the
 * one named except (NULL or a shape key's name: none): two trials of one
 * line along that axis, a trial of the recommendation's setting but its knee.
 */
int rt_point_same_but(const rt_point *a, const rt_point *b, const rt_workload *w,
		      const char *except);
/*
 * How far a is from b: a size's log ratio, 1 for any other knob that differs
 * (the screening starts from the point nearest the naive one).
 */
double rt_point_distance(const rt_point *a, const rt_point *b);
/* The sum of the knobs that count cores (threads + workers). */
long rt_point_cores(const rt_point *pt);

/* 1 when w reads knob k (every workload reads an RT_KF_ALL knob); w NULL: any workload. */
int rt_workload_reads(const rt_workload *w, const rt_knob *k);
/* 1 when a point's YAML or text has knob k: w reads it, and it is not a terse knob's default. */
int rt_knob_written(const rt_knob *k, const rt_point *pt, const rt_workload *w);
/*
 * The knobs of pt that w reads (w NULL: all), as written in YAML, as
 * "KEY=VALUE" texts with sep between them:
 * "backend=cpu precision=fp32 batch=32 threads=2 workers=0 pin=compact".
 */
void rt_point_text(const rt_point *pt, const rt_workload *w, const char *sep, char *buf,
		   size_t len);
/* 1 for a knob a label leads with, its bare value (the backend, the precision). */
int rt_knob_leads(const rt_knob *k);
/*
 * Knob k of pt in words, as a page says it: a leading knob's bare value
 * ("cpu"), a count of cores as a count ("2 threads", "1 worker"), any other
 * as its name and value ("batch 32", "pin compact").
 */
void rt_knob_words(const rt_knob *k, const rt_point *pt, char *buf, size_t len);
/*
 * A short label of pt for w: each knob w reads as its label=value ("t=4") or
 * its bare value, a quiet knob only when not its default:
 * "cpu fp32 b=32 t=2 w=0 spread".
 */
void rt_point_label(const rt_point *pt, const rt_workload *w, char *buf, size_t len);

#endif
