/*
 * watch.h: `rigtune watch`: how a running command (and the processes it
 * starts) uses the machine, sampled at a fixed rate without stopping it,
 * cut into phases by the resource that binds it, and said in one verdict.
 *
 * The parts, one module each: procfs.c reads the kernel (the only module
 * that knows /proc), workloads/devmon.h the accelerator's monitor (NVML,
 * ROCm SMI, IOReport: the one the plugins use too), sampler.c turns
 * two snapshots into one tick, watch.c runs the command (or follows a pid)
 * with the sampler beside it, phases.c classifies and cuts, verdict.c says
 * it in words, watch_yaml.c writes and reads the result.
 */
#ifndef RT_WATCH_H
#define RT_WATCH_H

#include <stddef.h>
#include <sys/types.h>

#include "../../workloads/devmon.h"
#include "procfs.h"

/* A thread (or a worker process) that wanted this share of a core is at its limit. */
#define RT_WATCH_THREAD_FULL 0.85
/*
 * The ticks a run keeps: 9 values each in the file, they stay well within
 * what a reader takes (RT_YR_MAX_NODES) with the metric's RT_CMD_MAX_SAMPLES
 * beside them. Past it neighbouring ticks are merged in pairs, and from then
 * on every two (then four, ...) new ones make one, as the metric's samples
 * are thinned: a watch of any length keeps evenly spaced ticks (at 10 Hz,
 * 0.1 s for the first 27 minutes, 6.4 s over a day).
 */
#define RT_WATCH_MAX_TICKS 16384
/* The longest --metric watch takes (a longer one is refused, never cut: issue 47). */
#define RT_WATCH_REGEX_MAX 255

/* What binds an interval of the run. */
typedef enum rt_watch_class {
	RT_WC_DEVICE,      /* the accelerator was busy */
	RT_WC_ONE_THREAD,  /* one thread ran, the others (and the other cores) idled */
	RT_WC_THREADS,     /* several threads kept cores busy */
	RT_WC_WAIT_IO,     /* little ran; a thread waited in the kernel (D: disk, I/O) */
	RT_WC_WAIT_SLEEP,  /* little ran; the threads slept (a lock, a queue, sleep) */
	RT_WC_N
} rt_watch_class;

const char *rt_watch_class_name(int c); /* "device", "one_thread", ... */
int rt_watch_class_parse(const char *name); /* -1 when unknown */

/* One interval between two samples. */
typedef struct rt_watch_tick {
	double t, dt;      /* its end, seconds since the start, and its length */
	double cores;      /* the tree's CPU time over dt: cores kept busy */
	double want;       /* cores it would have kept busy: ran + waited for a CPU (loaded machine) */
	double top;        /* the busiest thread's share of one core */
	double top_want;   /* that thread's ran + waited share: 1 when it never stopped for itself */
	int top_thread;    /* that thread (busiest by want), an index of rt_watch_run.threads; -1 */
	double other;      /* the rest of the machine, in cores */
	int nthreads;      /* threads of the tree */
	int busy_threads;  /* of them, those that ran at least a fifth of the interval */
	int io_threads;    /* of them, those seen waiting for I/O (state D) */
	double rss;        /* bytes, the tree's processes together */
	double device;     /* the accelerator's busy share, -1 without one */
	/*
	 * The share of the interval in which the tree's own kernels kept the
	 * device busy (NVML's per-process samples): its threads, running or
	 * not, waited on the device then. 0 without such samples.
	 */
	double wait;
	int host;          /* the class its threads alone give it (never device) */
	int cls;           /* rt_watch_class: its own */
	int phase;         /* the class of the phase it is in (short stretches absorbed) */
} rt_watch_tick;

/* A thread of the tree, over the whole run. */
typedef struct rt_watch_thread {
	int pid;
	int64_t tid; /* rt_proc_thread's: on macOS a 64-bit handle */
	char comm[16];
	double cpu_s;        /* on-CPU time while watched */
	/*
	 * Its cores over the steps (--metric): its CPU time from the tick that
	 * saw the first rate line to the tick that saw the last, over that time;
	 * -1 unknown (no such window, or a file that does not say). A loader's
	 * prefetch before the first step is not in it, as it is in cpu_s.
	 */
	double steps_cores;
	double steps_cpu0, steps_cpu1; /* cpu_s at those two ticks (rt_watch_mark_steps) */
	uint64_t last_ns;    /* its CPU time at the last snapshot (the sampler's) */
	uint64_t last_wait_ns; /* and its run-queue wait */
} rt_watch_thread;

/* A value on the run's clock: the user's metric. */
typedef struct rt_watch_point {
	double t, v;
} rt_watch_point;

/* A stretch of the run with one binding resource. */
typedef struct rt_watch_phase {
	int cls;
	double t0, t1;
	double cores, want, top, device; /* their means over the phase (device -1: none) */
	int top_thread;            /* the thread busiest over the phase; -1 none */
} rt_watch_phase;

typedef struct rt_watch_run {
	/* what ran */
	char command[1024];
	pid_t pid;
	int ncpus;
	double rate_hz;
	double wall_s;
	int exited, status; /* a command's wait status (not for --pid) */
	int interrupted;    /* ended by SIGINT or SIGTERM (what was watched is all there) */
	/* the samples */
	rt_watch_tick *ticks;
	int nticks, tcap;
	int tick_stride, tick_fill; /* sampled ticks per kept one (1, 2, 4...); in the last */
	rt_watch_thread *threads;
	int nthreads, thcap;
	rt_watch_point *metric;
	int nmetric, mcap;
	char metric_regex[RT_WATCH_REGEX_MAX + 1];
	char device_source[16], device_why[256];
	int ndevices;
	double realtime0; /* CLOCK_REALTIME at the start: the device samples' clock */
	int read_back;    /* loaded from a YAML: no raw device samples, the ticks' shares stand */
	rt_dev_sample *dev;
	int ndev, dcap;
	double peak_rss;
	double sampler_cpu_s; /* the sampler thread's own CPU time: what watching cost */
	/* the analysis (phases.c, verdict.c) */
	rt_watch_phase *phases;
	int nphases;
	double share[RT_WC_N];   /* of wall time */
	double device_busy;      /* the device's busy share of wall time; -1 none */
	double monitor_zero;     /* share of 1 s monitor readings that read 0%; -1 none */
	int monitor_readings;
	double process_busy;     /* the tree's mean SM share, NVML's per-process samples; -1 none */
	double win0, win1;       /* the window the shares and the verdict cover, s since the start */
	int steps_marks;         /* ticks that saw a new rate line (rt_watch_mark_steps) */
	double steps_t0, steps_t1; /* the first and the last of them */
	int win_steps;           /* 1: the window is the steps, first rate line to last; 0: the run */
	int binding;             /* the class with the largest share */
	char verdict[1024];
	char step[512];
} rt_watch_run;

/* How watch runs. */
typedef struct rt_watch_opts {
	char *const *argv; /* the command, or NULL with pid */
	pid_t pid;
	double rate_hz;
	const char *metric;
	int quiet;
} rt_watch_opts;

/*
 * Runs (or follows) what o names until it ends and fills r with the
 * samples; its processes end with it (a Ctrl-C ends them too). RT_EINVAL
 * (a command that cannot start, a pid that is not there, a bad regex) or
 * RT_ERUNTIME, the reason in err.
 */
int rt_watch(const rt_watch_opts *o, rt_watch_run *r, char *err, size_t errlen);
void rt_watch_free(rt_watch_run *r);

/* ---- sampler.c ---- */

/*
 * The tick between the previous snapshot (kept in r's threads) and s, dt
 * seconds later, at time t; appended to r. RT_OK, RT_ENOMEM.
 */
int rt_watch_tick_add(rt_watch_run *r, const rt_proc_snap *s, const rt_proc_snap *prev,
		      double t, double dt);
/* The thread's index in r, added when new; -1 when out of memory. */
int rt_watch_thread_index(rt_watch_run *r, const rt_proc_thread *th);
/*
 * The tick at time t saw a new rate line (--metric): the steps are running.
 * The first such tick starts each thread's CPU over the steps, every one
 * ends it for now (rt_watch_thread.steps_cores).
 */
void rt_watch_mark_steps(rt_watch_run *r, double t);

/* ---- phases.c ---- */

/* Each tick's device share (from r->dev) and class, the phases and their shares. */
int rt_watch_analyze(rt_watch_run *r);
/*
 * The class of one tick (ncpus: the cores the tree may use): the device's
 * when the device was busy at least 70% of it or the tree's kernels kept
 * it busy at least half of it (wait), else what its threads give it.
 */
int rt_watch_classify(const rt_watch_tick *k, int ncpus);
/*
 * The part of tick k that counts for class c (k's host and device known,
 * as rt_watch_analyze leaves them): all of it for the device's when the
 * device was busy at least 70% of it; else its wait for the device's and
 * the rest for its host class.
 */
double rt_watch_tick_part(const rt_watch_tick *k, int c);
/* Whether the tick's middle is in the verdict's window. */
int rt_watch_in_window(const rt_watch_run *r, const rt_watch_tick *k);

/* ---- verdict.c ---- */

/* r->verdict and r->step from the analysis. */
void rt_watch_verdict(rt_watch_run *r);

/* ---- watch_yaml.c ---- */

int rt_watch_yaml(const rt_watch_run *r, char **text, size_t *len, char *err, size_t errlen);
/*
 * Reads back what rt_watch_yaml wrote, as much as a page draws and the
 * analysis needs again (the time line, the window, the shares, the verdict,
 * the busiest threads; not the phases' list or the device's raw samples:
 * rt_watch_analyze keeps the ticks' device shares of such a run).
 * RT_EINVAL "FILE:LINE:COLUMN: why", RT_EIO, RT_ENOMEM.
 */
int rt_watch_load(const char *path, rt_watch_run *r, char *err, size_t errlen);

#endif
