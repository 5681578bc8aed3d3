#include "measure_yaml.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contention.h"
#include "../workloads/knobs.h"

void rt_emit_point(rt_yw *w, const rt_point *pt, const rt_workload *wl)
{
	rt_yw_map(w, 1);
	for (int i = 0; i < RT_NKNOBS; i++) {
		const rt_knob *k = &rt_knobs[i];
		char text[64];
		if (!rt_knob_written(k, pt, wl))
			continue;
		if (k->kind == RT_KNOB_INT)
			rt_yw_kint(w, k->name, rt_knob_get(k, pt));
		else
			rt_yw_kstr(w, k->name, rt_knob_text(k, pt, text, sizeof text));
	}
	rt_yw_end_map(w);
}

void rt_emit_shape(rt_yw *w, const rt_workload *wl, const rt_shape *sh)
{
	rt_yw_map(w, 1);
	for (int i = 0; i < wl->nkeys; i++)
		rt_yw_kint(w, wl->keys[i].name, sh->v[i]);
	rt_yw_end_map(w);
}

/* Significant digits of a number: `human` when rounding for people, else enough to round-trip. */
static int digits(int exact, int human)
{
	return exact ? 17 : human;
}

void rt_emit_throughput(rt_yw *w, const char *unit, double median, double ci_lo,
			double ci_hi, double cv, int exact)
{
	rt_yw_str(w, "throughput");
	rt_yw_map(w, 1);
	rt_yw_knum(w, "median", median, digits(exact, 6));
	double ci[2] = {ci_lo, ci_hi};
	rt_yw_knums(w, "ci95", ci, 2, digits(exact, 6));
	rt_yw_kstr(w, "unit", unit);
	rt_yw_knum(w, "cv", cv, digits(exact, 3));
	rt_yw_kbool(w, "unstable", cv > RT_UNSTABLE_CV);
	rt_yw_end_map(w);
}

/*
 * The median every reader divides by or plots: a number (a NaN reached
 * gnuplot, an infinity the grid's JSON), above zero for a rate, and within
 * RT_YR_MAX_MEASURE (1e300 made the report's gnuplot fail on "inf").
 */
static int check_median(const rt_yr *r, const rt_ynode *n, double median, int rate)
{
	const rt_ynode *at = rt_yr_get(r, n, "median");
	if (!isfinite(median))
		return rt_yr_bad(r, at, "median: expected a finite number");
	if (rate && !(median > 0))
		return rt_yr_bad(r, at, "median: a throughput must be above 0, found %g", median);
	return rt_yr_in_range(r, at, "median", -RT_YR_MAX_MEASURE, RT_YR_MAX_MEASURE, median);
}

int rt_read_throughput(const rt_yr *r, const rt_ynode *map, int rate, rt_throughput *t)
{
	const rt_ynode *n;
	double ci[2];
	int rc = rt_yr_need(r, map, "throughput", YAML_MAPPING_NODE, &n);
	if (rc == RT_OK)
		rc = rt_yr_need_num(r, n, "median", &t->median);
	if (rc == RT_OK)
		rc = check_median(r, n, t->median, rate);
	if (rc == RT_OK)
		rc = rt_yr_need_pair_in(r, n, "ci95", -RT_YR_MAX_MEASURE, RT_YR_MAX_MEASURE, ci);
	if (rc == RT_OK) {
		t->ci_lo = ci[0];
		t->ci_hi = ci[1];
		rc = rt_yr_need_str(r, n, "unit", &t->unit);
	}
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, n, "cv", -RT_YR_MAX_MEASURE, RT_YR_MAX_MEASURE, &t->cv);
	return rc;
}

/*
 * The device computes under this share of its phases' wall time: host-side
 * launches and small kernels set their pace, and a faster device would not.
 */
#define LAUNCH_BOUND_BELOW 0.5
/* The device's verdict is given when its phases take at least this share of a step. */
#define DEVICE_PHASES_MIN 0.5

/*
 * Whether the step's device phases (those not in host_phases) are
 * launch-bound or device-bound, from the device's busy share of the step
 * measured by its events: appended to sentence ("; " after any text in it).
 * Nothing when the device was not timed (device_busy < 0) or its phases
 * take less than DEVICE_PHASES_MIN of the step (the host phases are the
 * bottleneck then, and the workload's sentence says so). The events cannot
 * tell the phases apart: the share is the device's time over all of them.
 */
static void device_verdict(const rt_workload *wl, const double *phase_frac, double device_busy,
			   char *sentence, size_t len)
{
	char names[160] = "";
	double share = 0;
	size_t n = len ? strlen(sentence) : 0;
	for (int p = 0; p < wl->nphases; p++)
		if (!(wl->host_phases & (1u << p))) {
			share += phase_frac[p];
			rt_list_append(names, sizeof names, ", ", wl->phase_names[p]);
		}
	if (device_busy < 0 || share < DEVICE_PHASES_MIN || n + 1 >= len)
		return;
	double busy = fmin(1.0, device_busy / share); /* async work may spill into host phases */
	const char *sep = n ? "; " : "";
	if (busy < LAUNCH_BOUND_BELOW)
		snprintf(sentence + n, len - n,
			 "%slaunch-bound: the device is busy %.0f%% of its phases (%s: %.0f%% of "
			 "each step); host-side kernel launches and small kernels set their pace, so "
			 "more work per kernel (a larger batch or minibatch), fewer and fused kernels "
			 "or CUDA/HIP graphs help, and a faster device would not",
			 sep, 100 * busy, names, 100 * share);
	else
		snprintf(sentence + n, len - n,
			 "%sdevice-bound: the device is busy %.0f%% of its phases (%s: %.0f%% of "
			 "each step); a faster device or a lower precision helps",
			 sep, 100 * busy, names, 100 * share);
}

int rt_derive(const rt_workload *wl, const rt_point *pt, const rt_shape *sh, double median,
	      const double *phase_frac, double step_seconds, double device_busy,
	      int usable_cores, rt_derived *out, char *sentence, size_t len)
{
	double sec[RT_MAX_PHASES] = {0};
	int n = 0;
	if (len)
		sentence[0] = '\0';
	if (wl->derive) {
		for (int p = 0; p < wl->nphases; p++)
			sec[p] = phase_frac[p] * step_seconds;
		n = wl->derive(pt, sh, median, sec, usable_cores, out, sentence, len);
	}
	device_verdict(wl, phase_frac, device_busy, sentence, len);
	return n < RT_MAX_DERIVED ? n : RT_MAX_DERIVED;
}

/* The workload's own figures (tokens/s, device busy) and its bottleneck sentence. */
static void emit_derived(rt_yw *w, const rt_workload *wl, const rt_point *pt,
			 const rt_shape *sh, const rt_measurement *m, int usable_cores)
{
	rt_derived d[RT_MAX_DERIVED];
	char sentence[1024];
	int n = rt_derive(wl, pt, sh, m->median, m->phase_frac, m->step_seconds,
			  m->device_timed ? m->device_busy : -1, usable_cores, d, sentence,
			  sizeof sentence);
	for (int i = 0; i < n; i++)
		rt_yw_knum(w, d[i].name, d[i].value, 5);
	if (sentence[0])
		rt_yw_kstr(w, "bottleneck", sentence);
}

int rt_device_busy_note(const rt_workload *wl, const rt_measurement *m, char *buf, size_t len)
{
	char phases[256] = "";
	if (!m->device_timed || !m->device_sampled ||
	    !(m->device_busy_sampled < 0.5 * m->device_busy))
		return 0;
	for (int p = 0; p < wl->nphases; p++)
		if (wl->host_phases & (1u << p)) {
			char one[64];
			snprintf(one, sizeof one, "%s %.0f%%", wl->phase_names[p],
				 100 * m->phase_frac[p]);
			rt_list_append(phases, sizeof phases, ", ", one);
		}
	int n = snprintf(buf, len, "%s sampled the device %.0f%% busy where its own events "
			 "measured %.0f%%: ",
			 m->monitor[0] ? m->monitor : "the monitor", 100 * m->device_busy_sampled,
			 100 * m->device_busy);
	if (n < 0 || (size_t)n >= len)
		return 1;
	if (phases[0])
		snprintf(buf + n, len - (size_t)n,
			 "the device works in bursts between the CPU phases that starve it (%s of "
			 "each step), and the monitor's periodic samples land in those gaps, a "
			 "sampling artifact; the events are the figure to trust",
			 phases);
	else
		snprintf(buf + n, len - (size_t)n,
			 "the device works in bursts that the monitor's periodic samples miss, a "
			 "sampling artifact; the events are the figure to trust");
	return 1;
}

/*
 * What the GEMMs ran on, the device's busy share from its events and from
 * its monitor, and (for people) the sentence when the two disagree.
 */
static void emit_device(rt_yw *w, const rt_workload *wl, const rt_measurement *m, int exact)
{
	char note[768];
	if (m->gemm_impl[0])
		rt_yw_kstr(w, "gemm_impl", m->gemm_impl);
	if (m->device_timed)
		rt_yw_knum(w, "device_busy", m->device_busy, digits(exact, 3));
	if (m->device_sampled) {
		rt_yw_knum(w, "device_busy_sampled", m->device_busy_sampled, digits(exact, 3));
		rt_yw_kstr(w, "monitor", m->monitor);
	}
	if (!exact && rt_device_busy_note(wl, m, note, sizeof note))
		rt_yw_kstr(w, "device_busy_note", note);
}

void rt_emit_measurement_fields(rt_yw *w, const rt_workload *wl, const rt_point *pt,
				const rt_shape *sh, const rt_measurement *m, int exact,
				int usable_cores)
{
	rt_yw_kstr(w, "workload", wl->name);
	rt_yw_str(w, "point");
	rt_emit_point(w, pt, exact ? NULL : wl);
	rt_yw_str(w, "shape");
	rt_emit_shape(w, wl, sh);
	if (!m->feasible) {
		rt_yw_kstr(w, "infeasible", m->reason);
		rt_yw_kstr(w, "cause", rt_cause_name(m->cause));
		rt_yw_knum(w, "seconds", m->seconds, digits(exact, 3));
		return;
	}
	rt_emit_throughput(w, wl->unit, m->median, m->ci_lo, m->ci_hi, m->cv, exact);
	rt_yw_knum(w, "gflops", m->gflops, digits(exact, 5));
	rt_yw_knum(w, "step_seconds", m->step_seconds, digits(exact, 5));
	rt_yw_str(w, "phases");
	rt_yw_map(w, 1);
	for (int p = 0; p < m->nphases; p++)
		rt_yw_knum(w, wl->phase_names[p], m->phase_frac[p], digits(exact, 3));
	rt_yw_end_map(w);
	emit_device(w, wl, m, exact);
	if (!exact)
		emit_derived(w, wl, pt, sh, m, usable_cores);
	rt_yw_knum(w, "seconds", m->seconds, digits(exact, 3));
	/* others' share of the trial's CPUs: above rt_contended_share(), the figures are low */
	rt_yw_knum(w, "contention", m->contention, digits(exact, 2));
	if (!exact && m->contended)
		rt_yw_kstr(w, "contended", "other processes used the trial's CPUs: the figures "
					   "are lower than this machine gives");
	rt_yw_knums(w, "samples", m->samples, (size_t)m->nsamples, digits(exact, 6));
}
