#include "pagechart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rt.h"
#include "../../search/stats.h"
#include "../../workloads/knobs.h"
#include "chart.h"

#define CHART_W 760
#define MAX_TICS 24
#define MAX_YTICS 9 /* labels on a y axis before they crowd */
#define MARK_COLOR "#222222"
#define BAD_COLOR "#d62728"

static const char *const phase_colors[RT_NPHASE_KIND] = {
    [RT_PHASE_COMPUTE] = "#4e79a7",
    [RT_PHASE_UPDATE] = "#59a14f",
    [RT_PHASE_TRANSFER] = "#b07aa1",
    [RT_PHASE_HOST] = "#f28e2b",
};

static const char *const verdict_colors[RT_NVERDICT] = {
    [RT_VERDICT_REGRESSION] = "#d62728",   [RT_VERDICT_INFEASIBLE] = "#8c1c13",
    [RT_VERDICT_INCONCLUSIVE] = "#e8a33d", [RT_VERDICT_IMPROVEMENT] = "#2ca02c",
    [RT_VERDICT_UNCHANGED] = "#7f7f7f",    [RT_VERDICT_NOT_RUN] = "#bfbfbf",
    [RT_VERDICT_LIKELY_REGRESSION] = "#ff7f0e",
};

const char *rt_pagechart_verdict_color(rt_verdict v)
{
	return (unsigned)v < RT_NVERDICT ? verdict_colors[v] : "#999999";
}

static int nothing(rt_pg_svg *out, const char *fmt, const char *arg)
{
	out->svg = NULL;
	snprintf(out->why, sizeof out->why, fmt, arg);
	return RT_OK;
}

static void legend(rt_pg_svg *out, const char *label, const char *color, rt_pg_glyph glyph)
{
	if (out->nlegend == RT_PG_MAX_LEGEND)
		return;
	rt_pg_legend *e = &out->legend[out->nlegend++];
	snprintf(e->label, sizeof e->label, "%s", label);
	e->color = color;
	e->glyph = glyph;
}

/* ---- axes ---- */

/* "1.5k", "812", "0.25": short numbers for tic labels. */
static void short_num(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1e6)
		snprintf(buf, len, "%gM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(buf, len, "%gk", v / 1e3);
	else
		snprintf(buf, len, "%g", v);
}

/* "50 µs", "2 ms", "0.5 s" */
static void seconds_text(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%g µs", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%g ms", s * 1e3);
	else
		snprintf(buf, len, "%g s", s);
}

/* set {axis}tics (labelled values) for a log axis over [lo, hi]. */
static void log_tics(rt_chart *c, const char *axis, double lo, double hi,
                     void (*fmt)(double, char *, size_t))
{
	double tics[MAX_YTICS];
	int n = rt_chart_log_tics(lo, hi, tics, MAX_YTICS);
	rt_chart_printf(c, "set %stics (", axis);
	for (int i = 0; i < n; i++) {
		char label[32];
		fmt(tics[i], label, sizeof label);
		rt_chart_printf(c, "%s", i ? ", " : "");
		rt_chart_tic(c, label, tics[i]);
	}
	rt_chart_printf(c, ")\n");
}

/* A range [lo, hi] widened on a log scale by a margin of its own span. */
static void log_pad(double *lo, double *hi, double frac)
{
	double span = log(*hi) - log(*lo); /* not log(hi / lo): 1e18 / 1e-300 is infinite */
	if (span < log(1.1))
		span = log(1.1);
	*lo /= exp(frac * span);
	*hi *= exp(frac * span);
}

/* ---- throughput ---- */

/* Whether knob k varies among the workload's trials (a quiet one is named only then). */
static int varies(const rt_pg_workload *wl, const rt_knob *k)
{
	char a[64], b[64];
	for (size_t i = 1; i < wl->ntrials; i++)
		if (strcmp(rt_knob_text(k, &wl->trials[0]->point, a, sizeof a),
			   rt_knob_text(k, &wl->trials[i]->point, b, sizeof b)))
			return 1;
	return 0;
}

/*
 * Knob k in a series label: joined to the knob before it (":1"), a leading
 * knob's bare value (" fp32"), a choice by its name (", spread"), any other
 * in words (", 2 threads").
 */
static void series_item(const rt_knob *k, const rt_point *pt, char *buf, size_t len)
{
	char v[64], words[96];
	rt_knob_text(k, pt, v, sizeof v);
	rt_knob_words(k, pt, words, sizeof words);
	if (k->flags & RT_KF_JOINS)
		snprintf(buf, len, ":%s", v);
	else if (rt_knob_leads(k))
		snprintf(buf, len, " %s", v);
	else
		snprintf(buf, len, ", %s", k->kind == RT_KNOB_CHOICE ? v : words);
}

void rt_pagechart_series_label(const rt_pg_workload *wl, const rt_point *pt, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	/* the knobs the workload reads but its axis, a quiet one where it varies */
	for (int i = 0; i < RT_NKNOBS && n < len; i++) {
		const rt_knob *k = &rt_knobs[i];
		char item[128];
		if (!rt_workload_reads(wl->w, k) || !strcmp(k->name, wl->xkey) ||
		    ((k->flags & RT_KF_QUIET) && !varies(wl, k)))
			continue;
		series_item(k, pt, item, sizeof item);
		n += (size_t)snprintf(buf + n, len - n, "%s", n ? item : item + 1);
	}
}

/* Whether two trials belong to one line: the same setting but for the axis key. */
static int same_series(const rt_pg_workload *wl, const rt_point *a, const rt_point *b)
{
	return rt_point_same_but(a, b, wl->w, wl->xkey);
}

typedef struct series {
	const rt_journal_record **v; /* feasible trials, by x */
	size_t n;
	double best;
} series;

static const rt_pg_workload *sort_wl; /* qsort has no context argument */

static int by_x(const void *a, const void *b)
{
	const rt_journal_record *ra = *(const rt_journal_record *const *)a;
	const rt_journal_record *rb = *(const rt_journal_record *const *)b;
	long xa = rt_pg_x(sort_wl, &ra->point, &ra->shape),
	     xb = rt_pg_x(sort_wl, &rb->point, &rb->shape);
	return (xa > xb) - (xa < xb);
}

static int by_best(const void *a, const void *b)
{
	double x = ((const series *)a)->best, y = ((const series *)b)->best;
	return (x < y) - (x > y);
}

/* The feasible trials grouped into lines (fastest line first); *ns lines in *out. */
static int group_series(const rt_pg_workload *wl, series **out, size_t *ns)
{
	series *s = calloc(wl->ntrials ? wl->ntrials : 1, sizeof *s);
	if (!s)
		return RT_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < wl->ntrials; i++) {
		const rt_journal_record *r = wl->trials[i];
		if (!r->m.feasible)
			continue;
		size_t k = 0;
		while (k < n && !same_series(wl, &s[k].v[0]->point, &r->point))
			k++;
		if (k == n && !(s[n++].v = calloc(wl->ntrials, sizeof *s[k].v)))
			return RT_ENOMEM; /* the caller frees what was made */
		s[k].v[s[k].n++] = r;
		if (r->m.median > s[k].best)
			s[k].best = r->m.median;
	}
	sort_wl = wl;
	for (size_t k = 0; k < n; k++)
		qsort(s[k].v, s[k].n, sizeof *s[k].v, by_x);
	qsort(s, n, sizeof *s, by_best);
	*out = s;
	*ns = n;
	return RT_OK;
}

static void free_series(series *s, size_t n)
{
	for (size_t k = 0; s && k < n; k++)
		free(s[k].v);
	free(s);
}

/* The x tics: every value of the axis key measured (or gnuplot's own when there are many). */
static void x_tics(rt_chart *c, const rt_pg_workload *wl, double *xlo, double *xhi)
{
	long xs[MAX_TICS];
	int n = 0, many = 0;
	*xlo = INFINITY;
	*xhi = 0;
	for (size_t i = 0; i < wl->ntrials; i++) {
		long x = rt_pg_x(wl, &wl->trials[i]->point, &wl->trials[i]->shape);
		*xlo = fmin(*xlo, (double)x);
		*xhi = fmax(*xhi, (double)x);
		int seen = 0;
		for (int k = 0; k < n; k++)
			seen |= xs[k] == x;
		if (!seen && n < MAX_TICS)
			xs[n++] = x;
		many |= !seen && n == MAX_TICS;
	}
	if (many)
		return;
	rt_chart_printf(c, "set xtics (");
	for (int k = 0; k < n; k++)
		rt_chart_printf(c, "%s%ld", k ? ", " : "", xs[k]);
	rt_chart_printf(c, ")\n");
}

/* The y range: every CI of the feasible trials and the marks. */
static void y_range(const rt_pg_workload *wl, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = 0;
	for (size_t i = 0; i < wl->ntrials; i++) {
		const rt_measurement *m = &wl->trials[i]->m;
		if (!m->feasible || !(m->median > 0))
			continue;
		*lo = fmin(*lo, m->ci_lo > 0 ? m->ci_lo : m->median);
		*hi = fmax(*hi, fmax(m->ci_hi, m->median));
	}
}

/* The recommended and fastest points as rings with a word beside each. */
static void put_marks(rt_chart *c, const rt_pg_workload *wl)
{
	const rt_pg_mark *marks[2] = {&wl->rec, &wl->fastest};
	int same =
	    wl->rec.set && wl->fastest.set && wl->rec.median == wl->fastest.median &&
	    rt_pg_x(wl, &wl->rec.pt, &wl->rec.sh) == rt_pg_x(wl, &wl->fastest.pt, &wl->fastest.sh);
	static const char *const words[2] = {"knee (recommended)", "fastest"};
	for (int i = 0; i < 2; i++) {
		if (!marks[i]->set || !(marks[i]->median > 0) || (i == 1 && same))
			continue;
		double x = (double)rt_pg_x(wl, &marks[i]->pt, &marks[i]->sh);
		rt_chart_printf(c, "set label ");
		rt_chart_quoted(c, i == 0 && same ? "recommended = fastest" : words[i]);
		rt_chart_printf(
		    c,
		    " at %.10g, %.10g center point pointtype %d pointsize 3.2 "
		    "linewidth 2 linecolor rgb '%s' offset 0,%s textcolor rgb '%s' front\n",
		    x, marks[i]->median, i == 0 ? 6 : 8, MARK_COLOR, i == 0 ? "1.9" : "-2.1",
		    MARK_COLOR);
	}
}

/* Unstable trials (rings) and infeasible ones (crosses at the bottom) as blocks. */
static void put_flags(rt_chart *c, const rt_pg_workload *wl, double ybottom, int *unstable,
                      int *infeasible)
{
	*unstable = *infeasible = -1;
	int nu = 0, ni = 0;
	for (size_t i = 0; i < wl->ntrials; i++) {
		nu += wl->trials[i]->m.feasible && wl->trials[i]->m.unstable;
		ni += !wl->trials[i]->m.feasible;
	}
	for (int pass = 0; pass < 2; pass++) {
		if (!(pass ? ni : nu))
			continue;
		*(pass ? infeasible : unstable) = rt_chart_block(c);
		for (size_t i = 0; i < wl->ntrials; i++) {
			const rt_journal_record *r = wl->trials[i];
			double x = (double)rt_pg_x(wl, &r->point, &r->shape);
			if (pass && !r->m.feasible)
				rt_chart_printf(c, "%.10g %.10g\n", x, ybottom);
			else if (!pass && r->m.feasible && r->m.unstable)
				rt_chart_printf(c, "%.10g %.10g\n", x, r->m.median);
		}
		rt_chart_end_block(c);
	}
}

static void throughput_script(rt_chart *c, const rt_pg_workload *wl, const series *s, size_t ns,
                              rt_pg_svg *out)
{
	double xlo, xhi, ylo, yhi;
	x_tics(c, wl, &xlo, &xhi);
	y_range(wl, &ylo, &yhi);
	log_pad(&xlo, &xhi, 0.08);
	log_pad(&ylo, &yhi, 0.12);
	log_tics(c, "y", ylo, yhi, short_num);
	rt_chart_printf(c,
	                "set logscale x 2\nset logscale y 10\nset xrange [%.10g:%.10g]\n"
	                "set yrange [%.10g:%.10g]\nset xlabel ",
	                xlo, xhi, ylo, yhi);
	rt_chart_quoted(c, wl->xkey);
	rt_chart_printf(c, "\nset ylabel ");
	char ylabel[96];
	snprintf(ylabel, sizeof ylabel, "%s (median, 95%% CI)", wl->w->unit);
	rt_chart_quoted(c, ylabel);
	rt_chart_printf(c, "\nset key off\nset bars small\n");
	for (size_t k = 0; k < ns; k++) {
		rt_chart_block(c);
		for (size_t i = 0; i < s[k].n; i++) {
			const rt_journal_record *r = s[k].v[i];
			rt_chart_printf(c, "%ld %.10g %.10g %.10g\n",
			                rt_pg_x(wl, &r->point, &r->shape), r->m.median,
			                r->m.ci_lo > 0 ? r->m.ci_lo : r->m.median,
			                fmax(r->m.ci_hi, r->m.median));
		}
		rt_chart_end_block(c);
	}
	int unstable, infeasible;
	put_flags(c, wl, ylo * pow(yhi / ylo, 0.04), &unstable, &infeasible);
	put_marks(c, wl);
	for (size_t k = 0; k < ns; k++) {
		char label[128];
		rt_pagechart_series_label(wl, &s[k].v[0]->point, label, sizeof label);
		rt_chart_printf(c, "%s$d%zu using 1:2:3:4 with yerrorlines linetype %zu%s",
		                k ? ", \\\n     " : "plot ", k, k % RT_CHART_NCOLORS + 1,
		                k >= RT_CHART_NCOLORS ? " dashtype 2" : "");
		legend(out, label, rt_chart_color((int)k), RT_GLYPH_LINE);
	}
	/* the flags: red rings around unstable trials, red crosses for infeasible ones */
	const struct {
		int block, pointtype;
		const char *size, *label;
		rt_pg_glyph glyph;
	} flags[] = {{unstable, 6, "2.2", "unstable (cv > 5%)", RT_GLYPH_RING},
	             {infeasible, 2, "1.6", "infeasible (listed below)", RT_GLYPH_CROSS}};
	for (size_t f = 0; f < RT_COUNT(flags); f++) {
		if (flags[f].block < 0)
			continue;
		rt_chart_printf(c,
		                ", \\\n     $d%d using 1:2 with points pointtype %d pointsize %s "
		                "linewidth 2 linecolor rgb '%s'",
		                flags[f].block, flags[f].pointtype, flags[f].size, BAD_COLOR);
		legend(out, flags[f].label, BAD_COLOR, flags[f].glyph);
	}
	rt_chart_printf(c, "\n");
}

int rt_pagechart_throughput(const rt_pg_workload *wl, const char *gnuplot, const char *id_prefix,
                      rt_pg_svg *out, char *err, size_t errlen)
{
	if (!wl->w)
		return nothing(out, "%s is a command of yours, not a built-in workload: no chart",
		               wl->name);
	series *s = NULL;
	size_t ns = 0;
	int rc = group_series(wl, &s, &ns);
	if (rc) {
		free_series(s, ns);
		return rt_fail(err, errlen, rc, "out of memory");
	}
	if (ns == 0) {
		free_series(s, ns);
		return nothing(out,
		               wl->ntrials
		                   ? "No trial of %s ran: every point measured was infeasible "
		                     "(listed below)."
		                   : "The journals hold no trial of %s at this shape.",
		               wl->name);
	}
	rt_chart c;
	rc = rt_chart_begin(&c, CHART_W, 400, err, errlen);
	if (rc == RT_OK) {
		throughput_script(&c, wl, s, ns, out);
		rc = rt_chart_draw(&c, gnuplot, id_prefix, &out->svg, &out->len, err, errlen);
	}
	free_series(s, ns);
	return rc;
}

/* ---- phases ---- */

static void phase_script(rt_chart *c, const rt_pg_workload *wl, const rt_journal_record **rows,
                         const char **labels, int n)
{
	double share[2][RT_NPHASE_KIND], busy[2];
	for (int i = 0; i < n; i++)
		busy[i] = rt_pg_phase_split(wl->w, &rows[i]->m, share[i]);
	rt_chart_printf(c,
	                "set xrange [0:100]\nset yrange [-0.55:%d.75]\n"
	                "set xtics ('0' 0, '25%%%%' 25, '50%%%%' 50, '75%%%%' 75, '100%%%%' 100)\n"
	                "set xlabel 'share of each step'\nset grid noytics\n"
	                "set key above left horizontal\nset style fill solid 0.95 border linecolor "
	                "rgb '#ffffff'\n"
	                "set ytics (",
	                n - 1);
	for (int i = 0; i < n; i++) {
		rt_chart_printf(c, "%s", i ? ", " : "");
		rt_chart_tic(c, labels[i], n - 1 - i);
	}
	rt_chart_printf(c, ")\n");
	int first[RT_NPHASE_KIND];
	for (int k = 0; k < RT_NPHASE_KIND; k++) {
		first[k] = rt_chart_block(c);
		for (int i = 0; i < n; i++) {
			double x0 = 0;
			for (int j = 0; j < k; j++)
				x0 += 100 * share[i][j];
			double w = 100 * share[i][k];
			/* the words go inside the bar where they fit */
			char word[48] = "";
			if (w >= 14)
				snprintf(word, sizeof word, "%s %.0f%%",
				         rt_phase_kind_name((rt_phase_kind)k), w);
			else if (w >= 5)
				snprintf(word, sizeof word, "%.0f%%", w);
			rt_chart_printf(c, "%d %.6g %.6g \"%s\"\n", n - 1 - i, x0, x0 + w, word);
		}
		rt_chart_end_block(c);
	}
	for (int i = 0; i < n; i++) {
		double y = n - 1 - i + 0.42;
		char word[64];
		/* on the CPU no monitor reads a device: say what the share is */
		snprintf(word, sizeof word, "%s %.0f%%",
		         rt_backend_on_host(rows[i]->point.backend) ? "compute + update"
		                                                    : "device busy",
		         100 * busy[i]);
		if (busy[i] > 0.005)
			rt_chart_printf(c,
			                "set arrow from 0,%.3g to %.6g,%.3g heads size screen "
			                "0.005,90 linecolor rgb '%s' linewidth 1.5\n",
			                y, 100 * busy[i], y, MARK_COLOR);
		rt_chart_printf(c, "set label ");
		rt_chart_quoted(c, word);
		rt_chart_printf(c, " at %.6g,%.3g %s offset %s,0.55 textcolor rgb '%s'\n",
		                busy[i] > 0.5 ? 100 * busy[i] : 0.0, y,
		                busy[i] > 0.5 ? "right" : "left", busy[i] > 0.5 ? "-0.3" : "0.3",
		                MARK_COLOR);
	}
	for (int k = 0; k < RT_NPHASE_KIND; k++) {
		rt_chart_printf(c,
		                "%s$d%d using (($2+$3)/2):1:2:3:($1-0.28):($1+0.28) with "
		                "boxxyerror linecolor rgb '%s' title ",
		                k ? ", \\\n     " : "plot ", first[k], phase_colors[k]);
		rt_chart_quoted(c, rt_phase_kind_name((rt_phase_kind)k));
		rt_chart_printf(c,
		                ", \\\n     $d%d using (($2+$3)/2):1:4 with labels textcolor rgb "
		                "'#ffffff' notitle",
		                first[k]);
	}
	rt_chart_printf(c, "\n");
}

int rt_pagechart_phases(const rt_pg_workload *wl, const char *gnuplot, const char *id_prefix,
                  rt_pg_svg *out, char *err, size_t errlen)
{
	const rt_journal_record *rows[2];
	const char *labels[2];
	if (!wl->w)
		return nothing(out, "%s is a command of yours: rigtune does not see its phases.",
		               wl->name);
	int n = rt_pg_phase_rows(wl, rows, labels);
	if (n == 0)
		return nothing(out,
		               "No phase split to show for %s: the recommended point's trial is "
		               "not in the journals read.",
		               wl->name);
	rt_chart c;
	int rc = rt_chart_begin(&c, CHART_W, 120 + 70 * n, err, errlen);
	if (rc == RT_OK) {
		phase_script(&c, wl, rows, labels, n);
		rc = rt_chart_draw(&c, gnuplot, id_prefix, &out->svg, &out->len, err, errlen);
	}
	return rc;
}

/* ---- crossover ---- */

#define FIT_SAMPLES 60

/* The x range: every curve's measured range, every n* and its CI, every thread crossover. */
static void xo_xrange(const rt_pg_crossover *xo, double *lo, double *hi, double *ylo, double *yhi)
{
	*lo = *ylo = INFINITY;
	*hi = *yhi = 0;
	for (int i = 0; i < xo->ncurves; i++) {
		const rt_fit *f = &xo->curves[i].fit;
		*lo = fmin(*lo, f->n_min);
		*hi = fmax(*hi, f->n_max);
	}
	for (int i = 0; i < xo->npairs; i++)
		for (int k = 0; k < 3; k++) {
			double v = k == 0   ? xo->pairs[i].n_star
			           : k == 1 ? xo->pairs[i].ci_lo
			                    : xo->pairs[i].ci_hi;
			if (isfinite(v) && v > 0) {
				*lo = fmin(*lo, v);
				*hi = fmax(*hi, v);
			}
		}
	for (int i = 0; i < xo->nthreads; i++)
		if (isfinite(xo->threads[i].pays_from) && xo->threads[i].pays_from > 0) {
			*lo = fmin(*lo, xo->threads[i].pays_from);
			*hi = fmax(*hi, xo->threads[i].pays_from);
		}
	for (int i = 0; i < xo->ncurves; i++) {
		const rt_fit *f = &xo->curves[i].fit;
		for (int k = 0; k < 2; k++) {
			double t = rt_fit_eval(f, k ? *hi : *lo);
			if (t > 0) {
				*ylo = fmin(*ylo, t);
				*yhi = fmax(*yhi, t);
			}
		}
		const rt_replay_curve *o = xo->curves[i].obs;
		for (size_t k = 0; o && k < o->count; k++) {
			*ylo = fmin(*ylo, o->seconds[k]);
			*yhi = fmax(*yhi, o->seconds[k]);
		}
	}
}

/* A vertical mark at n: a dashed line, the interval shaded, a label at the top. */
static void xo_mark(rt_chart *c, double n, double lo, double hi, const char *text, int row)
{
	if (isfinite(lo) && isfinite(hi) && hi > lo)
		rt_chart_printf(
		    c,
		    "set object rect from %.10g, graph 0 to %.10g, graph 1 behind "
		    "fillcolor rgb '#000000' fillstyle transparent solid 0.07 noborder\n",
		    lo, hi);
	rt_chart_printf(c,
	                "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead dashtype 2 "
	                "linecolor rgb '%s' linewidth 1.2\nset label ",
	                n, n, MARK_COLOR);
	rt_chart_quoted(c, text);
	rt_chart_printf(c, " at %.10g, graph %.2f offset 0.6,0 textcolor rgb '%s'\n", n,
	                0.96 - 0.06 * row, MARK_COLOR);
}

static void xo_marks(rt_chart *c, const rt_pg_crossover *xo)
{
	int row = 0;
	for (int i = 0; i < xo->npairs; i++) {
		const rt_pg_pair *p = &xo->pairs[i];
		if (!isfinite(p->n_star))
			continue;
		char text[160];
		snprintf(text, sizeof text, "n* = %.0f", p->n_star);
		if (isfinite(p->ci_lo))
			snprintf(text + strlen(text), sizeof text - strlen(text),
			         " (95%% CI %.0f to %.0f)", p->ci_lo, p->ci_hi);
		xo_mark(c, p->n_star, p->ci_lo, p->ci_hi, text, row++);
	}
	for (int i = 0; i < xo->nthreads; i++) {
		const rt_pg_threads *t = &xo->threads[i];
		if (!isfinite(t->pays_from))
			continue;
		char text[128];
		snprintf(text, sizeof text, "%d threads pay from n = %.0f", t->threads,
		         t->pays_from);
		xo_mark(c, t->pays_from, NAN, NAN, text, row++);
	}
}

/* The fit sampled on a log grid from a to b. */
static void fit_block(rt_chart *c, const rt_fit *f, double a, double b)
{
	for (int k = 0; k < FIT_SAMPLES; k++) {
		double n = a * pow(b / a, (double)k / (FIT_SAMPLES - 1));
		rt_chart_printf(c, "%.10g %.10g\n", n, rt_fit_eval(f, n));
	}
}

static void xo_script(rt_chart *c, const rt_pg_crossover *xo)
{
	double xlo, xhi, ylo, yhi;
	xo_xrange(xo, &xlo, &xhi, &ylo, &yhi);
	double fit_lo = xlo, fit_hi = xhi;
	log_pad(&xlo, &xhi, 0.04);
	log_pad(&ylo, &yhi, 0.05);
	log_tics(c, "y", ylo, yhi, seconds_text);
	rt_chart_printf(c,
	                "set logscale xy\nset xrange [%.10g:%.10g]\nset yrange [%.10g:%.10g]\n"
	                "set format x '%%g'\nset xlabel 'n (a square n x n x n GEMM)'\n"
	                "set ylabel 'seconds per GEMM'\nset key bottom right opaque\n",
	                xlo, xhi, ylo, yhi);
	xo_marks(c, xo);
	int outliers = 0;
	for (int i = 0; i < xo->ncurves; i++) {
		const rt_pg_curve *cv = &xo->curves[i];
		rt_chart_block(c);
		fit_block(c, &cv->fit, cv->fit.n_min, cv->fit.n_max);
		rt_chart_end_block(c);
		rt_chart_block(c); /* beyond the measured range: dotted, both ways */
		fit_block(c, &cv->fit, fit_lo, cv->fit.n_min);
		rt_chart_printf(c, "\n\n");
		fit_block(c, &cv->fit, cv->fit.n_max, fit_hi);
		rt_chart_end_block(c);
		rt_chart_block(c);
		for (size_t k = 0; cv->obs && k < cv->obs->count; k++)
			rt_chart_printf(c, "%.10g %.10g\n", cv->obs->n[k], cv->obs->seconds[k]);
		rt_chart_printf(c, "NaN NaN\n");
		rt_chart_end_block(c);
		outliers |= cv->noutliers > 0;
	}
	if (outliers) {
		rt_chart_block(c);
		for (int i = 0; i < xo->ncurves; i++)
			for (int k = 0; k < xo->curves[i].noutliers; k++)
				rt_chart_printf(c, "%.10g %.10g\n", xo->curves[i].outliers[2 * k],
				                xo->curves[i].outliers[2 * k + 1]);
		rt_chart_end_block(c);
	}
	for (int i = 0; i < xo->ncurves; i++) {
		const rt_pg_curve *cv = &xo->curves[i];
		const char *color = rt_chart_color(i);
		char label[96];
		snprintf(label, sizeof label, "%s: t = %.3g + %.3g n^%.2f", cv->label, cv->fit.c,
		         cv->fit.a, cv->fit.b);
		rt_chart_printf(c,
		                "%s$d%d using 1:2 with points pointtype 7 pointsize 0.45 "
		                "linecolor rgb '#a0%s' notitle, \\\n     "
		                "$d%d using 1:2 with lines linewidth 2.5 linecolor rgb '%s' title ",
		                i ? ", \\\n     " : "plot ", 3 * i + 2, color + 1, 3 * i, color);
		rt_chart_quoted(c, label);
		rt_chart_printf(c,
		                ", \\\n     $d%d using 1:2 with lines dashtype 3 linewidth 1.5 "
		                "linecolor rgb '%s' notitle",
		                3 * i + 1, color);
	}
	if (outliers)
		rt_chart_printf(c,
		                ", \\\n     $d%d using 1:2 with points pointtype 6 pointsize 1.3 "
		                "linecolor rgb '%s' title 'outliers of the fits'",
		                3 * xo->ncurves, BAD_COLOR);
	rt_chart_printf(c, "\n");
}

int rt_pagechart_crossover(const rt_pg_crossover *xo, const char *gnuplot, const char *id_prefix,
                     rt_pg_svg *out, char *err, size_t errlen)
{
	if (!xo->present || xo->ncurves == 0)
		return nothing(out, "%s", "No crossover sweep in the inputs.");
	rt_chart c;
	int rc = rt_chart_begin(&c, CHART_W, 460, err, errlen);
	if (rc == RT_OK) {
		xo_script(&c, xo);
		rc = rt_chart_draw(&c, gnuplot, id_prefix, &out->svg, &out->len, err, errlen);
	}
	return rc;
}

/* ---- threads ---- */

/* The curve of t's backend and precision at n threads, compact, data resident; or NULL. */
static const rt_pg_curve *thread_curve(const rt_pg_crossover *xo, const rt_pg_threads *t, int n)
{
	rt_curve want = {.threads = n};
	snprintf(want.backend, sizeof want.backend, "%s", t->backend);
	for (int i = 0; i < xo->ncurves; i++) {
		const rt_pg_curve *c = &xo->curves[i];
		if (rt_curve_equal(&c->id, &want) && !strcmp(c->precision, t->precision))
			return c;
	}
	return NULL;
}

/* The median seconds of a curve's observations at size n; NAN if none. */
static double median_at(const rt_replay_curve *o, double n)
{
	double *v = malloc(o->count * sizeof *v), m = NAN;
	size_t k = 0;
	for (size_t i = 0; v && i < o->count; i++)
		if (o->n[i] == n)
			v[k++] = o->seconds[i];
	if (k)
		m = rt_median(v, k);
	free(v);
	return m;
}

/* The observed speedups: at every n both curves measured, median over median. */
static void observed_speedup(rt_chart *c, const rt_pg_curve *one, const rt_pg_curve *many,
                             double *lo, double *hi)
{
	for (size_t i = 0; one->obs && many->obs && i < one->obs->count; i++) {
		double n = one->obs->n[i];
		int first = 1;
		for (size_t k = 0; k < i; k++)
			first &= one->obs->n[k] != n;
		double t1 = first ? median_at(one->obs, n) : NAN, tn = median_at(many->obs, n);
		if (isfinite(t1) && isfinite(tn) && tn > 0) {
			rt_chart_printf(c, "%.10g %.10g\n", n, t1 / tn);
			*lo = fmin(*lo, t1 / tn);
			*hi = fmax(*hi, t1 / tn);
		}
	}
}

static int threads_script(rt_chart *c, const rt_pg_crossover *xo)
{
	int drawn = 0, blocks[RT_PG_MAX_PAIRS];
	const rt_pg_threads *which[RT_PG_MAX_PAIRS];
	double lo = 1, hi = 1, xlo = INFINITY, xhi = 0;
	for (int i = 0; i < xo->nthreads; i++) {
		const rt_pg_threads *t = &xo->threads[i];
		const rt_pg_curve *one = thread_curve(xo, t, 1),
		                  *many = thread_curve(xo, t, t->threads);
		if (t->error || !one || !many)
			continue;
		double a = fmax(one->fit.n_min, many->fit.n_min),
		       b = fmin(one->fit.n_max, many->fit.n_max);
		if (!(b > a))
			continue;
		xlo = fmin(xlo, a);
		xhi = fmax(xhi, b);
		blocks[drawn] = rt_chart_block(c);
		which[drawn++] = t;
		for (int k = 0; k < FIT_SAMPLES; k++) {
			double n = a * pow(b / a, (double)k / (FIT_SAMPLES - 1));
			double r = rt_fit_eval(&one->fit, n) / rt_fit_eval(&many->fit, n);
			rt_chart_printf(c, "%.10g %.10g\n", n, r);
			lo = fmin(lo, r);
			hi = fmax(hi, r);
		}
		rt_chart_end_block(c);
		rt_chart_block(c);
		observed_speedup(c, one, many, &lo, &hi);
		rt_chart_printf(c, "NaN NaN\n");
		rt_chart_end_block(c);
	}
	if (!drawn)
		return 0;
	double pad = 0.1 * (hi - lo) + 0.02;
	rt_chart_printf(c,
	                "set logscale x\nset format x '%%g'\nset xlabel 'n (a square n x n x n "
	                "GEMM)'\nset ylabel 'speedup over 1 thread'\nset key bottom right opaque\n"
	                "set xrange [%.10g:%.10g]\nset yrange [%.6g:%.6g]\n"
	                "set arrow from graph 0, first 1 to graph 1, first 1 nohead linecolor rgb "
	                "'%s' dashtype 2\n",
	                xlo / 1.05, xhi * 1.05, fmax(0, lo - pad), hi + pad, MARK_COLOR);
	for (int i = 0; i < drawn; i++)
		if (isfinite(which[i]->pays_from)) {
			char text[96];
			snprintf(text, sizeof text, "%d threads pay from n = %.0f",
			         which[i]->threads, which[i]->pays_from);
			xo_mark(c, which[i]->pays_from, NAN, NAN, text, i);
		}
	for (int i = 0; i < drawn; i++) {
		char label[128];
		snprintf(label, sizeof label, "%s %s: %d threads over 1 (fits)", which[i]->backend,
		         which[i]->precision, which[i]->threads);
		rt_chart_printf(c, "%s$d%d using 1:2 with lines linetype %d title ",
		                i ? ", \\\n     " : "plot ", blocks[i], i + 1);
		rt_chart_quoted(c, label);
		rt_chart_printf(c,
		                ", \\\n     $d%d using 1:2 with points linetype %d title "
		                "'observed (medians)'",
		                blocks[i] + 1, i + 1);
	}
	rt_chart_printf(c, "\n");
	return drawn;
}

int rt_pagechart_threads(const rt_pg_crossover *xo, const char *gnuplot, const char *id_prefix,
                   rt_pg_svg *out, char *err, size_t errlen)
{
	rt_chart c;
	int rc = rt_chart_begin(&c, CHART_W, 340, err, errlen);
	if (rc)
		return rc;
	if (!xo->present || !threads_script(&c, xo)) {
		rt_chart_discard(&c);
		return nothing(out, "%s",
		               "No backend was measured at one thread and at several: no "
		               "thread crossover to draw.");
	}
	return rt_chart_draw(&c, gnuplot, id_prefix, &out->svg, &out->len, err, errlen);
}

/* ---- check ---- */

static void check_script(rt_chart *c, const rt_checkdoc *d, int nratio, rt_pg_svg *out)
{
	double lo = 1 - d->threshold, hi = 1 + d->threshold;
	for (int i = 0; i < d->npoints; i++)
		if (d->points[i].has_ratio) {
			lo = fmin(lo, d->points[i].ci_lo);
			hi = fmax(hi, d->points[i].ci_hi);
		}
	double pad = 0.08 * (hi - lo);
	rt_chart_printf(
	    c,
	    "set xrange [%.6g:%.6g]\nset yrange [-0.7:%d.7]\n"
	    "set xlabel 'now / baseline (median, 95%% CI)'\nset grid noytics\n"
	    "set key off\nset bars 0.6\n"
	    "set object rect from %.6g, graph 0 to %.6g, graph 1 behind fillcolor rgb "
	    "'#000000' fillstyle transparent solid 0.07 noborder\n"
	    "set arrow from 1, graph 0 to 1, graph 1 nohead linecolor rgb '%s'\nset ytics (",
	    lo - pad, hi + pad, nratio - 1, 1 - d->threshold, 1 + d->threshold, MARK_COLOR);
	int y = nratio;
	for (int i = 0; i < d->npoints; i++) {
		const rt_checkdoc_point *p = &d->points[i];
		char label[160];
		if (!p->has_ratio)
			continue;
		snprintf(label, sizeof label, "%s %s", p->workload, p->curve ? p->curve : p->roles);
		rt_chart_printf(c, "%s", y < nratio ? ", " : "");
		rt_chart_tic(c, label, --y);
	}
	rt_chart_printf(c, ")\n");
	int blocks[RT_NVERDICT], shown[RT_NVERDICT] = {0};
	for (int v = 0; v < RT_NVERDICT; v++) {
		blocks[v] = rt_chart_block(c);
		y = nratio;
		for (int i = 0; i < d->npoints; i++) {
			const rt_checkdoc_point *p = &d->points[i];
			if (!p->has_ratio || --y < 0 || p->verdict != (rt_verdict)v)
				continue;
			rt_chart_printf(c, "%.8g %d %.8g %.8g\n", p->ratio, y, p->ci_lo, p->ci_hi);
			shown[v]++;
		}
		rt_chart_printf(c, "NaN NaN NaN NaN\n");
		rt_chart_end_block(c);
	}
	for (int v = 0, drawn = 0; v < RT_NVERDICT; v++) {
		if (!shown[v])
			continue;
		rt_chart_printf(c,
		                "%s$d%d using 1:2:3:4 with xerrorbars pointtype 7 pointsize 1.2 "
		                "linewidth 2 linecolor rgb '%s'",
		                drawn++ ? ", \\\n     " : "plot ", blocks[v], verdict_colors[v]);
		legend(out, rt_verdict_name((rt_verdict)v), verdict_colors[v], RT_GLYPH_LINE);
	}
	rt_chart_printf(c, "\n");
	legend(out, "within the threshold", "#dddddd", RT_GLYPH_BOX);
}

int rt_pagechart_check(const rt_checkdoc *d, const char *gnuplot, const char *id_prefix, rt_pg_svg *out,
                 char *err, size_t errlen)
{
	int nratio = 0;
	for (int i = 0; i < d->npoints; i++)
		nratio += d->points[i].has_ratio;
	if (nratio == 0)
		return nothing(
		    out, "%s",
		    "No point of the check was measured on both sides: nothing to compare.");
	rt_chart c;
	int rc = rt_chart_begin(&c, CHART_W, 80 + 34 * nratio, err, errlen);
	if (rc == RT_OK) {
		check_script(&c, d, nratio, out);
		rc = rt_chart_draw(&c, gnuplot, id_prefix, &out->svg, &out->len, err, errlen);
	}
	return rc;
}
