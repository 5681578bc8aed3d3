/*
 * pagechart.h: the charts of the report page, drawn by gnuplot (chart.h)
 * from the page's data (pagedata.h).
 *
 * Each function returns RT_OK with out->svg, an inline <svg> element whose
 * ids start with id_prefix; or RT_OK with out->svg NULL and out->why, one
 * sentence saying why there is nothing to draw (the page prints it where
 * the chart would be); or gnuplot's error.
 */
#ifndef RT_PAGECHART_H
#define RT_PAGECHART_H

#include "../check/check_result.h"
#include "pagedata.h"

/* How a legend entry is drawn beside its label. */
typedef enum rt_pg_glyph {
	RT_GLYPH_LINE,  /* a line with a dot: a series */
	RT_GLYPH_RING,  /* an open circle */
	RT_GLYPH_CROSS, /* an x */
	RT_GLYPH_BOX,   /* a filled square: a shaded area */
} rt_pg_glyph;

typedef struct rt_pg_legend {
	char label[128];
	const char *color;
	rt_pg_glyph glyph;
} rt_pg_legend;

#define RT_PG_MAX_LEGEND 24

typedef struct rt_pg_svg {
	char *svg; /* malloc'd, or NULL */
	size_t len;
	char why[512];
	/* a chart whose legend is the page's (HTML wraps long labels better) */
	int nlegend;
	rt_pg_legend legend[RT_PG_MAX_LEGEND];
} rt_pg_svg;

/*
 * Throughput against the workload's axis key (batch, num_envs; threads for
 * a workload without a knee) on log axes, one line per setting measured
 * (backend, precision, threads, workers, and pin or device where they
 * vary), with 95% CI bars; unstable trials ringed, infeasible ones crossed
 * at the bottom, the recommended knee and the fastest point marked. Its
 * legend is out->legend.
 */
int rt_pagechart_throughput(const rt_pg_workload *wl, const char *gnuplot, const char *id_prefix,
                      rt_pg_svg *out, char *err, size_t errlen);

/*
 * The phase split of the rows of rt_pg_phase_rows as stacked bars by kind
 * (compute, update, transfer, data / env), the device-busy share bracketed
 * above each bar.
 */
int rt_pagechart_phases(const rt_pg_workload *wl, const char *gnuplot, const char *id_prefix,
                  rt_pg_svg *out, char *err, size_t errlen);

/*
 * Seconds per square GEMM against n on log axes: the observations (when
 * recorded), each curve's fit t = c + a n^b over its measured range
 * (dotted beyond it), every n* with its CI shaded, and the size from which
 * more threads pay.
 */
int rt_pagechart_crossover(const rt_pg_crossover *xo, const char *gnuplot, const char *id_prefix,
                     rt_pg_svg *out, char *err, size_t errlen);

/*
 * The thread crossover: per backend and precision measured at 1 and N
 * threads, the speedup of N threads over one against n (the ratio of the
 * fitted times; the observed medians as points where recorded), 1 marked,
 * and the size from which N threads pay.
 */
int rt_pagechart_threads(const rt_pg_crossover *xo, const char *gnuplot, const char *id_prefix,
                   rt_pg_svg *out, char *err, size_t errlen);

/*
 * A check's points as now / baseline ratios with their 95% CIs, coloured by
 * verdict, the band of +-threshold shaded around 1. Its legend is
 * out->legend.
 */
int rt_pagechart_check(const rt_checkdoc *d, const char *gnuplot, const char *id_prefix, rt_pg_svg *out,
                 char *err, size_t errlen);

/* The colour the page gives a verdict, in its charts and its table. */
const char *rt_pagechart_verdict_color(rt_verdict v);

/* "cpu fp32, 2 threads, 1 worker": a trial's setting as its line is labelled. */
void rt_pagechart_series_label(const rt_pg_workload *wl, const rt_point *pt, char *buf, size_t len);

#endif
