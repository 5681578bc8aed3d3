/*
 * device.h: the accelerator's busy time while `watch` runs, from the
 * vendor's monitor, loaded with dlopen (the binary links no vendor library):
 * NVML's utilization samples, each the share of its own window (1/6 s to
 * 1 s, the driver's) in which a kernel ran, and its per-process samples
 * (SM share per pid). $RIGTUNE_NVML names the library to load instead of
 * libnvidia-ml.so.1 (tests load a stand-in from tests/fakes/).
 */
#ifndef RT_WATCH_DEVICE_H
#define RT_WATCH_DEVICE_H

#include <stddef.h>

enum { RT_DEV_DEVICE = 0, RT_DEV_PROCESS = 1 };

/* One sample: the device's (kind RT_DEV_DEVICE) or the tree's processes' (RT_DEV_PROCESS). */
typedef struct rt_dev_sample {
	int device;
	int kind;
	double t;      /* the end of its window, CLOCK_REALTIME seconds */
	double window; /* its length in seconds (from the one before); 0 when not known */
	double busy;   /* 0..1 */
} rt_dev_sample;

typedef struct rt_devmon rt_devmon;

/* NULL when there is no monitor or no device (why says which, for the YAML). */
rt_devmon *rt_devmon_open(char *why, size_t len);
int rt_devmon_ndevices(const rt_devmon *m);
const char *rt_devmon_source(const rt_devmon *m);

/*
 * Appends every sample taken since the last call to *s (grown as needed);
 * the process samples only of the pids for which in_tree says 1. RT_OK,
 * RT_ENOMEM.
 */
int rt_devmon_poll(rt_devmon *m, int (*in_tree)(void *user, int pid), void *user,
		   rt_dev_sample **s, int *n, int *cap);
void rt_devmon_close(rt_devmon *m); /* accepts NULL */

#endif
