/*
 * memwatch.h: a memory cap that holds where RLIMIT_AS does not (macOS
 * accepts it and enforces nothing). A thread of the parent looks at the
 * trial's footprint every RT_MEMWATCH_PERIOD_S and SIGKILLs the trial the
 * first time it is above the cap; the parent then calls the trial's end a
 * lack of memory, as an allocation refused under RLIMIT_AS would be. Both
 * kinds of trial go through here: a built-in one (measure.c: one process)
 * and a run of the user's command (usercmd.c: the whole tree below the
 * leader of its process group, so that a PyTorch script's DataLoader
 * workers count, and the group ended).
 *
 *   rt_memcap how = rt_memcap_how(cap);   (before fork: RLIMIT_AS in the child, or a watch)
 *   rt_memwatch w; rt_memwatch_start(&w, pid, 0, cap); ... wait for the trial ...
 *   if (rt_memwatch_stop(&w)) rt_memwatch_reason(cap, w.seen, buf, len);
 *
 * The watch never looks at a pid that may be another process's: stop it
 * before the trial is reaped, or reap between rt_memwatch_hold and
 * rt_memwatch_release.
 */
#ifndef RT_MEMWATCH_H
#define RT_MEMWATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RT_MEMWATCH_PERIOD_S 0.02

/* How a trial's memory cap holds. */
typedef enum rt_memcap {
	RT_MEMCAP_NONE,     /* no cap (0 bytes) */
	RT_MEMCAP_SYSTEM,   /* RLIMIT_AS, set in the child before it runs (Linux) */
	RT_MEMCAP_WATCHDOG, /* this module's watch, from the parent (macOS) */
} rt_memcap;

/*
 * How a cap of cap bytes holds here. $RIGTUNE_MEMWATCH_MIB (a test hook,
 * rt_memwatch_test_cap) takes the watchdog where the system could cap too, so
 * that Linux runs macOS's path.
 */
rt_memcap rt_memcap_how(uint64_t cap);

/*
 * $RIGTUNE_MEMWATCH_MIB in bytes: a test hook that caps every trial (the cap
 * rigtune would pick, rt_measure_mem_cap) at that many MiB and has the
 * watchdog hold it; 0 when unset or not a positive whole number.
 */
uint64_t rt_memwatch_test_cap(void);

typedef struct rt_memwatch {
	pthread_t thread;
	pthread_mutex_t lock; /* held while it looks and kills, and while the trial is reaped */
	pid_t pid;            /* 0 once reaped */
	int group;            /* pid leads a process group: its tree counts, the group ends */
	uint64_t cap;
	atomic_int stop;
	atomic_int fired;
	uint64_t seen; /* the footprint that fired it, bytes */
} rt_memwatch;

/*
 * Starts watching pid against cap bytes: pid's own footprint, or with group
 * the sum over pid and every process below it (up to 1024), the group pid
 * leads SIGKILLed past the cap (a process that left the group is its
 * caller's to end). RT_OK, or RT_ERUNTIME when no thread starts.
 */
int rt_memwatch_start(rt_memwatch *w, pid_t pid, int group, uint64_t cap);

/* Stops the thread; 1 if it killed pid (its group) for going past the cap, else 0. */
int rt_memwatch_stop(rt_memwatch *w);

/*
 * Around a wait that may reap the watched pid: the watch neither looks nor
 * kills in between, and stops looking for good when reaped says it was.
 */
void rt_memwatch_hold(rt_memwatch *w);
void rt_memwatch_release(rt_memwatch *w, int reaped);

/* The reason of a trial the watch ended: "needs more than the 4.0 GiB cap (4.2 GiB when ...)". */
void rt_memwatch_reason(uint64_t cap, uint64_t seen, char *buf, size_t len);

#endif
