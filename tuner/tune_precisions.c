/*
 * tune_precisions.c: the precisions of a finished search, per backend it
 * measured (tune_run.h): what the backend's device offers, which the tune
 * tried, why it did not try the others, and what each gave against fp32.
 */
#include <stdio.h>
#include <string.h>

#include "../common/rt.h"
#include "tune_run.h"

/* Whether the space's precision parameter (none: fp32 alone) lists precision q. */
static int in_space(const rt_space *s, int q)
{
	int p = rt_space_find(s, "precision");
	if (p < 0)
		return q == RT_FP32;
	for (int v = 0; v < rt_space_size(s, p); v++)
		if (rt_precision_parse(rt_space_str_at(s, p, v)) == q)
			return 1;
	return 0;
}

/* The entry of backend in out[0..*n), added when new and room is left; NULL otherwise. */
static rt_tune_precisions *entry(rt_tune_precisions *out, int max, int *n, const char *backend)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(out[i].backend, backend))
			return &out[i];
	if (*n == max)
		return NULL;
	rt_tune_precisions *e = &out[(*n)++];
	memset(e, 0, sizeof *e);
	snprintf(e->backend, sizeof e->backend, "%s", backend);
	return e;
}

/* What the trials of twl say: each backend's precisions tried, and the fastest at each. */
static int gather(const rt_tune_workload *twl, rt_tune_precisions *out, int max,
		  double fastest[][RT_NPRECISION])
{
	int n = 0;
	for (int i = 0; i < twl->ntrials; i++) {
		const rt_tune_trial *t = &twl->trials[i];
		rt_tune_precisions *e = entry(out, max, &n, t->pt.backend);
		if (!e)
			continue;
		int q = t->pt.precision, b = (int)(e - out);
		if (t->skipped) { /* not run: the first reason stands, unless it ran elsewhere */
			if (!e->why_not[q][0])
				snprintf(e->why_not[q], sizeof e->why_not[q], "%.120s", t->reason);
			continue;
		}
		e->tried |= RT_PREC_BIT(q);
		if (t->feasible && t->median > fastest[b][q])
			fastest[b][q] = t->median;
	}
	return n;
}

int rt_tune_precisions_of(const rt_tune_run *run, const rt_tune_workload *twl,
			  rt_tune_precisions *out, int max)
{
	double fastest[RT_MAX_BACKENDS][RT_NPRECISION] = {{0}};
	if (max > RT_MAX_BACKENDS)
		max = RT_MAX_BACKENDS;
	if (!twl->w || twl->minimize)
		return 0; /* a command's figures are its own; its precision is no knob of a device */
	int n = gather(twl, out, max, fastest);
	for (int b = 0; b < n; b++) {
		rt_tune_precisions *e = &out[b];
		const rt_accel *a = rt_machine_accel(&run->machine, e->backend);
		e->offered = a && a->ndevices > 0 ? a->dev[0].precisions : e->tried;
		for (int q = 0; q < RT_NPRECISION; q++) {
			if (fastest[b][RT_FP32] > 0 && fastest[b][q] > 0 && q != RT_FP32)
				e->vs_fp32[q] = fastest[b][q] / fastest[b][RT_FP32];
			if (!(e->offered & RT_PREC_BIT(q)) || (e->tried & RT_PREC_BIT(q)))
				e->why_not[q][0] = '\0';
			else if (!in_space(twl->space, q))
				snprintf(e->why_not[q], sizeof e->why_not[q], "not in the space");
			else if (!e->why_not[q][0])
				snprintf(e->why_not[q], sizeof e->why_not[q],
					 "not reached within the budget");
		}
	}
	return n;
}

/*
 * "on sim, tf32 gave 6.2x fp32's samples/s, bf16 9.3x, fp16 9.3x": what a
 * loop that trains in fp32 leaves unused on the backend of e, for the
 * precisions that beat fp32 by more than GAIN_SAID; "" when none does.
 */
#define GAIN_SAID 1.05
void rt_tune_precisions_gain(const rt_tune_precisions *e, const char *unit, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	for (int q = 0; q < RT_NPRECISION && n < len; q++) {
		if (e->vs_fp32[q] <= GAIN_SAID)
			continue;
		if (!n)
			n += (size_t)snprintf(buf, len, "on %s, the fastest %s point gave %.2gx the "
							 "fastest fp32 point's %s",
					      e->backend, rt_precision_name((rt_precision)q),
					      e->vs_fp32[q], unit);
		else
			n += (size_t)snprintf(buf + n, len - n, ", %s %.2gx",
					      rt_precision_name((rt_precision)q), e->vs_fp32[q]);
	}
}
