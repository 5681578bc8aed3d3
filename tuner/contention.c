#include "contention.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double rt_contended_share(void)
{
	const char *s = getenv("RIGTUNE_CONTENTION_LIMIT");
	char *end;
	double v = s ? strtod(s, &end) : 0;
	return s && *s && !*end && v >= 0 && v <= 1 ? v : RT_CONTENDED_SHARE;
}

int rt_cpu_times_read(rt_cpu_times *t)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	double tick = (double)sysconf(_SC_CLK_TCK);
	char line[512];
	memset(t, 0, sizeof *t);
	t->ticks_per_s = tick;
	while (fgets(line, sizeof line, f)) {
		int cpu;
		unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal = 0;
		/* "cpuN user nice system idle iowait irq softirq steal ...": not the "cpu " total */
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &user, &nice,
			   &sys, &idle, &iowait, &irq, &softirq, &steal) < 8 ||
		    cpu < 0 || cpu >= RT_MAX_CPUS)
			continue;
		t->busy_s[cpu] = (double)(user + nice + sys + irq + softirq + steal) / tick;
		if (cpu >= t->ncpus)
			t->ncpus = cpu + 1;
	}
	fclose(f);
	return t->ncpus ? 0 : -1;
}

double rt_contention(const rt_cpu_times *before, const rt_cpu_times *after,
		     const cpu_set_t *cpus, double wall_s, double own_cpu_s)
{
	double busy = 0;
	int n = 0;
	for (int c = 0; c < after->ncpus && c < before->ncpus; c++) {
		if (!CPU_ISSET(c, cpus))
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
