/*
 * A stand-in libnvidia-ml for `rigtune watch` (tests/cli/test_watch.sh),
 * loaded through $RIGTUNE_NVML: one device busy in bursts that
 * $RIGTUNE_FAKE_NVML describes, "busy=S,period=S,phase=S,window=S": from
 * nvmlInit on, a burst of `busy` seconds starts `phase` seconds into every
 * `period`. Like the driver, it keeps a utilization sample per `window`
 * (default 1/6 s), stamped at the window's end, whose value is the share of
 * the window in which the device was busy; the newest 100 are kept. Its
 * per-process samples, one per window too and kept as long, give the same
 * share to the first child of the process that loaded it (the watched
 * command): all of the device's work is that command's kernels.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "script.h"

enum { SUCCESS = 0, INVALID_ARGUMENT = 2, NOT_FOUND = 6, INSUFFICIENT_SIZE = 7 };
#define KEPT 100

typedef struct sample {
	unsigned long long timestamp;
	union {
		double d;
		unsigned int ui;
		unsigned long long ull;
	} value;
} sample;

typedef struct proc_sample {
	unsigned int pid;
	unsigned long long timestamp;
	unsigned int sm, mem, enc, dec;
} proc_sample;

static double busy = 0.25, period = 1.0, phase = 0.0, window = 1.0 / 6, t_init;
static int initialized, device;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One setting of "busy=0.25,period=1" (script.h). */
static void set(const char *key, double v)
{
	if (!strcmp(key, "busy"))
		busy = v;
	else if (!strcmp(key, "period"))
		period = v;
	else if (!strcmp(key, "phase"))
		phase = v;
	else if (!strcmp(key, "window"))
		window = v;
}

static void read_script(void)
{
	fake_script("RIGTUNE_FAKE_NVML", set);
}

/* The busy seconds within [a, b] (seconds since init). */
static double busy_in(double a, double b)
{
	double sum = 0;
	for (double k = period * (double)(long)(a / period) - period; k < b; k += period) {
		double s = k + phase, e = s + busy;
		double o = (e < b ? e : b) - (s > a ? s : a);
		sum += o > 0 ? o : 0;
	}
	return sum;
}

/* The percent of window n (ending at t_init + n * window). */
static unsigned int percent(long n)
{
	double b = (double)n * window;
	return (unsigned int)(100 * busy_in(b - window, b) / window + 0.5);
}

static unsigned long long stamp(long n)
{
	return (unsigned long long)((t_init + (double)n * window) * 1e6);
}

int nvmlInit_v2(void)
{
	read_script();
	t_init = now_s();
	initialized++;
	return SUCCESS;
}

int nvmlShutdown(void)
{
	initialized--;
	return SUCCESS;
}

const char *nvmlErrorString(int r)
{
	return r == NOT_FOUND ? "Not Found" : r == SUCCESS ? "Success" : "Unknown Error";
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	*n = 1;
	return initialized ? SUCCESS : INVALID_ARGUMENT;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev)
{
	if (!initialized || i)
		return INVALID_ARGUMENT;
	*dev = &device;
	return SUCCESS;
}

/* The kept samples newer than last; NOT_FOUND when there is none, as NVML says. */
int nvmlDeviceGetSamples(void *dev, int type, unsigned long long last, int *valtype,
			 unsigned int *count, sample *out)
{
	if (dev != &device || type != 1)
		return INVALID_ARGUMENT;
	long newest = (long)((now_s() - t_init) / window), n = 0;
	for (long i = newest - KEPT + 1 > 1 ? newest - KEPT + 1 : 1; i <= newest; i++) {
		if (stamp(i) <= last)
			continue;
		if (out && (unsigned int)n >= *count)
			return INSUFFICIENT_SIZE;
		if (out)
			out[n] = (sample){.timestamp = stamp(i), .value.ui = percent(i)};
		n++;
	}
	*valtype = 1; /* unsigned int */
	*count = (unsigned int)n;
	return n ? SUCCESS : NOT_FOUND;
}

/* The first process whose parent is this one: the command being watched. */
static unsigned int first_child(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned int found = 0;
	while (d && !found && (e = readdir(d))) {
		char path[300], line[512];
		int ppid = 0;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		FILE *f = atoi(e->d_name) > 0 ? fopen(path, "r") : NULL;
		if (f && fgets(line, sizeof line, f)) {
			char *p = strrchr(line, ')');
			if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == (int)getpid())
				found = (unsigned int)atoi(e->d_name);
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * The watched command's share of each kept window newer than last, as
 * NVML gives the samples after lastSeenTimeStamp; NOT_FOUND when there is
 * none (or no command yet).
 */
int nvmlDeviceGetProcessUtilization(void *dev, proc_sample *out, unsigned int *count,
				    unsigned long long last)
{
	if (dev != &device)
		return INVALID_ARGUMENT;
	long newest = (long)((now_s() - t_init) / window), n = 0;
	unsigned int pid = newest > 0 && stamp(newest) > last ? first_child() : 0;
	for (long i = newest - KEPT + 1 > 1 ? newest - KEPT + 1 : 1; pid && i <= newest; i++) {
		if (stamp(i) <= last)
			continue;
		if ((unsigned int)n >= *count)
			return INSUFFICIENT_SIZE;
		out[n++] = (proc_sample){.pid = pid, .timestamp = stamp(i), .sm = percent(i)};
	}
	*count = (unsigned int)n;
	return n ? SUCCESS : NOT_FOUND;
}
