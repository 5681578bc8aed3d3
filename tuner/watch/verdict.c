/*
 * verdict.c: the analysis in words: which resource bound the run, for how
 * much of its wall time, with the figures that show it; what a sampled
 * monitor would have read; and the rigtune step that addresses it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../common/rt.h"
#include "watch.h"

#define BURST_BUSY 0.5 /* a tick in which the device was at least this busy is in a burst */
#define BESIDES_SHARE 0.15 /* another class this large is named after the binding one */

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

/* The busiest thread's name over the ticks of class c, and its mean share there. */
static const char *class_thread(const rt_watch_run *r, int c, double *share)
{
	int best = -1;
	double most = 0, len = 0, sum = 0;
	for (int p = 0; p < r->nphases; p++) {
		const rt_watch_phase *ph = &r->phases[p];
		if (ph->cls != c)
			continue;
		double d = ph->t1 - ph->t0;
		len += d;
		sum += ph->top * d;
		if (ph->top_thread >= 0 && ph->top * d > most) {
			most = ph->top * d;
			best = ph->top_thread;
		}
	}
	*share = len > 0 ? sum / len : 0;
	return best >= 0 ? r->threads[best].comm : "?";
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
		if (t->cls != c)
			continue;
		m.cores += t->cores * t->dt;
		m.other += t->other * t->dt;
		m.top_want += t->top_want * t->dt;
		len += t->dt;
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
		int b = t->device >= BURST_BUSY;
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

/* The device's part of the verdict: its busy share, its bursts, what a monitor read. */
static void device_words(const rt_watch_run *r, char *v, size_t len)
{
	double blen, every;
	if (r->device_busy < 0)
		return;
	add(v, len, "the device was busy %.0f%% of wall time", 100 * r->device_busy);
	if (bursts(r, &blen, &every) > 1)
		add(v, len, ", in bursts of %.1f s every %.1f s", blen, every);
	if (r->monitor_zero >= 0)
		add(v, len, " (a monitor reading once a second would have read 0%% in %.0f%% of "
			    "its %d readings)",
		    100 * r->monitor_zero, r->monitor_readings);
	add(v, len, "; ");
}

/* The sentence of the binding class, with its figures. */
static void class_words(const rt_watch_run *r, char *v, size_t len)
{
	int c = r->binding;
	double pct = 100 * r->share[c], top;
	class_means m = class_figures(r, c);
	double idle = fmax(0, r->ncpus - m.cores - m.other);
	switch (c) {
	case RT_WC_DEVICE:
		add(v, len, "the device was the busy side for %.0f%% of wall time while the CPU "
			    "kept %.1f of %d cores busy: the run is bound by the device",
		    pct, m.cores, r->ncpus);
		break;
	case RT_WC_ONE_THREAD: {
		const char *name = class_thread(r, c, &top);
		add(v, len, "one thread, `%s`, ran at %.0f%% of a core for %.0f%% of wall time ",
		    name, 100 * top, pct);
		if (m.top_want - top > 0.1)
			add(v, len, "(and waited for a CPU %.0f%% more: other processes took %.1f "
				    "cores) ",
			    100 * (m.top_want - top), m.other);
		add(v, len, "while %.1f other core%s idled: the run is bound by one CPU thread",
		    idle, fabs(idle - 1) < 0.05 ? "" : "s");
		break;
	}
	case RT_WC_THREADS:
		add(v, len, "its threads kept %.1f of %d cores busy (%.1f more taken by other "
			    "processes) for %.0f%% of wall time: the run is bound by the CPU's cores",
		    m.cores, r->ncpus, m.other, pct);
		break;
	default:
		add(v, len, "its threads %s for %.0f%% of wall time (%.1f of %d cores busy): the "
			    "run is bound by waiting%s",
		    c == RT_WC_WAIT_IO ? "waited for I/O" : "slept", pct, m.cores, r->ncpus,
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
		add(v, len, "%s %s %.0f%% of wall time", any++ ? "," : "; besides:", words[best],
		    100 * r->share[best]);
	}
}

void rt_watch_verdict(rt_watch_run *r)
{
	r->verdict[0] = r->step[0] = '\0';
	if (!r->nticks) {
		snprintf(r->verdict, sizeof r->verdict,
			 "nothing was sampled: the run ended before its first interval");
		return;
	}
	device_words(r, r->verdict, sizeof r->verdict);
	class_words(r, r->verdict, sizeof r->verdict);
	besides(r, r->verdict, sizeof r->verdict);
	snprintf(r->step, sizeof r->step, "%s", steps[r->binding]);
}
