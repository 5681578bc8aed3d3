#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"
#include "gnuplot.h"

int rt_plot_paths(const char *svg_path, char *dat, char *gp, size_t len, char *err,
		  size_t errlen)
{
	size_t base = strlen(svg_path);
	if (base > 4 && !strcmp(svg_path + base - 4, ".svg"))
		base -= 4;
	if (base == 0 || base + 5 > len)
		return rt_fail(err, errlen, RT_EINVAL, "bad plot file name '%s'", svg_path);
	snprintf(dat, len, "%.*s.dat", (int)base, svg_path);
	snprintf(gp, len, "%.*s.gp", (int)base, svg_path);
	return RT_OK;
}

/* A gnuplot single-quoted string of s and suffix: '' stands for one quote. */
static void put_quoted2(FILE *fp, const char *s, const char *suffix)
{
	fputc('\'', fp);
	for (int part = 0; part < 2; part++, s = suffix)
		for (; *s; s++) {
			if (*s == '\'')
				fputc('\'', fp);
			fputc(*s, fp);
		}
	fputc('\'', fp);
}

static void put_quoted(FILE *fp, const char *s)
{
	put_quoted2(fp, s, "");
}

/* Settings, axes and the marks: everything of the script before `plot`. */
static void script_head(FILE *gp, const char *svg_path, const char *title,
			const rt_plot_mark *marks, size_t nmarks)
{
	fprintf(gp, "# gnuplot script written by rigtune: gnuplot this file draws the svg\n");
	fprintf(gp, "set terminal svg size 900,600 dynamic noenhanced font 'sans,12'\n");
	fprintf(gp, "set output ");
	put_quoted(gp, svg_path);
	fprintf(gp, "\nset title ");
	put_quoted(gp, title ? title : "time against size");
	fprintf(gp, "\nset logscale xy\nset xlabel 'n'\nset ylabel 'seconds'\n"
		    "set format x '%%g'\nset format y '%%g'\nset key top left\nset grid\n");
	for (size_t i = 0; i < nmarks; i++) {
		const rt_plot_mark *m = &marks[i];
		if (isfinite(m->lo) && isfinite(m->hi))
			fprintf(gp,
				"set object rect from %.8g, graph 0 to %.8g, graph 1 behind "
				"fillcolor rgb '#dddddd' fillstyle solid 0.5 noborder\n",
				m->lo, m->hi);
		fprintf(gp, "set arrow from %.8g, graph 0 to %.8g, graph 1 nohead dashtype 2\n",
			m->n, m->n);
		fprintf(gp, "set label ");
		put_quoted(gp, m->label ? m->label : "n*");
		fprintf(gp, " at %.8g, graph %.2f offset 0.5,0\n", m->n, 0.95 - 0.05 * (double)i);
	}
}

/* One entry of the plot command: block `block` of the data file. */
static void put_entry(FILE *gp, const char *dat_path, int block, const char *style, int color,
		      const char *label, const char *suffix, int *first)
{
	fprintf(gp, "%s", *first ? "plot " : ", \\\n     ");
	*first = 0;
	put_quoted(gp, dat_path);
	fprintf(gp, " index %d with %s linecolor %d title ", block, style, color);
	put_quoted2(gp, label, suffix);
}

/* Writes the observations of one kind (outliers or not) as a block; returns how many. */
static size_t put_points(FILE *dat, const rt_plot_curve *c, bool outliers)
{
	size_t written = 0;
	for (size_t i = 0; i < c->points.count; i++) {
		bool is_out = c->outlier && c->outlier[i];
		if (is_out != outliers)
			continue;
		if (!written)
			fprintf(dat, "# %s %s: n seconds\n", c->label, outliers ? "outliers" : "points");
		fprintf(dat, "%.8g %.8g\n", c->points.n[i], c->points.seconds[i]);
		written++;
	}
	if (written)
		fprintf(dat, "\n\n");
	return written;
}

/*
 * The data blocks of one curve (points, outliers, fit samples if a fit is
 * given), each ended by two blank lines so that gnuplot's `index` counts
 * it, and their plot entries. gnuplot does not count an empty block, so
 * none is written. *block is the running block index, *first whether no
 * plot entry was written yet.
 */
static void put_curve(FILE *dat, FILE *gp, const char *dat_path, const rt_plot_curve *c,
		      int color, int *block, int *first)
{
	if (put_points(dat, c, false))
		put_entry(gp, dat_path, (*block)++, "points pointtype 7", color, c->label, "", first);
	if (put_points(dat, c, true))
		put_entry(gp, dat_path, (*block)++, "points pointtype 6 pointsize 2", color, c->label,
			  " outliers", first);
	if (!c->fit)
		return;
	const rt_fit *f = c->fit;
	fprintf(dat, "# %s fit: t = %.6g + %.6g * n^%.4f\n", c->label, f->c, f->a, f->b);
	for (int i = 0; i < RT_PLOT_FIT_SAMPLES; i++) {
		double n = f->n_min * pow(f->n_max / f->n_min, (double)i / (RT_PLOT_FIT_SAMPLES - 1));
		fprintf(dat, "%.8g %.8g\n", n, rt_fit_eval(f, n));
	}
	fprintf(dat, "\n\n");
	put_entry(gp, dat_path, *block, "lines linewidth 2", color, c->label, " fit", first);
	(*block)++;
}

/* Writes both files; a failed write or close of either is RT_EIO. */
static int write_files(const char *svg_path, const char *dat_path, const char *gp_path,
		       const char *title, const rt_plot_curve *curves, size_t ncurves,
		       const rt_plot_mark *marks, size_t nmarks, char *err, size_t errlen)
{
	int rc = RT_EIO;
	FILE *dat = fopen(dat_path, "w");
	if (!dat)
		return rt_fail(err, errlen, rc, "cannot write %s: %s", dat_path, strerror(errno));
	FILE *gp = fopen(gp_path, "w");
	if (!gp) {
		rt_fail(err, errlen, rc, "cannot write %s: %s", gp_path, strerror(errno));
		goto close_dat;
	}
	script_head(gp, svg_path, title, marks, nmarks);
	int block = 0, first = 1;
	for (size_t i = 0; i < ncurves; i++)
		put_curve(dat, gp, dat_path, &curves[i], (int)i + 1, &block, &first);
	fprintf(gp, "\n");
	int bad = ferror(gp) || ferror(dat);
	if (fclose(gp) || bad) {
		rt_fail(err, errlen, rc, "cannot write %s or %s", gp_path, dat_path);
		goto close_dat;
	}
	rc = RT_OK;
close_dat:
	if (fclose(dat) && rc == RT_OK)
		rc = rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", dat_path, strerror(errno));
	return rc;
}

int rt_plot_write(const char *svg_path, const char *title, const rt_plot_curve *curves,
		  size_t ncurves, const rt_plot_mark *marks, size_t nmarks,
		  rt_plot_outcome *outcome, char *err, size_t errlen)
{
	size_t len = strlen(svg_path) + 8;
	char *buf = malloc(2 * len), exe[4096];
	if (!buf)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory writing the plot");
	char *dat = buf, *gp = buf + len;
	int rc = rt_plot_paths(svg_path, dat, gp, len, err, errlen);
	if (!rc)
		rc = write_files(svg_path, dat, gp, title, curves, ncurves, marks, nmarks, err,
				 errlen);
	if (rc)
		goto out;
	*outcome = RT_PLOT_NO_GNUPLOT;
	if (rt_gnuplot_find(exe, sizeof exe)) {
		*outcome = RT_PLOT_DRAWN;
		rc = rt_gnuplot_run_file(exe, gp, err, errlen);
	}
out:
	free(buf);
	return rc;
}
