/*
 * monitor.h: the vendor's utilization monitor, sampled at its own rate while
 * a trial runs, beside the busy time the plugin measures with events. NVML
 * (CUDA) keeps a buffer of timestamped utilization samples, one per driver
 * sample period, which nvmlDeviceGetSamples hands back: every sample of the
 * window is counted once. rocm_smi (HIP) has no such buffer, so a thread
 * polls rsmi_dev_busy_percent_get every MON_POLL_S while a window is open.
 *
 * Plain C that C++ compiles too, reached through dlopen and a table of entry
 * points, so that tests/test_gpu_host.c drives it against fakes of NVML and
 * rocm_smi built from tests/fakes: $RIGTUNE_NVML and $RIGTUNE_ROCM_SMI name
 * the library to dlopen instead of the vendor's. NVML's declarations follow its
 * public nvml.h (CUDA 12/13: nvmlSample_t, nvmlValueType_t, the return codes
 * used); rocm_smi's follow rocm_smi.h of ROCm 5.2 (Debian's librocm-smi-dev).
 */
#ifndef RT_GPU_MONITOR_H
#define RT_GPU_MONITOR_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_common.h"

#define MON_POLL_S 0.01     /* rocm_smi's poll period */
#define MON_MAX_SAMPLES 256 /* NVML keeps ~100 utilization samples */

/* NVML: the values used, as nvml.h defines them. */
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

enum { MON_NONE = 0, MON_NVML, MON_RSMI };

/* One open monitor of one device, and the window of samples being read. */
typedef struct gpu_monitor {
	int kind;
	void *lib;
	int (*shutdown)(void);
	/* NVML */
	nvml_dev dev;
	int (*nv_samples)(nvml_dev, int type, unsigned long long last, int *valtype,
			  unsigned int *count, nvml_sample *samples);
	const char *(*nv_error)(int);
	unsigned long long last_ts; /* samples after this one belong to the window */
	/* rocm_smi */
	uint32_t index;
	int (*rs_busy)(uint32_t index, uint32_t *percent);
	pthread_t poller;
	int polling;
	pthread_mutex_t lock;
	double sum;                 /* of the window's polled fractions */
	long count;
	int stop;
} gpu_monitor;

/* dlopens $env, else `name`; RT_EUNAVAIL with dlerror's words when neither loads. */
static inline int mon_dlopen(gpu_monitor *m, const char *env, const char *name, char *why,
			     size_t len)
{
	const char *path = getenv(env);
	m->lib = dlopen(path && *path ? path : name, RTLD_NOW | RTLD_LOCAL);
	return m->lib ? 0 : fail(why, len, RT_EUNAVAIL, "%s", dlerror());
}

static inline void mon_unload(gpu_monitor *m)
{
	dlclose(m->lib);
	memset(m, 0, sizeof *m);
}

/* Now on the clock of NVML's timestamps (CPU time, microseconds). */
static inline unsigned long long mon_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

/*
 * Opens NVML for the device at PCI bus id `bus` ("0000:3b:00.0", the
 * runtime's numbering may differ from NVML's). 0, or RT_EUNAVAIL with why.
 */
static inline int monitor_open_nvml(gpu_monitor *m, const char *bus, char *why, size_t len)
{
	int (*init)(void) = NULL, (*by_bus)(const char *, nvml_dev *) = NULL;
	const char *lib = "libnvidia-ml.so.1";
	memset(m, 0, sizeof *m);
	if (mon_dlopen(m, "RIGTUNE_NVML", lib, why, len))
		return RT_EUNAVAIL;
	const dl_need need[] = {
		DL_NEED("nvmlInit_v2", init),
		DL_NEED("nvmlDeviceGetHandleByPciBusId_v2", by_bus),
		DL_NEED("nvmlDeviceGetSamples", m->nv_samples),
		DL_NEED("nvmlErrorString", m->nv_error),
		DL_NEED("nvmlShutdown", m->shutdown),
	};
	if (dl_resolve(m->lib, lib, need, RT_COUNT(need), why, len)) {
		mon_unload(m);
		return RT_EUNAVAIL;
	}
	int st = init();
	if (st != NVML_OK) {
		fail(why, len, RT_EUNAVAIL, "nvmlInit_v2: %s", m->nv_error(st));
		mon_unload(m);
		return RT_EUNAVAIL;
	}
	st = by_bus(bus, &m->dev);
	if (st != NVML_OK) {
		fail(why, len, RT_EUNAVAIL, "nvmlDeviceGetHandleByPciBusId_v2(%s): %s", bus,
		     m->nv_error(st));
		m->shutdown();
		mon_unload(m);
		return RT_EUNAVAIL;
	}
	m->kind = MON_NVML;
	m->last_ts = mon_now_us();
	return 0;
}

/* The polling thread of rocm_smi: one busy fraction every MON_POLL_S until stop. */
static inline void *mon_poll(void *arg)
{
	gpu_monitor *m = (gpu_monitor *)arg;
	struct timespec period = {0, (long)(MON_POLL_S * 1e9)};
	for (;;) {
		uint32_t pct = 0;
		int ok = m->rs_busy(m->index, &pct) == 0;
		pthread_mutex_lock(&m->lock);
		int stop = m->stop;
		if (ok && !stop) {
			m->sum += pct / 100.0;
			m->count++;
		}
		pthread_mutex_unlock(&m->lock);
		if (stop)
			return NULL;
		nanosleep(&period, NULL);
	}
}

/*
 * Opens rocm_smi for the device at PCI domain:bus:device and starts its
 * poller. 0, or RT_EUNAVAIL with why.
 */
static inline int monitor_open_rsmi(gpu_monitor *m, int domain, int bus, int device, char *why,
				    size_t len)
{
	int (*init)(uint64_t) = NULL, (*count)(uint32_t *) = NULL;
	int (*pci_id)(uint32_t, uint64_t *) = NULL;
	const char *lib = "librocm_smi64.so.1";
	uint32_t n = 0;
	memset(m, 0, sizeof *m);
	if (mon_dlopen(m, "RIGTUNE_ROCM_SMI", lib, why, len))
		return RT_EUNAVAIL;
	const dl_need need[] = {
		DL_NEED("rsmi_init", init),
		DL_NEED("rsmi_num_monitor_devices", count),
		DL_NEED("rsmi_dev_pci_id_get", pci_id),
		DL_NEED("rsmi_dev_busy_percent_get", m->rs_busy),
		DL_NEED("rsmi_shut_down", m->shutdown),
	};
	if (dl_resolve(m->lib, lib, need, RT_COUNT(need), why, len)) {
		mon_unload(m);
		return RT_EUNAVAIL;
	}
	int st = init(0);
	if (st != 0) {
		fail(why, len, RT_EUNAVAIL, "rsmi_init: status %d", st);
		mon_unload(m);
		return RT_EUNAVAIL;
	}
	if (count(&n) != 0)
		n = 0;
	/* BDF id: domain in bits 32..63, bus 8..15, device 3..7, function 0..2. */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t id;
		if (pci_id(i, &id) == 0 && (int)(id >> 32) == domain &&
		    (int)((id >> 8) & 0xff) == bus && (int)((id >> 3) & 0x1f) == device) {
			m->index = i;
			m->kind = MON_RSMI;
			break;
		}
	}
	if (m->kind != MON_RSMI) {
		fail(why, len, RT_EUNAVAIL, "rocm_smi: no device at PCI %04x:%02x:%02x", domain,
		     bus, device);
	} else {
		pthread_mutex_init(&m->lock, NULL);
		if (pthread_create(&m->poller, NULL, mon_poll, m) == 0) {
			m->polling = 1;
			return 0;
		}
		pthread_mutex_destroy(&m->lock);
		fail(why, len, RT_EUNAVAIL, "rocm_smi: cannot start its poller");
	}
	m->shutdown();
	mon_unload(m);
	return RT_EUNAVAIL;
}

/*
 * The mean busy fraction of the samples taken since the last reset or read,
 * and how many there were (*n); the window then starts again. RT_EUNAVAIL
 * when there was no sample in it (a window shorter than NVML's sample
 * period) or the vendor call failed, with why.
 */
static inline int monitor_read(gpu_monitor *m, double *busy, int *n, char *why, size_t len)
{
	*n = 0;
	if (m->kind == MON_RSMI) {
		pthread_mutex_lock(&m->lock);
		*n = (int)m->count;
		*busy = m->count ? m->sum / (double)m->count : 0;
		m->sum = 0;
		m->count = 0;
		pthread_mutex_unlock(&m->lock);
	} else if (m->kind == MON_NVML) {
		nvml_sample s[MON_MAX_SAMPLES];
		unsigned int count = MON_MAX_SAMPLES;
		int type = 0, st = m->nv_samples(m->dev, NVML_GPU_UTIL_SAMPLES, m->last_ts, &type,
						 &count, s);
		if (st != NVML_OK && st != NVML_NOT_FOUND)
			return fail(why, len, RT_EUNAVAIL, "nvmlDeviceGetSamples: %s",
				    m->nv_error(st));
		double sum = 0;
		for (unsigned int i = 0; st == NVML_OK && i < count && i < MON_MAX_SAMPLES; i++) {
			if (s[i].timestamp <= m->last_ts)
				continue;
			sum += type == NVML_VALUE_DOUBLE ? s[i].value.d : (double)s[i].value.ui;
			(*n)++;
		}
		for (unsigned int i = 0; st == NVML_OK && i < count && i < MON_MAX_SAMPLES; i++)
			if (s[i].timestamp > m->last_ts)
				m->last_ts = s[i].timestamp;
		*busy = *n ? sum / 100.0 / *n : 0;
	} else {
		return fail(why, len, RT_EUNAVAIL, "no monitor");
	}
	return *n ? 0 : fail(why, len, RT_EUNAVAIL, "no sample in the window");
}

/*
 * Starts a new window: what monitor_read() averages begins now, and no
 * sample taken before (the newest NVML holds may be stamped a moment later
 * than the clock read here) is in it.
 */
static inline void monitor_reset(gpu_monitor *m)
{
	double busy;
	int n;
	monitor_read(m, &busy, &n, NULL, 0);
	unsigned long long now = mon_now_us();
	if (m->kind == MON_NVML && now > m->last_ts)
		m->last_ts = now;
}

/* Stops the poller, shuts the library down and unloads it; a closed monitor is fine. */
static inline void monitor_close(gpu_monitor *m)
{
	if (m->kind == MON_NONE)
		return;
	if (m->polling) {
		pthread_mutex_lock(&m->lock);
		m->stop = 1;
		pthread_mutex_unlock(&m->lock);
		pthread_join(m->poller, NULL);
		pthread_mutex_destroy(&m->lock);
	}
	m->shutdown();
	mon_unload(m);
}

#endif
