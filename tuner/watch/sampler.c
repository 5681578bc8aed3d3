/*
 * sampler.c: one tick of watch from two snapshots of the tree: each
 * thread's CPU time since the last one gives the cores kept busy, the
 * busiest thread and how many ran; its time waiting for a CPU what it would
 * have run on an idle machine (on a loaded one a thread that never stops
 * for itself still gets only a part of a core); the machine's counters less
 * the tree's give the rest of the machine's load.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rt.h"
#include "watch.h"

/* A thread that ran this share of the interval counts as running. */
#define BUSY_THREAD_SHARE 0.2

int rt_watch_thread_index(rt_watch_run *r, const rt_proc_thread *th)
{
	for (int i = r->nthreads - 1; i >= 0; i--)
		if (r->threads[i].tid == th->tid && r->threads[i].pid == th->pid)
			return i;
	if (rt_grow(&r->threads, &r->thcap, r->nthreads, sizeof *r->threads, 64))
		return -1;
	rt_watch_thread *t = &r->threads[r->nthreads];
	memset(t, 0, sizeof *t);
	t->pid = th->pid;
	t->tid = th->tid;
	t->steps_cores = -1;
	return r->nthreads++;
}

void rt_watch_mark_steps(rt_watch_run *r, double t)
{
	/* a thread that starts later has steps_cpu0 0: all it does is in the steps */
	for (int i = 0; i < r->nthreads; i++) {
		if (!r->steps_marks)
			r->threads[i].steps_cpu0 = r->threads[i].cpu_s;
		r->threads[i].steps_cpu1 = r->threads[i].cpu_s;
	}
	if (!r->steps_marks++)
		r->steps_t0 = t;
	r->steps_t1 = t;
}

/* a's and b's weighted by their lengths (equal when both are 0). */
static double mean_of(double a, double wa, double b, double wb)
{
	return wa + wb > 0 ? (a * wa + b * wb) / (wa + wb) : (a + b) / 2;
}

/* b, the tick after a, merged into a: one tick over both intervals. */
static void merge_tick(rt_watch_tick *a, const rt_watch_tick *b)
{
	double wa = a->dt, wb = b->dt;
	if (b->top_want * wb > a->top_want * wa)
		a->top_thread = b->top_thread;
	a->cores = mean_of(a->cores, wa, b->cores, wb);
	a->want = mean_of(a->want, wa, b->want, wb);
	a->top = mean_of(a->top, wa, b->top, wb);
	a->top_want = mean_of(a->top_want, wa, b->top_want, wb);
	a->other = mean_of(a->other, wa, b->other, wb);
	a->busy_threads = (int)lround(mean_of(a->busy_threads, wa, b->busy_threads, wb));
	a->io_threads = (int)lround(mean_of(a->io_threads, wa, b->io_threads, wb));
	a->nthreads = a->nthreads > b->nthreads ? a->nthreads : b->nthreads;
	a->rss = a->rss > b->rss ? a->rss : b->rss;
	a->t = b->t;
	a->dt = wa + wb;
}

/* Every two neighbouring ticks made one; from now on twice as many sampled per kept tick. */
static void halve_ticks(rt_watch_run *r)
{
	int n = 0;
	for (int i = 0; i < r->nticks; i += 2, n++) {
		r->ticks[n] = r->ticks[i];
		if (i + 1 < r->nticks)
			merge_tick(&r->ticks[n], &r->ticks[i + 1]);
	}
	r->nticks = n;
	r->tick_stride *= 2;
}

/* A sampled tick, kept or merged into the last kept one (RT_WATCH_MAX_TICKS). */
static int push_tick(rt_watch_run *r, const rt_watch_tick *k)
{
	if (r->tick_stride < 1)
		r->tick_stride = 1;
	if (r->nticks && r->tick_fill < r->tick_stride) {
		merge_tick(&r->ticks[r->nticks - 1], k);
		r->tick_fill++;
		return RT_OK;
	}
	if (r->nticks >= RT_WATCH_MAX_TICKS)
		halve_ticks(r); /* an even count: every kept tick is whole */
	if (rt_grow(&r->ticks, &r->tcap, r->nticks, sizeof *r->ticks, 1024))
		return RT_ENOMEM;
	r->ticks[r->nticks++] = *k;
	r->tick_fill = 1;
	return RT_OK;
}

/*
 * The machine's busy cores in the interval, from its counters. They count
 * in clock ticks (10 ms): over a short interval that is coarse, but never
 * biased, and only the rest of the machine's load is read from them.
 */
static double machine_cores(const rt_proc_snap *s, const rt_proc_snap *prev, double dt)
{
	if (!prev->machine_total_ns || s->machine_busy_ns < prev->machine_busy_ns || dt <= 0)
		return 0;
	return 1e-9 * (double)(s->machine_busy_ns - prev->machine_busy_ns) / dt;
}

/* Seconds between two readings of a counter that may be new (before 0) or reset. */
static double since(uint64_t now, uint64_t before)
{
	return now > before ? 1e-9 * (double)(now - before) : 0;
}

int rt_watch_tick_add(rt_watch_run *r, const rt_proc_snap *s, const rt_proc_snap *prev,
		      double t, double dt)
{
	rt_watch_tick k = {.t = t, .dt = dt, .top_thread = -1, .device = -1, .cls = -1};
	double best = 0, best_ran = 0;
	for (int i = 0; i < s->n; i++) {
		const rt_proc_thread *th = &s->threads[i];
		int known = r->nthreads;
		int j = rt_watch_thread_index(r, th);
		if (j < 0)
			return RT_ENOMEM;
		rt_watch_thread *w = &r->threads[j];
		memcpy(w->comm, th->comm, sizeof w->comm);
		/* a thread first seen after the start did all it did since the last snapshot */
		int fresh = j >= known && prev;
		double ran = since(th->cpu_ns, fresh ? 0 : w->last_ns);
		double waited = since(th->wait_ns, fresh ? 0 : w->last_wait_ns);
		w->last_ns = th->cpu_ns;
		w->last_wait_ns = th->wait_ns;
		if (!prev)
			continue;
		w->cpu_s += ran;
		k.cores += ran;
		k.want += ran + waited;
		k.busy_threads += dt > 0 && ran / dt >= BUSY_THREAD_SHARE;
		k.io_threads += th->state == 'D';
		if (ran + waited > best) {
			best = ran + waited;
			best_ran = ran;
			k.top_thread = j;
		}
	}
	if (!prev)
		return RT_OK; /* the baseline */
	k.nthreads = s->n;
	k.rss = (double)s->rss_bytes;
	if (dt > 0) {
		k.cores /= dt;
		k.want /= dt;
		k.top = best_ran / dt;
		k.top_want = best / dt;
	}
	double machine = machine_cores(s, prev, dt);
	k.other = machine > k.cores ? machine - k.cores : 0;
	if (k.rss > r->peak_rss)
		r->peak_rss = k.rss;
	return push_tick(r, &k);
}
