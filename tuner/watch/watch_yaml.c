/*
 * watch_yaml.c: the result of `rigtune watch` as YAML (docs/formats/watch.md):
 * the verdict and the shares first, the phases, the busiest threads, then
 * the time line as parallel columns, one value per tick.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../../common/rt.h"
#include "../yamlr.h"
#include "../yamlw.h"
#include "watch.h"

#define YAML_VERSION 1
#define THREADS_LISTED 20
/*
 * What a file may say, read back: every value the page's loops and
 * drawing, or an allocation, depend on is finite and within these (a time
 * of 1e300 s made the axis loop for ever, issue 47).
 */
#define MAX_SECONDS (400.0 * 86400) /* a time since the start: beyond any run */
#define MAX_CORES 1048576.0        /* a column of cores, as `cpus` */
#define MAX_DEVICES 64.0

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

/* The stretch the shares and the verdict cover: the steps, or the whole run. */
static void window_block(rt_yw *w, const rt_watch_run *r)
{
	rt_yw_str(w, "window");
	rt_yw_map(w, 1);
	rt_yw_kstr(w, "of", r->win_steps ? "steps" : "run");
	rt_yw_knum(w, "start_s", r->win0, 4);
	rt_yw_knum(w, "end_s", r->win1, 4);
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
	if (t && r->nthreads) { /* none seen (a command that ended at once): no array to copy */
		memcpy(t, r->threads, sizeof *t * (size_t)r->nthreads);
		qsort(t, (size_t)r->nthreads, sizeof *t, by_cpu);
		for (int i = 0; i < r->nthreads && i < THREADS_LISTED; i++) {
			rt_yw_map(w, 1);
			rt_yw_kint(w, "pid", t[i].pid);
			rt_yw_kint(w, "tid", t[i].tid);
			rt_yw_kstr(w, "comm", t[i].comm);
			rt_yw_knum(w, "cpu_s", t[i].cpu_s, 4);
			if (t[i].steps_cores >= 0)
				rt_yw_knum(w, "steps_cores", t[i].steps_cores, 3);
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
	column(w, r, "top_wanted", offsetof(rt_watch_tick, top_want), 3);
	column(w, r, "other", offsetof(rt_watch_tick, other), 3);
	if (r->ndevices) {
		column(w, r, "device", offsetof(rt_watch_tick, device), 3);
		column(w, r, "device_wait", offsetof(rt_watch_tick, wait), 3);
	}
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
	if (r->interrupted)
		rt_yw_kbool(&w, "interrupted", 1);
	rt_yw_kint(&w, "cpus", r->ncpus);
	rt_yw_knum(&w, "rate_hz", r->rate_hz, 4);
	rt_yw_knum(&w, "wall_s", r->wall_s, 5);
	rt_yw_kint(&w, "peak_rss_bytes", (long long)r->peak_rss);
	rt_yw_knum(&w, "sampler_cpu_s", r->sampler_cpu_s, 3);
	rt_yw_kstr(&w, "binding", rt_watch_class_name(r->binding));
	rt_yw_kstr(&w, "verdict", r->verdict);
	rt_yw_kstr(&w, "step", r->step);
	window_block(&w, r);
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

/* ---- reading it back (report --watch) ---- */

/* A column of the time line with exactly one value per tick; absent: each value -1. */
static int read_column(const rt_yr *y, const rt_ynode *line, const char *key, rt_watch_run *r,
		       size_t off, int need)
{
	double *v = NULL;
	int n = 0;
	if (!need && !rt_yr_get(y, line, key)) {
		for (int i = 0; i < r->nticks; i++)
			memcpy((char *)&r->ticks[i] + off, &(double){-1}, sizeof(double));
		return RT_OK;
	}
	RT_TRY(rt_yr_need_nums_in(y, line, key, -1, MAX_CORES, &v, &n));
	int rc = n == r->nticks ? RT_OK
				: rt_yr_bad(y, rt_yr_get(y, line, key),
					    "timeline.%s has %d values, timeline.t %d", key, n,
					    r->nticks);
	for (int i = 0; rc == RT_OK && i < n; i++)
		memcpy((char *)&r->ticks[i] + off, &v[i], sizeof v[i]);
	free(v);
	return rc;
}

/* A column of class indexes (class, phase), each within the legend. */
static int read_classes(const rt_yr *y, const rt_ynode *line, const char *key, rt_watch_run *r,
			size_t off)
{
	const rt_ynode *seq;
	RT_TRY(rt_yr_need(y, line, key, YAML_SEQUENCE_NODE, &seq));
	if (rt_yr_nitems(seq) != r->nticks)
		return rt_yr_bad(y, seq, "timeline.%s has %d values, timeline.t %d", key,
				 rt_yr_nitems(seq), r->nticks);
	for (int i = 0; i < r->nticks; i++) {
		long c;
		RT_TRY(rt_yr_integer(y, rt_yr_item(y, seq, i), key, 0, RT_WC_N - 1, &c));
		int v = (int)c;
		memcpy((char *)&r->ticks[i] + off, &v, sizeof v);
	}
	return RT_OK;
}

static int read_timeline(const rt_yr *y, const rt_ynode *root, rt_watch_run *r)
{
	const rt_ynode *line;
	double *t = NULL;
	RT_TRY(rt_yr_need(y, root, "timeline", YAML_MAPPING_NODE, &line));
	RT_TRY(rt_yr_need_nums_in(y, line, "t", 0, MAX_SECONDS, &t, &r->nticks));
	r->ticks = calloc((size_t)(r->nticks ? r->nticks : 1), sizeof *r->ticks);
	if (!r->ticks) {
		free(t);
		return RT_ENOMEM;
	}
	r->tcap = r->nticks;
	for (int i = 0; i < r->nticks; i++) {
		r->ticks[i].top_thread = -1; /* not written */
		r->ticks[i].t = t[i];
		r->ticks[i].dt = t[i] - (i ? t[i - 1] : 0);
		if (i && r->ticks[i].dt < 0) {
			free(t);
			return rt_yr_bad(y, rt_yr_get(y, line, "t"), "timeline.t goes back in time");
		}
	}
	free(t);
	RT_TRY(read_column(y, line, "cores", r, offsetof(rt_watch_tick, cores), 1));
	RT_TRY(read_column(y, line, "wanted", r, offsetof(rt_watch_tick, want), 1));
	RT_TRY(read_column(y, line, "top", r, offsetof(rt_watch_tick, top), 1));
	RT_TRY(read_column(y, line, "top_wanted", r, offsetof(rt_watch_tick, top_want), 1));
	RT_TRY(read_column(y, line, "other", r, offsetof(rt_watch_tick, other), 1));
	RT_TRY(read_column(y, line, "device", r, offsetof(rt_watch_tick, device), 0));
	RT_TRY(read_column(y, line, "device_wait", r, offsetof(rt_watch_tick, wait), 0));
	RT_TRY(read_classes(y, line, "class", r, offsetof(rt_watch_tick, cls)));
	return read_classes(y, line, "phase", r, offsetof(rt_watch_tick, phase));
}

static int read_metric(const rt_yr *y, const rt_ynode *root, rt_watch_run *r)
{
	const rt_ynode *m = rt_yr_get(y, root, "metric");
	double *t = NULL, *v = NULL;
	int nt = 0, nv = 0, rc;
	if (!m)
		return RT_OK;
	const char *re;
	RT_TRY(rt_yr_need_str(y, m, "regex", &re));
	if (strlen(re) > RT_WATCH_REGEX_MAX)
		return rt_yr_bad(y, rt_yr_get(y, m, "regex"), "metric.regex is %zu bytes, at most %d",
				 strlen(re), RT_WATCH_REGEX_MAX);
	snprintf(r->metric_regex, sizeof r->metric_regex, "%s", re);
	rc = rt_yr_need_nums_in(y, m, "t", 0, MAX_SECONDS, &t, &nt);
	if (rc == RT_OK)
		rc = rt_yr_need_nums_in(y, m, "value", -RT_YR_MAX_MEASURE, RT_YR_MAX_MEASURE, &v,
					&nv);
	if (rc == RT_OK && nt != nv)
		rc = rt_yr_bad(y, m, "metric.t has %d values, metric.value %d", nt, nv);
	if (rc == RT_OK && nt && !(r->metric = malloc(sizeof *r->metric * (size_t)nt)))
		rc = RT_ENOMEM;
	for (int i = 0; rc == RT_OK && i < nt; i++)
		r->metric[i] = (rt_watch_point){t[i], v[i]};
	r->nmetric = rc == RT_OK ? nt : 0;
	free(t);
	free(v);
	return rc;
}

static int read_shares(const rt_yr *y, const rt_ynode *root, rt_watch_run *r)
{
	const rt_ynode *s;
	const char *binding;
	RT_TRY(rt_yr_need(y, root, "shares", YAML_MAPPING_NODE, &s));
	for (int c = 0; c < RT_WC_N; c++)
		RT_TRY(rt_yr_need_num_in(y, s, rt_watch_class_name(c), 0, 1, &r->share[c]));
	RT_TRY(rt_yr_need_str(y, root, "binding", &binding));
	r->binding = rt_watch_class_parse(binding);
	return r->binding >= 0 ? RT_OK
			       : rt_yr_bad(y, rt_yr_get(y, root, "binding"),
					   "binding '%s' is no class of watch", binding);
}

static int read_device(const rt_yr *y, const rt_ynode *root, rt_watch_run *r)
{
	const rt_ynode *d;
	long n;
	RT_TRY(rt_yr_need(y, root, "device", YAML_MAPPING_NODE, &d));
	RT_TRY(rt_yr_need_int(y, d, "devices", 0, 64, &n));
	r->ndevices = (int)n;
	r->device_busy = r->monitor_zero = r->process_busy = -1;
	if (!n)
		return RT_OK;
	RT_TRY(rt_yr_need_num_in(y, d, "busy_share", 0, MAX_DEVICES, &r->device_busy));
	if (rt_yr_get(y, d, "monitor_zero_share"))
		RT_TRY(rt_yr_need_num_in(y, d, "monitor_zero_share", 0, 1, &r->monitor_zero));
	if (rt_yr_get(y, d, "monitor_readings")) {
		RT_TRY(rt_yr_need_int(y, d, "monitor_readings", 0, 1L << 30, &n));
		r->monitor_readings = (int)n;
	}
	if (rt_yr_get(y, d, "process_sm_share"))
		RT_TRY(rt_yr_need_num_in(y, d, "process_sm_share", 0, MAX_DEVICES,
					   &r->process_busy));
	return RT_OK;
}

/* The window (absent before it was written: the whole run). */
static int read_window(const rt_yr *y, const rt_ynode *root, rt_watch_run *r)
{
	const rt_ynode *w = rt_yr_get(y, root, "window");
	const char *of;
	r->win0 = 0;
	r->win1 = r->wall_s;
	if (!w)
		return RT_OK;
	RT_TRY(rt_yr_need_str(y, w, "of", &of));
	if (strcmp(of, "steps") && strcmp(of, "run"))
		return rt_yr_bad(y, rt_yr_get(y, w, "of"), "window.of is '%s', not steps or run",
				 of);
	r->win_steps = !strcmp(of, "steps");
	RT_TRY(rt_yr_need_num_in(y, w, "start_s", 0, MAX_SECONDS, &r->win0));
	RT_TRY(rt_yr_need_num_in(y, w, "end_s", 0, MAX_SECONDS, &r->win1));
	return r->win1 >= r->win0 ? RT_OK
				  : rt_yr_bad(y, w, "window ends (%g s) before it starts (%g s)",
					      r->win1, r->win0);
}

/* A thread's steps_cores: -1 where the file has none (no steps, or an older rigtune's). */
static int read_steps_cores(const rt_yr *y, const rt_ynode *t, double *v)
{
	*v = -1;
	if (!rt_yr_get(y, t, "steps_cores"))
		return RT_OK;
	RT_TRY(rt_yr_need_num(y, t, "steps_cores", v));
	return *v >= 0 && *v <= 4096 ? RT_OK
				     : rt_yr_bad(y, rt_yr_get(y, t, "steps_cores"),
						 "steps_cores: %g is not a count of cores", *v);
}

/* The busiest threads as listed (the verdict names them and counts their processes). */
static int read_threads(const rt_yr *y, const rt_ynode *root, rt_watch_run *r)
{
	const rt_ynode *seq = rt_yr_get(y, root, "threads");
	if (!seq)
		return RT_OK;
	RT_TRY(rt_yr_need(y, root, "threads", YAML_SEQUENCE_NODE, &seq));
	int n = rt_yr_nitems(seq);
	if (n > THREADS_LISTED)
		return rt_yr_bad(y, seq, "threads lists %d, at most %d", n, THREADS_LISTED);
	r->threads = calloc((size_t)(n ? n : 1), sizeof *r->threads);
	if (!r->threads)
		return RT_ENOMEM;
	r->thcap = n;
	for (int i = 0; i < n; i++) {
		const rt_ynode *t = rt_yr_item(y, seq, i);
		const char *comm;
		long pid, tid;
		RT_TRY(rt_yr_need_int(y, t, "pid", 0, 1L << 31, &pid));
		RT_TRY(rt_yr_need_int(y, t, "tid", 0, LONG_MAX, &tid));
		RT_TRY(rt_yr_need_str(y, t, "comm", &comm));
		RT_TRY(rt_yr_need_num_in(y, t, "cpu_s", 0, MAX_SECONDS * MAX_CORES,
					   &r->threads[i].cpu_s));
		RT_TRY(read_steps_cores(y, t, &r->threads[i].steps_cores));
		r->threads[i].pid = (int)pid;
		r->threads[i].tid = tid;
		snprintf(r->threads[i].comm, sizeof r->threads[i].comm, "%s", comm);
		r->nthreads = i + 1;
	}
	return RT_OK;
}

static int read_text(const rt_yr *y, const rt_ynode *root, const char *key, char *buf,
		     size_t len)
{
	const char *s;
	RT_TRY(rt_yr_need_str(y, root, key, &s));
	snprintf(buf, len, "%s", s);
	return RT_OK;
}

static int read_doc(const rt_yr *y, rt_watch_run *r)
{
	const rt_ynode *root = rt_yr_root(y);
	long cpus;
	RT_TRY(rt_yr_need_schema(y, root, "watch", YAML_VERSION, "a watch result",
				  "rigtune watch -o FILE"));
	RT_TRY(read_text(y, root, "command", r->command, sizeof r->command));
	RT_TRY(read_text(y, root, "verdict", r->verdict, sizeof r->verdict));
	RT_TRY(read_text(y, root, "step", r->step, sizeof r->step));
	RT_TRY(rt_yr_need_int(y, root, "cpus", 1, 1 << 20, &cpus));
	r->ncpus = (int)cpus;

	RT_TRY(rt_yr_need_num_in(y, root, "wall_s", 0, MAX_SECONDS, &r->wall_s));
	RT_TRY(read_window(y, root, r));
	RT_TRY(read_shares(y, root, r));
	RT_TRY(read_device(y, root, r));
	RT_TRY(read_threads(y, root, r));
	RT_TRY(read_metric(y, root, r));
	r->read_back = 1;
	return read_timeline(y, root, r);
}

int rt_watch_load(const char *path, rt_watch_run *r, char *err, size_t errlen)
{
	rt_yr y;
	memset(r, 0, sizeof *r);
	RT_TRY(rt_yr_load_file(&y, path, err, errlen));
	int rc = read_doc(&y, r);
	if (rc == RT_ENOMEM)
		rt_fail(err, errlen, rc, "out of memory reading %s", path);
	rt_yr_free(&y);
	if (rc)
		rt_watch_free(r);
	return rc;
}
