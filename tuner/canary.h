/*
 * canary.h: how fast the machine itself is right now, apart from whatever
 * library, driver or framework a check is about.
 *
 * A canary sample is two short measurements that depend on the host and on
 * nothing rigtune tunes: a scalar compute loop (a dependent chain of
 * integer and floating-point operations, no BLAS, no vector library) and
 * the bandwidth of reading a buffer larger than the caches. Each runs on as
 * many threads as the process may use PUs (up to RT_CANARY_MAX_THREADS),
 * each thread bound to one of them where the system binds threads (Linux; on
 * macOS the scheduler places them), a fixed
 * amount of work per thread in 16 steps with a barrier between them (as a
 * multi-threaded GEMM's threads meet at every panel, so that a thread slowed
 * by other work holds up the others), so that other processes taking cores,
 * a host that steals a VM's time, a lower clock or a busier memory bus slow
 * it the way they slow a trial. One sample takes about 30 ms on a quiet
 * machine.
 *
 * `rigtune tune` takes RT_CANARY_PER_TICK after every trial it measures and
 * appends them to JOURNAL-canary.csv beside its journal (JOURNAL.yaml);
 * `rigtune check` takes as many after every trial and says how the two
 * series compare, beside the points, as shown only (check_canary.h says why
 * neither half decides anything).
 *
 * The file: a header line `unix_time,compute_v2,memory_v2` (compute in G
 * operations/s, memory in GB/s), then one sample per line, appended with
 * one write() each. Blank lines and lines starting with '#' are skipped; a
 * last line without its newline (a write cut short) is dropped. Version 1
 * (`unix_time,compute,memory`, rigtune before 2026-11-27) left its threads
 * where the scheduler put them, and on a 2-vCPU VM they shared one vCPU for
 * minutes at a time, halving the compute half: its samples are not compared
 * with this version's, and none is appended to such a file.
 */
#ifndef RT_CANARY_H
#define RT_CANARY_H

#include <stddef.h>

#define RT_CANARY_MAX_THREADS 16
/* Samples per tick (after a tune's trial, before a check's): enough for a test to decide. */
#define RT_CANARY_PER_TICK 2

typedef struct rt_canary_sample {
	double t;       /* unix time, seconds */
	double compute; /* G scalar operations per second, all threads */
	double memory;  /* GB/s read, all threads */
} rt_canary_sample;

/* One sample now, in this process. RT_ENOMEM, RT_ERUNTIME (a thread cannot start). */
int rt_canary_measure(rt_canary_sample *s);

/* JOURNAL-canary.csv for JOURNAL.yaml; RT_EINVAL when it is no .yaml or does not fit. */
int rt_canary_path(const char *journal, char *buf, size_t len);

/*
 * Appends s to the file at path (made with its header when new). RT_EIO
 * "PATH: why"; RT_EINVAL for a file that does not start with this version's
 * header (nothing is written to it).
 */
int rt_canary_append(const char *path, const rt_canary_sample *s, char *err, size_t errlen);

/* RT_CANARY_PER_TICK samples (rt_canary_measure), appended to the canary file of journal. */
int rt_canary_tick(const char *journal, char *err, size_t errlen);

/*
 * Reads the samples of the file at path into a new array (*v, *n; free()).
 * A version 1 file reads as none (*v NULL, *n 0) with *older set. RT_EIO
 * when it cannot be read; RT_EINVAL "PATH:LINE: problem" for another header
 * or a line that is not three numbers.
 */
int rt_canary_read(const char *path, rt_canary_sample **v, size_t *n, int *older, char *err,
		   size_t errlen);

#endif
