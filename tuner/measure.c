#include "measure.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../search/stats.h"
#include "backends.h"
#include "child.h"
#include "contention.h"
#include "memwatch.h"
#include "pin.h"

#define CHILD_MAX_SAMPLES 4096
#define TEARDOWN_GRACE_S 10.0

/* What the child sends back through the pipe: this header, then samples. */
typedef struct child_report {
	int status;                 /* RT_OK or the failure code */
	rt_cause cause;             /* of a failure: the child knows which step failed */
	char reason[256];
	int nsamples;
	double flops_per_item;
	double step_seconds;        /* median seconds per step */
	double phase_total[RT_MAX_PHASES];
	double time_total;          /* seconds of sampled steps */
	double setup_s;             /* from the child's start to the warm-up's */
	char gemm_impl[160];
	int device_timed, device_sampled;
	double device_busy, device_busy_sampled;
	char monitor[16];
	rt_cpuset cpus;             /* the CPUs it ran on */
	double cpu_s;               /* its own CPU time (every thread) until the report */
} child_report;

/*
 * Address space a CPU trial may take beyond the memory available when it
 * starts: glibc's per-thread arenas, thread stacks and OpenBLAS's buffers
 * reserve address space they never touch.
 */
#define MEM_CAP_SLACK (2ull << 30)

/* AddressSanitizer reserves terabytes of shadow address space: no cap under it. */
#if defined(__SANITIZE_ADDRESS__)
#define RT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RT_ASAN 1
#endif
#endif
#ifndef RT_ASAN
#define RT_ASAN 0
#endif

/* The backend context of a trial, when its workload tells it (workload.h). */
typedef struct trial_device {
	const rt_backend_ops *be;
	rt_ctx *ctx;
} trial_device;

/*
 * What the device is and runs: its monitor, the GEMM implementation of the
 * point's precision (the context's answer, else the device's).
 */
static void device_describe(const trial_device *d, const rt_point *pt, child_report *rep)
{
	rt_device_info info;
	memset(&info, 0, sizeof info);
	if (d->be->device_info(pt->device, &info) == RT_OK) {
		memcpy(rep->gemm_impl, info.gemm_impl, sizeof rep->gemm_impl);
		memcpy(rep->monitor, info.monitor, sizeof rep->monitor);
	}
	if (d->ctx && d->be->gemm_impl)
		snprintf(rep->gemm_impl, sizeof rep->gemm_impl, "%s",
			 d->be->gemm_impl(d->ctx, pt->precision));
}

/* Starts the device's event timing and a new window of its monitor's samples. */
static void device_start(const trial_device *d)
{
	double ignored;
	if (d->ctx && d->be->device_time)
		d->be->device_time(d->ctx, 1, &ignored);
	if (d->ctx && d->be->utilization)
		d->be->utilization(d->ctx, &ignored);
}

/* Stops the timing; the busy shares of `seconds` of sampled steps into rep. */
static void device_finish(const trial_device *d, double seconds, child_report *rep)
{
	double busy;
	if (d->ctx && d->be->device_time && d->be->device_time(d->ctx, 0, &busy) == RT_OK &&
	    seconds > 0) {
		rep->device_timed = 1;
		rep->device_busy = fmin(1.0, busy / seconds);
	}
	if (d->ctx && d->be->utilization && d->be->utilization(d->ctx, &busy) == RT_OK) {
		rep->device_sampled = 1;
		rep->device_busy_sampled = busy;
	}
}

void rt_measure_defaults(rt_measure_opts *o)
{
	o->warmup_s = 0.2;
	o->min_sample_s = 0.010;
	o->rel_ci = 0.02;
	o->min_samples = 8;
	o->max_samples = 200;
	o->time_cap_s = 5.0;
	o->timeout_s = 60.0;
	o->one_step = 0;
	o->mem_cap = 0;
}

/*
 * A CPU trial's address space is capped to what the machine can spare, so an
 * oversized batch fails its allocation ("needs N GiB": memory) instead of
 * pushing the machine into swap or the OOM killer. GPU runtimes reserve huge
 * address ranges they never back, so a GPU trial is not capped this way.
 * Where the system enforces no such cap (macOS), the parent's watchdog
 * (memwatch.h) ends the trial instead. Decided before the fork.
 */
static rt_memcap cap_how(const rt_point *pt, uint64_t cap)
{
	return rt_backend_on_host(pt->backend) && !RT_ASAN ? rt_memcap_how(cap) : RT_MEMCAP_NONE;
}

/* In the child: RLIMIT_AS at the cap, where that is how the cap holds. */
static int cap_memory(rt_memcap how, uint64_t cap, char *why, size_t whylen)
{
	if (how == RT_MEMCAP_SYSTEM && rt_plat_cap_memory(cap))
		return rt_fail(why, whylen, RT_ERUNTIME, "cannot cap the trial's memory: %s",
			       strerror(errno));
	return RT_OK;
}

uint64_t rt_measure_mem_cap(void)
{
	uint64_t total, avail, test = rt_memwatch_test_cap();
	if (test)
		return test;
	return rt_plat_memory(&total, &avail) ? 0 : avail + MEM_CAP_SLACK;
}

/* The CPUs the calling process may run on, and the CPU time it has used. */
static void note_own_usage(child_report *rep)
{
	struct rusage ru;
	rt_plat_cpus_allowed(&rep->cpus);
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		rep->cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
			     (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Half-width of the median's 95% CI relative to the median. */
static double rel_halfwidth(const double *x, int n)
{
	double lo, hi, med = rt_median(x, (size_t)n);
	rt_median_ci95(x, (size_t)n, &lo, &hi);
	return med > 0 ? fmax(hi - med, med - lo) / med : INFINITY;
}

/*
 * Runs steps until `seconds` have passed (and at least min_steps), adding the
 * step results to acc. Returns the elapsed time, or a negative code.
 */
static double run_steps(const rt_workload *w, void *state, double seconds, long min_steps,
			long *steps, rt_step_result *acc, char *err, size_t errlen)
{
	double t0 = rt_now(), t;
	long k = 0;
	do {
		rt_step_result r = {0};
		int rc = w->step(state, &r, err, errlen);
		if (rc)
			return rc;
		acc->items += r.items;
		acc->flops += r.flops;
		for (int p = 0; p < w->nphases; p++)
			acc->phase[p] += r.phase[p];
		k++;
		t = rt_now() - t0;
	} while (k < min_steps || t < seconds);
	*steps = k;
	return t;
}

/*
 * The warm-up: warmup_s and two steps, or one step when that one took a
 * quarter of the cap (a second would eat the cap: a step that long is warm).
 * Returns the seconds per step it saw, or a negative code; *warm gets what
 * its steps did and *seconds their time.
 */
static double warm_up(const rt_workload *w, void *state, const rt_measure_opts *o,
		      child_report *rep, rt_step_result *warm, double *seconds)
{
	long first, more = 0;
	double t = run_steps(w, state, 0, 1, &first, warm, rep->reason, sizeof rep->reason), t2 = 0;
	if (t >= 0 && t < o->time_cap_s / 4 && !o->one_step)
		t2 = run_steps(w, state, o->warmup_s - t, 1, &more, warm, rep->reason,
			       sizeof rep->reason);
	if (t < 0 || t2 < 0)
		return t < 0 ? t : t2;
	*seconds = t + t2;
	return (t + t2) / (double)(first + more);
}

/* Adds a sample of `steps` steps that took dt seconds and did acc to rep and the totals. */
static void add_sample(const rt_workload *w, const rt_step_result *acc, double dt, long steps,
		       double *samples, double *step_times, int *n, rt_step_result *total,
		       child_report *rep)
{
	samples[*n] = acc->items / dt;
	step_times[(*n)++] = dt / (double)steps;
	total->items += acc->items;
	total->flops += acc->flops;
	for (int p = 0; p < w->nphases; p++)
		total->phase[p] += acc->phase[p];
	rep->time_total += dt;
}

/*
 * The sampling loop of the child; fills rep and samples. A sample starts
 * only when it is expected to end within the cap (the first always does):
 * with a warm-up of one step for a long one, a trial ends within its cap
 * plus one step (plus warmup_s for short steps). A first step that took the
 * whole cap, or any first step when o->one_step, is the one sample (cold, so
 * a little slow): the trial is that step, and the device's time is not taken.
 */
static int child_sample(const rt_workload *w, void *state, const trial_device *dev,
			const rt_measure_opts *o, child_report *rep, double *samples)
{
	long steps;
	rt_step_result warm = {0}, total = {0};
	double warm_s = 0;
	int n = 0;
	double step_times[CHILD_MAX_SAMPLES];
	rep->setup_s = rt_now() - rep->setup_s; /* it held the child's start */
	double step_s = warm_up(w, state, o, rep, &warm, &warm_s);
	if (step_s < 0)
		return (int)step_s;
	long per_sample = (long)ceil(o->min_sample_s / step_s);
	if (per_sample < 1)
		per_sample = 1;

	int max = o->max_samples < CHILD_MAX_SAMPLES ? o->max_samples : CHILD_MAX_SAMPLES;
	int one_step = o->one_step || step_s >= o->time_cap_s;
	if (one_step)
		add_sample(w, &warm, warm_s, 1, samples, step_times, &n, &total, rep);
	else
		device_start(dev);
	double start = rt_now();
	while (!one_step && n < max) {
		rt_step_result acc = {0};
		double dt = run_steps(w, state, 0, per_sample, &steps, &acc, rep->reason,
				      sizeof rep->reason);
		if (dt < 0)
			return (int)dt;
		add_sample(w, &acc, dt, steps, samples, step_times, &n, &total, rep);
		if (n >= o->min_samples && rel_halfwidth(samples, n) <= o->rel_ci)
			break;
		if (rt_now() - start + dt > o->time_cap_s)
			break;
	}
	if (!one_step)
		device_finish(dev, rep->time_total, rep);
	rep->nsamples = n;
	rep->flops_per_item = total.items > 0 ? total.flops / total.items : 0;
	rep->step_seconds = rt_median(step_times, (size_t)n);
	memcpy(rep->phase_total, total.phase, sizeof rep->phase_total);
	return RT_OK;
}

/*
 * The kind of a failure inside the child, from its code: a workload says
 * RT_EINFEASIBLE when the point does not fit (workload.h), and an allocation
 * that fails is the same; a backend, device or precision that is not there
 * is RT_EUNAVAIL; anything else went wrong while running.
 */
static rt_cause cause_of_status(int status)
{
	switch (status) {
	case RT_EINFEASIBLE:
	case RT_ENOMEM:
		return RT_CAUSE_MEMORY;
	case RT_EUNAVAIL:
		return RT_CAUSE_UNAVAILABLE;
	default:
		return RT_CAUSE_CRASH;
	}
}

/* Everything the child does; never returns. */
static void child_main(int fd, const rt_workload *w, const rt_point *pt, const rt_shape *sh,
		       const rt_measure_opts *o, rt_memcap how)
{
	static child_report rep;
	static double samples[CHILD_MAX_SAMPLES];
	const rt_backend_ops *be = NULL;
	void *handle = NULL, *state = NULL;
	char *why = rep.reason;
	size_t whylen = sizeof rep.reason;
	rep.setup_s = rt_now();

	int rc = rt_pin_self(pt->pin, pt->threads + pt->workers, why, whylen);
	if (rc == RT_OK)
		rc = cap_memory(how, o->mem_cap, why, whylen);
	if (rc == RT_OK)
		rc = rt_backend_open_named(pt->backend, pt->device, &be, &handle, why, whylen);
	if (rc == RT_OK)
		rc = w->setup(pt, sh, be, &state, why, whylen);
	if (rc == RT_OK) {
		trial_device dev = {be, w->context ? w->context(state) : NULL};
		device_describe(&dev, pt, &rep);
		rc = child_sample(w, state, &dev, o, &rep, samples);
	}
	/* Report before tearing down: a teardown that hangs loses no result. */
	note_own_usage(&rep);
	rep.status = rc;
	rep.cause = rc ? cause_of_status(rc) : RT_CAUSE_NONE;
	int ok = rt_write_all(fd, &rep, sizeof rep) == 0 &&
		 rt_write_all(fd, samples, sizeof(double) * (size_t)rep.nsamples) == 0;
	if (state)
		w->teardown(state);
	rt_backend_close_named(handle);
	_exit(ok ? 0 : 1);
}

/* Explains how the child ended when it sent no complete report; returns the cause. */
static rt_cause explain_exit(int status, int timed_out, double timeout_s, char *buf, size_t n)
{
	if (timed_out) {
		snprintf(buf, n, "timeout: no result after %.0f s", timeout_s);
		return RT_CAUSE_TIMEOUT;
	}
	if (WIFSIGNALED(status))
		snprintf(buf, n, "crashed: %s%s", strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "");
	else
		snprintf(buf, n, "exited with status %d before reporting",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return RT_CAUSE_CRASH;
}

int rt_measure(const rt_workload *w, const rt_point *pt, const rt_shape *sh,
	       const rt_measure_opts *o, rt_measurement *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->nphases = w->nphases;
	int fds[2];
	if (pipe(fds))
		return rt_fail(err, errlen, RT_ERUNTIME, "pipe: %s", strerror(errno));
	rt_measure_opts co = *o;
	if (!co.mem_cap)
		co.mem_cap = rt_measure_mem_cap();
	rt_memcap how = cap_how(pt, co.mem_cap);
	static rt_cpu_times before, after; /* large: not on the stack */
	int have_times = rt_cpu_times_read(&before) == 0;
	fflush(NULL);
	double t0 = rt_now();
	pid_t self = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return rt_fail(err, errlen, RT_ERUNTIME, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		rt_child_begin(self);
		close(fds[0]);
		child_main(fds[1], w, pt, sh, &co, how);
	}
	close(fds[1]);
	rt_drill("trial"); /* the parent dies while its trial runs */
	rt_memwatch mw;
	int watched = how == RT_MEMCAP_WATCHDOG &&
		      rt_memwatch_start(&mw, pid, 0, co.mem_cap) == RT_OK;

	child_report rep;
	double deadline = t0 + o->timeout_s;
	int timed_out = 0, got = rt_read_until(fds[0], &rep, sizeof rep, deadline, &timed_out) == 0;
	if (got && rep.status == RT_OK) {
		out->samples = malloc(sizeof(double) * (size_t)(rep.nsamples ? rep.nsamples : 1));
		got = out->samples && rt_read_until(fds[0], out->samples,
						    sizeof(double) * (size_t)rep.nsamples, deadline,
						    &timed_out) == 0;
	}
	out->seconds = rt_now() - t0;
	if (got && have_times && rt_cpu_times_read(&after) == 0)
		out->contention = rt_contention(&before, &after, &rep.cpus, out->seconds, rep.cpu_s);
	out->contended = out->contention > rt_contended_share();
	int over_cap = watched && rt_memwatch_stop(&mw); /* before the reaping: the pid is ours */
	/* the child tears down after reporting: give it a few seconds, no more */
	int status = rt_child_finish(pid, fds[0], timed_out ? 0 : rt_now() + TEARDOWN_GRACE_S, NULL);

	if (!got) {
		if (over_cap) {
			out->cause = RT_CAUSE_MEMORY;
			rt_memwatch_reason(co.mem_cap, mw.seen, out->reason, sizeof out->reason);
		} else {
			out->cause = explain_exit(status, timed_out, o->timeout_s, out->reason,
						  sizeof out->reason);
		}
		free(out->samples);
		out->samples = NULL;
		return RT_OK;
	}
	if (rep.status != RT_OK) { /* whatever the code: this point cannot run here */
		out->cause = rep.cause;
		snprintf(out->reason, sizeof out->reason, "%s", rep.reason);
		return RT_OK;
	}
	out->feasible = 1;
	memcpy(out->gemm_impl, rep.gemm_impl, sizeof out->gemm_impl);
	out->gemm_impl[sizeof out->gemm_impl - 1] = '\0';
	memcpy(out->monitor, rep.monitor, sizeof out->monitor);
	out->monitor[sizeof out->monitor - 1] = '\0';
	out->device_timed = rep.device_timed;
	out->device_busy = rep.device_busy;
	out->device_sampled = rep.device_sampled;
	out->device_busy_sampled = rep.device_busy_sampled;
	out->nsamples = rep.nsamples;
	out->step_seconds = rep.step_seconds;
	out->setup_seconds = rep.setup_s;
	for (int p = 0; p < w->nphases; p++)
		out->phase_frac[p] = rep.time_total > 0 ? rep.phase_total[p] / rep.time_total : 0;
	rt_measurement_summarize(out);
	out->gflops = out->median * rep.flops_per_item * 1e-9;
	return RT_OK;
}

void rt_measurement_summarize(rt_measurement *m)
{
	size_t n = (size_t)m->nsamples;
	m->median = rt_median(m->samples, n);
	rt_median_ci95(m->samples, n, &m->ci_lo, &m->ci_hi);
	m->cv = rt_cv(m->samples, n);
	m->unstable = m->cv > RT_UNSTABLE_CV;
}

void rt_measurement_free(rt_measurement *m)
{
	if (!m)
		return;
	free(m->samples);
	m->samples = NULL;
}
