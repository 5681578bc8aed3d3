/*
 * memwatch.h: a memory cap that holds where RLIMIT_AS does not (macOS
 * accepts it and enforces nothing). A thread of the parent looks at the
 * trial's footprint every RT_MEMWATCH_PERIOD_S and SIGKILLs the trial the
 * first time it is above the cap; the parent then calls the trial's end a
 * lack of memory, as an allocation refused under RLIMIT_AS would be.
 *
 *   rt_memwatch w; rt_memwatch_start(&w, pid, cap); ... wait for the trial ...
 *   if (rt_memwatch_stop(&w)) ... it went past the cap ...
 *
 * Stop before the trial is reaped: a pid reaped may be another process's.
 */
#ifndef RT_MEMWATCH_H
#define RT_MEMWATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#define RT_MEMWATCH_PERIOD_S 0.02

typedef struct rt_memwatch {
	pthread_t thread;
	pid_t pid;
	uint64_t cap;
	atomic_int stop;
	atomic_int fired;
	uint64_t seen; /* the footprint that fired it, bytes */
} rt_memwatch;

/* Starts watching pid against cap bytes. RT_OK, or RT_ERUNTIME when no thread starts. */
int rt_memwatch_start(rt_memwatch *w, pid_t pid, uint64_t cap);

/* Stops the thread; 1 if it killed pid for going past the cap, else 0. */
int rt_memwatch_stop(rt_memwatch *w);

#endif
