/*
 * plot.h: `--plot FILE.svg` draws time against n on log-log axes, the
 * observations (outliers apart), the fitted curves and the crossovers.
 *
 * It always writes FILE.dat (the data, one gnuplot block per series) and
 * FILE.gp (a gnuplot script with the svg terminal and `set output FILE.svg`)
 * beside FILE ("FILE" being the path less a trailing ".svg"). gnuplot is an
 * optional dependency of this feature only: when it is on PATH it is run on
 * FILE.gp; when it is not, the caller tells the user to run it.
 */
#ifndef RT_PLOT_H
#define RT_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "../search/fit.h"

typedef struct rt_plot_curve {
	const char *label;   /* "cpu/fp32" */
	rt_series points;    /* the observations */
	const bool *outlier; /* per observation, or NULL */
	const rt_fit *fit;   /* drawn on a log grid over the measured range, or NULL */
} rt_plot_curve;

/* A vertical line at n, with a label and an optional shaded interval. */
typedef struct rt_plot_mark {
	double n;
	double lo, hi; /* NAN for none */
	const char *label;
} rt_plot_mark;

typedef enum rt_plot_outcome {
	RT_PLOT_DRAWN,       /* gnuplot wrote FILE.svg */
	RT_PLOT_NO_GNUPLOT,  /* gnuplot is not on PATH: only .dat and .gp were written */
} rt_plot_outcome;

/* Samples per fitted curve in FILE.dat. */
#define RT_PLOT_FIT_SAMPLES 100

/*
 * Writes FILE.dat and FILE.gp for svg_path and runs gnuplot when installed.
 * *outcome says which; with RT_PLOT_NO_GNUPLOT the caller prints
 * "gnuplot not installed: wrote FILE.dat and FILE.gp; run gnuplot FILE.gp"
 * (rt_plot_paths gives the names). Returns RT_EIO when a file cannot be
 * written, RT_ERUNTIME when gnuplot fails (its messages go to stderr).
 */
int rt_plot_write(const char *svg_path, const char *title, const rt_plot_curve *curves,
		  size_t ncurves, const rt_plot_mark *marks, size_t nmarks,
		  rt_plot_outcome *outcome, char *err, size_t errlen);

/* The .dat and .gp paths written for svg_path, into buffers of len bytes. */
int rt_plot_paths(const char *svg_path, char *dat, char *gp, size_t len, char *err,
		  size_t errlen);

#endif
