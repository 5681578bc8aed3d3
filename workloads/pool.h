/*
 * pool.h: a small persistent thread pool for the CPU backend's kernels.
 *
 * A pool of N threads counts the calling thread as one of them: it spawns
 * N-1 workers. After a job a worker polls (yielding the core to any other
 * runnable thread) for at most ~50 us for the next one, then sleeps on a
 * condition variable: the kernels of a step come back to back and a
 * condvar wake-up costs tens of microseconds, while a GEMM that follows
 * loses at most that short poll to it. A pool of one thread spawns nothing
 * and runs every job inline.
 *
 * rt_pool_run() splits [0, nitems) into N contiguous chunks, chunk i going
 * to thread i (the caller takes chunk 0), and returns when every chunk is
 * done. The chunk boundaries depend only on nitems and N, so a job whose
 * items write disjoint outputs gives the same result on every run. One job
 * at a time: rt_pool_run is not reentrant and a pool has one caller.
 */
#ifndef RT_POOL_H
#define RT_POOL_H

#include <stddef.h>

typedef struct rt_pool rt_pool;

/* Work on items [begin, end) of a job; called once per non-empty chunk. */
typedef void (*rt_pool_fn)(void *arg, size_t begin, size_t end);

/*
 * Creates a pool of nthreads threads (>= 1; the caller is one of them).
 * Returns 0, RT_EINVAL for nthreads < 1, RT_ENOMEM or RT_ERUNTIME when a
 * thread cannot be started (nothing is left running then).
 */
int rt_pool_create(int nthreads, rt_pool **pool, char *err, size_t errlen);

/* Stops and joins the workers, frees the pool. Accepts NULL. */
void rt_pool_destroy(rt_pool *pool);

/* Number of threads, the caller included; 1 for a NULL pool. */
int rt_pool_size(const rt_pool *pool);

/*
 * Runs fn over [0, nitems) in contiguous chunks, one per thread, and waits
 * for all of them. A NULL pool or a pool of one runs fn(arg, 0, nitems)
 * inline. Empty chunks (nitems < N) are not called.
 */
void rt_pool_run(rt_pool *pool, rt_pool_fn fn, void *arg, size_t nitems);

#endif
