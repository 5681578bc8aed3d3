/*
 * The analysis of `rigtune watch` on runs made up here, where the answer is
 * known exactly: what each interval is classified as, the phases with their
 * hysteresis, the shares, the monitor's once-a-second readings of NVML
 * samples, the verdict's figures, and the YAML written and read back.
 * (tests/cli/test_watch.sh watches real processes.)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/usercmd.h"
#include "../tuner/watch/watch.h"

static rt_watch_tick tick(double cores, double top, double want, double top_want)
{
	return (rt_watch_tick){.dt = 0.1, .cores = cores, .top = top, .want = want,
			       .top_want = top_want, .top_thread = 0, .device = -1};
}

static void test_classify(void **state)
{
	(void)state;
	rt_watch_tick k = tick(0.98, 0.98, 1.0, 1.0);
	assert_int_equal(rt_watch_classify(&k, 2), RT_WC_ONE_THREAD);
	/* loaded: a third of a core got, a whole one wanted: still one busy thread */
	k = tick(0.33, 0.33, 1.0, 1.0);
	assert_int_equal(rt_watch_classify(&k, 2), RT_WC_ONE_THREAD);
	k = tick(1.9, 0.96, 1.95, 0.98);
	assert_int_equal(rt_watch_classify(&k, 2), RT_WC_THREADS);
	k = tick(0.05, 0.05, 0.06, 0.06);
	assert_int_equal(rt_watch_classify(&k, 2), RT_WC_WAIT_SLEEP);
	k.io_threads = 1;
	assert_int_equal(rt_watch_classify(&k, 2), RT_WC_WAIT_IO);
	k = tick(0.98, 0.98, 1.0, 1.0);
	k.device = 0.75;
	assert_int_equal(rt_watch_classify(&k, 2), RT_WC_DEVICE);
	/* a device busy 60% waits on the thread at a whole core (launch-bound) */
	k.device = 0.6;
	assert_int_equal(rt_watch_classify(&k, 2), RT_WC_ONE_THREAD);
	/* a thread at a whole core beside 11 spinning cores of 16: the thread binds */
	k = tick(12, 0.92, 12, 0.92);
	assert_int_equal(rt_watch_classify(&k, 16), RT_WC_ONE_THREAD);
	/* 13 of 16 cores wanted: the cores bind */
	k = tick(13, 0.92, 13, 0.92);
	assert_int_equal(rt_watch_classify(&k, 16), RT_WC_THREADS);
	/* several threads, none at a whole core, most cores idle: not one thread */
	k = tick(3, 0.7, 3, 0.7);
	assert_int_equal(rt_watch_classify(&k, 16), RT_WC_THREADS);
}

/* A run of n ticks 0.1 s apart from the figures of each. */
static void make_run(rt_watch_run *r, const rt_watch_tick *k, int n)
{
	memset(r, 0, sizeof *r);
	r->ncpus = 2;
	r->ticks = calloc((size_t)n, sizeof *r->ticks);
	assert_non_null(r->ticks);
	for (int i = 0; i < n; i++) {
		r->ticks[i] = k[i];
		r->ticks[i].t = 0.1 * (i + 1);
	}
	r->nticks = r->tcap = n;
	r->wall_s = 0.1 * n;
	r->threads = calloc(1, sizeof *r->threads);
	assert_non_null(r->threads);
	snprintf(r->threads[0].comm, sizeof r->threads[0].comm, "env<step>");
	r->nthreads = 1;
}

static void test_phases_and_shares(void **state)
{
	(void)state;
	rt_watch_tick k[30];
	for (int i = 0; i < 30; i++)
		k[i] = i < 18 ? tick(0.99, 0.99, 1, 1) : tick(1.9, 0.95, 1.95, 0.98);
	k[8] = tick(1.9, 0.95, 1.95, 0.98); /* one tick of noise in the single-thread stretch */
	rt_watch_run r;
	make_run(&r, k, 30);
	assert_int_equal(rt_watch_analyze(&r), RT_OK);
	/* the shares count every tick as it was: 17 of 30 one thread */
	assert_true(fabs(r.share[RT_WC_ONE_THREAD] - 17.0 / 30) < 1e-9);
	assert_true(fabs(r.share[RT_WC_THREADS] - 13.0 / 30) < 1e-9);
	assert_int_equal(r.binding, RT_WC_ONE_THREAD);
	/* the phases absorb the lone tick: two of them, split at 1.8 s */
	assert_int_equal(r.nphases, 2);
	assert_int_equal(r.phases[0].cls, RT_WC_ONE_THREAD);
	assert_true(fabs(r.phases[0].t1 - 1.8) < 1e-9);
	assert_int_equal(r.phases[1].cls, RT_WC_THREADS);
	assert_int_equal(r.ticks[8].cls, RT_WC_THREADS);
	assert_int_equal(r.ticks[8].phase, RT_WC_ONE_THREAD);
	rt_watch_verdict(&r);
	assert_non_null(strstr(r.verdict, "one thread, `env<step>`, ran at 9"));
	assert_non_null(strstr(r.verdict, "for 57% of wall time"));
	assert_non_null(strstr(r.verdict, "bound by one CPU thread"));
	assert_non_null(strstr(r.verdict, "; besides: several threads busy 43% of wall time"));
	assert_non_null(strstr(r.step, "tune --workload ppo"));
	rt_watch_free(&r);
}

/*
 * A device busy 0.3 s at 0.35 s into every second, sampled by NVML every
 * 1/6 s: the samples ending at 0.5 and 0.667 s read 90%, the rest 0%; a
 * monitor reading the newest sample at each whole second reads 0%.
 */
static void test_device_and_monitor(void **state)
{
	(void)state;
	rt_watch_tick k[40];
	for (int i = 0; i < 40; i++)
		k[i] = tick(0.01, 0.01, 0.01, 0.01);
	rt_watch_run r;
	make_run(&r, k, 40);
	r.ndevices = 1;
	r.realtime0 = 1000;
	r.dev = calloc(24, sizeof *r.dev);
	assert_non_null(r.dev);
	for (int n = 1; n <= 24; n++) {
		int w = n % 6; /* 3: the window (1/3, 1/2] of a second, 4: (1/2, 2/3] */
		r.dev[n - 1] = (rt_dev_sample){
		    0, RT_DEV_DEVICE, 0, 1000 + n / 6.0, 1 / 6.0, w == 3 || w == 4 ? 0.9 : 0};
	}
	r.ndev = r.dcap = 24;
	assert_int_equal(rt_watch_analyze(&r), RT_OK);
	assert_true(fabs(r.device_busy - 0.3) < 0.01);
	assert_int_equal(r.monitor_readings, 4);
	assert_true(r.monitor_zero == 1);
	/* ticks (0.4, 0.5] and (0.5, 0.6] read 90%: device phases, one per second */
	assert_int_equal(r.ticks[4].cls, RT_WC_DEVICE);
	assert_int_equal(r.ticks[5].cls, RT_WC_DEVICE);
	assert_int_equal(r.ticks[0].cls, RT_WC_WAIT_SLEEP);
	int device_phases = 0;
	for (int i = 0; i < r.nphases; i++)
		device_phases += r.phases[i].cls == RT_WC_DEVICE;
	assert_int_equal(device_phases, 4);
	rt_watch_verdict(&r);
	assert_non_null(strstr(r.verdict, "would have read 0% in 100% of its 4 readings"));
	/* 0.33 s busy a second, in 0.1 s ticks: the two it straddles count */
	assert_non_null(strstr(r.verdict, "in bursts of 0.4 s every 1.0 s"));
	rt_watch_free(&r);

	/* a device that hovers about half busy (45% and 55% in turn) has no bursts to name */
	make_run(&r, k, 40);
	for (int i = 0; i < 40; i++)
		r.ticks[i].device = i % 2 ? 0.55 : 0.45;
	r.ndevices = 1;
	r.read_back = 1; /* the ticks' device shares stand, as a file's */
	assert_int_equal(rt_watch_analyze(&r), RT_OK);
	rt_watch_verdict(&r);
	assert_non_null(strstr(r.verdict, "the device was busy 50%"));
	assert_null(strstr(r.verdict, "bursts"));
	rt_watch_free(&r);
}

/* Writes r and reads it back through a file. */
static int round_trip(const char *yaml, size_t len, rt_watch_run *back, char *err, size_t n)
{
	char path[] = "/tmp/test_watch-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(rt_write_all(fd, yaml, len), 0);
	close(fd);
	int rc = rt_watch_load(path, back, err, n);
	unlink(path);
	return rc;
}

/*
 * A loader worker that prefetches at a whole core for 3 s, then keeps up
 * at 40% while the main thread runs the steps at a whole core from 3.2 s
 * (the H100's 4 workers read 106% of a core each, their prefetch counted):
 * snapshots as the sampler takes them, 0.1 s apart, and a rate line every
 * 0.5 s from 3.7 s, marked on the tick that sees it as watch.c does. Over
 * the run the worker ran more CPU time than the main process. Marked, the
 * main process drives the steps and the worker reads 40% over them, kept
 * up; unmarked (a file from before, or no --metric), the whole run's CPU
 * time over the steps' span reads near a whole core.
 */
static void run_with_prefetch(rt_watch_run *r, int mark)
{
	memset(r, 0, sizeof *r);
	r->ncpus = 2;
	rt_proc_thread th[2] = {{.pid = 100, .tid = 100, .comm = "python3", .state = 'R'},
				{.pid = 200, .tid = 200, .comm = "python3", .state = 'R'}};
	rt_proc_snap snap = {.threads = th, .n = 2}, prev = snap;
	double main_cpu = 0, worker_cpu = 0;
	for (int i = 0; i <= 72; i++) {
		double t = 0.1 * i;
		th[0].cpu_ns = (uint64_t)(1e9 * main_cpu);
		th[1].cpu_ns = (uint64_t)(1e9 * worker_cpu);
		assert_int_equal(rt_watch_tick_add(r, &snap, i ? &prev : NULL, t, 0.1), RT_OK);
		/* a line printed in the last interval: 3.7, 4.2, ..., 7.2 s */
		int line = t > 3.65 && fmod(t - 3.7 + 1e-9, 0.5) < 0.1 - 1e-9;
		if (line) {
			assert_int_equal(rt_grow(&r->metric, &r->mcap, r->nmetric, sizeof *r->metric, 16), 0);
			r->metric[r->nmetric++] = (rt_watch_point){t - 0.05, 100};
			if (mark)
				rt_watch_mark_steps(r, t);
		}
		main_cpu += t >= 3.2 ? 0.1 : 0;
		worker_cpu += t < 3.0 ? 0.1 : 0.04;
	}
	r->wall_s = 7.2;
	assert_int_equal(rt_watch_analyze(r), RT_OK);
	rt_watch_verdict(r);
}

static void test_worker_load_leaves_out_the_prefetch(void **state)
{
	(void)state;
	rt_watch_run r;
	run_with_prefetch(&r, 1);
	assert_true(r.win_steps);
	assert_int_equal(r.binding, RT_WC_ONE_THREAD);
	assert_int_equal(r.steps_marks, 8);
	assert_true(r.threads[1].cpu_s > r.threads[0].cpu_s); /* the worker, over the run */
	assert_float_equal(r.threads[0].steps_cores, 1.0, 0.03);
	assert_float_equal(r.threads[1].steps_cores, 0.4, 0.03);
	assert_non_null(strstr(r.step, "its 1 worker process kept up with it (40% of a core each)"));
	char *text, err[256];
	size_t len;
	assert_int_equal(rt_watch_yaml(&r, &text, &len, err, sizeof err), RT_OK);
	assert_non_null(strstr(text, "comm: python3, cpu_s: 4.68, steps_cores: 0.4}"));
	rt_watch_run back;
	assert_int_equal(round_trip(text, len, &back, err, sizeof err), RT_OK);
	assert_string_equal(back.step, r.step); /* the file's steps_cores decide alike */
	rt_watch_free(&back);
	free(text);
	rt_watch_free(&r);

	run_with_prefetch(&r, 0);
	assert_float_equal(r.threads[1].steps_cores, -1, 0);
	assert_non_null(strstr(r.step, "all ran near a whole core"));
	rt_watch_free(&r);
}

/*
 * Issue 45's run: the device works 30% of every NVML window and one thread
 * spins at a whole core all along (its Python 70% of the time, CUDA's
 * cudaDeviceSynchronize the rest). The device's samples alone (30%) leave
 * every interval to the thread; the tree's per-process samples (pid 42,
 * 30% of each window) make 30% of each the device's: 30/70.
 */
static void run_30_70(rt_watch_run *r, int with_processes)
{
	enum { TICKS = 50, WINDOWS = 30 };
	rt_watch_tick k[TICKS];
	for (int i = 0; i < TICKS; i++)
		k[i] = tick(1.0, 1.0, 1.0, 1.0);
	make_run(r, k, TICKS);
	r->ndevices = 1;
	r->realtime0 = 1000;
	r->dev = calloc(2 * WINDOWS, sizeof *r->dev);
	assert_non_null(r->dev);
	for (int n = 1; n <= WINDOWS; n++) {
		double end = 1000 + n / 6.0;
		r->dev[r->ndev++] = (rt_dev_sample){0, RT_DEV_DEVICE, 0, end, 1 / 6.0, 0.3};
		if (with_processes) /* NVML gives no window: the one before's stamp says it */
			r->dev[r->ndev++] = (rt_dev_sample){0, RT_DEV_PROCESS, 42, end, 0, 0.3};
	}
	r->dcap = 2 * WINDOWS;
	assert_int_equal(rt_watch_analyze(r), RT_OK);
	rt_watch_verdict(r);
}

static void test_device_wait(void **state)
{
	(void)state;
	rt_watch_run r, back;
	run_30_70(&r, 0);
	assert_true(fabs(r.share[RT_WC_ONE_THREAD] - 1) < 1e-9);
	assert_true(r.share[RT_WC_DEVICE] == 0);
	rt_watch_free(&r);

	run_30_70(&r, 1);
	assert_true(fabs(r.share[RT_WC_DEVICE] - 0.3) < 0.01);
	assert_true(fabs(r.share[RT_WC_ONE_THREAD] - 0.7) < 0.01);
	assert_int_equal(r.binding, RT_WC_ONE_THREAD);
	for (int i = 0; i < r.nticks; i++) {
		assert_true(fabs(r.ticks[i].wait - 0.3) < 1e-9);
		assert_int_equal(r.ticks[i].cls, RT_WC_ONE_THREAD); /* under half: the thread's */
	}
	assert_non_null(strstr(r.verdict, "for 70% of wall time"));
	assert_non_null(strstr(r.verdict, "besides: the device busy 30% of wall time"));

	/* read back, the time line's device_wait gives the same shares */
	char *yaml, err[RT_ERRLEN];
	size_t len;
	assert_int_equal(rt_watch_yaml(&r, &yaml, &len, err, sizeof err), RT_OK);
	assert_non_null(strstr(yaml, "device_wait: [0.3, 0.3,"));
	assert_int_equal(round_trip(yaml, len, &back, err, sizeof err), RT_OK);
	assert_int_equal(rt_watch_analyze(&back), RT_OK);
	assert_true(fabs(back.share[RT_WC_DEVICE] - r.share[RT_WC_DEVICE]) < 1e-3);
	free(yaml);
	rt_watch_free(&back);

	/* the tree's kernels busy most of a tick make it the device's, the rest stays the thread's
	 */
	for (int i = 0; i < r.ndev; i++)
		if (r.dev[i].kind == RT_DEV_PROCESS)
			r.dev[i].busy = 0.6;
	assert_int_equal(rt_watch_analyze(&r), RT_OK);
	assert_int_equal(r.ticks[10].cls, RT_WC_DEVICE);
	assert_true(fabs(rt_watch_tick_part(&r.ticks[10], RT_WC_ONE_THREAD) - 0.4) < 1e-9);
	assert_true(fabs(r.share[RT_WC_DEVICE] - 0.6) < 0.01);
	assert_int_equal(r.binding, RT_WC_DEVICE);
	rt_watch_free(&r);
}

/* r analysed, its verdict given, written and read back into back: the file (free it). */
static char *analyzed_round_trip(rt_watch_run *r, rt_watch_run *back, size_t *len)
{
	char *yaml, err[RT_ERRLEN];
	assert_int_equal(rt_watch_analyze(r), RT_OK);
	rt_watch_verdict(r);
	assert_int_equal(rt_watch_yaml(r, &yaml, len, err, sizeof err), RT_OK);
	assert_int_equal(round_trip(yaml, *len, back, err, sizeof err), RT_OK);
	return yaml;
}

static void test_yaml_round_trip(void **state)
{
	(void)state;
	rt_watch_tick k[12];
	for (int i = 0; i < 12; i++)
		k[i] = i < 6 ? tick(0.99, 0.99, 1, 1) : tick(0.02, 0.02, 0.02, 0.02);
	rt_watch_run r, back;
	make_run(&r, k, 12);
	snprintf(r.command, sizeof r.command, "python3 'a <b> & c'");
	snprintf(r.metric_regex, sizeof r.metric_regex, "rate ([0-9]+)");
	r.metric = calloc(2, sizeof *r.metric);
	assert_non_null(r.metric);
	r.metric[0] = (rt_watch_point){0.35, 12.5};
	r.metric[1] = (rt_watch_point){0.75, 13};
	r.nmetric = r.mcap = 2;
	char err[RT_ERRLEN];
	size_t len;
	char *yaml = analyzed_round_trip(&r, &back, &len);
	assert_string_equal(back.command, r.command);
	assert_string_equal(back.verdict, r.verdict);
	assert_int_equal(back.nticks, 12);
	assert_int_equal(back.binding, r.binding);
	for (int i = 0; i < 12; i++) {
		assert_int_equal(back.ticks[i].cls, r.ticks[i].cls);
		assert_true(fabs(back.ticks[i].want - r.ticks[i].want) < 1e-3);
		assert_true(back.ticks[i].device == -1);
	}
	assert_int_equal(back.nmetric, 2);
	assert_true(back.metric[1].v == 13);
	/* the verdict's window: the steps, from the first rate line to the last */
	assert_int_equal(r.win_steps, 1);
	assert_int_equal(back.win_steps, 1);
	assert_true(fabs(back.win0 - 0.35) < 1e-9 && fabs(back.win1 - 0.75) < 1e-9);
	rt_watch_free(&back);
	/* a class outside the legend: refused with the line */
	char *bad = strstr(yaml, "  class: [");
	assert_non_null(bad);
	bad[10] = '7';
	assert_int_equal(round_trip(yaml, len, &back, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, ":"));
	assert_non_null(strstr(err, "class"));
	free(yaml);
	rt_watch_free(&r);
}

/*
 * macOS names a thread by its 64-bit handle (procfs_darwin.c): two threads whose handles
 * differ only above bit 31 stay two, each keeps its own CPU time when the other exits
 * (a place in the list would shift), and the file keeps the whole handle.
 */
static void test_threads_keyed_by_64_bit_handles(void **state)
{
	(void)state;
	rt_watch_run r, back;
	memset(&r, 0, sizeof r);
	r.ncpus = 2;
	const int64_t h1 = 0x16f7a3000, h2 = 0x26f7a3000; /* the same low 32 bits */
	rt_proc_thread th[2] = {{.pid = 100, .tid = h1, .comm = "python3", .state = 'R'},
				{.pid = 100, .tid = h2, .comm = "pt_worker", .state = 'R'}};
	rt_proc_snap snap = {.threads = th, .n = 2}, prev = snap;
	assert_int_equal(rt_watch_tick_add(&r, &snap, NULL, 0, 0.1), RT_OK);
	th[0].cpu_ns = 50000000;
	th[1].cpu_ns = 90000000;
	assert_int_equal(rt_watch_tick_add(&r, &snap, &prev, 0.1, 0.1), RT_OK);
	/* the first exits: the second is alone in the list, at its first place */
	th[0] = th[1];
	th[0].cpu_ns = 180000000;
	snap.n = 1;
	assert_int_equal(rt_watch_tick_add(&r, &snap, &prev, 0.2, 0.1), RT_OK);
	assert_int_equal(r.nthreads, 2);
	int w = r.threads[0].tid == h2 ? 0 : 1;
	assert_true(r.threads[w].tid == h2 && r.threads[1 - w].tid == h1);
	assert_true(fabs(r.threads[w].cpu_s - 0.18) < 1e-9);
	assert_true(fabs(r.threads[1 - w].cpu_s - 0.05) < 1e-9);
	r.wall_s = 0.2;
	size_t len;
	char *yaml = analyzed_round_trip(&r, &back, &len);
	assert_int_equal(back.nthreads, 2);
	assert_true(back.threads[0].tid == h2 && back.threads[1].tid == h1); /* by CPU time */
	rt_watch_free(&back);
	free(yaml);
	rt_watch_free(&r);
}

/*
 * Runs of examples/torch_transformer.py on an H100, recorded by watch
 * (tests/data/watch-h100/README.md), read back and analysed again. What
 * binds each was found by changing the run: the file's step must name it.
 */
typedef struct recorded {
	const char *file;
	int binding;
	const char *step; /* in the step */
} recorded;

static const recorded h100[] = {
	/* bf16 ran it 3.2 times faster; the device read 84-91% per tick */
	{"big_fp32_w8", RT_WC_DEVICE, "the device is the bottleneck"},
	/* 8 and 12 workers: +1% and +6%; a batch twice as large: +11% */
	{"w4b64", RT_WC_ONE_THREAD, "not onto more workers: its 4 worker processes"},
	{"w4b64-15s", RT_WC_ONE_THREAD, "not onto more workers: its 4 worker processes"},
	{"w8b64", RT_WC_ONE_THREAD, "its 8 worker processes kept up"},
	{"w12b64", RT_WC_ONE_THREAD, "its 12 worker processes kept up"},
	{"w4b128", RT_WC_ONE_THREAD, "its 4 worker processes kept up"},
	/*
	 * 12 workers instead of 4: the same rate (1011 against 1013 samples/s).
	 * Its 4 read a whole core each (their prefetch before the first step
	 * counted in): the step names both, the main thread among them.
	 */
	{"big_bf16_w4", RT_WC_ONE_THREAD, "`python3` and its 4 worker processes all ran near"},
	{"big_bf16_w12", RT_WC_ONE_THREAD, "its 12 worker processes kept up"},
	/* recorded by this analysis's build: its workers at 87% of a core each */
	{"live-w4b64", RT_WC_ONE_THREAD, "both may bind, so try both: more workers"},
	{"live-big_fp32_w8", RT_WC_DEVICE, "the device is the bottleneck"},
	{"live-w0b64", RT_WC_ONE_THREAD, "for input, more loader workers"},
	/* its command a shell script that started python3: the driver is python3, not a worker */
	{"final-w4b64", RT_WC_ONE_THREAD, "`python3` and its 4 worker processes all ran near"},
	{"final-big_fp32_w8", RT_WC_DEVICE, "the device is the bottleneck"},
	/*
	 * with steps_cores (stop 47): over the steps 4 workers ran 85-96% of a core
	 * each, so "both may bind" stands; 12 workers ran 27-31% each, and no faster
	 * (1785 against 1775 samples/s)
	 */
	{"steps-w4b64", RT_WC_ONE_THREAD, "its 4 worker processes all ran near a whole core (90% each)"},
	{"steps-w12b64", RT_WC_ONE_THREAD, "its 12 worker processes kept up with it (28% of a core each)"},
	/* batches made on the main thread: 4 loader workers ran it 2.2 times faster */
	{"w0b64", RT_WC_ONE_THREAD, "for input, more loader workers"},
	{"w0b64-15s", RT_WC_ONE_THREAD, "for input, more loader workers"},
	{"w0b64t1", RT_WC_ONE_THREAD, "for input, more loader workers"},
};

static void test_h100_recordings(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof h100 / sizeof h100[0]; i++) {
		char path[128], err[RT_ERRLEN];
		rt_watch_run r;
		snprintf(path, sizeof path, "tests/data/watch-h100/%s.yaml", h100[i].file);
		assert_int_equal(rt_watch_load(path, &r, err, sizeof err), RT_OK);
		assert_int_equal(rt_watch_analyze(&r), RT_OK);
		rt_watch_verdict(&r);
		printf("# %s: %s: %s\n", h100[i].file, rt_watch_class_name(r.binding), r.step);
		assert_int_equal(r.binding, h100[i].binding);
		assert_non_null(strstr(r.step, h100[i].step));
		/* the steps (7 s and more) are the window: the 8-16 s of startup before them are not */
		assert_int_equal(r.win_steps, 1);
		assert_true(r.win0 > 8 && r.win1 > r.win0 + 6.5);
		assert_non_null(strstr(r.verdict, "of its steps' time"));
		rt_watch_free(&r);
	}
}

/*
 * A day watched at 10 Hz (issue 47.4): 864,000 ticks, as the sampler adds
 * them, from a thread that runs a whole core for 12 hours and then sleeps
 * for 12, with the metric's most samples beside. The ticks kept are thinned
 * to 13,500, each 6.4 s (64 sampled), and the file reads back: unthinned,
 * its 7.8 million values were past what a reader takes, and report --watch
 * refused the file rigtune wrote.
 */
static void test_day_long_watch_stays_readable(void **state)
{
	(void)state;
	rt_watch_run r, back;
	memset(&r, 0, sizeof r);
	r.ncpus = 2;
	rt_proc_thread th = {.pid = 100, .tid = 100, .comm = "python3", .state = 'R'};
	rt_proc_snap snap = {.threads = &th, .n = 1}, prev = snap;
	const int day = 864000;
	double cpu = 0;
	for (int i = 0; i <= day; i++) {
		th.cpu_ns = (uint64_t)(1e9 * cpu);
		assert_int_equal(rt_watch_tick_add(&r, &snap, i ? &prev : NULL, i / 10.0, 0.1), RT_OK);
		cpu += i < day / 2 ? 0.1 : 0.0002;
	}
	r.wall_s = day / 10.0;
	r.metric = calloc(RT_CMD_MAX_SAMPLES, sizeof *r.metric);
	assert_non_null(r.metric);
	for (int i = 0; i < RT_CMD_MAX_SAMPLES; i++)
		r.metric[i] = (rt_watch_point){r.wall_s * (i + 0.5) / RT_CMD_MAX_SAMPLES, 100 + i % 7};
	r.nmetric = r.mcap = RT_CMD_MAX_SAMPLES;
	snprintf(r.metric_regex, sizeof r.metric_regex, "rate ([0-9]+)");
	assert_int_equal(r.nticks, day / 64);
	for (int i = 0; i < r.nticks; i++)
		assert_float_equal(r.ticks[i].dt, 6.4, 1e-6);
	assert_float_equal(r.ticks[r.nticks - 1].t, r.wall_s, 1e-6);
	assert_float_equal(r.ticks[0].cores, 1.0, 0.01);
	assert_float_equal(r.ticks[r.nticks - 1].cores, 0.002, 0.001);
	assert_int_equal(rt_watch_analyze(&r), RT_OK);
	rt_watch_verdict(&r);
	assert_float_equal(r.share[RT_WC_ONE_THREAD], 0.5, 0.01);
	assert_float_equal(r.share[RT_WC_WAIT_SLEEP], 0.5, 0.01);
	char *yaml, err[RT_ERRLEN];
	size_t len;
	assert_int_equal(rt_watch_yaml(&r, &yaml, &len, err, sizeof err), RT_OK);
	if (round_trip(yaml, len, &back, err, sizeof err))
		fail_msg("the day's file does not read back: %s", err);
	assert_int_equal(back.nticks, r.nticks);
	assert_float_equal(back.share[RT_WC_ONE_THREAD], 0.5, 0.01);
	free(yaml);
	rt_watch_free(&back);
	rt_watch_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_classify),
	    cmocka_unit_test(test_phases_and_shares),
	    cmocka_unit_test(test_device_and_monitor),
	    cmocka_unit_test(test_yaml_round_trip),
	    cmocka_unit_test(test_device_wait),
	    cmocka_unit_test(test_threads_keyed_by_64_bit_handles),
	    cmocka_unit_test(test_worker_load_leaves_out_the_prefetch),
	    cmocka_unit_test(test_h100_recordings),
	    cmocka_unit_test(test_day_long_watch_stays_readable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
