/*
 * watch_yaml.c: the result of `rigtune watch` as YAML (docs/formats/watch.md):
 * the verdict and the shares first, the phases, the busiest threads, then
 * the time line as parallel columns, one value per tick.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../../common/rt.h"
#include "../yamlw.h"
#include "watch.h"

#define YAML_VERSION 1
#define THREADS_LISTED 20

static void device_block(rt_yw *w, const rt_watch_run *r)
{
	rt_yw_str(w, "device");
	rt_yw_map(w, 0);
	rt_yw_kstr(w, "source", r->device_source);
	rt_yw_kint(w, "devices", r->ndevices);
	if (!r->ndevices) {
		rt_yw_kstr(w, "why", r->device_why);
	} else {
		rt_yw_knum(w, "busy_share", r->device_busy, 3);
		if (r->process_busy >= 0)
			rt_yw_knum(w, "process_sm_share", r->process_busy, 3);
		rt_yw_kint(w, "monitor_readings", r->monitor_readings);
		if (r->monitor_zero >= 0)
			rt_yw_knum(w, "monitor_zero_share", r->monitor_zero, 3);
	}
	rt_yw_end_map(w);
}

static void shares_block(rt_yw *w, const rt_watch_run *r)
{
	rt_yw_str(w, "shares");
	rt_yw_map(w, 0);
	for (int c = 0; c < RT_WC_N; c++)
		rt_yw_knum(w, rt_watch_class_name(c), r->share[c], 3);
	rt_yw_end_map(w);
}

static void phases_block(rt_yw *w, const rt_watch_run *r)
{
	rt_yw_str(w, "phases");
	rt_yw_seq(w, 0);
	for (int i = 0; i < r->nphases; i++) {
		const rt_watch_phase *p = &r->phases[i];
		rt_yw_map(w, 1);
		rt_yw_kstr(w, "class", rt_watch_class_name(p->cls));
		rt_yw_knum(w, "start_s", p->t0, 4);
		rt_yw_knum(w, "end_s", p->t1, 4);
		rt_yw_knum(w, "cores", p->cores, 3);
		rt_yw_knum(w, "wanted", p->want, 3);
		rt_yw_knum(w, "top_share", p->top, 3);
		if (p->top_thread >= 0)
			rt_yw_kstr(w, "thread", r->threads[p->top_thread].comm);
		if (p->device >= 0)
			rt_yw_knum(w, "device", p->device, 3);
		rt_yw_end_map(w);
	}
	rt_yw_end_seq(w);
}

static int by_cpu(const void *a, const void *b)
{
	double x = ((const rt_watch_thread *)a)->cpu_s, y = ((const rt_watch_thread *)b)->cpu_s;
	return (x < y) - (x > y);
}

/* The busiest threads (a sorted copy: the ticks index r's own order). */
static void threads_block(rt_yw *w, const rt_watch_run *r)
{
	rt_watch_thread *t = malloc(sizeof *t * (size_t)(r->nthreads ? r->nthreads : 1));
	rt_yw_str(w, "threads");
	rt_yw_seq(w, 0);
	if (t) {
		memcpy(t, r->threads, sizeof *t * (size_t)r->nthreads);
		qsort(t, (size_t)r->nthreads, sizeof *t, by_cpu);
		for (int i = 0; i < r->nthreads && i < THREADS_LISTED; i++) {
			rt_yw_map(w, 1);
			rt_yw_kint(w, "pid", t[i].pid);
			rt_yw_kint(w, "tid", t[i].tid);
			rt_yw_kstr(w, "comm", t[i].comm);
			rt_yw_knum(w, "cpu_s", t[i].cpu_s, 4);
			rt_yw_end_map(w);
		}
	}
	free(t);
	rt_yw_end_seq(w);
}

/* One column of the time line: the field at offset `off` of every tick. */
static void column(rt_yw *w, const rt_watch_run *r, const char *key, size_t off, int digits)
{
	double *v = malloc(sizeof *v * (size_t)(r->nticks ? r->nticks : 1));
	if (!v) {
		w->failed = 1;
		return;
	}
	for (int i = 0; i < r->nticks; i++)
		memcpy(&v[i], (const char *)&r->ticks[i] + off, sizeof v[i]);
	rt_yw_knums(w, key, v, (size_t)r->nticks, digits);
	free(v);
}

/* A column of class indexes: the int field at offset `off` of every tick. */
static void classes(rt_yw *w, const rt_watch_run *r, const char *key, size_t off)
{
	rt_yw_str(w, key);
	rt_yw_seq(w, 1);
	for (int i = 0; i < r->nticks; i++) {
		int v;
		memcpy(&v, (const char *)&r->ticks[i] + off, sizeof v);
		rt_yw_int(w, v);
	}
	rt_yw_end_seq(w);
}

static void timeline_block(rt_yw *w, const rt_watch_run *r)
{
	rt_yw_str(w, "timeline");
	rt_yw_map(w, 0);
	column(w, r, "t", offsetof(rt_watch_tick, t), 5);
	column(w, r, "cores", offsetof(rt_watch_tick, cores), 3);
	column(w, r, "wanted", offsetof(rt_watch_tick, want), 3);
	column(w, r, "top", offsetof(rt_watch_tick, top), 3);
	column(w, r, "other", offsetof(rt_watch_tick, other), 3);
	if (r->ndevices)
		column(w, r, "device", offsetof(rt_watch_tick, device), 3);
	rt_yw_str(w, "classes"); /* the legend of class and phase: their index in it */
	rt_yw_seq(w, 1);
	for (int c = 0; c < RT_WC_N; c++)
		rt_yw_str(w, rt_watch_class_name(c));
	rt_yw_end_seq(w);
	classes(w, r, "class", offsetof(rt_watch_tick, cls));
	classes(w, r, "phase", offsetof(rt_watch_tick, phase));
	rt_yw_end_map(w);
}

static void metric_block(rt_yw *w, const rt_watch_run *r)
{
	double *t = malloc(sizeof *t * (size_t)(r->nmetric + 1)),
	       *v = malloc(sizeof *v * (size_t)(r->nmetric + 1));
	rt_yw_str(w, "metric");
	rt_yw_map(w, 0);
	rt_yw_kstr(w, "regex", r->metric_regex);
	if (t && v) {
		for (int i = 0; i < r->nmetric; i++) {
			t[i] = r->metric[i].t;
			v[i] = r->metric[i].v;
		}
		rt_yw_knums(w, "t", t, (size_t)r->nmetric, 5);
		rt_yw_knums(w, "value", v, (size_t)r->nmetric, 6);
	} else {
		w->failed = 1;
	}
	rt_yw_end_map(w);
	free(t);
	free(v);
}

int rt_watch_yaml(const rt_watch_run *r, char **text, size_t *len, char *err, size_t errlen)
{
	rt_yw w;
	RT_TRY(rt_yw_start_doc(&w, "watch", YAML_VERSION, err, errlen));
	rt_yw_kstr(&w, "command", r->command);
	rt_yw_kint(&w, "pid", r->pid);
	if (r->exited && WIFEXITED(r->status))
		rt_yw_kint(&w, "exit_status", WEXITSTATUS(r->status));
	else if (r->exited && WIFSIGNALED(r->status))
		rt_yw_kint(&w, "killed_by_signal", WTERMSIG(r->status));
	rt_yw_kint(&w, "cpus", r->ncpus);
	rt_yw_knum(&w, "rate_hz", r->rate_hz, 4);
	rt_yw_knum(&w, "wall_s", r->wall_s, 5);
	rt_yw_kint(&w, "peak_rss_bytes", (long long)r->peak_rss);
	rt_yw_knum(&w, "sampler_cpu_s", r->sampler_cpu_s, 3);
	rt_yw_kstr(&w, "binding", rt_watch_class_name(r->binding));
	rt_yw_kstr(&w, "verdict", r->verdict);
	rt_yw_kstr(&w, "step", r->step);
	shares_block(&w, r);
	device_block(&w, r);
	phases_block(&w, r);
	threads_block(&w, r);
	if (r->metric_regex[0])
		metric_block(&w, r);
	timeline_block(&w, r);
	rt_yw_end_map(&w);
	return rt_yw_finish(&w, text, len, err, errlen);
}
