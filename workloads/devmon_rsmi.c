/*
 * devmon_rsmi.c: the device monitor of AMD GPUs, ROCm SMI (devmon.h).
 * rocm_smi keeps no buffer of samples, so a thread polls
 * rsmi_dev_busy_percent_get every RSMI_POLL_S while the monitor is open,
 * and each poll of the monitor hands back one sample per device: the mean
 * of what the thread read since the last. The declarations follow
 * rocm_smi.h of ROCm 5.2 (Debian's librocm-smi-dev); $RIGTUNE_ROCM_SMI
 * names the library to load instead of librocm_smi64.so.1.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "devmon.h"
#include "host_abi.h"

#define RSMI_POLL_S 0.01 /* the poller's period */
#define RSMI_MAX_DEVICES 16

typedef struct rsmi_state {
	void *lib;
	int (*shutdown)(void);
	int (*busy)(uint32_t index, uint32_t *percent);
	int ndev;
	uint32_t index[RSMI_MAX_DEVICES];
	pthread_t poller;
	pthread_mutex_t lock;
	double sum[RSMI_MAX_DEVICES]; /* of the polled fractions since the last poll */
	long count[RSMI_MAX_DEVICES];
	double since; /* when the last poll of the monitor was */
	int stop;
} rsmi_state;

/* The poller: one busy fraction of every device every RSMI_POLL_S until stop. */
static void *rsmi_poller(void *arg)
{
	rsmi_state *s = (rsmi_state *)arg;
	struct timespec period = {0, (long)(RSMI_POLL_S * 1e9)};
	for (;;) {
		for (int d = 0; d < s->ndev; d++) {
			uint32_t pct = 0;
			int ok = s->busy(s->index[d], &pct) == 0;
			pthread_mutex_lock(&s->lock);
			if (ok) {
				s->sum[d] += pct / 100.0;
				s->count[d]++;
			}
			pthread_mutex_unlock(&s->lock);
		}
		pthread_mutex_lock(&s->lock);
		int stop = s->stop;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			return NULL;
		nanosleep(&period, NULL);
	}
}

/*
 * The devices rocm_smi monitors: the one at bus ("DDDD:BB:DD.F"), or every
 * one. Its BDF id holds the domain in bits 32..63, the bus in 8..15, the
 * device in 3..7 and the function in 0..2.
 */
static int rsmi_find_devices(rsmi_state *s, const char *bus, char *why, size_t len)
{
	int (*count)(uint32_t *) = NULL;
	int (*pci_id)(uint32_t, uint64_t *) = NULL;
	const rt_dl_need need[] = {
	    RT_DL_NEED("rsmi_num_monitor_devices", count),
	    RT_DL_NEED("rsmi_dev_pci_id_get", pci_id),
	};
	unsigned domain = 0, b = 0, dev = 0, fn = 0;
	uint32_t n = 0;
	if (rt_dl_resolve(s->lib, "librocm_smi64.so.1", need, RT_COUNT(need), why, len))
		return RT_EUNAVAIL;
	if (bus && sscanf(bus, "%x:%x:%x.%x", &domain, &b, &dev, &fn) != 4)
		return rt_abi_fail(why, len, RT_EUNAVAIL, "rocm_smi: PCI bus id '%s'", bus);
	if (count(&n) != 0)
		n = 0;
	for (uint32_t i = 0; i < n && s->ndev < RSMI_MAX_DEVICES; i++) {
		uint64_t id;
		if (pci_id(i, &id) != 0)
			continue;
		if (!bus || ((unsigned)(id >> 32) == domain && ((id >> 8) & 0xff) == b &&
		             ((id >> 3) & 0x1f) == dev))
			s->index[s->ndev++] = i;
	}
	if (s->ndev)
		return RT_OK;
	if (bus)
		return rt_abi_fail(why, len, RT_EUNAVAIL,
		                   "rocm_smi: no device at PCI %04x:%02x:%02x", domain, b, dev);
	return rt_abi_fail(why, len, RT_EUNAVAIL, "rocm_smi sees no device");
}

static int rsmi_open(void *state, const char *bus, int *ndev, char *why, size_t len)
{
	rsmi_state *s = (rsmi_state *)state;
	int (*init)(uint64_t) = NULL;
	const char *lib = "librocm_smi64.so.1";
	s->lib = rt_devmon_dlopen("RIGTUNE_ROCM_SMI", lib, why, len);
	if (!s->lib)
		return RT_EUNAVAIL;
	const rt_dl_need need[] = {
	    RT_DL_NEED("rsmi_init", init),
	    RT_DL_NEED("rsmi_dev_busy_percent_get", s->busy),
	    RT_DL_NEED("rsmi_shut_down", s->shutdown),
	};
	int st = -1;
	if (rt_dl_resolve(s->lib, lib, need, RT_COUNT(need), why, len) == 0 && (st = init(0)) != 0)
		rt_abi_fail(why, len, RT_EUNAVAIL, "rsmi_init: status %d", st);
	if (st == 0 && rsmi_find_devices(s, bus, why, len) == RT_OK) {
		pthread_mutex_init(&s->lock, NULL);
		s->since = rt_devmon_clock();
		if (pthread_create(&s->poller, NULL, rsmi_poller, s) == 0) {
			*ndev = s->ndev;
			return RT_OK;
		}
		pthread_mutex_destroy(&s->lock);
		rt_abi_fail(why, len, RT_EUNAVAIL, "rocm_smi: cannot start its poller");
	}
	if (st == 0)
		s->shutdown();
	dlclose(s->lib);
	return RT_EUNAVAIL;
}

/* Per device that was polled since the last call: the mean, over the time since. */
static int rsmi_poll(void *state, rt_dev_batch *out)
{
	rsmi_state *s = (rsmi_state *)state;
	int rc = RT_OK;
	pthread_mutex_lock(&s->lock);
	double now = rt_devmon_clock();
	for (int d = 0; rc == RT_OK && d < s->ndev; d++) {
		if (!s->count[d])
			continue;
		rt_dev_sample x = {d,   RT_DEV_DEVICE,  0,
		                   now, now - s->since, s->sum[d] / (double)s->count[d]};
		rc = rt_dev_batch_push(out, x);
		s->sum[d] = 0;
		s->count[d] = 0;
	}
	s->since = now;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static void rsmi_close(void *state)
{
	rsmi_state *s = (rsmi_state *)state;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->poller, NULL);
	pthread_mutex_destroy(&s->lock);
	s->shutdown();
	dlclose(s->lib);
}

const rt_devmon_vendor rt_devmon_rsmi = {
    "rocm_smi", "ROCm SMI", sizeof(rsmi_state), rsmi_open, rsmi_poll, rsmi_close,
};
