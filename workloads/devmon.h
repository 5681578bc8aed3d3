/*
 * devmon.h: the device monitor, one small interface over the vendors'
 * utilization monitors, shared by `watch` (tuner/watch/) and the plugins'
 * utilization() (the sampled busy share beside the one their events time).
 *
 * As SQLite's VFS or Redis's ae_* files: a vendor is one struct of
 * operations (rt_devmon_vendor) in its own file, devmon_nvml.c (NVIDIA's
 * NVML), devmon_rsmi.c (AMD's ROCm SMI), devmon_ioreport.c (Apple's
 * IOReport, the GPU's active residency); devmon_table.c is the table that
 * `watch` tries in order. Every vendor's library is reached with dlopen,
 * so nothing links it; $RIGTUNE_NVML, $RIGTUNE_ROCM_SMI and
 * $RIGTUNE_IOREPORT name a library to load instead of the vendor's (tests
 * load stand-ins from tests/fakes/). devmon.c is the part every vendor
 * shares: the samples, the window a plugin reads, opening and closing.
 *
 * Plain C that C++ compiles too and that needs nothing of the binary
 * (host_abi.h only): a plugin compiles devmon.c and its vendor's file
 * into itself (the GPU plugins include them in their one translation unit,
 * the Metal plugin lists them), the binary links them all.
 *
 * Returns: 0 (RT_OK) or RT_EUNAVAIL / RT_ENOMEM with the reason in why.
 */
#ifndef RT_DEVMON_H
#define RT_DEVMON_H

#include <stddef.h>

enum { RT_DEV_DEVICE = 0, RT_DEV_PROCESS = 1 };

/*
 * One sample: the share of its window in which the device ran a kernel
 * (kind RT_DEV_DEVICE), or in which the process pid's kernels ran
 * (RT_DEV_PROCESS: NVML's per-process samples, the SM share).
 */
typedef struct rt_dev_sample {
	int device; /* the monitor's index of the device, from 0 */
	int kind;
	int pid;       /* RT_DEV_PROCESS: whose kernels; 0 otherwise */
	double t;      /* the end of its window, CLOCK_REALTIME seconds */
	double window; /* its length in seconds; 0 when not known */
	double busy;   /* 0..1 */
} rt_dev_sample;

/* Samples, appended to and grown as needed (free s when done). */
typedef struct rt_dev_batch {
	rt_dev_sample *s;
	int n, cap;
} rt_dev_batch;

/* Appends x: RT_OK, RT_ENOMEM. */
int rt_dev_batch_push(rt_dev_batch *b, rt_dev_sample x);

/* CLOCK_REALTIME in seconds: the clock of the samples' t. */
double rt_devmon_clock(void);

/*
 * For the vendors' files: dlopens $env when set, else `name`; NULL with
 * dlerror's words in why when it does not load.
 */
void *rt_devmon_dlopen(const char *env, const char *name, char *why, size_t len);

/* A vendor's monitor: one row of the table, its own file. */
typedef struct rt_devmon_vendor {
	const char *name;  /* "nvml", "rocm_smi", "ioreport": rt_device_info.monitor */
	const char *label; /* "NVML", "ROCm SMI", "IOReport": watch's source */
	size_t state_size; /* bytes of its state, zeroed by rt_devmon_open */
	/*
	 * Loads the library and finds the device at PCI bus id `bus`
	 * ("0000:3b:00.0", as the device runtime names it), or every device for
	 * NULL; *ndev of them. A monitor with one device (IOReport) ignores
	 * bus. 0, or RT_EUNAVAIL with why (nothing left open).
	 */
	int (*open)(void *state, const char *bus, int *ndev, char *why, size_t len);
	/* Appends every sample taken since the last call: RT_OK, RT_ENOMEM. */
	int (*poll)(void *state, rt_dev_batch *out);
	void (*close)(void *state);
} rt_devmon_vendor;

extern const rt_devmon_vendor rt_devmon_nvml, rt_devmon_rsmi, rt_devmon_ioreport;

typedef struct rt_devmon rt_devmon;

/* v's monitor of the device at bus (NULL: every device): NULL with why when none. */
rt_devmon *rt_devmon_open(const rt_devmon_vendor *v, const char *bus, char *why, size_t len);
/*
 * The first vendor of the table (devmon_table.c) that finds a device, with
 * every device it has: NULL when none does, why saying each one's reason.
 */
rt_devmon *rt_devmon_open_any(char *why, size_t len);
int rt_devmon_ndevices(const rt_devmon *m);
const char *rt_devmon_label(const rt_devmon *m); /* "NVML", ...; "none" for NULL */
const rt_devmon_vendor *rt_devmon_vendor_of(const rt_devmon *m);

/* Appends every sample taken since the last poll or window read: RT_OK, RT_ENOMEM. */
int rt_devmon_poll(rt_devmon *m, rt_dev_batch *out);

/*
 * The window a plugin reads (one device, the monitor's first): starts a
 * new one, in which no sample taken before now counts (a sample may be
 * stamped a moment later than the clock read here).
 */
void rt_devmon_window_start(rt_devmon *m);
/*
 * The mean busy share of the device's samples since the window started or
 * was last read, and how many there were (*n); the next window starts.
 * RT_EUNAVAIL "no sample in the window" when there was none (a window
 * shorter than the vendor's sample period), RT_ENOMEM.
 */
int rt_devmon_window_read(rt_devmon *m, double *busy, int *n, char *why, size_t len);

/*
 * A plugin's utilization() (backend.h) over *m: the first call opens v's
 * monitor of the device at bus and starts its window (RT_EUNAVAIL "the
 * monitor's window starts now"); each later call reads the window
 * (RT_EUNAVAIL until a sample has come: NVML's come at its period,
 * IOReport's at each read). Once
 * the monitor failed to open (*failed set), RT_EUNAVAIL without trying
 * again. The reason in why.
 */
int rt_devmon_utilization(rt_devmon **m, int *failed, const rt_devmon_vendor *v, const char *bus,
                          double *busy, char *why, size_t len);

void rt_devmon_close(rt_devmon *m); /* accepts NULL */

#endif
