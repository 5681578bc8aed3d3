#include "contention.h"

#include <stdlib.h>
#include <string.h>

double rt_contended_share(void)
{
	const char *s = getenv("RIGTUNE_CONTENTION_LIMIT");
	char *end;
	double v = s ? strtod(s, &end) : 0;
	return s && *s && !*end && v >= 0 && v <= 1 ? v : RT_CONTENDED_SHARE;
}

int rt_cpu_times_read(rt_cpu_times *t)
{
	memset(t, 0, sizeof *t);
	t->ticks_per_s = 1.0 / rt_plat_cpu_tick_s();
	int n = rt_plat_cpu_busy(t->busy_s, RT_MAX_CPUS);
	t->ncpus = n > 0 ? n : 0;
	return n > 0 ? 0 : -1;
}

double rt_contention(const rt_cpu_times *before, const rt_cpu_times *after,
		     const rt_cpuset *cpus, double wall_s, double own_cpu_s)
{
	double busy = 0;
	int n = 0;
	for (int c = 0; c < after->ncpus && c < before->ncpus; c++) {
		if (!rt_cpuset_has(cpus, c))
			continue;
		busy += after->busy_s[c] - before->busy_s[c];
		n++;
	}
	if (n == 0 || wall_s <= 0)
		return 0;
	/* The kernel counts busy time in whole ticks, so each CPU's figure may be a tick
	 * off at either reading: only what exceeds that is surely someone else's. */
	double resolution = 2.0 * n / after->ticks_per_s;
	double others = (busy - own_cpu_s - resolution) / (wall_s * n);
	return others < 0 ? 0 : others > 1 ? 1 : others;
}
