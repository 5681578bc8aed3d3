/* canary.c: the machine's own speed, measured and kept beside a journal (canary.h). */
#include "canary.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/platform.h"
#include "../common/rt.h"
#include "output.h"

/*
 * Work per thread: about 10 ms of each half on a current core when the
 * machine is quiet, longer than a scheduler's tick, so that one sample sees
 * the machine's share over a while, as a trial does.
 */
#define COMPUTE_ITERS 4000000L
#define MEMORY_PASSES 2
#define OPS_PER_ITER 6.0
/* Read per thread and pass: together beyond a last-level cache of 32 MiB. */
#define MEMORY_BYTES ((size_t)32 << 20)
/* Version 2: threads bound one per CPU. Version 1's (unbound) read differently: not compared. */
#define HEADER "unix_time,compute_v2,memory_v2"
#define HEADER_V1 "unix_time,compute,memory"

/*
 * Each half runs in PHASES steps with a barrier between them, as a
 * multi-threaded GEMM meets its threads at every panel: a thread that other
 * work slows holds the others up at each step, so the canary loses to a busy
 * core what such a point loses, not only its own thread's share.
 */
#define PHASES 16

/* Where a half's threads wait until all of them are ready (or one could not start). */
typedef struct gate {
	pthread_mutex_t lock;
	pthread_cond_t opened;
	pthread_cond_t arrived; /* a thread is ready: bound, at the gate */
	int ready;
	int state; /* 0 closed, 1 go, -1 a thread did not start: none runs */
} gate;

typedef struct worker {
	pthread_t thread;
	gate *start;
	rt_barrier *step; /* shared by the half's threads */
	const uint64_t *buf;     /* this thread's share of the memory buffer */
	double sink;             /* keeps the compiler from dropping the work */
	int memory;              /* which of the two it measures */
	int cpu;                 /* the CPU it binds itself to; -1 where nothing binds */
	int unbound;             /* set when the binding failed: the sample is not taken */
} worker;

/* A dependent chain of integer and floating-point steps: nothing a vector unit can take. */
static double compute_loop(rt_barrier *step)
{
	uint64_t x = 88172645463325252ull;
	double f = 1.0;
	for (int phase = 0; phase < PHASES; phase++) {
		for (long i = 0; i < COMPUTE_ITERS / PHASES; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			f = f * 0.999999 + (double)(x & 1023) * 1e-9;
		}
		rt_barrier_wait(step);
	}
	return f + (double)(x & 1);
}

static double memory_read(const uint64_t *buf, rt_barrier *step)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t n = MEMORY_BYTES / sizeof *buf, part = n / PHASES;
	for (int pass = 0; pass < MEMORY_PASSES; pass++)
		for (int phase = 0; phase < PHASES; phase++) {
			for (size_t i = (size_t)phase * part; i < (size_t)(phase + 1) * part; i += 4) {
				s0 += buf[i];
				s1 += buf[i + 1] ^ (uint64_t)pass;
				s2 += buf[i + 2];
				s3 += buf[i + 3];
			}
			rt_barrier_wait(step);
		}
	return (double)(s0 ^ s1 ^ s2 ^ s3);
}

/* Binds the calling thread alone to cpu (sched_setaffinity of a thread on Linux). */
static int bind_to(int cpu)
{
	rt_cpuset one;
	rt_cpuset_zero(&one);
	rt_cpuset_add(&one, cpu);
	return rt_plat_bind(&one);
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	w->unbound = w->cpu >= 0 && bind_to(w->cpu) != 0;
	pthread_mutex_lock(&w->start->lock);
	w->start->ready++;
	pthread_cond_signal(&w->start->arrived);
	while (!w->start->state)
		pthread_cond_wait(&w->start->opened, &w->start->lock);
	int go = w->start->state > 0;
	pthread_mutex_unlock(&w->start->lock);
	if (!go)
		return NULL;
	w->sink = w->memory ? memory_read(w->buf, w->step) : compute_loop(w->step);
	return NULL;
}

/*
 * The CPUs the threads bind to, one each, in order: those this process may
 * run on, up to RT_CANARY_MAX_THREADS; -1 each where the system binds no
 * thread (macOS: as many threads as CPUs, placed by the scheduler). Returns
 * how many threads.
 *
 * Unbound, the two threads of a sample on the 2-vCPU development VM ran on
 * one vCPU for minutes at a time (the scheduler wakes a thread beside the
 * one that woke it): the compute half read 3.4-3.7 G operations/s in such a
 * spell, 6.2-6.8 outside, so a check's median depended on which spell it
 * met (docs/check-calibration.md: bench_canary before and after binding).
 */
static int thread_cpus(int cpu[RT_CANARY_MAX_THREADS])
{
	rt_cpuset allowed;
	int n = 0, binds = rt_plat_can_bind();
	if (rt_plat_cpus_allowed(&allowed) == 0)
		for (int c = 0; c < RT_CPUSET_MAX && n < RT_CANARY_MAX_THREADS; c++)
			if (rt_cpuset_has(&allowed, c))
				cpu[n++] = binds ? c : -1;
	if (n == 0)
		cpu[n++] = -1;
	return n;
}

/*
 * The buffer of the memory half, made once per process and filled with
 * values (never time reads of zero pages, which the kernel maps to one).
 */
static const uint64_t *memory_buffer(int threads)
{
	static uint64_t *buf;
	static int made_for;
	if (buf && made_for >= threads)
		return buf;
	free(buf);
	size_t n = MEMORY_BYTES / sizeof *buf * (size_t)threads;
	if (!(buf = malloc(n * sizeof *buf)))
		return NULL;
	for (size_t i = 0; i < n; i++)
		buf[i] = i * 2654435761u;
	made_for = threads;
	return buf;
}

/* Opens the gate: to go once the `started` threads are all at it, or (state -1) to end. */
static void open_gate(gate *g, int started, int state)
{
	pthread_mutex_lock(&g->lock);
	while (state > 0 && g->ready < started)
		pthread_cond_wait(&g->arrived, &g->lock);
	g->state = state;
	pthread_cond_broadcast(&g->opened);
	pthread_mutex_unlock(&g->lock);
}

/*
 * Seconds for every thread to do its share of one half, timed from when all
 * are bound and ready; negative when a thread cannot start (then none runs)
 * or could not bind.
 */
static double timed(worker *w, int threads)
{
	gate start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
		      PTHREAD_COND_INITIALIZER, 0, 0};
	rt_barrier step;
	if (rt_barrier_init(&step, (unsigned)threads))
		return -1;
	int started = 0;
	for (; started < threads; started++) {
		w[started].start = &start;
		w[started].step = &step;
		if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]))
			break;
	}
	open_gate(&start, started, started == threads ? 1 : -1);
	double t0 = rt_now();
	int unbound = 0;
	for (int i = 0; i < started; i++) {
		pthread_join(w[i].thread, NULL);
		unbound |= w[i].unbound;
	}
	double t = rt_now() - t0;
	rt_barrier_destroy(&step);
	return started == threads && !unbound ? t : -1;
}

int rt_canary_measure(rt_canary_sample *s)
{
	int cpu[RT_CANARY_MAX_THREADS], threads = thread_cpus(cpu);
	const uint64_t *buf = memory_buffer(threads);
	if (!buf)
		return RT_ENOMEM;
	worker w[RT_CANARY_MAX_THREADS];
	for (int i = 0; i < threads; i++)
		w[i] = (worker){.buf = buf + MEMORY_BYTES / sizeof *buf * (size_t)i, .cpu = cpu[i]};
	double compute_s = timed(w, threads);
	for (int i = 0; i < threads; i++)
		w[i].memory = 1;
	double memory_s = timed(w, threads);
	if (compute_s <= 0 || memory_s <= 0)
		return RT_ERUNTIME;
	s->t = (double)time(NULL);
	s->compute = 1e-9 * OPS_PER_ITER * COMPUTE_ITERS * threads / compute_s;
	s->memory = 1e-9 * (double)MEMORY_BYTES * MEMORY_PASSES * threads / memory_s;
	return RT_OK;
}

int rt_canary_path(const char *journal, char *buf, size_t len)
{
	size_t n = strlen(journal);
	if (n < 5 || strcmp(journal + n - 5, ".yaml"))
		return RT_EINVAL;
	int w = snprintf(buf, len, "%.*s-canary.csv", (int)(n - 5), journal);
	return w < 0 || (size_t)w >= len ? RT_EINVAL : RT_OK;
}

/* Whether the file open at fd starts with this version's header line. */
static int has_header(int fd)
{
	char first[sizeof HEADER];
	return pread(fd, first, sizeof first, 0) == (ssize_t)sizeof first &&
	       !memcmp(first, HEADER "\n", sizeof first);
}

int rt_canary_append(const char *path, const rt_canary_sample *s, char *err, size_t errlen)
{
	int fd;
	RT_TRY(rt_open_append(path, RT_APPEND_READ, &fd, err, errlen));
	char line[160];
	off_t end = lseek(fd, 0, SEEK_END);
	if (end > 0 && !has_header(fd)) {
		close(fd);
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s: its first line is not '" HEADER "' (an older rigtune's canary, or "
			       "not a canary): no sample is added to it",
			       path);
	}
	int n = snprintf(line, sizeof line, "%s%.0f,%.6g,%.6g\n", end == 0 ? HEADER "\n" : "",
			 s->t, s->compute, s->memory);
	int rc = rt_write_all(fd, line, (size_t)n);
	if (rc)
		rt_fail(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
	close(fd);
	return rc ? RT_EIO : RT_OK;
}

int rt_canary_tick(const char *journal, char *err, size_t errlen)
{
	char path[1100];
	rt_canary_sample s;
	if (rt_canary_path(journal, path, sizeof path))
		return rt_fail(err, errlen, RT_EINVAL, "%s: not a journal's name", journal);
	int rc = RT_OK;
	for (int i = 0; rc == RT_OK && i < RT_CANARY_PER_TICK; i++) {
		rc = rt_canary_measure(&s);
		if (rc)
			return rt_fail(err, errlen, rc, "the canary cannot run (%s)",
				       rc == RT_ENOMEM ? "out of memory" : "no thread");
		rc = rt_canary_append(path, &s, err, errlen);
	}
	return rc;
}

/* One sample line; 0 when it is three numbers. */
static int parse_line(const char *line, rt_canary_sample *s)
{
	char *end;
	double *f[3] = {&s->t, &s->compute, &s->memory};
	const char *p = line;
	for (int i = 0; i < 3; i++) {
		errno = 0;
		*f[i] = strtod(p, &end);
		if (end == p || errno || !isfinite(*f[i]) || *end != (i < 2 ? ',' : '\0'))
			return -1;
		p = end + 1;
	}
	return s->compute > 0 && s->memory > 0 ? 0 : -1;
}

static int parse(const char *path, char *text, rt_canary_sample *v, size_t *n, int *older,
		 char *err, size_t errlen)
{
	int header = 0;
	long lineno = 0;
	for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		lineno++;
		if (!line[0] || line[0] == '#')
			continue;
		if (!header) {
			if (!strcmp(line, HEADER_V1)) { /* read, but not to compare: none kept */
				*older = 1;
				return RT_OK;
			}
			if (strcmp(line, HEADER))
				return rt_fail(err, errlen, RT_EINVAL,
					       "%s:%ld: expected the header '" HEADER "'", path,
					       lineno);
			header = 1;
		} else if (parse_line(line, &v[(*n)++])) {
			return rt_fail(err, errlen, RT_EINVAL,
				       "%s:%ld: expected three positive numbers (unix time, "
				       "compute, memory)",
				       path, lineno);
		}
	}
	return RT_OK;
}

int rt_canary_read(const char *path, rt_canary_sample **v, size_t *n, int *older, char *err,
		   size_t errlen)
{
	char *text;
	size_t len;
	*v = NULL;
	*n = 0;
	*older = 0;
	int rc = rt_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	if (!(*v = malloc(lines * sizeof **v)))
		rc = RT_ENOMEM;
	if (rc == RT_OK)
		rc = parse(path, text, *v, n, older, err, errlen);
	free(text);
	if (rc || *older) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return rc;
}
