/* The CPU backend's thread pool: see pool.h for the contract. */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "../common/rt.h"

struct rt_pool {
	int nthreads;
	pthread_t *threads;      /* nthreads - 1 workers */
	pthread_mutex_t lock;
	pthread_cond_t wake;     /* a new job (or stop) was posted */
	pthread_cond_t done;     /* the last worker finished its chunk */
	unsigned long generation; /* bumped per job, so a worker runs each once */
	int pending;             /* workers still busy with the current job */
	int stop;
	rt_pool_fn fn;
	void *arg;
	size_t nitems;
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

static void run_chunk(rt_pool *pool, rt_pool_fn fn, void *arg, size_t nitems, int index)
{
	size_t begin, end;
	chunk(nitems, pool->nthreads, index, &begin, &end);
	if (begin < end)
		fn(arg, begin, end);
}

/*
 * A worker waits for a generation it has not run yet, runs its chunk
 * outside the lock, and signals `done` when it is the last one out.
 */
static void *worker_main(void *p)
{
	worker_arg *wa = p;
	rt_pool *pool = wa->pool;
	int index = wa->index;
	unsigned long seen = 0;

	free(wa);
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (!pool->stop && pool->generation == seen)
			pthread_cond_wait(&pool->wake, &pool->lock);
		if (pool->stop)
			break;
		seen = pool->generation;
		rt_pool_fn fn = pool->fn;
		void *arg = pool->arg;
		size_t nitems = pool->nitems;
		pthread_mutex_unlock(&pool->lock);
		run_chunk(pool, fn, arg, nitems, index);
		pthread_mutex_lock(&pool->lock);
		if (--pool->pending == 0)
			pthread_cond_signal(&pool->done);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

/* Tells the first `started` workers to stop and joins them. */
static void stop_workers(rt_pool *pool, int started)
{
	pthread_mutex_lock(&pool->lock);
	pool->stop = 1;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < started; i++)
		pthread_join(pool->threads[i], NULL);
}

int rt_pool_create(int nthreads, rt_pool **out, char *err, size_t errlen)
{
	int rc, started = 0;
	rt_pool *pool;

	*out = NULL;
	if (nthreads < 1)
		return rt_fail(err, errlen, RT_EINVAL, "a pool needs at least 1 thread, not %d",
			       nthreads);
	pool = calloc(1, sizeof *pool);
	if (!pool)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory for the thread pool");
	pool->nthreads = nthreads;
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
		if (pthread_create(&pool->threads[started], NULL, worker_main, wa) != 0) {
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

void rt_pool_run(rt_pool *pool, rt_pool_fn fn, void *arg, size_t nitems)
{
	if (!pool || pool->nthreads == 1) {
		if (nitems)
			fn(arg, 0, nitems);
		return;
	}
	pthread_mutex_lock(&pool->lock);
	pool->fn = fn;
	pool->arg = arg;
	pool->nitems = nitems;
	pool->pending = pool->nthreads - 1;
	pool->generation++;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);

	run_chunk(pool, fn, arg, nitems, 0);

	pthread_mutex_lock(&pool->lock);
	while (pool->pending > 0)
		pthread_cond_wait(&pool->done, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
}
