/*
 * verdict.c: the analysis in words: which resource bound the run, for how
 * much of its wall time, with the figures that show it; what a sampled
 * monitor would have read; and the rigtune step that addresses it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rt.h"
#include "watch.h"

/*
 * A burst starts at a tick in which the device was at least BURST_BUSY
 * busy and lasts until one in which it was below BURST_IDLE: a device
 * that hovers about half busy makes one long stretch, not bursts of noise.
 */
#define BURST_BUSY 0.5
#define BURST_IDLE 0.2
#define BESIDES_SHARE 0.15 /* another class this large is named after the binding one */
#define HELPER_CORES 0.1   /* a process beside the driving one that ran this many cores is a worker */
#define ONE_THREAD_REST_WORDS 0.5 /* the other threads' cores beside the one that are named */

/* A class in words, for the list of the others. */
static const char *const words[RT_WC_N] = {
	[RT_WC_DEVICE] = "the device busy", [RT_WC_ONE_THREAD] = "one thread busy",
	[RT_WC_THREADS] = "several threads busy", [RT_WC_WAIT_IO] = "waiting for I/O",
	[RT_WC_WAIT_SLEEP] = "waiting (sleep)",
};

/* The steps, one per class: what rigtune offers against that bottleneck. */
static const char *const steps[RT_WC_N] = {
	[RT_WC_DEVICE] = "the device is the bottleneck: give it more per kernel: `rigtune tune "
			 "--cmd` with the batch knob (and precision: bf16/fp16) finds the "
			 "largest batch that pays",
	[RT_WC_ONE_THREAD] = "take work off the one thread: for RL rollouts `rigtune tune "
			     "--workload ppo` sizes its workers and environments (vectorized "
			     "environments in worker processes); for input, more loader workers; "
			     "then `rigtune tune --cmd` with the batch knob, so that each pass of "
			     "the thread feeds more work",
	[RT_WC_THREADS] = "the cores are the bottleneck: `rigtune tune --cmd` with the {threads} "
			  "knob (intra-op and BLAS threads) and the batch knob finds the best "
			  "split of the cores",
	[RT_WC_WAIT_IO] = "the input waits on I/O: more loader workers and prefetching (`rigtune "
			  "tune --cmd` with a {workers} knob: DataLoader num_workers), or data on "
			  "a faster disk or in memory",
	[RT_WC_WAIT_SLEEP] = "the run mostly waits: more loader workers (`rigtune tune --cmd` "
			     "with a {workers} knob: DataLoader num_workers) or a larger batch per "
			     "step, so that the steps are not starved",
};

/* The time of tick t that counts for class c in the verdict: 0 outside its window. */
static double class_time(const rt_watch_run *r, const rt_watch_tick *t, int c)
{
	return rt_watch_in_window(r, t) ? t->dt * rt_watch_tick_part(t, c) : 0;
}

/*
 * The thread busiest over the window's time of class c (an index of
 * r->threads, -1 when none is known), and the busiest thread's mean share
 * of a core there.
 */
static int class_thread(const rt_watch_run *r, int c, double *share)
{
	double *mine = calloc((size_t)r->nthreads + 1, sizeof *mine), len = 0, sum = 0;
	for (int k = 0; k < r->nticks; k++) {
		const rt_watch_tick *t = &r->ticks[k];
		double dt = class_time(r, t, c);
		len += dt;
		sum += t->top * dt;
		if (mine && t->top_thread >= 0 && t->top_thread < r->nthreads)
			mine[t->top_thread] += t->top * dt;
	}
	int best = -1;
	for (int i = 0; mine && i < r->nthreads; i++)
		if (mine[i] > 0 && (best < 0 || mine[i] > mine[best]))
			best = i;
	free(mine);
	/* ticks read back from a YAML do not say their thread: the run's busiest then */
	for (int i = 0; best < 0 && r->read_back && i < r->nthreads; i++)
		if (i == 0 || r->threads[i].cpu_s > r->threads[best].cpu_s)
			best = i;
	*share = len > 0 ? sum / len : 0;
	return best;
}

/* A process's CPU time over the run, all its threads (as far as listed). */
static double process_cpu(const rt_watch_run *r, int pid)
{
	double cpu = 0;
	for (int i = 0; i < r->nthreads; i++)
		cpu += r->threads[i].pid == pid ? r->threads[i].cpu_s : 0;
	return cpu;
}

/*
 * A process's load over the window, in cores: its threads' cores over the
 * steps when each of them is known (rt_watch_thread.steps_cores), else its CPU
 * time over the whole run spread over the window, which reads high when
 * the window is the steps and the process worked before them (a loader's
 * prefetch: 4 workers read 106% of a core each on the H100).
 */
static double process_load(const rt_watch_run *r, int pid, double span)
{
	double steps = 0;
	for (int i = 0; i < r->nthreads; i++) {
		const rt_watch_thread *t = &r->threads[i];
		if (t->pid != pid)
			continue;
		if (t->steps_cores < 0)
			return process_cpu(r, pid) / span;
		steps += t->steps_cores;
	}
	return steps;
}

/*
 * The process that drives the steps: the one with the most load over the
 * window, its threads together (the command itself may be a shell or a
 * launcher that waits; over the whole run the main process also did the
 * start-up, and a loader worker its prefetch). -1 when no thread is known.
 */
static int driving_pid(const rt_watch_run *r)
{
	double span = r->win1 - r->win0, most = -1;
	int pid = -1;
	for (int i = 0; i < r->nthreads && span > 0; i++) {
		double load = process_load(r, r->threads[i].pid, span);
		if (load > most) {
			most = load;
			pid = r->threads[i].pid;
		}
	}
	return pid;
}

/*
 * The processes beside the driving one that worked a tenth of a core or
 * more over the window (loader workers, environment workers): how many,
 * and their mean load in cores.
 */
static int worker_processes(const rt_watch_run *r, int driver, double *load)
{
	double span = r->win1 - r->win0, sum = 0;
	int n = 0;
	for (int i = 0; i < r->nthreads && span > 0; i++) {
		int pid = r->threads[i].pid, seen = pid == driver;
		for (int j = 0; j < i && !seen; j++)
			seen = r->threads[j].pid == pid;
		double cores = seen ? 0 : process_load(r, pid, span);
		if (cores >= HELPER_CORES) {
			n++;
			sum += cores;
		}
	}
	*load = n ? sum / n : 0;
	return n;
}

/* The means over the ticks of class c of what the verdict quotes. */
typedef struct class_means {
	double cores, other, top_want;
} class_means;

static class_means class_figures(const rt_watch_run *r, int c)
{
	class_means m = {0, 0, 0};
	double len = 0;
	for (int k = 0; k < r->nticks; k++) {
		const rt_watch_tick *t = &r->ticks[k];
		double dt = class_time(r, t, c);
		m.cores += t->cores * dt;
		m.other += t->other * dt;
		m.top_want += t->top_want * dt;
		len += dt;
	}
	if (len > 0) {
		m.cores /= len;
		m.other /= len;
		m.top_want /= len;
	}
	return m;
}

/* The device's bursts: how many, their mean length and the mean time from one start to the next. */
static int bursts(const rt_watch_run *r, double *len, double *every)
{
	int n = 0, in = 0;
	double first = 0, last = 0, busy = 0;
	for (int k = 0; k < r->nticks; k++) {
		const rt_watch_tick *t = &r->ticks[k];
		if (!rt_watch_in_window(r, t))
			continue;
		int b = in ? t->device >= BURST_IDLE : t->device >= BURST_BUSY;
		if (b && !in) {
			if (!n)
				first = t->t - t->dt;
			last = t->t - t->dt;
			n++;
		}
		busy += b ? t->dt : 0;
		in = b;
	}
	*len = n ? busy / n : 0;
	*every = n > 1 ? (last - first) / (n - 1) : 0;
	return n;
}

static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	if (n < len)
		vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* What the shares are of: the steps' time or the whole run's. */
static const char *of_what(const rt_watch_run *r)
{
	return r->win_steps ? "of its steps' time" : "of wall time";
}

/* Where the window is the steps: how long they took and what came before them. */
static void window_words(const rt_watch_run *r, char *v, size_t len)
{
	if (r->win_steps)
		add(v, len, "over its steps (%.1f s, from its first rate line to its last; the "
			    "%.1f s before them, startup, left out): ",
		    r->win1 - r->win0, r->win0);
}

/* The device's part of the verdict: its busy share, its bursts, what a monitor read. */
static void device_words(const rt_watch_run *r, char *v, size_t len)
{
	double blen, every;
	if (r->device_busy < 0)
		return;
	add(v, len, "the device was busy %.0f%% %s", 100 * r->device_busy, of_what(r));
	if (bursts(r, &blen, &every) > 1)
		add(v, len, ", in bursts of %.1f s every %.1f s", blen, every);
	if (r->monitor_zero >= 0)
		add(v, len, " (a monitor reading once a second would have read 0%% in %.0f%% of "
			    "its %d readings)",
		    100 * r->monitor_zero, r->monitor_readings);
	add(v, len, "; ");
}

static void one_thread_words(const rt_watch_run *r, const class_means *m, double pct, char *v,
			     size_t len)
{
	double top;
	int t = class_thread(r, RT_WC_ONE_THREAD, &top);
	double idle = fmax(0, r->ncpus - m->cores - m->other), rest = m->cores - top;
	add(v, len, "one thread, `%s`, ran at %.0f%% of a core for %.0f%% %s ",
	    t >= 0 ? r->threads[t].comm : "?", 100 * top, pct, of_what(r));
	if (m->top_want - top > 0.1)
		add(v, len, "(and waited for a CPU %.0f%% more: other processes took %.1f cores) ",
		    100 * (m->top_want - top), m->other);
	if (rest >= ONE_THREAD_REST_WORDS)
		add(v, len, "while its other threads and processes kept %.1f cores busy and %.1f "
			    "idled: the run is bound by one CPU thread",
		    rest, idle);
	else
		add(v, len, "while %.1f other core%s idled: the run is bound by one CPU thread", idle,
		    fabs(idle - 1) < 0.05 ? "" : "s");
}

/* The sentence of the binding class, with its figures. */
static void class_words(const rt_watch_run *r, char *v, size_t len)
{
	int c = r->binding;
	double pct = 100 * r->share[c];
	class_means m = class_figures(r, c);
	switch (c) {
	case RT_WC_DEVICE:
		add(v, len, "the device was the busy side for %.0f%% %s while the CPU kept %.1f of "
			    "%d cores busy: the run is bound by the device",
		    pct, of_what(r), m.cores, r->ncpus);
		break;
	case RT_WC_ONE_THREAD:
		one_thread_words(r, &m, pct, v, len);
		break;
	case RT_WC_THREADS:
		add(v, len, "its threads kept %.1f of %d cores busy (%.1f more taken by other "
			    "processes) for %.0f%% %s: the run is bound by the CPU's cores",
		    m.cores, r->ncpus, m.other, pct, of_what(r));
		break;
	default:
		add(v, len, "its threads %s for %.0f%% %s (%.1f of %d cores busy): the run is bound "
			    "by waiting%s",
		    c == RT_WC_WAIT_IO ? "waited for I/O" : "slept", pct, of_what(r), m.cores,
		    r->ncpus,
		    c == RT_WC_WAIT_IO ? " for I/O" : " (a queue, a lock, a sleep: a starved step)");
	}
}

/* The other classes that took a large share, largest first: "; besides: waiting (sleep) 40%". */
static void besides(const rt_watch_run *r, char *v, size_t len)
{
	int done[RT_WC_N] = {0}, any = 0;
	done[r->binding] = 1;
	for (;;) {
		int best = -1;
		for (int c = 0; c < RT_WC_N; c++)
			if (!done[c] && r->share[c] >= BESIDES_SHARE &&
			    (best < 0 || r->share[c] > r->share[best]))
				best = c;
		if (best < 0)
			return;
		done[best] = 1;
		add(v, len, "%s %s %.0f%% %s", any++ ? "," : "; besides:", words[best],
		    100 * r->share[best], of_what(r));
	}
}

/* With a device, the driving thread launches its kernels: what makes them fewer and larger. */
static void launch_words(const rt_watch_run *r, char *s, size_t len)
{
	if (r->device_busy >= 0)
		add(s, len, "it launches the device's kernels, so fewer and larger ones help: a "
			    "larger batch (`rigtune tune --cmd` with the batch knob), CUDA graphs or "
			    "torch.compile, and no host sync (loss.item()) every step");
	else
		add(s, len, "more work per pass of it: a larger batch (`rigtune tune --cmd` with "
			    "the batch knob), or its work vectorized");
}

/*
 * One thread binds and worker processes ran beside it. Below a whole core
 * each they kept up (on the H100, 8 and 12 loader workers instead of 4
 * changed such a run by 1% and 6%): less work on the driving thread per
 * sample helps. At a whole core each, they may bind as well.
 */
static void workers_step(const rt_watch_run *r, int driver, int workers, double load, char *s,
			 size_t len)
{
	char name[sizeof r->threads[0].comm] = "its main thread";
	double most = -1;
	for (int i = 0; i < r->nthreads; i++)
		if (r->threads[i].pid == driver && r->threads[i].cpu_s > most) {
			most = r->threads[i].cpu_s;
			snprintf(name, sizeof name, "%s", r->threads[i].comm);
		}
	if (load >= RT_WATCH_THREAD_FULL) {
		add(s, len, "`%s` and its %d worker process%s all ran near a whole core (%.0f%% "
			    "each): both may bind, so try both: more workers (`rigtune tune --cmd` "
			    "with a {workers} knob: DataLoader num_workers), and less work on `%s`: ",
		    name, workers, workers == 1 ? "" : "es", 100 * fmin(load, 1), name);
	} else {
		add(s, len, "take work off `%s`, not onto more workers: its %d worker process%s "
			    "kept up with it (%.0f%% of a core each), so more of them will not help; ",
		    name, workers, workers == 1 ? "" : "es", 100 * load);
	}
	launch_words(r, s, len);
}

void rt_watch_verdict(rt_watch_run *r)
{
	r->verdict[0] = r->step[0] = '\0';
	if (!r->nticks) {
		snprintf(r->verdict, sizeof r->verdict,
			 "nothing was sampled: the run ended before its first interval");
		return;
	}
	window_words(r, r->verdict, sizeof r->verdict);
	device_words(r, r->verdict, sizeof r->verdict);
	class_words(r, r->verdict, sizeof r->verdict);
	besides(r, r->verdict, sizeof r->verdict);
	double load = 0;
	int driver = -1, workers = 0;
	if (r->binding == RT_WC_ONE_THREAD) {
		driver = driving_pid(r);
		workers = worker_processes(r, driver, &load);
	}
	if (workers)
		workers_step(r, driver, workers, load, r->step, sizeof r->step);
	else
		snprintf(r->step, sizeof r->step, "%s", steps[r->binding]);
}
