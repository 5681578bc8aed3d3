/*
 * phases.c: what binds each tick, and the run cut into phases. A tick is
 * classified from its own figures (rt_watch_classify), and the shares of
 * wall time add up the ticks by their own class. For the phases, any
 * stretch shorter than MIN_PHASE_S is then given to its neighbour
 * (hysteresis: a burst of noise, a tick that straddles two phases, never
 * makes a phase of its own), and the phases are the stretches left.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rt.h"
#include "watch.h"

/*
 * A tick is the device's when NVML read it at least this busy. Measured on
 * an H100 (docs/commands/watch.md): a PyTorch training bound by the device
 * read 0.84-0.91 per tick over its steps, NVML's windows never all full
 * (a sync each step, the optimizer's small kernels); runs bound by the
 * thread that launches the kernels read 0.39-0.64. Below it the device
 * waits a third of the time or more, and the host says why.
 */
#define DEVICE_BUSY 0.7
#define WAIT_HALF 0.5        /* the tree's kernels busy this much of a tick: a device tick */
#define WAIT_CORES 0.5       /* below this many cores wanted the tree waits (a tick half in: by its larger half) */
#define CORES_BUSY 0.8       /* the share of the cores wanted that makes the cores the limit */
#define ONE_THREAD_SHARE 0.6 /* else: the busiest thread's least share of what the tree ran */
#define ONE_THREAD_REST 0.5  /* and the most the other threads may run beside it, in cores */
#define MIN_PHASE_S 0.2      /* the shortest phase (a 0.3 s burst is one) */
#define MIN_PHASE_TICKS 2
#define NVML_DEFAULT_WINDOW (1.0 / 6) /* a sample's window when NVML's stamps do not say */
#define MONITOR_PERIOD_S 1.0 /* how often a sampled monitor (nvidia-smi -l 1) reads */

static const char *const class_names[RT_WC_N] = {"device", "one_thread", "threads", "wait_io",
						 "wait_sleep"};

const char *rt_watch_class_name(int c)
{
	return c >= 0 && c < RT_WC_N ? class_names[c] : "none";
}

int rt_watch_class_parse(const char *name)
{
	for (int i = 0; i < RT_WC_N; i++)
		if (!strcmp(name, class_names[i]))
			return i;
	return -1;
}

/*
 * The class of the threads alone.
 * On what the threads wanted (ran + waited for a CPU), not on what they
 * got: on a loaded machine a thread that never stops for itself is still
 * one busy thread, not a waiting one. The cores bind only when nearly all
 * are wanted; short of that, a thread at a whole core binds however busy
 * the others are (OpenMP's threads spin between regions and look busy: on
 * the H100 the main thread making batches beside 15 such threads bound a
 * run that loader workers made 2.2 times faster).
 */
static int host_class(const rt_watch_tick *k, int ncpus)
{
	if (k->want < WAIT_CORES)
		return k->io_threads ? RT_WC_WAIT_IO : RT_WC_WAIT_SLEEP;
	if (k->want >= CORES_BUSY * ncpus)
		return RT_WC_THREADS;
	if (k->top_want >= RT_WATCH_THREAD_FULL ||
	    (k->top_want >= ONE_THREAD_SHARE * k->want && k->want < k->top_want + ONE_THREAD_REST))
		return RT_WC_ONE_THREAD;
	return RT_WC_THREADS;
}

/*
 * A thread that runs while its own process's kernels keep the device busy
 * is waiting on the device (CUDA spins in cudaDeviceSynchronize and
 * loss.item() at a whole core): the interval's wait is the device's, as a
 * tick half in a phase goes by its larger half.
 */
int rt_watch_classify(const rt_watch_tick *k, int ncpus)
{
	if (k->device >= DEVICE_BUSY || k->wait >= WAIT_HALF)
		return RT_WC_DEVICE;
	return host_class(k, ncpus);
}

double rt_watch_tick_part(const rt_watch_tick *k, int c)
{
	if (k->device >= DEVICE_BUSY)
		return c == RT_WC_DEVICE;
	double w = k->wait > 0 ? fmin(k->wait, 1) : 0;
	return c == RT_WC_DEVICE ? w : c == k->host ? 1 - w : 0;
}

int rt_watch_in_window(const rt_watch_run *r, const rt_watch_tick *k)
{
	double mid = k->t - k->dt / 2;
	return mid >= r->win0 && mid <= r->win1;
}

/*
 * The stretch the verdict is about: from the run's first rate line to its
 * last when it prints one (the steps: imports, building the model and
 * starting the device come before them, and took half of a 20 s run on the
 * H100), else the whole run.
 */
static void steady_window(rt_watch_run *r)
{
	double end = r->nticks ? r->ticks[r->nticks - 1].t : r->wall_s;
	r->win0 = 0;
	r->win1 = end;
	r->win_steps = 0;
	if (r->nmetric < 2 || r->metric[r->nmetric - 1].t <= r->metric[0].t)
		return;
	r->win0 = r->metric[0].t;
	r->win1 = r->metric[r->nmetric - 1].t;
	int inside = 0;
	for (int k = 0; k < r->nticks; k++)
		inside += rt_watch_in_window(r, &r->ticks[k]);
	r->win_steps = inside >= MIN_PHASE_TICKS;
	if (!r->win_steps) { /* steps too quick to sample: the whole run says more */
		r->win0 = 0;
		r->win1 = end;
	}
}

/*
 * Each thread's cores over the steps, when the window is the steps and the
 * sampler marked them (two ticks at least saw new rate lines). A run read
 * back keeps what its file says.
 */
static void steps_cores(rt_watch_run *r)
{
	double span = r->steps_t1 - r->steps_t0;
	if (!r->win_steps || r->steps_marks < 2 || span <= 0)
		return;
	for (int i = 0; i < r->nthreads; i++) {
		rt_watch_thread *t = &r->threads[i];
		t->steps_cores = (t->steps_cpu1 - t->steps_cpu0) / span;
	}
}

/* A device sample's window on the run's clock. */
static void sample_span(const rt_watch_run *r, const rt_dev_sample *s, double *a, double *b)
{
	*b = s->t - r->realtime0;
	*a = *b - (s->window > 0 ? s->window : NVML_DEFAULT_WINDOW);
}

/*
 * Over [a, b], the busiest device's: for kind RT_DEV_DEVICE its busy share,
 * its samples' values weighted by their overlap (-1 without a sample); for
 * RT_DEV_PROCESS the share in which the tree's kernels kept it busy, the
 * processes' samples added up over the interval (a process NVML has no
 * sample of ran no kernel). The samples come in time order per device and
 * kind, a poll's batch of each after the other's: cursor[d] (from 0, for
 * ticks in order, one array per kind) skips what ended before a, and the
 * scan stops a second past b.
 */
static double busy_over(const rt_watch_run *r, int kind, double a, double b, int *cursor)
{
	double best = kind == RT_DEV_PROCESS ? 0 : -1;
	for (int d = 0; d < r->ndevices; d++) {
		double sum = 0, cover = 0, sa, sb;
		for (int i = cursor[d]; i < r->ndev; i++) {
			const rt_dev_sample *s = &r->dev[i];
			sample_span(r, s, &sa, &sb);
			if (sa > b + 1.0)
				break;
			if (s->device != d || s->kind != kind) {
				cursor[d] += i == cursor[d];
				continue;
			}
			if (sb < a) {
				cursor[d] += i == cursor[d];
				continue;
			}
			double o = fmin(b, sb) - fmax(a, sa);
			if (o > 0) {
				sum += o * s->busy;
				cover += o;
			}
		}
		double v = kind == RT_DEV_DEVICE ? (cover > 0 ? sum / cover : -1)
		                                 : (b > a ? fmin(sum / (b - a), 1) : 0);
		if (v > best)
			best = v;
	}
	return best;
}

/*
 * The per-process samples' windows, which NVML does not give: from the
 * sample before of the same process on the same device, where that is a
 * second or less before (else NVML_DEFAULT_WINDOW stands).
 */
static void process_windows(rt_watch_run *r)
{
	enum { KEYS = 64 };
	struct {
		int device, pid;
		double t;
	} last[KEYS];
	int nkeys = 0;
	for (int i = 0; i < r->ndev; i++) {
		rt_dev_sample *s = &r->dev[i];
		if (s->kind != RT_DEV_PROCESS || s->window > 0)
			continue;
		int k = 0;
		while (k < nkeys && (last[k].device != s->device || last[k].pid != s->pid))
			k++;
		if (k == nkeys && nkeys == KEYS)
			continue;
		if (k == nkeys) {
			last[nkeys].device = s->device;
			last[nkeys++].pid = s->pid;
		} else if (s->t > last[k].t && s->t - last[k].t <= 1.0) {
			s->window = s->t - last[k].t;
		}
		last[k].t = s->t;
	}
}

/* What a monitor that reads the newest sample once a second would have shown. */
static void monitor_readings(rt_watch_run *r)
{
	int zero = 0, n = 0;
	for (double at = MONITOR_PERIOD_S; at <= r->wall_s; at += MONITOR_PERIOD_S) {
		const rt_dev_sample *newest = NULL;
		for (int i = 0; i < r->ndev; i++) {
			const rt_dev_sample *s = &r->dev[i];
			double t = s->t - r->realtime0;
			if (s->kind == RT_DEV_DEVICE && s->device == 0 && t <= at &&
			    t > at - MONITOR_PERIOD_S && (!newest || s->t > newest->t))
				newest = s;
		}
		if (newest) {
			n++;
			zero += newest->busy < 0.005;
		}
	}
	r->monitor_readings = n;
	r->monitor_zero = n ? (double)zero / n : -1;
}

static void process_share(rt_watch_run *r)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < r->ndev; i++)
		if (r->dev[i].kind == RT_DEV_PROCESS) {
			sum += r->dev[i].busy;
			n++;
		}
	r->process_busy = n ? sum / n : -1;
}

/* The end (exclusive) of the stretch of equal class that starts at tick i. */
static int run_end(const rt_watch_run *r, int i)
{
	int j = i + 1;
	while (j < r->nticks && r->ticks[j].phase == r->ticks[i].phase)
		j++;
	return j;
}

static double span_s(const rt_watch_run *r, int i, int j)
{
	double s = 0;
	for (int k = i; k < j; k++)
		s += r->ticks[k].dt;
	return s;
}

/*
 * Gives the shortest stretch under the least phase to a neighbour (the
 * longer one), until none is left; 1 when something changed.
 */
static int merge_shortest(rt_watch_run *r)
{
	int bi = -1, bj = -1;
	double best = INFINITY;
	for (int i = 0, j; i < r->nticks; i = j) {
		j = run_end(r, i);
		double len = span_s(r, i, j);
		int whole = i == 0 && j == r->nticks;
		if (!whole && (len < MIN_PHASE_S || j - i < MIN_PHASE_TICKS) && len < best) {
			best = len;
			bi = i;
			bj = j;
		}
	}
	if (bi < 0)
		return 0;
	double before = 0, after = 0;
	for (int k = bi - 1; k >= 0 && r->ticks[k].phase == r->ticks[bi - 1].phase; k--)
		before += r->ticks[k].dt;
	if (bj < r->nticks)
		after = span_s(r, bj, run_end(r, bj));
	int cls = bi > 0 && before >= after ? r->ticks[bi - 1].phase : r->ticks[bj < r->nticks ? bj : bi - 1].phase;
	for (int k = bi; k < bj; k++)
		r->ticks[k].phase = cls;
	return 1;
}

/* The thread that was busiest over ticks [i, j). */
static int phase_thread(const rt_watch_run *r, int i, int j)
{
	int best = -1;
	double most = 0;
	for (int k = i; k < j; k++) {
		int t = r->ticks[k].top_thread;
		if (t < 0)
			continue;
		double sum = 0;
		for (int m = i; m < j; m++)
			if (r->ticks[m].top_thread == t)
				sum += r->ticks[m].top * r->ticks[m].dt;
		if (sum > most) {
			most = sum;
			best = t;
		}
	}
	return best;
}

static rt_watch_phase make_phase(const rt_watch_run *r, int i, int j)
{
	rt_watch_phase p = {.cls = r->ticks[i].phase, .t0 = r->ticks[i].t - r->ticks[i].dt,
			    .t1 = r->ticks[j - 1].t, .device = -1};
	double len = span_s(r, i, j), dev = 0, devlen = 0;
	for (int k = i; k < j; k++) {
		const rt_watch_tick *t = &r->ticks[k];
		p.cores += t->cores * t->dt / len;
		p.want += t->want * t->dt / len;
		p.top += t->top * t->dt / len;
		if (t->device >= 0) {
			dev += t->device * t->dt;
			devlen += t->dt;
		}
	}
	if (devlen > 0)
		p.device = dev / devlen;
	p.top_thread = phase_thread(r, i, j);
	return p;
}

static int cut_phases(rt_watch_run *r)
{
	int n = 0;
	for (int i = 0; i < r->nticks; i = run_end(r, i))
		n++;
	free(r->phases);
	r->phases = calloc((size_t)(n ? n : 1), sizeof *r->phases);
	if (!r->phases)
		return RT_ENOMEM;
	r->nphases = 0;
	for (int i = 0, j; i < r->nticks; i = j) {
		j = run_end(r, i);
		r->phases[r->nphases++] = make_phase(r, i, j);
	}
	return RT_OK;
}

/* Each class's share of the window, the busiest class, and the device's busy share there. */
static void shares(rt_watch_run *r)
{
	double total = 0, dev = 0, devlen = 0;
	memset(r->share, 0, sizeof r->share);
	for (int k = 0; k < r->nticks; k++) {
		const rt_watch_tick *t = &r->ticks[k];
		if (!rt_watch_in_window(r, t))
			continue;
		for (int c = 0; c < RT_WC_N; c++)
			r->share[c] += t->dt * rt_watch_tick_part(t, c);
		total += t->dt;
		if (t->device >= 0) {
			dev += t->device * t->dt;
			devlen += t->dt;
		}
	}
	r->binding = 0;
	for (int c = 0; c < RT_WC_N; c++) {
		r->share[c] = total > 0 ? r->share[c] / total : 0;
		if (r->share[c] > r->share[r->binding])
			r->binding = c;
	}
	r->device_busy = devlen > 0 ? dev / devlen : -1;
}

/*
 * A run read back from its YAML has no raw device samples: its ticks keep
 * the device share they were written with, and the monitor's figures theirs.
 */
int rt_watch_analyze(rt_watch_run *r)
{
	int *cursor = calloc(2 * (size_t)(r->ndevices + 1), sizeof *cursor);
	if (!cursor)
		return RT_ENOMEM;
	if (!r->read_back)
		process_windows(r);
	for (int k = 0; k < r->nticks; k++) {
		rt_watch_tick *t = &r->ticks[k];
		if (r->ndevices && !r->read_back) {
			t->device = busy_over(r, RT_DEV_DEVICE, t->t - t->dt, t->t, cursor);
			t->wait = busy_over(r, RT_DEV_PROCESS, t->t - t->dt, t->t,
			                    cursor + r->ndevices + 1);
		}
		t->host = host_class(t, r->ncpus);
		t->cls = t->phase = rt_watch_classify(t, r->ncpus);
	}
	free(cursor);
	steady_window(r);
	steps_cores(r);
	shares(r);
	while (merge_shortest(r))
		;
	if (!r->read_back) {
		monitor_readings(r);
		process_share(r);
	}
	return cut_phases(r);
}
