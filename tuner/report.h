/* report.h: the YAML of one measurement (bench output, journal entries). */
#ifndef RT_REPORT_H
#define RT_REPORT_H

#include "measure.h"
#include "yamlw.h"

/* point: {backend: cpu, precision: fp32, ...} as a flow mapping value. */
void rt_emit_point(rt_yw *w, const rt_point *pt);
/* shape: {m: 1024, ...} as a flow mapping value. */
void rt_emit_shape(rt_yw *w, const rt_workload *wl, const rt_shape *sh);
/*
 * The whole measurement as a block mapping: workload, point, shape, and
 * either throughput/gflops/phases/samples or infeasible: <reason>.
 */
void rt_emit_measurement(rt_yw *w, const rt_workload *wl, const rt_point *pt,
			 const rt_shape *sh, const rt_measurement *m);

#endif
