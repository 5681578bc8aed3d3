/*
 * pagewatch.c: pagewatch.h. The time line is drawn by hand: lanes of
 * polylines over shaded phase rectangles, each lane scaled to its own
 * range, one x axis in seconds under them all.
 */
#include "pagewatch.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../html.h"

#define W 900          /* the chart's width */
#define LEFT 120       /* the lanes' labels */
#define RIGHT 16
#define LANE_H 80
#define LANE_GAP 18
#define AXIS_H 30
#define MAX_POINTS 3000 /* a polyline's points at most: a long run is strided */

/* A class's shade: the phases' background, the legend's swatch. */
static const char *const shade[RT_WC_N] = {
	[RT_WC_DEVICE] = "#f4a261",    [RT_WC_ONE_THREAD] = "#e76f51",
	[RT_WC_THREADS] = "#2a9d8f",   [RT_WC_WAIT_IO] = "#8d99ae",
	[RT_WC_WAIT_SLEEP] = "#c9c9c9",
};

/* One lane: a label, its range, and where it sits. */
typedef struct lane {
	const char *label, *unit;
	double top; /* the value at the lane's top */
	int y;      /* its top edge */
} lane;

static double x_of(const rt_watch_run *r, double t)
{
	double span = r->nticks ? r->ticks[r->nticks - 1].t : 1;
	return LEFT + (W - LEFT - RIGHT) * (span > 0 ? t / span : 0);
}

static double y_of(const lane *l, double v)
{
	double f = l->top > 0 ? v / l->top : 0;
	return l->y + LANE_H * (1 - (f < 0 ? 0 : f > 1 ? 1 : f));
}

/* The field at offset off of tick i, as a double. */
static double field(const rt_watch_run *r, int i, size_t off)
{
	double v;
	memcpy(&v, (const char *)&r->ticks[i] + off, sizeof v);
	return v;
}

static void polyline(FILE *f, const rt_watch_run *r, const lane *l, size_t off,
		     const char *color, const char *dash)
{
	int stride = r->nticks > MAX_POINTS ? (r->nticks + MAX_POINTS - 1) / MAX_POINTS : 1;
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s%s%s points=\"",
		color, dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
	for (int i = 0; i < r->nticks; i += stride)
		fprintf(f, "%.1f,%.1f ", x_of(r, r->ticks[i].t), y_of(l, field(r, i, off)));
	fputs("\"/>\n", f);
}

static void lane_frame(FILE *f, const lane *l)
{
	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#999\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">",
		LEFT, l->y, W - LEFT - RIGHT, LANE_H, 4, l->y + 16);
	rt_html_text(f, l->label);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\">", 4, l->y + 32);
	fprintf(f, "0 to %.3g ", l->top);
	rt_html_text(f, l->unit);
	fputs("</text>\n", f);
}

/* The phases behind every lane, from the ticks' phase classes. */
static void phases(FILE *f, const rt_watch_run *r, int height)
{
	for (int i = 0, j; i < r->nticks; i = j) {
		for (j = i + 1; j < r->nticks && r->ticks[j].phase == r->ticks[i].phase; j++)
			;
		int c = r->ticks[i].phase;
		double x0 = x_of(r, r->ticks[i].t - r->ticks[i].dt), x1 = x_of(r, r->ticks[j - 1].t);
		fprintf(f,
			"<rect class=\"phase\" data-class=\"%s\" x=\"%.1f\" y=\"0\" width=\"%.1f\" "
			"height=\"%d\" fill=\"%s\" fill-opacity=\"0.35\"/>\n",
			rt_watch_class_name(c), x0, x1 - x0 > 0 ? x1 - x0 : 0, height,
			c >= 0 && c < RT_WC_N ? shade[c] : "#fff");
	}
}

/* Seconds on the x axis: about eight ticks at a round step. */
static void axis(FILE *f, const rt_watch_run *r, int y)
{
	double span = r->nticks ? r->ticks[r->nticks - 1].t : 0, step = 1;
	static const double steps[] = {0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		step = steps[i];
		if (span / step <= 8)
			break;
	}
	if (span / step > 8) /* longer than 8 hours: whole hours, still about eight ticks */
		step = ceil(span / 8 / 3600) * 3600;
	for (double t = 0; t <= span + 1e-9; t += step)
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>"
			"<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%g s</text>\n",
			x_of(r, t), y, x_of(r, t), y + 5, x_of(r, t), y + 17, t);
}

/* The user's rate as dots, on its own lane. */
static void rate_dots(FILE *f, const rt_watch_run *r, const lane *l)
{
	int stride = r->nmetric > MAX_POINTS ? (r->nmetric + MAX_POINTS - 1) / MAX_POINTS : 1;
	for (int i = 0; i < r->nmetric; i += stride)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#264653\"/>\n",
			x_of(r, r->metric[i].t), y_of(l, r->metric[i].v));
}

static double max_of(const rt_watch_run *r, size_t off, double floor)
{
	double m = floor;
	for (int i = 0; i < r->nticks; i++)
		m = fmax(m, field(r, i, off));
	return m;
}

static void chart(FILE *f, const rt_watch_run *r)
{
	lane l[4];
	int n = 0;
	l[n++] = (lane){"busiest thread", "of a core: ran (solid), wanted (dashed)",
			max_of(r, offsetof(rt_watch_tick, top_want), 1), 0};
	l[n++] = (lane){"cores", "cores: the run's (solid), other processes' (dashed)",
			fmax(r->ncpus, max_of(r, offsetof(rt_watch_tick, other), 1)), 0};
	int dev = r->ndevices > 0, rate = r->nmetric > 0;
	if (dev)
		l[n++] = (lane){"device", "busy share", 1, 0};
	double rtop = 0;
	for (int i = 0; i < r->nmetric; i++)
		rtop = fmax(rtop, r->metric[i].v);
	if (rate)
		l[n++] = (lane){"rate (--metric)", "as printed", rtop > 0 ? rtop : 1, 0};
	for (int i = 0; i < n; i++)
		l[i].y = 6 + i * (LANE_H + LANE_GAP);
	int height = 6 + n * (LANE_H + LANE_GAP) + AXIS_H;
	fprintf(f,
		"<figure id=\"chart-watch\" data-chart=\"watch\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
		"aria-label=\"time line of the watched run\">\n",
		W, height, W, height);
	phases(f, r, height - AXIS_H);
	for (int i = 0; i < n; i++)
		lane_frame(f, &l[i]);
	polyline(f, r, &l[0], offsetof(rt_watch_tick, top), "#e76f51", NULL);
	polyline(f, r, &l[0], offsetof(rt_watch_tick, top_want), "#e76f51", "4 3");
	polyline(f, r, &l[1], offsetof(rt_watch_tick, cores), "#2a9d8f", NULL);
	polyline(f, r, &l[1], offsetof(rt_watch_tick, other), "#555", "4 3");
	if (dev)
		polyline(f, r, &l[2], offsetof(rt_watch_tick, device), "#f4a261", NULL);
	if (rate)
		rate_dots(f, r, &l[n - 1]);
	axis(f, r, height - AXIS_H + 2);
	fputs("</svg>\n<figcaption>Phases", f);
	if (r->win_steps)
		fprintf(f, " over its steps (%.1f to %.1f s; the verdict's window)", r->win0, r->win1);
	fputs(":", f);
	for (int c = 0; c < RT_WC_N; c++)
		fprintf(f,
			" <span style=\"background:%s;padding:0 6px\">%s</span> %.0f%%", shade[c],
			rt_watch_class_name(c), 100 * r->share[c]);
	fputs("</figcaption>\n</figure>\n", f);
}

void rt_pg_watch(FILE *f, const rt_watch_run *r)
{
	fputs("<section class=\"card\" id=\"watch\">\n<h2>Watch: <code>", f);
	rt_html_text(f, r->command);
	fprintf(f, "</code></h2>\n<p>%.1f s on %d CPUs. <strong>", r->wall_s, r->ncpus);
	rt_html_text(f, r->verdict);
	fputs("</strong></p>\n<p>Next: ", f);
	rt_html_text(f, r->step);
	fputs("</p>\n", f);
	if (r->nticks)
		chart(f, r);
	else
		fputs("<p class=\"nochart\" id=\"nochart-watch\">Nothing was sampled: the run ended "
		      "before its first interval.</p>\n",
		      f);
	fputs("</section>\n", f);
}
