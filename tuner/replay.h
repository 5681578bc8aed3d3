/*
 * replay.h: timing observations in a CSV file, for `rigtune crossover
 * --replay FILE.csv` (fit earlier or published measurements without
 * measuring) and for saving sweeps in the same format.
 *
 * Format: the first line that is neither blank nor a comment is the header,
 * naming the columns backend, precision, n and seconds, each exactly once,
 * in any order; an unknown column is an error (a typo would otherwise be
 * silently ignored). Then one observation per line, repeats allowed. Blank
 * lines and lines starting with '#' are skipped anywhere. No quoting: a
 * field is the text between commas, surrounding blanks trimmed.
 *
 * The observations are grouped into curves by (backend, precision), in the
 * order of their first row. An rt_replay owns its curves and their arrays.
 */
#ifndef RT_REPLAY_H
#define RT_REPLAY_H

#include <stddef.h>

#include "../search/fit.h"

/*
 * What a curve is, as its label says: "cpu:2t" the CPU at 2 threads,
 * "cuda" a device with its data resident, "cuda+xfer" one that pays the
 * host -> device -> host transfers, "cpu:4t pin=spread" a journal's trial
 * pinned otherwise (check). A replay file may name a curve anything
 * ("a100"): its label up to ':' or '+' is the backend, the number after
 * ':' the threads, "+xfer" in it the transfers, what follows " pin=" the
 * pin; that is read once, when the curve comes in (rt_curve_of_label).
 */
typedef struct rt_curve {
	char backend[16];
	int threads;  /* 0: not said (a device's curve) */
	int xfer;     /* 1: with the transfers */
	char pin[16]; /* the pin policy when not the default compact; "" */
} rt_curve;

/* c's label, as files and output name the curve ("cpu:2t", "cuda+xfer"). */
void rt_curve_label(const rt_curve *c, char *buf, size_t len);
/*
 * What a label says: the one place a label is read, where a curve comes in
 * from a file (a replay CSV, a configuration's crossover: section).
 */
rt_curve rt_curve_of_label(const char *label);
/* 1 when a and b are the same curve (every field alike). */
int rt_curve_equal(const rt_curve *a, const rt_curve *b);

typedef struct rt_replay_curve {
	char *backend;   /* its label, as read or made (rt_curve_label) */
	rt_curve id;     /* what the label says */
	char *precision;
	double *n;
	double *seconds;
	size_t count, cap;
	long first_line; /* line of its first row in the file read, 0 if built */
} rt_replay_curve;

typedef struct rt_replay {
	rt_replay_curve *curves;
	size_t ncurves, cap;
} rt_replay;

/* An empty replay, or NULL when out of memory. */
rt_replay *rt_replay_new(void);
void rt_replay_free(rt_replay *r);

/*
 * The most curves a replay holds: a machine has a handful of backends and
 * precisions, and finding a row's curve is a scan of them, so that reading
 * a file stays linear in its rows (a file of 80k distinct curves took 13 s
 * when they were not bounded).
 */
#define RT_REPLAY_MAX_CURVES 256
/*
 * The largest n or seconds a replay file may give: a size or a time far past
 * any measured, small enough that a fit extrapolated RT_CROSS_EXTRAPOLATE
 * times beyond it stays within what the configuration's reader takes back
 * (RT_YR_MAX_MEASURE) and a chart's axis over it has a few decades.
 */
#define RT_REPLAY_MAX_VALUE 1e12

/*
 * Appends one observation to the curve (backend, precision), creating the
 * curve when new. n and seconds must be > 0 and finite, and a new curve
 * past RT_REPLAY_MAX_CURVES is refused (RT_EINVAL).
 */
int rt_replay_add(rt_replay *r, const char *backend, const char *precision, double n,
		  double seconds, char *err, size_t errlen);

/* The same for a curve made here: its label made from id, which it keeps as is. */
int rt_replay_add_curve(rt_replay *r, const rt_curve *id, const char *precision, double n,
			double seconds, char *err, size_t errlen);

/* Index of the curve (backend, precision), or -1. */
long rt_replay_find(const rt_replay *r, const char *backend, const char *precision);

/*
 * The sizes of a curve that `rigtune check` compares, where a crossover
 * that moved shows: its smallest, middle and largest distinct n, ascending
 * and without repeats, into out (*picked of them). n holds count sizes in
 * any order (a curve's rows); *distinct is how many differ. RT_ENOMEM.
 */
#define RT_REPLAY_CHECK_SIZES 3
int rt_replay_check_sizes(const double *n, size_t count, double out[RT_REPLAY_CHECK_SIZES],
			  size_t *picked, size_t *distinct);

/* A view of a curve for search/fit. */
rt_series rt_replay_series(const rt_replay_curve *c);

/*
 * Reads and checks a replay file. Every problem is RT_EINVAL with the
 * message "FILE:LINE: problem": a missing, duplicated or unknown column in
 * the header, a wrong field count, an empty label or one with a control
 * character or bytes that are not UTF-8, a field that is not a decimal
 * number (hex, inf, nan), n <= 0, seconds <= 0 or not finite, a NUL byte, a
 * curve with fewer than 3 distinct n (named, at the line of its first row),
 * fewer than 2 curves (at the last line), more than RT_REPLAY_MAX_CURVES
 * curves (at the row of the first one too many). No message quotes what the file
 * holds outside the curve names: a config can name any file, and one that
 * is no replay must not have its lines shown. A file that cannot be read,
 * is not a regular file or is over RT_READ_MAX_BYTES is RT_EINVAL too (bad
 * input: exit 2). *out is set only on success.
 */
int rt_replay_read(const char *path, rt_replay **out, char *err, size_t errlen);

/*
 * Writes the replay in the same format (header backend,precision,n,seconds,
 * curve by curve, numbers printed so that they read back exactly), through
 * a temporary file renamed over path, so a reader never sees half a file.
 */
int rt_replay_write(const char *path, const rt_replay *r, char *err, size_t errlen);

/*
 * Whether r reads back (rt_replay_read's checks of the curves): RT_EINVAL
 * for a curve with fewer than 3 distinct n (named) or fewer than 2 curves.
 */
int rt_replay_check(const rt_replay *r, char *err, size_t errlen);

/* The text rt_replay_write writes, into *text (malloc'd, *len bytes); RT_ENOMEM. */
int rt_replay_text(const rt_replay *r, char **text, size_t *len, char *err, size_t errlen);

#endif
