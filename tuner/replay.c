#include "replay.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/rt.h"
#include "output.h"

enum { COL_BACKEND, COL_PRECISION, COL_N, COL_SECONDS, NCOLS };
static const char *const col_names[NCOLS] = {"backend", "precision", "n", "seconds"};

/* A row may have more fields than columns; only the count of the rest matters. */
#define MAX_FIELDS 16

rt_replay *rt_replay_new(void)
{
	return calloc(1, sizeof(rt_replay));
}

void rt_replay_free(rt_replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ncurves; i++) {
		free(r->curves[i].backend);
		free(r->curves[i].precision);
		free(r->curves[i].n);
		free(r->curves[i].seconds);
	}
	free(r->curves);
	free(r);
}

long rt_replay_find(const rt_replay *r, const char *backend, const char *precision)
{
	for (size_t i = 0; i < r->ncurves; i++)
		if (!strcmp(r->curves[i].backend, backend) &&
		    !strcmp(r->curves[i].precision, precision))
			return (long)i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The count values of n, sorted and without repeats, into sizes (count of room); how many. */
static size_t sorted_distinct(const double *n, size_t count, double *sizes)
{
	memcpy(sizes, n, count * sizeof *sizes);
	qsort(sizes, count, sizeof *sizes, cmp_double);
	size_t k = 0;
	for (size_t i = 0; i < count; i++)
		if (!k || sizes[i] != sizes[k - 1])
			sizes[k++] = sizes[i];
	return k;
}

int rt_replay_check_sizes(const double *n, size_t count, double out[RT_REPLAY_CHECK_SIZES],
			  size_t *picked, size_t *distinct)
{
	double *sizes = malloc((count ? count : 1) * sizeof *sizes);
	*picked = *distinct = 0;
	if (!sizes)
		return RT_ENOMEM;
	size_t k = sorted_distinct(n, count, sizes);
	size_t pick[RT_REPLAY_CHECK_SIZES] = {0, k / 2, k - 1};
	for (int s = 0; k && s < RT_REPLAY_CHECK_SIZES; s++)
		if (!*picked || sizes[pick[s]] != out[*picked - 1])
			out[(*picked)++] = sizes[pick[s]];
	*distinct = k;
	free(sizes);
	return RT_OK;
}

rt_series rt_replay_series(const rt_replay_curve *c)
{
	return (rt_series){c->n, c->seconds, c->count};
}

/*
 * What keeps a label from surviving a write and a read, NULL when nothing:
 * it must not be empty, have a comma or newline, start with '#', or hold a
 * control character or bytes that are not UTF-8 (it is printed and written
 * into YAML and HTML).
 */
static const char *label_problem(const char *s)
{
	if (!*s)
		return "is empty";
	if (s[0] == '#' || strpbrk(s, ",\r\n"))
		return "has a comma, a newline or a leading '#'";
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "has a control character";
	if (!rt_utf8_valid(s, strlen(s)))
		return "is not UTF-8 text";
	return NULL;
}

static int check_label(const char *what, const char *s, char *err, size_t errlen)
{
	const char *why = label_problem(s);
	if (why) {
		char shown[64];
		rt_printable(shown, sizeof shown, s);
		return rt_fail(err, errlen, RT_EINVAL, "%s '%s' %s", what, shown, why);
	}
	return RT_OK;
}

void rt_curve_label(const rt_curve *c, char *buf, size_t len)
{
	char threads[24] = "";
	if (c->threads > 0)
		snprintf(threads, sizeof threads, ":%dt", c->threads);
	snprintf(buf, len, "%s%s%s%s%s", c->backend, threads, c->xfer ? "+xfer" : "",
		 c->pin[0] ? " pin=" : "", c->pin);
}

int rt_curve_equal(const rt_curve *a, const rt_curve *b)
{
	return !strcmp(a->backend, b->backend) && a->threads == b->threads && a->xfer == b->xfer &&
	       !strcmp(a->pin, b->pin);
}

rt_curve rt_curve_of_label(const char *label)
{
	rt_curve c = {0};
	size_t n = strcspn(label, ":+");
	snprintf(c.backend, sizeof c.backend, "%.*s", (int)n, label);
	const char *t = strchr(label, ':');
	if (t)
		c.threads = atoi(t + 1);
	c.xfer = strstr(label, "+xfer") != NULL;
	const char *pin = strstr(label, " pin=");
	if (pin)
		snprintf(c.pin, sizeof c.pin, "%s", pin + strlen(" pin="));
	return c;
}

/* Appends a new empty curve (id NULL: read from its label); NULL when out of memory. */
static rt_replay_curve *new_curve(rt_replay *r, const char *backend, const rt_curve *id,
				  const char *precision)
{
	if (r->ncurves == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 4;
		rt_replay_curve *c = realloc(r->curves, cap * sizeof *c);
		if (!c)
			return NULL;
		r->curves = c;
		r->cap = cap;
	}
	rt_replay_curve *c = &r->curves[r->ncurves];
	*c = (rt_replay_curve){.backend = strdup(backend),
			       .id = id ? *id : rt_curve_of_label(backend),
			       .precision = strdup(precision)};
	if (!c->backend || !c->precision) {
		free(c->backend);
		free(c->precision);
		return NULL;
	}
	r->ncurves++;
	return c;
}

static int push(rt_replay_curve *c, double n, double seconds)
{
	if (c->count == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		double *nn = realloc(c->n, cap * sizeof *nn);
		if (!nn)
			return RT_ENOMEM;
		c->n = nn;
		double *ss = realloc(c->seconds, cap * sizeof *ss);
		if (!ss)
			return RT_ENOMEM;
		c->seconds = ss;
		c->cap = cap;
	}
	c->n[c->count] = n;
	c->seconds[c->count] = seconds;
	c->count++;
	return RT_OK;
}

/* An observation of the curve labelled backend (id: what it is; NULL: read from the label). */
static int add(rt_replay *r, const char *backend, const rt_curve *id, const char *precision,
	       double n, double seconds, char *err, size_t errlen)
{
	int rc = check_label("backend", backend, err, errlen);
	if (!rc)
		rc = check_label("precision", precision, err, errlen);
	if (rc)
		return rc;
	if (!(n > 0 && isfinite(n)) || !(seconds > 0 && isfinite(seconds)))
		return rt_fail(err, errlen, RT_EINVAL,
			       "n=%g, seconds=%g: both must be > 0 and finite", n, seconds);
	long i = rt_replay_find(r, backend, precision);
	if (i < 0 && r->ncurves == RT_REPLAY_MAX_CURVES)
		return rt_fail(err, errlen, RT_EINVAL,
			       "a new curve %s/%s: a replay has at most %d curves (backend,precision)",
			       backend, precision, RT_REPLAY_MAX_CURVES);
	rt_replay_curve *c = i >= 0 ? &r->curves[i] : new_curve(r, backend, id, precision);
	if (!c || push(c, n, seconds))
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory storing observations");
	return RT_OK;
}

int rt_replay_add(rt_replay *r, const char *backend, const char *precision, double n,
		  double seconds, char *err, size_t errlen)
{
	return add(r, backend, NULL, precision, n, seconds, err, errlen);
}

int rt_replay_add_curve(rt_replay *r, const rt_curve *id, const char *precision, double n,
			double seconds, char *err, size_t errlen)
{
	char label[96];
	rt_curve_label(id, label, sizeof label);
	return add(r, label, id, precision, n, seconds, err, errlen);
}

/* Trims blanks at both ends in place. */
static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* Splits line at commas in place; returns the field count (all of them), keeps MAX_FIELDS. */
static int split(char *line, char **f)
{
	int k = 0;
	for (char *p = line;; k++) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (k < MAX_FIELDS)
			f[k] = trim(p);
		if (!comma)
			return k + 1;
		p = comma + 1;
	}
}

/* Maps the header's names to column positions (col[COL_*] = field index). */
static int parse_header(char *line, const char *path, long ln, int *col, int *nfields,
			char *err, size_t errlen)
{
	char *f[MAX_FIELDS];
	int k = split(line, f);
	if (k > MAX_FIELDS)
		return rt_fail(err, errlen, RT_EINVAL, "%s:%ld: %d columns in the header, expected %d",
			       path, ln, k, NCOLS);
	for (int c = 0; c < NCOLS; c++)
		col[c] = -1;
	for (int i = 0; i < k; i++) {
		int c = 0;
		while (c < NCOLS && strcmp(f[i], col_names[c]))
			c++;
		/* not quoted: the first line of a file that is no replay is not shown */
		if (c == NCOLS)
			return rt_fail(err, errlen, RT_EINVAL,
				       "%s:%ld: not a replay header: column %d is none of "
				       "backend,precision,n,seconds",
				       path, ln, i + 1);
		if (col[c] >= 0)
			return rt_fail(err, errlen, RT_EINVAL,
				       "%s:%ld: column '%s' appears twice in the header", path, ln, f[i]);
		col[c] = i;
	}
	for (int c = 0; c < NCOLS; c++)
		if (col[c] < 0)
			return rt_fail(err, errlen, RT_EINVAL,
				       "%s:%ld: missing column '%s' in the header", path, ln,
				       col_names[c]);
	*nfields = k;
	return RT_OK;
}

/*
 * A positive finite decimal number filling the whole field (no hex, inf or
 * nan, which strtod would take). The field is not quoted back: a file that
 * is not a replay must not have its content shown (a config can name any
 * file as crossover.replay).
 */
static int parse_positive(const char *s, const char *what, const char *path, long ln, double *v,
			  char *err, size_t errlen)
{
	char *end;
	int decimal = *s && strspn(s, "0123456789.eE+-") == strlen(s);
	*v = decimal ? strtod(s, &end) : 0;
	if (!decimal || *end)
		return rt_fail(err, errlen, RT_EINVAL, "%s:%ld: %s is not a decimal number", path,
			       ln, what);
	if (!(*v > 0) || !isfinite(*v) || *v > RT_REPLAY_MAX_VALUE)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s:%ld: %s must be > 0 and at most %g, found %g", path, ln, what,
			       RT_REPLAY_MAX_VALUE, *v);
	return RT_OK;
}

/* A backend or precision field of row ln, checked where the file says it. */
static int row_label(const char *s, const char *what, const char *path, long ln, char *err,
		     size_t errlen)
{
	const char *why = label_problem(s);
	if (why && !*s)
		return rt_fail(err, errlen, RT_EINVAL, "%s:%ld: empty backend or precision", path,
			       ln);
	if (why)
		return rt_fail(err, errlen, RT_EINVAL, "%s:%ld: the %s %s", path, ln, what, why);
	return RT_OK;
}

static int parse_row(rt_replay *r, char *line, const char *path, long ln, const int *col,
		     int nfields, char *err, size_t errlen)
{
	char *f[MAX_FIELDS];
	int k = split(line, f);
	if (k != nfields)
		return rt_fail(err, errlen, RT_EINVAL, "%s:%ld: expected %d fields, found %d", path, ln,
			       nfields, k);
	const char *backend = f[col[COL_BACKEND]], *precision = f[col[COL_PRECISION]];
	RT_TRY(row_label(backend, "backend", path, ln, err, errlen));
	RT_TRY(row_label(precision, "precision", path, ln, err, errlen));
	double n, seconds;
	int rc = parse_positive(f[col[COL_N]], "n", path, ln, &n, err, errlen);
	if (!rc)
		rc = parse_positive(f[col[COL_SECONDS]], "seconds", path, ln, &seconds, err, errlen);
	if (rc)
		return rc;
	size_t before = r->ncurves;
	rc = rt_replay_add(r, backend, precision, n, seconds, err, errlen);
	if (rc == RT_EINVAL && err) { /* the curve limit: said where the file passes it */
		char why[RT_ERRLEN];
		snprintf(why, sizeof why, "%s", err);
		return rt_fail(err, errlen, rc, "%s:%ld: %s", path, ln, why);
	}
	if (rc)
		return rc;
	if (r->ncurves > before)
		r->curves[before].first_line = ln;
	return RT_OK;
}

/* "PATH:LINE: " into buf, or "" without a path (observations not from a file). */
static void place(char *buf, size_t len, const char *path, long line)
{
	if (path)
		snprintf(buf, len, "%s:%ld: ", path, line);
	else
		buf[0] = '\0';
}

/* What a crossover fit needs: 2 curves or more, 3 distinct n in each. */
static int check_curves(const rt_replay *r, const char *path, long last, char *err,
			size_t errlen)
{
	char at[1100];
	for (size_t i = 0; i < r->ncurves; i++) {
		const rt_replay_curve *c = &r->curves[i];
		double *scratch = malloc(c->count * sizeof *scratch);
		if (!scratch)
			return rt_fail(err, errlen, RT_ENOMEM, "out of memory checking %s",
				       path ? path : "the observations");
		size_t d = sorted_distinct(c->n, c->count, scratch);
		free(scratch);
		place(at, sizeof at, path, c->first_line);
		if (d < 3)
			return rt_fail(err, errlen, RT_EINVAL,
				       "%scurve %s/%s%s has %zu distinct n, at least 3 are needed "
				       "to fit c + a*n^b",
				       at, c->backend, c->precision, path ? " (first row here)" : "", d);
	}
	place(at, sizeof at, path, last);
	if (r->ncurves < 2)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s%zu curve (backend,precision)%s, a crossover needs at least 2",
			       at, r->ncurves, path ? " in the file" : "");
	return RT_OK;
}

int rt_replay_check(const rt_replay *r, char *err, size_t errlen)
{
	return check_curves(r, NULL, 0, err, errlen);
}

/* Reads every line of text (len bytes) into r; *last gets the number of the last line. */
static int read_lines(char *text, size_t len, rt_replay *r, const char *path, long *last,
		      char *err, size_t errlen)
{
	int col[NCOLS], nfields = 0;
	long ln = 0;
	for (char *line = text, *end = text + len; line < end; ln++) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *stop = nl ? nl : end;
		if (memchr(line, '\0', (size_t)(stop - line)))
			return rt_fail(err, errlen, RT_EINVAL, "%s:%ld: a NUL byte; a replay is text",
				       path, ln + 1);
		*stop = '\0';
		char *s = trim(line);
		line = stop + 1;
		if (!*s || *s == '#')
			continue;
		int rc = nfields ? parse_row(r, s, path, ln + 1, col, nfields, err, errlen)
				 : parse_header(s, path, ln + 1, col, &nfields, err, errlen);
		if (rc)
			return rc;
	}
	*last = ln;
	if (!nfields)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s:%ld: no header line (expected backend,precision,n,seconds)", path,
			       ln);
	return RT_OK;
}

int rt_replay_read(const char *path, rt_replay **out, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc = rt_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc == RT_EIO ? RT_EINVAL : rc; /* a missing input is bad input */
	long last = 0;
	rt_replay *r = rt_replay_new();
	if (!r)
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory reading %s", path);
	if (!rc)
		rc = read_lines(text, len, r, path, &last, err, errlen);
	if (!rc)
		rc = check_curves(r, path, last, err, errlen);
	free(text);
	if (rc) {
		rt_replay_free(r);
		return rc;
	}
	*out = r;
	return RT_OK;
}

/* The shortest of %.15g and %.17g that reads back as exactly v. */
static void format_exact(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}

static int write_rows(FILE *fp, const rt_replay *r)
{
	char nb[32], sb[32];
	if (fprintf(fp, "backend,precision,n,seconds\n") < 0)
		return -1;
	for (size_t i = 0; i < r->ncurves; i++) {
		const rt_replay_curve *c = &r->curves[i];
		for (size_t j = 0; j < c->count; j++) {
			format_exact(nb, sizeof nb, c->n[j]);
			format_exact(sb, sizeof sb, c->seconds[j]);
			if (fprintf(fp, "%s,%s,%s,%s\n", c->backend, c->precision, nb, sb) < 0)
				return -1;
		}
	}
	return 0;
}

int rt_replay_text(const rt_replay *r, char **text, size_t *len, char *err, size_t errlen)
{
	*text = NULL;
	*len = 0;
	FILE *fp = open_memstream(text, len);
	if (!fp)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	int bad = write_rows(fp, r);
	if (fclose(fp) || bad) {
		free(*text);
		*text = NULL;
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	}
	return RT_OK;
}

int rt_replay_write(const char *path, const rt_replay *r, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc = rt_replay_text(r, &text, &len, err, errlen);
	if (rc == RT_OK)
		rc = rt_write_file(path, text, len, err, errlen);
	else
		rt_fail(err, errlen, rc, "out of memory writing %s", path);
	free(text);
	return rc;
}
