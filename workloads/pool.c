/* The workloads' fork-join pool: see pool.h for the contract. */
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../common/platform.h"
#include "../common/rt.h"

/* Polls between two reads of the clock. */
#define SPIN_CHECK 64

struct rt_pool {
	int nthreads;
	double spin_s;           /* how long a waiting thread polls before it sleeps */
	pthread_t *threads;      /* nthreads - 1 workers */
	pthread_mutex_t lock;
	pthread_cond_t wake;     /* a new job (or stop) was posted */
	pthread_cond_t done;     /* the last worker finished its chunk */
	/* Bumped per job (under lock, after fn/arg are set), so a worker
	 * runs each once; polled without the lock. */
	atomic_ulong generation;
	atomic_int pending;      /* workers still busy with the current job */
	atomic_int stop;         /* set before the generation bump that announces it */
	rt_pool_each_fn fn;
	void *arg;
};

typedef struct worker_arg {
	rt_pool *pool;
	int index;
} worker_arg;

/*
 * Chunk `index` of `nitems` split over n threads: the first nitems % n
 * chunks get one item more, so sizes differ by at most one.
 */
static void chunk(size_t nitems, int n, int index, size_t *begin, size_t *end)
{
	size_t q = nitems / (size_t)n, r = nitems % (size_t)n, i = (size_t)index;
	*begin = q * i + (i < r ? i : r);
	*end = *begin + q + (i < r ? 1 : 0);
}

/* A job of rt_pool_run: fn over [0, nitems) in chunks. */
typedef struct chunk_job {
	rt_pool_fn fn;
	void *arg;
	size_t nitems;
} chunk_job;

static void run_chunk(void *p, int index, int nthreads)
{
	const chunk_job *j = p;
	size_t begin, end;
	chunk(j->nitems, nthreads, index, &begin, &end);
	if (begin < end)
		j->fn(j->arg, begin, end);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Polls for up to the pool's spin time until *gen differs from seen, or (gen
 * NULL) until *pending reaches 0; past RT_POOL_YIELD_AFTER_S it yields the
 * core at every clock check (where the machine is oversubscribed, the thread
 * this one waits for may need it). Returns 1 when it did, 0 on the timeout.
 */
static int spin_until(const rt_pool *pool, atomic_ulong *gen, unsigned long seen,
		      atomic_int *pending)
{
	double start = 0;
	for (unsigned i = 1;; i++) {
		if (gen ? atomic_load_explicit(gen, memory_order_acquire) != seen
			: atomic_load_explicit(pending, memory_order_acquire) == 0)
			return 1;
		cpu_relax();
		if (i % SPIN_CHECK != 0)
			continue;
		double t = rt_now();
		if (start == 0) {
			start = t;
			continue;
		}
		if (t - start > pool->spin_s)
			return 0;
		if (t - start > RT_POOL_YIELD_AFTER_S)
			sched_yield();
	}
}

/*
 * A worker waits for a generation it has not run yet (polling a while,
 * then sleeping on `wake`), runs its chunk, and when it is the last one
 * out wakes the caller in case it went to sleep on `done`.
 */
static void *worker_main(void *p)
{
	worker_arg *wa = p;
	rt_pool *pool = wa->pool;
	int index = wa->index;
	unsigned long seen = 0;

	free(wa);
	for (;;) {
		if (!spin_until(pool, &pool->generation, seen, NULL)) {
			pthread_mutex_lock(&pool->lock);
			while (atomic_load(&pool->generation) == seen)
				pthread_cond_wait(&pool->wake, &pool->lock);
			pthread_mutex_unlock(&pool->lock);
		}
		seen = atomic_load_explicit(&pool->generation, memory_order_acquire);
		if (atomic_load(&pool->stop))
			break;
		pool->fn(pool->arg, index, pool->nthreads);
		if (atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_acq_rel) == 1) {
			pthread_mutex_lock(&pool->lock);
			pthread_cond_signal(&pool->done);
			pthread_mutex_unlock(&pool->lock);
		}
	}
	return NULL;
}

/* Tells the first `started` workers to stop and joins them. */
static void stop_workers(rt_pool *pool, int started)
{
	pthread_mutex_lock(&pool->lock);
	atomic_store(&pool->stop, 1);
	atomic_fetch_add(&pool->generation, 1);
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < started; i++)
		pthread_join(pool->threads[i], NULL);
}

int rt_pool_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int e = pthread_attr_init(&attr);
	if (e)
		return e;
	e = rt_plat_thread_attr(&attr);
	if (!e)
		e = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return e;
}

int rt_pool_create(int nthreads, double spin_s, rt_pool **out, char *err, size_t errlen)
{
	int rc, started = 0;
	rt_pool *pool;

	*out = NULL;
	if (nthreads < 1)
		return rt_fail(err, errlen, RT_EINVAL, "a pool needs at least 1 thread, not %d",
			       nthreads);
	if (!(spin_s >= 0))
		return rt_fail(err, errlen, RT_EINVAL, "a pool's spin time must be >= 0, not %g",
			       spin_s);
	pool = calloc(1, sizeof *pool);
	if (!pool)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory for the thread pool");
	pool->nthreads = nthreads;
	pool->spin_s = spin_s;
	pool->threads = calloc((size_t)nthreads, sizeof *pool->threads);
	if (!pool->threads) {
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory for the thread pool");
		goto fail_pool;
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	pthread_cond_init(&pool->done, NULL);
	for (; started < nthreads - 1; started++) {
		worker_arg *wa = malloc(sizeof *wa);
		if (!wa) {
			rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory for the thread pool");
			goto fail_threads;
		}
		wa->pool = pool;
		wa->index = started + 1;
		/* in the class the trial was steered to, where threads have classes */
		if (rt_pool_thread_start(&pool->threads[started], worker_main, wa) != 0) {
			free(wa);
			rc = rt_fail(err, errlen, RT_ERUNTIME,
				     "cannot start pool thread %d of %d", started + 1, nthreads);
			goto fail_threads;
		}
	}
	*out = pool;
	return 0;

fail_threads:
	stop_workers(pool, started);
	pthread_cond_destroy(&pool->done);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool->threads);
fail_pool:
	free(pool);
	return rc;
}

void rt_pool_destroy(rt_pool *pool)
{
	if (!pool)
		return;
	stop_workers(pool, pool->nthreads - 1);
	pthread_cond_destroy(&pool->done);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool->threads);
	free(pool);
}

int rt_pool_size(const rt_pool *pool)
{
	return pool ? pool->nthreads : 1;
}

void rt_pool_run_each(rt_pool *pool, rt_pool_each_fn fn, void *arg)
{
	if (!pool || pool->nthreads == 1) {
		fn(arg, 0, 1);
		return;
	}
	/* No worker reads these until the bump below publishes them, and every
	 * worker is done with the previous job's (pending reached 0). */
	pool->fn = fn;
	pool->arg = arg;
	atomic_store(&pool->pending, pool->nthreads - 1);
	/* The bump under the lock: a worker checks it under the lock before
	 * sleeping, so the broadcast cannot fall between its check and wait. */
	pthread_mutex_lock(&pool->lock);
	atomic_fetch_add(&pool->generation, 1);
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);

	fn(arg, 0, pool->nthreads);

	if (spin_until(pool, NULL, 0, &pool->pending))
		return;
	pthread_mutex_lock(&pool->lock);
	while (atomic_load(&pool->pending) > 0)
		pthread_cond_wait(&pool->done, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
}

void rt_pool_run(rt_pool *pool, rt_pool_fn fn, void *arg, size_t nitems)
{
	chunk_job j = {fn, arg, nitems};
	if (!pool || pool->nthreads == 1) {
		if (nitems)
			fn(arg, 0, nitems);
		return;
	}
	rt_pool_run_each(pool, run_chunk, &j);
}
