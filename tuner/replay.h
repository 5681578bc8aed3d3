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

typedef struct rt_replay_curve {
	char *backend;
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
 * Appends one observation to the curve (backend, precision), creating the
 * curve when new. n and seconds must be > 0 and finite, and a new curve
 * past RT_REPLAY_MAX_CURVES is refused (RT_EINVAL).
 */
int rt_replay_add(rt_replay *r, const char *backend, const char *precision, double n,
		  double seconds, char *err, size_t errlen);

/* Index of the curve (backend, precision), or -1. */
long rt_replay_find(const rt_replay *r, const char *backend, const char *precision);

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
