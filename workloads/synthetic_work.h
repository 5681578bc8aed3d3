/*
 * synthetic_work.h: calibrating synthetic host work to a time budget.
 *
 * Workloads stand in for host code rigtune does not run (a user's data
 * preparation, an interpreted environment step) with real arithmetic whose
 * amount, in work units, is chosen once at setup so that it costs about a
 * given time on an idle core. The unit is the workload's own (one
 * normalization, one mixing round); this module only measures it.
 */
#ifndef RT_SYNTHETIC_WORK_H
#define RT_SYNTHETIC_WORK_H

/* Does `units` units of the workload's synthetic work once. */
typedef void (*rt_work_fn)(void *ctx, long units);

/*
 * The units for which run(ctx, units) costs about `seconds`: the fastest of
 * a few runs with 0 and with `probe` units gives the fixed cost and the cost
 * per unit (fastest, because the machine may be shared: what is wanted is
 * the cost on an idle core). probe should take well over a microsecond.
 * Returns 0 when seconds <= 0 or the fixed cost alone exceeds it.
 */
long rt_work_calibrate(rt_work_fn run, void *ctx, long probe, double seconds);

#endif
