/*
 * devmon_nvml.c: the device monitor of NVIDIA GPUs, NVML (devmon.h). NVML
 * keeps a buffer of timestamped utilization samples per device, one per
 * driver sample period (1/6 s to 1 s), each the share of its period in
 * which a kernel ran: nvmlDeviceGetSamples hands back those after a
 * timestamp, so every sample is read once. nvmlDeviceGetProcessUtilization
 * does the same per process (its SM share), where the driver keeps them
 * (optional: without it only the device's samples come).
 *
 * The declarations follow NVML's public nvml.h (CUDA 12/13: nvmlSample_t,
 * nvmlProcessUtilizationSample_t, nvmlValueType_t, the return codes used).
 * $RIGTUNE_NVML names the library to load instead of libnvidia-ml.so.1.
 */
#include <stdlib.h>
#include <string.h>

#include "devmon.h"
#include "host_abi.h"

#define NVML_MAX_DEVICES 16
#define NVML_MAX_SAMPLES 256    /* NVML keeps ~100 utilization samples */
#define NVML_LONGEST_WINDOW 1.0 /* a longer gap between samples is not one window */

enum { NVML_OK = 0, NVML_NOT_FOUND = 6, NVML_GPU_UTIL_SAMPLES = 1 };
enum { NVML_VALUE_DOUBLE = 0, NVML_VALUE_UINT = 1 };
typedef struct nvml_dev_ *nvml_dev;

typedef struct nvml_sample {
	unsigned long long timestamp; /* CPU time, microseconds */
	union {
		double d;
		unsigned int ui;
		unsigned long long ull;
	} value;
} nvml_sample;

typedef struct nvml_proc_sample {
	unsigned int pid;
	unsigned long long timestamp;
	unsigned int sm, mem, enc, dec;
} nvml_proc_sample;

typedef struct nvml_state {
	void *lib;
	int (*shutdown)(void);
	const char *(*error)(int);
	int (*samples)(nvml_dev, int type, unsigned long long last, int *valtype,
	               unsigned int *count, nvml_sample *samples);
	int (*proc_util)(nvml_dev, nvml_proc_sample *, unsigned int *, unsigned long long);
	int ndev;
	nvml_dev dev[NVML_MAX_DEVICES];
	unsigned long long last[NVML_MAX_DEVICES], last_proc[NVML_MAX_DEVICES];
} nvml_state;

static unsigned long long now_us(void)
{
	return (unsigned long long)(rt_devmon_clock() * 1e6);
}

/* The devices: the one at bus, or every one NVML counts. */
static int nvml_find_devices(nvml_state *s, const char *bus, char *why, size_t len)
{
	int (*count)(unsigned int *) = NULL;
	int (*by_index)(unsigned int, nvml_dev *) = NULL;
	int (*by_bus)(const char *, nvml_dev *) = NULL;
	const char *lib = "libnvidia-ml.so.1";
	if (bus) {
		const rt_dl_need need[] = {RT_DL_NEED("nvmlDeviceGetHandleByPciBusId_v2", by_bus)};
		if (rt_dl_resolve(s->lib, lib, need, RT_COUNT(need), why, len))
			return RT_EUNAVAIL;
		int st = by_bus(bus, &s->dev[0]);
		if (st != NVML_OK)
			return rt_abi_fail(why, len, RT_EUNAVAIL,
			                   "nvmlDeviceGetHandleByPciBusId_v2(%s): %s", bus,
			                   s->error(st));
		s->ndev = 1;
		return RT_OK;
	}
	const rt_dl_need need[] = {
	    RT_DL_NEED("nvmlDeviceGetCount_v2", count),
	    RT_DL_NEED("nvmlDeviceGetHandleByIndex_v2", by_index),
	};
	unsigned int n = 0;
	if (rt_dl_resolve(s->lib, lib, need, RT_COUNT(need), why, len))
		return RT_EUNAVAIL;
	if (count(&n) != NVML_OK)
		n = 0;
	for (unsigned int i = 0; i < n && s->ndev < NVML_MAX_DEVICES; i++)
		s->ndev += by_index(i, &s->dev[s->ndev]) == NVML_OK;
	return s->ndev ? RT_OK : rt_abi_fail(why, len, RT_EUNAVAIL, "NVML sees no device");
}

static int nvml_open(void *state, const char *bus, int *ndev, char *why, size_t len)
{
	nvml_state *s = (nvml_state *)state;
	int (*init)(void) = NULL;
	const char *lib = "libnvidia-ml.so.1";
	s->lib = rt_devmon_dlopen("RIGTUNE_NVML", lib, why, len);
	if (!s->lib)
		return RT_EUNAVAIL;
	const rt_dl_need need[] = {
	    RT_DL_NEED("nvmlInit_v2", init),
	    RT_DL_NEED("nvmlDeviceGetSamples", s->samples),
	    RT_DL_NEED("nvmlErrorString", s->error),
	    RT_DL_NEED("nvmlShutdown", s->shutdown),
	};
	const rt_dl_need optional[] = {
	    RT_DL_NEED("nvmlDeviceGetProcessUtilization", s->proc_util),
	};
	int st = -1;
	if (rt_dl_resolve(s->lib, lib, need, RT_COUNT(need), why, len) == 0 &&
	    (st = init()) != NVML_OK)
		rt_abi_fail(why, len, RT_EUNAVAIL, "nvmlInit_v2: %s", s->error(st));
	if (st == NVML_OK && nvml_find_devices(s, bus, why, len) == RT_OK) {
		rt_dl_resolve(s->lib, lib, optional, RT_COUNT(optional), NULL, 0);
		unsigned long long now = now_us();
		for (int d = 0; d < s->ndev; d++)
			s->last[d] = s->last_proc[d] = now;
		*ndev = s->ndev;
		return RT_OK;
	}
	if (st == NVML_OK)
		s->shutdown();
	dlclose(s->lib);
	return RT_EUNAVAIL;
}

/* Device d's utilization samples newer than the last seen, each with its window. */
static int poll_device(nvml_state *s, int d, rt_dev_batch *out)
{
	nvml_sample buf[NVML_MAX_SAMPLES];
	unsigned int count = NVML_MAX_SAMPLES;
	int type = 0, rc = RT_OK;
	if (s->samples(s->dev[d], NVML_GPU_UTIL_SAMPLES, s->last[d], &type, &count, buf) != NVML_OK)
		return RT_OK; /* none yet (NOT_FOUND), or none to be had: nothing to add */
	for (unsigned int i = 0; rc == RT_OK && i < count && i < NVML_MAX_SAMPLES; i++) {
		if (buf[i].timestamp <= s->last[d])
			continue;
		double v = type == NVML_VALUE_DOUBLE ? buf[i].value.d : (double)buf[i].value.ui;
		double window = 1e-6 * (double)(buf[i].timestamp - s->last[d]);
		rt_dev_sample x = {d,
		                   RT_DEV_DEVICE,
		                   0,
		                   1e-6 * (double)buf[i].timestamp,
		                   window > NVML_LONGEST_WINDOW ? 0 : window,
		                   v / 100.0};
		rc = rt_dev_batch_push(out, x);
		s->last[d] = buf[i].timestamp;
	}
	return rc;
}

/* Device d's per-process samples (SM share) newer than the last seen. */
static int poll_processes(nvml_state *s, int d, rt_dev_batch *out)
{
	nvml_proc_sample buf[NVML_MAX_SAMPLES];
	unsigned int count = NVML_MAX_SAMPLES;
	int rc = RT_OK;
	if (!s->proc_util || s->proc_util(s->dev[d], buf, &count, s->last_proc[d]) != NVML_OK)
		return RT_OK;
	unsigned long long newest = s->last_proc[d];
	for (unsigned int i = 0; rc == RT_OK && i < count && i < NVML_MAX_SAMPLES; i++) {
		if (buf[i].timestamp <= s->last_proc[d])
			continue;
		rt_dev_sample x = {
		    d, RT_DEV_PROCESS,   (int)buf[i].pid, 1e-6 * (double)buf[i].timestamp,
		    0, buf[i].sm / 100.0};
		rc = rt_dev_batch_push(out, x);
		if (buf[i].timestamp > newest)
			newest = buf[i].timestamp;
	}
	s->last_proc[d] = newest;
	return rc;
}

static int nvml_poll(void *state, rt_dev_batch *out)
{
	nvml_state *s = (nvml_state *)state;
	int rc = RT_OK;
	for (int d = 0; rc == RT_OK && d < s->ndev; d++) {
		rc = poll_device(s, d, out);
		if (rc == RT_OK)
			rc = poll_processes(s, d, out);
	}
	return rc;
}

static void nvml_close(void *state)
{
	nvml_state *s = (nvml_state *)state;
	s->shutdown();
	dlclose(s->lib);
}

const rt_devmon_vendor rt_devmon_nvml = {
    "nvml", "NVML", sizeof(nvml_state), nvml_open, nvml_poll, nvml_close,
};
