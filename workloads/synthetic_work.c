/*
 * Calibration of synthetic host work: see synthetic_work.h.
 */
#include "synthetic_work.h"

#include <math.h>

#include "../common/rt.h"

#define RUNS 5

/* Seconds of run(ctx, units), the fastest of RUNS runs. */
static double fastest(rt_work_fn run, void *ctx, long units)
{
	double best = INFINITY;

	for (int i = 0; i < RUNS; i++) {
		double t0 = rt_now();
		run(ctx, units);
		double t = rt_now() - t0;
		best = t < best ? t : best;
	}
	return best;
}

long rt_work_calibrate(rt_work_fn run, void *ctx, long probe, double seconds)
{
	if (!(seconds > 0) || probe < 1)
		return 0;
	double t0 = fastest(run, ctx, 0);
	double per = (fastest(run, ctx, probe) - t0) / (double)probe;
	double want = seconds - t0;
	return per > 0 && want > 0 ? lround(want / per) : 0;
}
