/*
 * pagewatch.h: the report page's section of a `rigtune watch` result: the
 * verdict and the step, the shares of wall time, and one time line (inline
 * SVG, drawn here: no gnuplot needed) with four lanes on one axis: the
 * busiest thread, the cores (the tree's and the rest of the machine's), the
 * device's busy share and the user's rate, the phases shaded behind them.
 * Anchors: <section id="watch">, <figure id="chart-watch" data-chart="watch">,
 * each phase a <rect class="phase" data-class="CLASS">.
 */
#ifndef RT_PAGEWATCH_H
#define RT_PAGEWATCH_H

#include <stdio.h>

#include "../watch/watch.h"

/* Writes the section for r to f, every string of r escaped. */
void rt_pg_watch(FILE *f, const rt_watch_run *r);

#endif
