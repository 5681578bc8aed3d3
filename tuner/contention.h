/*
 * contention.h: how much of a trial's cores other processes took while it ran.
 *
 * A figure measured while something else ran on the same cores is low, and
 * nothing in the figure says so. The kernel counts each CPU's busy time
 * (platform.h: on Linux user, nice, system, irq, softirq and steal, the
 * time a hypervisor gave to another guest); over a trial, the busy time of the
 * trial's CPUs minus the trial's own CPU time is what others took. As a share
 * of the CPUs' capacity over the trial's wall time it is the trial's
 * contention; above rt_contended_share() the trial is marked contended.
 */
#ifndef RT_CONTENTION_H
#define RT_CONTENTION_H

#include "../common/platform.h"

#define RT_CONTENDED_SHARE 0.10 /* the default limit */
#define RT_MAX_CPUS RT_CPUSET_MAX

typedef struct rt_cpu_times {
	int ncpus;
	double ticks_per_s;         /* the unit the kernel counts busy time in (_SC_CLK_TCK) */
	double busy_s[RT_MAX_CPUS]; /* seconds each CPU was busy since boot */
} rt_cpu_times;

/*
 * The contention above which a trial counts as contended: RT_CONTENDED_SHARE,
 * or $RIGTUNE_CONTENTION_LIMIT (a share from 0 to 1) on a machine that is
 * always shared; 1 turns the re-measuring off.
 */
double rt_contended_share(void);

/* Reads the CPUs' busy times; -1 when it cannot be read (then no contention is known). */
int rt_cpu_times_read(rt_cpu_times *t);

/*
 * Others' share of the capacity of the CPUs in `cpus` between two readings
 * wall_s seconds apart, during which the trial itself used own_cpu_s seconds
 * of CPU: in [0, 1]; 0 when nothing can be told (no reading, no CPU, no time).
 * Two ticks per CPU are given to the kernel's counting in whole ticks, so a
 * trial of a few milliseconds is not called contended by one tick's rounding.
 */
double rt_contention(const rt_cpu_times *before, const rt_cpu_times *after,
		     const rt_cpuset *cpus, double wall_s, double own_cpu_s);

#endif
