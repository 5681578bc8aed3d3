/* report.h: the YAML of one measurement (bench output, journal entries). */
#ifndef RT_REPORT_H
#define RT_REPORT_H

#include "measure.h"
#include "yamlw.h"

/*
 * point: {backend: cpu, precision: fp32, ...} as a flow mapping value. With
 * a workload, only the knobs it reads (gemm has no batch); with NULL, every
 * field (the journal, which reads them all back).
 */
void rt_emit_point(rt_yw *w, const rt_point *pt, const rt_workload *wl);
/*
 * throughput: {median, ci95, unit, cv, unstable} (unstable: cv above
 * RT_UNSTABLE_CV); exact as below.
 */
void rt_emit_throughput(rt_yw *w, const char *unit, double median, double ci_lo,
			double ci_hi, double cv, int exact);
/* shape: {m: 1024, ...} as a flow mapping value. */
void rt_emit_shape(rt_yw *w, const rt_workload *wl, const rt_shape *sh);
/*
 * The key/value pairs of a measurement, inside a mapping the caller opened:
 * workload, point, shape, and either throughput/gflops/phases/samples or
 * infeasible: <reason> with cause: <kind> (rt_cause_name). exact 0 rounds the numbers for people (6 significant
 * digits for throughput, fewer for shares); exact 1 writes every number with
 * 17 so that it reads back bit for bit (the results journal).
 */
void rt_emit_measurement_fields(rt_yw *w, const rt_workload *wl, const rt_point *pt,
				const rt_shape *sh, const rt_measurement *m, int exact);

#endif
