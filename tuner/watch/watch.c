/*
 * watch.c: rt_watch: the command runs as the user's command of `tune --cmd`
 * does (usercmd.h: its own process group, every process ending with it, its
 * lines read as they come), with the sampler on a thread of its own; or a
 * running pid is followed until it is gone. The metric's samples get the
 * clock's time when their line arrives.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../common/platform.h"
#include "../../common/rt.h"
#include "../usercmd.h"
#include "watch.h"

typedef struct sampler {
	rt_watch_run *r;
	rt_proc_tree tree;
	rt_devmon *dev;
	double t0, period;
	atomic_int stop;
	atomic_int rate_lines; /* the metric's samples so far: the reader counts them */
	int rate_lines_seen;   /* as the last tick saw them */
	int rc;
} sampler;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int stop_asked(void)
{
	return interrupted;
}

/*
 * The device's samples since the last poll, appended to the run's; of the
 * per-process ones only those of the tree's processes.
 */
static int poll_devices(sampler *sp)
{
	rt_watch_run *r = sp->r;
	rt_dev_batch b = {r->dev, r->ndev, r->dcap};
	int first = b.n, rc = rt_devmon_poll(sp->dev, &b);
	int kept = first;
	for (int i = first; i < b.n; i++)
		if (b.s[i].kind != RT_DEV_PROCESS || rt_proc_in_tree(&sp->tree, (pid_t)b.s[i].pid))
			b.s[kept++] = b.s[i];
	r->dev = b.s;
	r->ndev = kept;
	r->dcap = b.cap;
	return rc;
}

/* One snapshot and its tick; whether the followed process is still there (--pid). */
static int sample_once(sampler *sp, rt_proc_snap *cur, rt_proc_snap *prev, double *last)
{
	double now = rt_now();
	int rc = rt_proc_snapshot(&sp->tree, cur);
	if (rc == RT_OK)
		rc = rt_watch_tick_add(sp->r, cur, *last > 0 ? prev : NULL, now - sp->t0,
				       now - *last);
	int lines = atomic_load(&sp->rate_lines);
	if (rc == RT_OK && lines != sp->rate_lines_seen) {
		rt_watch_mark_steps(sp->r, now - sp->t0);
		sp->rate_lines_seen = lines;
	}
	if (rc == RT_OK)
		rc = poll_devices(sp);
	*last = now;
	sp->rc = rc;
	return rc;
}

/* The sampler's loop: a snapshot every period until asked to stop. */
static void *sample_loop(void *arg)
{
	sampler *sp = arg;
	rt_proc_snap a = {0}, b = {0}, *cur = &a, *prev = &b;
	double last = 0, next = sp->t0;
	while (!atomic_load(&sp->stop) && sample_once(sp, cur, prev, &last) == RT_OK) {
		rt_proc_snap *x = cur;
		cur = prev;
		prev = x;
		next += sp->period;
		if (next < rt_now())
			next = rt_now(); /* a late tick is not caught up: the next one is a period on */
		rt_plat_sleep_until(next);
	}
	rt_proc_snap_free(&a);
	rt_proc_snap_free(&b);
	struct timespec own; /* this thread's CPU time (POSIX; RUSAGE_THREAD is Linux's) */
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &own) == 0)
		sp->r->sampler_cpu_s = (double)own.tv_sec + 1e-9 * (double)own.tv_nsec;
	return NULL;
}

/* The user's lines: echoed to stderr (stdout may be the YAML), the metric read on the clock. */
typedef struct reader {
	rt_watch_run *r;
	rt_metric *m;
	double t0;
	int quiet;
	atomic_int *rate_lines; /* the sampler's count of them (its thread reads r->metric not) */
} reader;

static void on_line(void *user, int is_err, const char *text)
{
	reader *rd = user;
	(void)is_err;
	if (!rd->quiet)
		fprintf(stderr, "%s\n", text);
	if (!rd->m)
		return;
	int before = rd->m->nsamples;
	rt_metric_line(rd->m, text);
	rt_watch_run *r = rd->r;
	double t = rt_now() - rd->t0;
	if (rd->m->nsamples < before) { /* the metric was thinned: its times are, alike */
		for (int i = 0; 2 * i < r->nmetric; i++)
			r->metric[i] = r->metric[2 * i];
		r->nmetric = (r->nmetric + 1) / 2;
		before = r->nmetric;
	}
	for (int i = before; i < rd->m->nsamples; i++) {
		if (rt_grow(&r->metric, &r->mcap, r->nmetric, sizeof *r->metric, 256))
			return; /* a lost sample, not a wrong one */
		r->metric[r->nmetric++] = (rt_watch_point){t, rd->m->samples[i]};
		atomic_fetch_add(rd->rate_lines, 1);
	}
}

static int start_sampler(sampler *sp, pthread_t *th, char *err, size_t errlen)
{
	int e = pthread_create(th, NULL, sample_loop, sp);
	return e ? rt_fail(err, errlen, RT_ERUNTIME, "cannot start the sampler: %s", strerror(e))
		 : RT_OK;
}

static void stop_sampler(sampler *sp, pthread_t th)
{
	atomic_store(&sp->stop, 1);
	pthread_join(th, NULL);
}

/* Runs the command with the sampler beside it. */
static int watch_command(const rt_watch_opts *o, sampler *sp, char *err, size_t errlen)
{
	rt_watch_run *r = sp->r;
	rt_metric m;
	reader rd = {r, NULL, 0, o->quiet, &sp->rate_lines};
	if (o->metric) {
		RT_TRY(rt_metric_init(&m, o->metric, 0, err, errlen));
		rd.m = &m;
	}
	rt_usercmd c = {.argv = o->argv, .pin = RT_PIN_NONE, .line = on_line, .user = &rd,
			.stop = stop_asked};
	rt_proc_tree_init(&sp->tree, getpid(), 0);
	pthread_t th;
	int rc = rt_usercmd_start(&c, err, errlen);
	if (rc == RT_OK) {
		sp->t0 = rd.t0 = c.t0;
		r->pid = c.pid;
		rc = start_sampler(sp, &th, err, errlen);
		rt_usercmd_exit x;
		int frc = rt_usercmd_finish(&c, &x, err, errlen);
		if (rc == RT_OK)
			stop_sampler(sp, th);
		rc = rc ? rc : frc;
		r->wall_s = x.seconds;
		r->exited = 1;
		r->status = x.status;
	}
	if (rd.m)
		rt_metric_free(&m);
	return rc;
}

/* Follows a running process until it is gone (or Ctrl-C). */
static int watch_pid(const rt_watch_opts *o, sampler *sp, char *err, size_t errlen)
{
	if (!rt_proc_alive(o->pid))
		return rt_fail(err, errlen, RT_EINVAL, "--pid %d: no such process", (int)o->pid);
	rt_proc_tree_init(&sp->tree, o->pid, 1);
	sp->r->pid = o->pid;
	sp->t0 = rt_now();
	pthread_t th;
	RT_TRY(start_sampler(sp, &th, err, errlen));
	while (!interrupted && rt_proc_alive(o->pid))
		rt_plat_sleep_until(rt_now() + sp->period);
	stop_sampler(sp, th);
	sp->r->wall_s = rt_now() - sp->t0;
	return RT_OK;
}

/* The command as one line, for the YAML. */
static void describe(const rt_watch_opts *o, rt_watch_run *r)
{
	char text[sizeof r->command];
	if (o->argv) {
		rt_argv_format(o->argv, text, sizeof text);
		rt_printable(r->command, sizeof r->command, text); /* YAML is UTF-8; argv is bytes */
	} else {
		snprintf(r->command, sizeof r->command, "--pid %d", (int)o->pid);
	}
}

int rt_watch(const rt_watch_opts *o, rt_watch_run *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	describe(o, r);
	r->rate_hz = o->rate_hz;
	r->ncpus = rt_proc_ncpus();
	snprintf(r->metric_regex, sizeof r->metric_regex, "%s", o->metric ? o->metric : "");
	sampler sp = {.r = r, .period = 1.0 / o->rate_hz};
	sp.dev = rt_devmon_open_any(r->device_why, sizeof r->device_why);
	r->ndevices = rt_devmon_ndevices(sp.dev);
	snprintf(r->device_source, sizeof r->device_source, "%s", rt_devmon_label(sp.dev));
	struct timespec real;
	clock_gettime(CLOCK_REALTIME, &real);
	/* CLOCK_REALTIME less the monotonic clock: the device's stamps onto the run's clock */
	double offset = (double)real.tv_sec + 1e-9 * (double)real.tv_nsec - rt_now();
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	int rc = o->argv ? watch_command(o, &sp, err, errlen) : watch_pid(o, &sp, err, errlen);
	r->interrupted = interrupted;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	r->realtime0 = offset + sp.t0;
	rt_devmon_close(sp.dev);
	rt_proc_tree_free(&sp.tree);
	if (rc == RT_OK && sp.rc)
		rc = rt_fail(err, errlen, sp.rc, "the sampler stopped: %s", rt_strstatus(sp.rc));
	if (rc == RT_OK)
		rc = rt_watch_analyze(r);
	if (rc == RT_OK)
		rt_watch_verdict(r);
	return rc;
}

void rt_watch_free(rt_watch_run *r)
{
	free(r->ticks);
	free(r->threads);
	free(r->metric);
	free(r->dev);
	free(r->phases);
	memset(r, 0, sizeof *r);
}
