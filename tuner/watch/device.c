/*
 * device.c: device.h through NVML, with the declarations and the loading
 * that the GPU plugins' monitor uses (workloads/gpu/monitor.h: $RIGTUNE_NVML,
 * the sample type, the symbol table). Here every sample is kept, not
 * averaged over a window: watch draws them on its time line.
 */
#include "device.h"

#include <stdlib.h>

#include "../../common/rt.h"
#include "../../workloads/gpu/monitor.h"

#define MAX_DEVICES 16
#define MAX_PROC_SAMPLES 256

/* nvmlProcessUtilizationSample_t, as nvml.h declares it. */
typedef struct nvml_proc_sample {
	unsigned int pid;
	unsigned long long timestamp;
	unsigned int sm, mem, enc, dec;
} nvml_proc_sample;

struct rt_devmon {
	gpu_monitor mon; /* the library, its device sample call, its shutdown */
	int (*proc_util)(nvml_dev, nvml_proc_sample *, unsigned int *, unsigned long long);
	int ndev;
	nvml_dev dev[MAX_DEVICES];
	unsigned long long last[MAX_DEVICES], last_proc[MAX_DEVICES];
};

rt_devmon *rt_devmon_open(char *why, size_t len)
{
	int (*init)(void) = NULL, (*count)(unsigned int *) = NULL;
	int (*by_index)(unsigned int, nvml_dev *) = NULL;
	const char *lib = "libnvidia-ml.so.1";
	rt_devmon *m = calloc(1, sizeof *m);
	if (!m) {
		rt_fail(why, len, RT_ENOMEM, "out of memory");
		return NULL;
	}
	if (mon_dlopen(&m->mon, "RIGTUNE_NVML", lib, why, len)) {
		free(m);
		return NULL;
	}
	const dl_need need[] = {
		DL_NEED("nvmlInit_v2", init),
		DL_NEED("nvmlDeviceGetCount_v2", count),
		DL_NEED("nvmlDeviceGetHandleByIndex_v2", by_index),
		DL_NEED("nvmlDeviceGetSamples", m->mon.nv_samples),
		DL_NEED("nvmlDeviceGetProcessUtilization", m->proc_util),
		DL_NEED("nvmlErrorString", m->mon.nv_error),
		DL_NEED("nvmlShutdown", m->mon.shutdown),
	};
	unsigned int n = 0;
	int st = -1;
	if (dl_resolve(m->mon.lib, lib, need, RT_COUNT(need), why, len) == 0 &&
	    (st = init()) != NVML_OK)
		rt_fail(why, len, RT_EUNAVAIL, "nvmlInit_v2: %s", m->mon.nv_error(st));
	if (st == NVML_OK && (count(&n) != NVML_OK || n == 0))
		rt_fail(why, len, RT_EUNAVAIL, "NVML sees no device");
	unsigned long long now = mon_now_us();
	for (unsigned int i = 0; i < n && m->ndev < MAX_DEVICES; i++)
		if (by_index(i, &m->dev[m->ndev]) == NVML_OK) {
			m->last[m->ndev] = m->last_proc[m->ndev] = now;
			m->ndev++;
		}
	if (m->ndev)
		return m;
	if (st == NVML_OK)
		m->mon.shutdown();
	mon_unload(&m->mon);
	free(m);
	return NULL;
}

int rt_devmon_ndevices(const rt_devmon *m)
{
	return m ? m->ndev : 0;
}

const char *rt_devmon_source(const rt_devmon *m)
{
	return m ? "NVML" : "none";
}

static int push(rt_dev_sample **s, int *n, int *cap, rt_dev_sample x)
{
	if (rt_grow(s, cap, *n, sizeof **s, 256))
		return RT_ENOMEM;
	(*s)[(*n)++] = x;
	return RT_OK;
}

/* The device's utilization samples newer than the last seen, each with its window. */
static int poll_device(rt_devmon *m, int d, rt_dev_sample **s, int *n, int *cap)
{
	nvml_sample buf[MON_MAX_SAMPLES];
	unsigned int count = MON_MAX_SAMPLES;
	int type = 0, rc = RT_OK;
	if (m->mon.nv_samples(m->dev[d], NVML_GPU_UTIL_SAMPLES, m->last[d], &type, &count, buf) !=
	    NVML_OK)
		return RT_OK; /* none yet (NOT_FOUND), or none to be had: nothing to add */
	for (unsigned int i = 0; rc == RT_OK && i < count && i < MON_MAX_SAMPLES; i++) {
		if (buf[i].timestamp <= m->last[d])
			continue;
		double v = type == NVML_VALUE_DOUBLE ? buf[i].value.d : (double)buf[i].value.ui;
		double window = 1e-6 * (double)(buf[i].timestamp - m->last[d]);
		rc = push(s, n, cap,
			  (rt_dev_sample){d, RT_DEV_DEVICE, 1e-6 * (double)buf[i].timestamp,
					  window > 1.0 ? 0 : window, v / 100.0});
		m->last[d] = buf[i].timestamp;
	}
	return rc;
}

/* The SM share of the tree's processes, per sample NVML keeps for each. */
static int poll_processes(rt_devmon *m, int d, int (*in_tree)(void *, int), void *user,
			  rt_dev_sample **s, int *n, int *cap)
{
	nvml_proc_sample buf[MAX_PROC_SAMPLES];
	unsigned int count = MAX_PROC_SAMPLES;
	int rc = RT_OK;
	if (m->proc_util(m->dev[d], buf, &count, m->last_proc[d]) != NVML_OK)
		return RT_OK;
	unsigned long long newest = m->last_proc[d];
	for (unsigned int i = 0; rc == RT_OK && i < count && i < MAX_PROC_SAMPLES; i++) {
		if (buf[i].timestamp <= m->last_proc[d] || !in_tree(user, (int)buf[i].pid))
			continue;
		rc = push(s, n, cap,
			  (rt_dev_sample){d, RT_DEV_PROCESS, 1e-6 * (double)buf[i].timestamp, 0,
					  buf[i].sm / 100.0});
		if (buf[i].timestamp > newest)
			newest = buf[i].timestamp;
	}
	m->last_proc[d] = newest;
	return rc;
}

int rt_devmon_poll(rt_devmon *m, int (*in_tree)(void *user, int pid), void *user,
		   rt_dev_sample **s, int *n, int *cap)
{
	int rc = RT_OK;
	for (int d = 0; m && rc == RT_OK && d < m->ndev; d++) {
		rc = poll_device(m, d, s, n, cap);
		if (rc == RT_OK)
			rc = poll_processes(m, d, in_tree, user, s, n, cap);
	}
	return rc;
}

void rt_devmon_close(rt_devmon *m)
{
	if (!m)
		return;
	m->mon.shutdown();
	mon_unload(&m->mon);
	free(m);
}
