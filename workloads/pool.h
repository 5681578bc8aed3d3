/*
 * pool.h: the one fork-join thread pool of the workloads: the CPU backend's
 * kernels and the PPO environment's workers.
 *
 * A pool of N threads counts the calling thread as one of them: it spawns
 * N-1 workers. After a job a worker polls for the next one for `spin_s`
 * seconds (yielding its core to any other runnable thread once it has
 * polled RT_POOL_YIELD_AFTER_S), then sleeps on a condition variable; the
 * caller waits for the workers' parts the same way. A wake-up from sleep
 * costs tens of microseconds, so the spin time is what a user trades:
 * kernels that come back to back and leave the core to a GEMM right after
 * want a short one (RT_POOL_SPIN_KERNELS), environment steps separated by
 * policy inference a longer one (RT_POOL_SPIN_ENVS). A pool of one thread
 * spawns nothing and runs every job inline.
 *
 * rt_pool_run_each() runs fn(arg, i, N) on every thread i (the caller is
 * i = 0) and returns when all are done; the job decides what thread i does.
 * rt_pool_run() splits [0, nitems) into N contiguous chunks, chunk i going
 * to thread i. The chunk boundaries depend only on nitems and N, so a job
 * whose items write disjoint outputs gives the same result on every run.
 * One job at a time: neither is reentrant and a pool has one caller.
 */
#ifndef RT_POOL_H
#define RT_POOL_H

#include <pthread.h>
#include <stddef.h>

/* Spin times: between a step's kernels; between two rollout steps' env steps. */
#define RT_POOL_SPIN_KERNELS 50e-6
#define RT_POOL_SPIN_ENVS 200e-6
/* Past this much polling a waiting thread yields its core at every clock check. */
#define RT_POOL_YIELD_AFTER_S 20e-6

typedef struct rt_pool rt_pool;

/* Work on items [begin, end) of a job; called once per non-empty chunk. */
typedef void (*rt_pool_fn)(void *arg, size_t begin, size_t end);

/* Thread `index` of `nthreads` does its part of a job. */
typedef void (*rt_pool_each_fn)(void *arg, int index, int nthreads);

/*
 * Creates a pool of nthreads threads (>= 1; the caller is one of them) whose
 * waiting threads poll for spin_s seconds (>= 0) before they sleep.
 * Returns 0, RT_EINVAL for nthreads < 1 or a negative spin, RT_ENOMEM or
 * RT_ERUNTIME when a thread cannot be started (nothing is left running then).
 */
int rt_pool_create(int nthreads, double spin_s, rt_pool **pool, char *err, size_t errlen);

/*
 * Starts a thread that does a trial's work as the pool starts its workers: with
 * the platform's attributes for it (rt_plat_thread_attr: on macOS the QoS class
 * the trial was steered to). pthread_create's 0 or errno.
 */
int rt_pool_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

/* Stops and joins the workers, frees the pool. Accepts NULL. */
void rt_pool_destroy(rt_pool *pool);

/* Number of threads, the caller included; 1 for a NULL pool. */
int rt_pool_size(const rt_pool *pool);

/*
 * Runs fn(arg, i, N) on each of the N threads and waits for all of them. A
 * NULL pool or a pool of one runs fn(arg, 0, 1) inline.
 */
void rt_pool_run_each(rt_pool *pool, rt_pool_each_fn fn, void *arg);

/*
 * Runs fn over [0, nitems) in contiguous chunks, one per thread, and waits
 * for all of them. A NULL pool or a pool of one runs fn(arg, 0, nitems)
 * inline. Empty chunks (nitems < N) are not called.
 */
void rt_pool_run(rt_pool *pool, rt_pool_fn fn, void *arg, size_t nitems);

#endif
