/*
 * sweep_plan.c: what a sweep may vary and what it costs, from a
 * recommendation and the journal of the tune that wrote it.
 *
 * The batch values are those of the workload's search space (the embedded
 * default) and those the journal's trials ran, from the knee up. A value
 * fits when tune ran it or a larger one at the same backend, device,
 * precision and shape; it does not when it or a smaller one failed for
 * memory; between and above what tune reached, the workload's memory model
 * decides against RT_SWEEP_MEM_SHARE of the device's memory (the
 * configuration's machine section). Throughput comes from the trials at
 * exactly the recommended knobs: measured, interpolated in log2 of the
 * batch between two measured values, or held at the largest measured one.
 */
#include <stdarg.h>
#include <hwloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../workloads/knobs.h"
#include "../journal.h"
#include "../pin.h"
#include "../spaces.h"
#include "sweep.h"
#include "../apply.h"

const char *rt_sweep_source_name(rt_sweep_source s)
{
	static const char *const names[] = {
		[RT_SRC_MEASURED] = "measured",
		[RT_SRC_INTERPOLATED] = "interpolated",
		[RT_SRC_EXTRAPOLATED] = "extrapolated",
	};
	return names[s];
}

static void note(rt_sweep_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(rt_sweep_plan *plan, const char *fmt, ...)
{
	size_t used = strlen(plan->notes);
	if (used + 2 >= sizeof plan->notes)
		return;
	if (used)
		plan->notes[used++] = ' ';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(plan->notes + used, sizeof plan->notes - used, fmt, ap);
	va_end(ap);
}

/* ---- the knee key of a point ---------------------------------------------- */

static long axis_get(const rt_sweep_plan *plan, const rt_point *pt, const rt_shape *sh)
{
	int k = rt_shape_index(plan->w, plan->axis);
	return k >= 0 ? sh->v[k] : pt->batch;
}

static void axis_set(const rt_sweep_plan *plan, rt_point *pt, rt_shape *sh, long v)
{
	int k = rt_shape_index(plan->w, plan->axis);
	if (k >= 0)
		sh->v[k] = v;
	else
		pt->batch = (int)v;
}

/* Same shape but for the knee key. */
static int same_shape(const rt_sweep_plan *plan, const rt_shape *a)
{
	int k = rt_shape_index(plan->w, plan->axis);
	for (int i = 0; i < plan->w->nkeys; i++)
		if (i != k && a->v[i] != plan->shape.v[i])
			return 0;
	return 1;
}

/* Same memory: what the memory model depends on, the knee key aside. */
static int same_memory(const rt_sweep_plan *plan, const rt_point *pt, const rt_shape *sh)
{
	return !strcmp(pt->backend, plan->point.backend) && pt->device == plan->point.device &&
	       pt->precision == plan->point.precision && same_shape(plan, sh);
}

/* Same knobs: every knob the workload reads, the knee key aside. */
static int same_knobs(const rt_sweep_plan *plan, const rt_point *pt, const rt_shape *sh)
{
	return same_shape(plan, sh) && rt_point_same_but(pt, &plan->point, plan->w, plan->w->knee);
}

/* ---- what tune measured ------------------------------------------------------ */

/* A measured throughput at one value of the knee key. */
typedef struct tp_point {
	long value;
	double median;
} tp_point;

typedef struct evidence {
	tp_point tp[256];
	int ntp;
	long largest_ok;   /* largest value that ran (same memory), 0 if none */
	long first_failed; /* smallest value that failed for memory, 0 if none */
	long seen[256];    /* every value of the knee key tune tried */
	int nseen;
} evidence;

static void add_seen(evidence *e, long v)
{
	for (int i = 0; i < e->nseen; i++)
		if (e->seen[i] == v)
			return;
	if (e->nseen < (int)RT_COUNT(e->seen))
		e->seen[e->nseen++] = v;
}

/* A later measurement of the same value replaces an earlier one. */
static void add_tp(evidence *e, long v, double median)
{
	for (int i = 0; i < e->ntp; i++)
		if (e->tp[i].value == v) {
			e->tp[i].median = median;
			return;
		}
	if (e->ntp < (int)RT_COUNT(e->tp))
		e->tp[e->ntp++] = (tp_point){v, median};
}

static void add_trial(const rt_sweep_plan *plan, evidence *e, const rt_point *pt,
		      const rt_shape *sh, int feasible, rt_cause cause, double median)
{
	long v = axis_get(plan, pt, sh);
	add_seen(e, v);
	if (!same_memory(plan, pt, sh))
		return;
	if (feasible && v > e->largest_ok)
		e->largest_ok = v;
	if (!feasible && cause == RT_CAUSE_MEMORY && (!e->first_failed || v < e->first_failed))
		e->first_failed = v;
	if (feasible && same_knobs(plan, pt, sh))
		add_tp(e, v, median);
}

static int cmp_tp(const void *a, const void *b)
{
	const tp_point *x = a, *y = b;
	return (x->value > y->value) - (x->value < y->value);
}

static int cmp_long(const void *a, const void *b)
{
	const long *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

static void read_journal(rt_sweep_plan *plan, evidence *e)
{
	char path[2200], why[RT_ERRLEN];
	rt_journal_record *recs = NULL;
	size_t n = 0;
	if (!plan->cfg->journal) {
		note(plan, "The configuration names no journal: memory above the knee is estimated.");
		return;
	}
	if (!rt_config_locate(plan->cfg, plan->cfg->journal, path, sizeof path)) {
		note(plan, "Its journal %s is not here: memory above the knee is estimated.",
		     plan->cfg->journal);
		return;
	}
	if (rt_journal_load(path, &recs, &n, NULL, NULL, why, sizeof why)) {
		note(plan, "Its journal is unreadable (%s): memory above the knee is estimated.", why);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (recs[i].workload == plan->w &&
		    !strcmp(recs[i].fingerprint, plan->cfg->fingerprint))
			add_trial(plan, e, &recs[i].point, &recs[i].shape, recs[i].m.feasible,
				  recs[i].m.cause, recs[i].m.median);
	rt_journal_records_free(recs, n);
}

/* The recommended and the fastest point count as measured even without a journal. */
static int add_config_points(const rt_sweep_plan *plan, evidence *e, char *err, size_t errlen)
{
	const rt_config_point *pts[] = {&plan->rec->recommended, &plan->rec->fastest};
	for (size_t i = 0; i < RT_COUNT(pts); i++) {
		rt_point pt;
		rt_shape sh;
		RT_TRY(rt_config_point_decode(plan->cfg, pts[i], plan->w, &pt, &sh, err, errlen));
		add_trial(plan, e, &pt, &sh, 1, RT_CAUSE_NONE, pts[i]->median);
	}
	return RT_OK;
}

/* The values of the knee key in the workload's default search space. */
static void add_space_values(const rt_sweep_plan *plan, evidence *e)
{
	rt_space *s = NULL;
	char why[RT_ERRLEN];
	if (rt_space_for(plan->w, NULL, 1, &s, why, sizeof why))
		return;
	int p = rt_space_find(s, plan->axis);
	for (int i = 0; p >= 0 && i < rt_space_size(s, p); i++)
		add_seen(e, rt_space_int_at(s, p, i));
	rt_space_destroy(s);
}

/* ---- memory ------------------------------------------------------------------ */

/* The memory a value is estimated against: read from the machine section once a value needs it. */
typedef struct memory {
	int read;
	double gib; /* 0 where the section does not say it */
} memory;

/*
 * The recommended device's memory in GiB (the host's available memory for a
 * host backend) from the configuration's machine section, as the machine's
 * reader reads it; RT_EINVAL at its place when the section cannot be read.
 */
static int device_gib(const rt_sweep_plan *plan, memory *mem, char *err, size_t errlen)
{
	if (mem->read)
		return RT_OK;
	rt_machine *m = malloc(sizeof *m);
	if (!m)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	rt_yr view = rt_yr_with_err(&plan->cfg->yr, err, errlen);
	int rc = rt_machine_read(&view, plan->cfg->machine, m, NULL);
	if (rc == RT_OK) {
		const rt_accel *a = rt_machine_accel(m, plan->point.backend);
		int dev = plan->point.device;
		mem->read = 1;
		if (rt_backend_on_host(plan->point.backend))
			mem->gib = rt_machine_gib(m->mem_available);
		else if (a && dev >= 0 && dev < a->ndevices)
			mem->gib = rt_machine_gib(a->dev[dev].mem_total);
	}
	free(m);
	return rc;
}

static double model_gib(const rt_sweep_plan *plan, long v)
{
	rt_point pt = plan->point;
	rt_shape sh = plan->shape;
	axis_set(plan, &pt, &sh, v);
	return (double)plan->w->mem_bytes(&pt, &sh) / (1u << 30);
}

/*
 * Whether value v fits (*fit); when it does not, says why in plan->limit.
 * The values come in increasing order and the first that does not fit ends
 * the list (memory grows along the knee key). RT_EINVAL when v needs the
 * machine's memory and its section cannot be read.
 */
static int fits(rt_sweep_plan *plan, const evidence *e, long v, memory *mem, int *fit,
		int *measured, char *err, size_t errlen)
{
	const char *unit = plan->axis;
	*measured = e->largest_ok && v <= e->largest_ok;
	*fit = 0;
	if (e->first_failed && v >= e->first_failed) {
		snprintf(plan->limit, sizeof plan->limit,
			 "%s=%ld ran out of memory in tune: the sweep stops below it", unit,
			 e->first_failed);
		return RT_OK;
	}
	*fit = *measured;
	if (*measured)
		return RT_OK;
	RT_TRY(device_gib(plan, mem, err, errlen));
	double need = model_gib(plan, v), dev_gib = mem->gib;
	if (dev_gib <= 0) {
		snprintf(plan->limit, sizeof plan->limit,
			 "%s=%ld did not run in tune and the configuration gives no memory size "
			 "to estimate it against",
			 unit, v);
		return RT_OK;
	}
	if (need > RT_SWEEP_MEM_SHARE * dev_gib) {
		snprintf(plan->limit, sizeof plan->limit,
			 "%s=%ld would need %.2f GiB by the memory model, more than %.0f%% of "
			 "the %.2f GiB of %s memory",
			 unit, v, need, 100 * RT_SWEEP_MEM_SHARE, dev_gib,
			 rt_backend_on_host(plan->point.backend) ? "available host" : "device");
		return RT_OK;
	}
	*fit = 1;
	return RT_OK;
}

/* ---- throughput -------------------------------------------------------------- */

static void throughput_at(const evidence *e, long v, rt_sweep_batch *b)
{
	const tp_point *t = e->tp;
	int n = e->ntp;
	for (int i = 0; i < n; i++)
		if (t[i].value == v) {
			b->throughput = t[i].median;
			b->source = RT_SRC_MEASURED;
			return;
		}
	b->source = RT_SRC_EXTRAPOLATED;
	if (v < t[0].value) {
		b->throughput = t[0].median;
		return;
	}
	for (int i = 0; i + 1 < n; i++)
		if (t[i].value < v && v < t[i + 1].value) {
			double x = (log2((double)v) - log2((double)t[i].value)) /
				   (log2((double)t[i + 1].value) - log2((double)t[i].value));
			b->throughput = t[i].median + x * (t[i + 1].median - t[i].median);
			b->source = RT_SRC_INTERPOLATED;
			return;
		}
	b->throughput = t[n - 1].median;
}

/* ---- binding -------------------------------------------------------------------- */

static void pus_of(rt_sweep_plan *plan)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	if (plan->point.pin == RT_PIN_NONE)
		return;
	if (strcmp(host, plan->cfg->hostname)) {
		note(plan,
		     "The configuration is of host %s, not this one (%s): no CPU list to bind to, "
		     "only the environment.",
		     plan->cfg->hostname, host);
		return;
	}
	hwloc_topology_t t;
	if (hwloc_topology_init(&t))
		return;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int n = (int)rt_point_cores(&plan->point); /* threads + workers */
	if (set && !hwloc_topology_load(t) && rt_pin_cpuset(t, plan->point.pin, n, set) == RT_OK) {
		unsigned pu;
		hwloc_bitmap_foreach_begin(pu, set)
		{
			if (plan->npus < RT_SWEEP_MAX_PUS)
				plan->pus[plan->npus++] = (int)pu;
		}
		hwloc_bitmap_foreach_end();
	} else {
		note(plan, "hwloc could not load this machine's topology: no CPU list to bind to.");
	}
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(t);
}

/* ---- the plan ------------------------------------------------------------------- */

void rt_sweep_workload_names(char *buf, size_t len)
{
	int count;
	const rt_workload *const *all = rt_workload_list(&count);
	char one[64];
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < count; i++) {
		if (!all[i]->knee)
			continue;
		snprintf(one, sizeof one, "%s (%s)", all[i]->name, all[i]->knee);
		rt_list_append(buf, len, ", ", one);
	}
}

static int find_entry(const rt_config *c, const char *name, rt_sweep_plan *plan, char *err,
		      size_t errlen)
{
	plan->rec = rt_config_find(c, name);
	if (!plan->rec) {
		char have[512] = "";
		for (int i = 0; i < c->nrecs; i++)
			snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s",
				 i ? ", " : "", c->recs[i].name);
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s has no recommendation for workload '%s' (it has: %s); run "
			       "`rigtune tune --workload %s`",
			       c->path, name, c->nrecs ? have : "none", name);
	}
	if (plan->rec->none)
		return rt_fail(err, errlen, RT_EINVAL, "%s: %s has no recommendation: %s", c->path,
			       name, plan->rec->none);
	plan->w = rt_workload_find(name);
	if (!plan->w || !plan->w->knee) {
		char sweepable[256];
		rt_sweep_workload_names(sweepable, sizeof sweepable);
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s: '%s' is not a built-in workload with a batch to sweep (%s)",
			       c->path, name, sweepable);
	}
	plan->axis = plan->w->knee;
	return RT_OK;
}

static int build_batches(rt_sweep_plan *plan, evidence *e, char *err, size_t errlen)
{
	memory mem = {0, 0};
	qsort(e->seen, (size_t)e->nseen, sizeof e->seen[0], cmp_long);
	qsort(e->tp, (size_t)e->ntp, sizeof e->tp[0], cmp_tp);
	snprintf(plan->limit, sizeof plan->limit,
		 "%s=%ld is the largest value of the search space and the journal",
		 plan->axis, e->nseen ? e->seen[e->nseen - 1] : plan->knee);
	for (int i = 0; i < e->nseen && plan->nbatch < RT_SWEEP_MAX_BATCH; i++) {
		long v = e->seen[i];
		int fit, measured;
		if (v < plan->knee)
			continue;
		RT_TRY(fits(plan, e, v, &mem, &fit, &measured, err, errlen));
		if (!fit)
			break;
		rt_sweep_batch *b = &plan->batch[plan->nbatch++];
		b->value = v;
		b->fit_measured = measured;
		b->mem_gib = model_gib(plan, v);
		throughput_at(e, v, b);
		b->seconds = plan->steps * (double)v / b->throughput;
	}
	return RT_OK;
}

int rt_sweep_plan_make(const rt_config *c, const rt_sweep_opts *o, rt_sweep_plan *plan,
		       char *err, size_t errlen)
{
	memset(plan, 0, sizeof *plan);
	plan->cfg = c;
	plan->steps = o->steps_per_trial;
	plan->trials = o->trials;
	RT_TRY(find_entry(c, o->workload, plan, err, errlen));
	RT_TRY(rt_config_point_decode(c, &plan->rec->recommended, plan->w, &plan->point,
				      &plan->shape, err, errlen));
	plan->knee = axis_get(plan, &plan->point, &plan->shape);
	plan->fixed = &plan->rec->recommended.point;
	plan->env = &plan->rec->env;
	/* the generated script exports them: the variables a configuration may set (apply.h) */
	RT_TRY(rt_env_check(c, plan->env, NULL, 0, err, errlen));

	evidence *e = calloc(1, sizeof *e);
	if (!e)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	int rc = add_config_points(plan, e, err, errlen);
	if (rc == RT_OK) {
		add_space_values(plan, e);
		read_journal(plan, e);
		rc = build_batches(plan, e, err, errlen);
	}
	free(e);
	if (rc == RT_OK && plan->nbatch == 0)
		rc = rt_fail(err, errlen, RT_EINVAL, "%s: no %s fits from the knee (%ld) up: %s",
			     c->path, plan->axis, plan->knee, plan->limit);
	if (rc == RT_OK)
		pus_of(plan);
	return rc;
}

double rt_sweep_mean_seconds(const rt_sweep_plan *plan)
{
	double sum = 0;
	for (int i = 0; i < plan->nbatch; i++)
		sum += plan->batch[i].seconds;
	return plan->nbatch ? sum / plan->nbatch : 0;
}

void rt_sweep_duration(double s, char *buf, size_t len)
{
	if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 5400)
		snprintf(buf, len, "%.0f min", s / 60);
	else if (s < 3 * 86400)
		snprintf(buf, len, "%ld h %02ld min", lround(s / 60) / 60, lround(s / 60) % 60);
	else
		snprintf(buf, len, "%.1f days", s / 86400);
}
