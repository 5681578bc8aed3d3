#include "crossover.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "backends.h"
#include "cli.h"
#include "../workloads/loader.h"
#include "machine.h"
#include "measure.h"
#include "plot.h"

#define BOOTSTRAP_REPS 200
#define BOOTSTRAP_SEED 20261122u
#define SHAPED_MAX_BATCH 1024
#define SHAPED_MAX_GFLOP 40.0 /* per step: keeps a CPU sweep point under ~0.5 s */
#define RT_XO_MAX_JOBS (2 * RT_MAX_BACKENDS * RT_NPRECISION)

/* ---- sweeps ---- */

/* Appends every sample of a trial as (n, seconds per step) observations. */
static int add_samples(rt_replay *r, const rt_curve *id, const char *prec, double n,
		       double gflop_per_step, const rt_measurement *m, char *err, size_t errlen)
{
	for (int i = 0; i < m->nsamples; i++) {
		int rc = rt_replay_add_curve(r, id, prec, n, gflop_per_step / m->samples[i], err,
					     errlen);
		if (rc)
			return rc;
	}
	return RT_OK;
}

typedef struct curve_job {
	rt_curve id;
	rt_point pt;
	int shaped;      /* -1: square; else the index of the step GEMM */
} curve_job;

int rt_crossover_shape_of(const rt_workload *w, const rt_shape *sh, rt_crossover_shape *out, char *err,
		   size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (!w->step_gemms)
		return rt_fail(err, errlen, RT_EINVAL, "%s lists no GEMMs of its step", w->name);
	out->w = w;
	out->sh = *sh;
	out->ngemm = w->step_gemms(sh, out->gemm, &out->rows);
	out->given = out->ngemm > 0;
	return out->given
	           ? RT_OK
	           : rt_fail(err, errlen, RT_EINVAL, "%s lists no GEMMs of its step", w->name);
}

/* The GEMM m x n x k of sweep position i; 0 when past the end of the sweep. */
static int sweep_size(const curve_job *job, const rt_crossover_shape *shape, double max_n, int i,
		      long *m, long *n, long *k)
{
	if (job->shaped < 0) {
		double s = 32 * pow(2, i / 2.0);
		if (s > max_n * 1.0001)
			return 0;
		*m = *n = *k = lround(s);
		return 1;
	}
	long batch = 1L << i;
	*m = batch * shape->rows;
	*k = shape->gemm[job->shaped].k;
	*n = shape->gemm[job->shaped].n;
	return batch <= SHAPED_MAX_BATCH && 2e-9 * (double)*m * (double)*n * (double)*k <= SHAPED_MAX_GFLOP;
}

/* The GEMM workload's shape for an m x k times k x n product. */
static void gemm_shape(const rt_workload *w, long m, long n, long k, int transfer, rt_shape *sh)
{
	rt_shape_default(w, sh);
	sh->v[rt_shape_known(w, "m")] = m;
	sh->v[rt_shape_known(w, "n")] = n;
	sh->v[rt_shape_known(w, "k")] = k;
	sh->v[rt_shape_known(w, "transfer")] = transfer;
}

/* Notes what the GEMMs of curve label/prec ran on, once per curve. */
static void note_impl(rt_crossover_data *d, const char *label, const char *prec, const char *impl)
{
	char curve[48];
	snprintf(curve, sizeof curve, "%s/%s", label, prec);
	for (int i = 0; i < d->nimpl; i++)
		if (!strcmp(d->impl[i].curve, curve))
			return;
	if (!impl[0] || d->nimpl == RT_CROSSOVER_MAX_IMPL)
		return;
	snprintf(d->impl[d->nimpl].curve, sizeof d->impl[0].curve, "%s", curve);
	snprintf(d->impl[d->nimpl++].impl, sizeof d->impl[0].impl, "%s", impl);
}

/* How a sweep measures one size. */
static void sweep_measure_opts(const rt_crossover_sweep_opts *o, rt_measure_opts *mo)
{
	rt_measure_defaults(mo);
	mo->warmup_s = 0.05;
	mo->time_cap_s = o->seconds_per_point;
	mo->min_samples = 5;
	mo->rel_ci = 0.03;
	mo->timeout_s = 30 + 10 * o->seconds_per_point;
	if (o->max_samples > 0)
		mo->max_samples = o->max_samples;
}

/*
 * Measures job's curve at sweep position i into r (and what ran it into d);
 * *fits 0 when the size did not run (larger ones will not either).
 */
static int measure_size(const curve_job *job, const rt_crossover_sweep_opts *o,
			const rt_crossover_shape *shape, int i, rt_replay *r, rt_crossover_data *d,
			int *fits, char *err, size_t errlen)
{
	const rt_workload *w = rt_workload_builtin(RT_GEMM_WORKLOAD);
	const char *prec = rt_precision_name(job->pt.precision);
	rt_measure_opts mo;
	rt_shape sh;
	rt_measurement meas;
	long m, n, k;
	char label[24];
	sweep_measure_opts(o, &mo);
	rt_curve_label(&job->id, label, sizeof label);
	RT_BUG_ON(!sweep_size(job, shape, o->max_n, i, &m, &n, &k));
	gemm_shape(w, m, n, k, job->id.xfer, &sh);
	int rc = o->measure ? o->measure(o->measure_user, &job->pt, &sh, &mo, &meas, err, errlen)
			    : rt_measure(w, &job->pt, &sh, &mo, &meas, err, errlen);
	if (rc == RT_OK && o->stop && o->stop()) {
		rt_measurement_free(&meas);
		rc = rt_fail(err, errlen, RT_ERUNTIME, "interrupted");
	}
	if (rc)
		return rc;
	if (!o->quiet)
		rt_tprintf(stderr, "rigtune: crossover %s/%s %ldx%ldx%ld: %s\n", label, prec, m, n, k,
			   meas.feasible ? "ok" : meas.reason);
	if (meas.feasible)
		note_impl(d, label, prec, meas.gemm_impl);
	if (meas.feasible)
		rc = add_samples(r, &job->id, prec, job->shaped < 0 ? (double)n : (double)m,
				 2e-9 * (double)m * (double)n * (double)k, &meas, err, errlen);
	*fits = meas.feasible;
	rt_measurement_free(&meas);
	return rc;
}

static int past_deadline(const rt_crossover_sweep_opts *o)
{
	return o->deadline > 0 && rt_clock_now() > o->deadline;
}

/* A shaped curve, its sizes in ascending order until one does not fit or the deadline. */
static int measure_curve(const curve_job *job, const rt_crossover_sweep_opts *o,
			 const rt_crossover_shape *shape, rt_replay *r, rt_crossover_data *d, char *err,
			 size_t errlen)
{
	long m, n, k;
	int fits = 1, rc = RT_OK;
	for (int i = 0; fits && !rc && !past_deadline(o) && sweep_size(job, shape, o->max_n, i, &m,
										  &n, &k);
	     i++)
		rc = measure_size(job, o, shape, i, r, d, &fits, err, errlen);
	return rc;
}

/*
 * The order in which a sweep of count sizes visits them, coarse to fine:
 * the smallest, the largest, the middle, then the middles of the halves,
 * and so on ({0, 10, 5, 2, 7, 1, 3, 6, 8, 4, 9} for 11), so that a sweep cut
 * short has each curve's range covered rather than its small end alone.
 */
int rt_crossover_size_order(int count, int *order)
{
	int n = 0, lo[2 * RT_CROSSOVER_MAX_SIZES], hi[2 * RT_CROSSOVER_MAX_SIZES], head = 0, tail = 0;
	count = count < RT_CROSSOVER_MAX_SIZES ? count : RT_CROSSOVER_MAX_SIZES;
	if (count <= 0)
		return 0;
	order[n++] = 0;
	if (count > 1)
		order[n++] = count - 1;
	lo[tail] = 0, hi[tail++] = count - 1;
	while (head < tail) {
		int a = lo[head], b = hi[head++];
		if (b - a < 2)
			continue;
		int mid = a + (b - a) / 2;
		order[n++] = mid;
		RT_BUG_ON(tail + 2 > 2 * RT_CROSSOVER_MAX_SIZES);
		lo[tail] = a, hi[tail++] = mid;
		lo[tail] = mid, hi[tail++] = b;
	}
	return n;
}

/*
 * The square curves of jobs in passes: each pass measures every curve at the
 * next size of rt_crossover_size_order, so that every curve has three sizes
 * (what a fit needs) before any has a fourth, whatever the deadline leaves.
 * A size that does not run ends its curve's larger sizes.
 */
static int sweep_square(curve_job *jobs, int nj, const rt_crossover_sweep_opts *o,
			const rt_crossover_shape *shape, rt_crossover_data *d, char *err,
			size_t errlen)
{
	int count = 0, order[RT_CROSSOVER_MAX_SIZES], end[RT_XO_MAX_JOBS], rc = RT_OK;
	long m, n, k;
	while (count < RT_CROSSOVER_MAX_SIZES && nj > 0 && sweep_size(&jobs[0], shape, o->max_n, count, &m, &n, &k))
		count++;
	int passes = rt_crossover_size_order(count, order);
	for (int j = 0; j < nj; j++)
		end[j] = count;
	for (int p = 0; p < passes && !rc; p++)
		for (int j = 0; j < nj && !rc; j++) {
			int fits = 1;
			if (past_deadline(o))
				return RT_OK;
			if (order[p] >= end[j])
				continue;
			rc = measure_size(&jobs[j], o, shape, order[p], d->square, d, &fits, err, errlen);
			if (!fits)
				end[j] = order[p];
		}
	return rc;
}

static bool wanted(const rt_crossover_sweep_opts *o, const char *name)
{
	if (!o->backends)
		return true;
	for (int i = 0; i < o->nbackends; i++)
		if (!strcmp(o->backends[i], name))
			return true;
	return false;
}

/* The curves to measure for one available backend, into jobs; returns how many. */
static int backend_jobs(const rt_accel *a, const rt_crossover_sweep_opts *o, int precision,
			curve_job *jobs)
{
	int nj = 0;
	rt_point pt;
	rt_point_default(&pt);
	snprintf(pt.backend, sizeof pt.backend, "%s", a->backend);
	pt.precision = (rt_precision)precision;
	rt_curve id = {0};
	snprintf(id.backend, sizeof id.backend, "%s", a->backend);
	if (rt_backend_on_host(a->backend)) {
		int counts[2] = {o->usable_cores, 1};
		for (int i = 0; i < (o->usable_cores > 1 ? 2 : 1); i++) {
			pt.threads = id.threads = counts[i];
			jobs[nj++] = (curve_job){id, pt, -1};
		}
		return nj;
	}
	pt.threads = 1;
	for (int x = 0; x < 2; x++) {
		id.xfer = x;
		jobs[nj++] = (curve_job){id, pt, -1};
	}
	return nj;
}

static void append_reason(char *buf, size_t len, const rt_accel *a)
{
	size_t used = strlen(buf);
	snprintf(buf + used, len - used, "%s%s: %s", used ? "; " : "", a->backend, a->reason);
}

int rt_crossover_sweep(const rt_crossover_sweep_opts *o, const rt_crossover_shape *shape, rt_crossover_data *data,
		char *skipped, size_t skippedlen, char *err, size_t errlen)
{
	rt_machine *probed = NULL;
	const rt_machine *mach = o->machine;
	if (!mach) {
		if (!(probed = calloc(1, sizeof *probed)))
			return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		rt_probe_accelerators(probed);
		mach = probed;
	}
	memset(data, 0, sizeof *data);
	skipped[0] = '\0';
	int rc = RT_ENOMEM;
	data->square = rt_replay_new();
	for (int g = 0; g < shape->ngemm && shape->given; g++)
		if (!(data->shaped[g] = rt_replay_new()))
			goto out;
	if (!data->square)
		goto out;
	rc = RT_OK;
	curve_job jobs[RT_XO_MAX_JOBS];
	int nj = 0, first[RT_XO_MAX_JOBS], nfirst = 0; /* first: each backend's whole-device curve */
	for (int b = 0; b < mach->naccel; b++) {
		const rt_accel *a = &mach->accel[b];
		if (!wanted(o, a->backend))
			continue;
		if (!a->available) {
			append_reason(skipped, skippedlen, a);
			continue;
		}
		for (int p = 0; p < RT_NPRECISION && nj + 2 <= RT_XO_MAX_JOBS; p++) {
			if (!(o->precisions & RT_PREC_BIT(p) & a->dev[0].precisions))
				continue;
			first[nfirst++] = nj;
			nj += backend_jobs(a, o, p, jobs + nj);
		}
	}
	rc = sweep_square(jobs, nj, o, shape, data, err, errlen);
	/* shaped sweeps: the curve that uses the whole device */
	for (int f = 0; f < nfirst && rc == RT_OK && shape->given; f++)
		for (int g = 0; g < shape->ngemm && rc == RT_OK; g++) {
			curve_job sj = jobs[first[f]];
			sj.shaped = g;
			rc = measure_curve(&sj, o, shape, data->shaped[g], data, err, errlen);
		}
	if (rc == RT_OK && data->square->ncurves == 0)
		rc = rt_fail(err, errlen, RT_ERUNTIME, "no curve could be measured%s%s",
			     skipped[0] ? ": " : "", skipped);
out:
	if (rc == RT_ENOMEM)
		rt_fail(err, errlen, rc, "out of memory");
	if (rc)
		rt_crossover_data_free(data);
	free(probed);
	return rc;
}

int rt_crossover_curve_point(const rt_replay_curve *c, long n, rt_point *pt, rt_shape *sh,
			     char *err, size_t errlen)
{
	const rt_workload *w = rt_workload_builtin(RT_GEMM_WORKLOAD);
	int p = rt_precision_parse(c->precision);
	if (!rt_backend_known(c->id.backend) || p < 0)
		return rt_fail(err, errlen, RT_EINVAL, "curve %s/%s: no such backend or precision",
			       c->backend, c->precision);
	rt_point_default(pt);
	snprintf(pt->backend, sizeof pt->backend, "%s", c->id.backend);
	pt->precision = (rt_precision)p;
	pt->threads = c->id.threads > 0 ? c->id.threads : 1;
	rt_shape_default(w, sh);
	sh->v[rt_shape_known(w, "m")] = sh->v[rt_shape_known(w, "n")] = n;
	sh->v[rt_shape_known(w, "k")] = n;
	sh->v[rt_shape_known(w, "transfer")] = c->id.xfer;
	return RT_OK;
}

int rt_crossover_measure_again(const rt_crossover_sweep_opts *o, rt_replay *r, size_t curve,
			       long n, double *seconds, char *err, size_t errlen)
{
	rt_point pt;
	rt_shape sh;
	rt_measure_opts mo;
	rt_measurement meas;
	const rt_workload *w = rt_workload_builtin(RT_GEMM_WORKLOAD);
	/* copied: adding samples may move the curves */
	rt_curve id = r->curves[curve].id;
	char prec[16];
	snprintf(prec, sizeof prec, "%s", r->curves[curve].precision);
	sweep_measure_opts(o, &mo);
	int rc = rt_crossover_curve_point(&r->curves[curve], n, &pt, &sh, err, errlen);
	if (rc == RT_OK)
		rc = rt_measure(w, &pt, &sh, &mo, &meas, err, errlen);
	if (rc)
		return rc;
	*seconds = meas.seconds;
	if (meas.feasible)
		rc = add_samples(r, &id, prec, (double)n, 2e-9 * (double)n * (double)n * (double)n,
				 &meas, err, errlen);
	rt_measurement_free(&meas);
	return rc;
}

void rt_crossover_data_free(rt_crossover_data *d)
{
	rt_replay_free(d->square);
	for (int g = 0; g < RT_MAX_STEP_GEMMS; g++)
		rt_replay_free(d->shaped[g]);
	memset(d, 0, sizeof *d);
}

/* ---- analysis: the fits, then what they say; numbers only ---- */

static void curve_name(const rt_replay_curve *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", c->backend, c->precision);
}

static void fits_free(rt_crossover_fits *f)
{
	if (f->outlier)
		for (size_t i = 0; i < f->r->ncurves; i++)
			free(f->outlier[i]);
	free(f->outlier);
	free(f->fit);
	free(f->name);
	memset(f, 0, sizeof *f);
}

static int fit_all(const rt_replay *r, rt_crossover_fits *f, char *err, size_t errlen)
{
	f->r = r;
	f->fit = calloc(r->ncurves, sizeof *f->fit);
	f->outlier = calloc(r->ncurves, sizeof *f->outlier);
	f->name = calloc(r->ncurves, sizeof *f->name);
	if (!f->fit || !f->outlier || !f->name)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	for (size_t i = 0; i < r->ncurves; i++) {
		const rt_replay_curve *c = &r->curves[i];
		rt_series s = rt_replay_series(c);
		char why[256];
		curve_name(c, f->name[i], sizeof f->name[i]);
		if (!(f->outlier[i] = calloc(c->count, sizeof(bool))))
			return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		if (rt_fit_curve(&s, &f->fit[i], f->outlier[i], why, sizeof why))
			return rt_fail(err, errlen, RT_EINVAL, "curve %s/%s: %s", c->backend,
				       c->precision, why);
	}
	return RT_OK;
}

/*
 * Curves that stand for their backend in pairs: per (base, precision), the
 * one with the most threads; transfer variants stand on their own.
 */
static bool representative(const rt_replay *r, size_t i)
{
	const rt_curve *ci = &r->curves[i].id;
	for (size_t j = 0; j < r->ncurves; j++) {
		const rt_curve *cj = &r->curves[j].id;
		if (j != i && !strcmp(ci->backend, cj->backend) && ci->xfer == cj->xfer &&
		    !strcmp(r->curves[i].precision, r->curves[j].precision) &&
		    cj->threads > ci->threads)
			return false;
	}
	return true;
}

/* The curve of the shaped fits with the same label, or -1. */
static long shaped_index(const rt_crossover_fits *sf, const rt_replay_curve *c)
{
	return sf->r ? rt_replay_find(sf->r, c->backend, c->precision) : -1;
}

/*
 * The smallest batch that puts every GEMM of a step past n_star, with the
 * per-GEMM crossovers in m from the shaped fits where both curves have one
 * (sf NULL: none, every GEMM takes the square crossover's flop-equivalent).
 */
static void find_min_batch(const rt_crossover_shape *shape, double n_star, const rt_crossover_fits *sf,
			   const rt_replay_curve *c0, const rt_replay_curve *c1, const char *who,
			   rt_crossover_model *out)
{
	rt_step_gemm g[RT_MAX_STEP_GEMMS];
	RT_BUG_ON(shape->ngemm < 0 || shape->ngemm > RT_MAX_STEP_GEMMS);
	for (int k = 0; k < shape->ngemm; k++)
		g[k] = (rt_step_gemm){shape->gemm[k].name, (double)shape->gemm[k].k,
				      (double)shape->gemm[k].n, NAN};
	for (int k = 0; sf && k < shape->ngemm; k++) {
		long i0 = shaped_index(&sf[k], c0), i1 = shaped_index(&sf[k], c1);
		rt_crossover cx;
		if (i0 >= 0 && i1 >= 0 &&
		    rt_crossover_solve(&sf[k].fit[i0], &sf[k].fit[i1], &cx, NULL, 0) == RT_OK &&
		    cx.kind == RT_CROSS_IN_RANGE)
			g[k].m_star = cx.n_star;
	}
	size_t binding;
	out->given = 1;
	snprintf(out->error, sizeof out->error, "no batch found");
	if (rt_fit_min_batch(n_star, (double)shape->rows, g, (size_t)shape->ngemm,
			     &out->min_batch, &binding, out->error, sizeof out->error))
		return;
	out->found = 1;
	out->binding_gemm = shape->gemm[binding].name;
	if (isnan(g[binding].m_star))
		snprintf(out->basis, sizeof out->basis, "square crossover, flop-equivalent");
	else
		snprintf(out->basis, sizeof out->basis, "%s-shaped sweep", shape->w->name);
	snprintf(out->summary, sizeof out->summary,
		 "batch >= %ld (%ld rows per sample) puts every GEMM of a %s step in the "
		 "range where %s wins",
		 out->min_batch, shape->rows, shape->w->name, who);
}

/* One pair of backends at one precision: n*, its CI, and what it means for the model. */
static void solve_pair(const rt_crossover_analysis *a, const rt_crossover_shape *shape, rt_crossover_pair *p)
{
	const rt_crossover_fits *f = &a->square;
	const rt_replay_curve *c0 = &f->r->curves[p->i], *c1 = &f->r->curves[p->j];
	p->n_star = NAN;
	snprintf(p->error, sizeof p->error, "no crossover could be solved");
	if (rt_crossover_solve(&f->fit[p->i], &f->fit[p->j], &p->cx, p->error, sizeof p->error))
		return;
	p->solved = 1;
	const char *n0 = f->name[p->i], *n1 = f->name[p->j];
	rt_crossover_describe(&p->cx, n0, n1, p->summary, sizeof p->summary);
	if (p->cx.kind == RT_CROSS_NONE) {
		p->winner = p->cx.winner == 1 ? n1 : n0;
		return;
	}
	p->n_star = p->cx.n_star;
	p->faster = p->cx.faster_above ? n1 : n0;
	rt_series s0 = rt_replay_series(c0), s1 = rt_replay_series(c1);
	char err[256];
	p->has_ci = rt_crossover_bootstrap(&s0, &s1, BOOTSTRAP_REPS, 0.95, BOOTSTRAP_SEED, &p->ci,
					   err, sizeof err) == RT_OK;
	if (shape->given)
		find_min_batch(shape, p->n_star, a->shaped, c0, c1, p->faster, &p->model);
}

/* The pairs of curves worth a crossover: different backends, one precision. */
static int solve_pairs(rt_crossover_analysis *a, const rt_crossover_shape *shape, char *err, size_t errlen)
{
	const rt_replay *r = a->square.r;
	for (size_t i = 0; i < r->ncurves; i++)
		for (size_t j = i + 1; j < r->ncurves; j++) {
			if (!strcmp(r->curves[i].id.backend, r->curves[j].id.backend) ||
			    strcmp(r->curves[i].precision, r->curves[j].precision) ||
			    !representative(r, i) || !representative(r, j))
				continue;
			rt_crossover_pair *grown = realloc(a->pairs, (a->npairs + 1) * sizeof *grown);
			if (!grown)
				return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
			a->pairs = grown;
			rt_crossover_pair *p = &a->pairs[a->npairs++];
			*p = (rt_crossover_pair){.i = i, .j = j};
			solve_pair(a, shape, p);
		}
	return RT_OK;
}

/* A backend measured at 1 and N threads: from which size N pays, best count per range. */
static void solve_threads(const rt_crossover_analysis *a, const rt_crossover_shape *shape, rt_crossover_threads *t)
{
	const rt_crossover_fits *f = &a->square;
	const rt_replay_curve *c1 = &f->r->curves[t->one], *cn = &f->r->curves[t->many];
	snprintf(t->backend, sizeof t->backend, "%s", cn->id.backend);
	t->threads = cn->id.threads;
	t->pays_from = NAN;
	snprintf(t->error, sizeof t->error, "no crossover could be solved");
	if (rt_fit_threads_pay_from(&f->fit[t->one], &f->fit[t->many], &t->pays_from, &t->cx,
				    t->error, sizeof t->error))
		return;
	t->solved = 1;
	if (isinf(t->pays_from) && t->cx.kind == RT_CROSS_IN_RANGE) {
		/* one thread takes over at large n: more threads pay only below n* */
		snprintf(t->summary, sizeof t->summary, "%d threads beat 1 thread only below n=%.0f",
			 t->threads, t->cx.n_star);
	} else if (isinf(t->pays_from)) {
		snprintf(t->summary, sizeof t->summary,
			 "%d threads never beat 1 thread in the measured range", t->threads);
	} else {
		t->extrapolated = t->pays_from < t->cx.range_lo || t->pays_from > t->cx.range_hi;
		snprintf(t->summary, sizeof t->summary, "%d threads beat 1 thread from n=%.0f%s",
			 t->threads, t->pays_from,
			 t->extrapolated ? " (extrapolated beyond the measured range)" : "");
	}
	rt_fit fits[2] = {f->fit[t->one], f->fit[t->many]};
	int threads[2] = {1, t->threads};
	char err[256];
	t->has_best = rt_fit_best_threads(fits, threads, 2, t->best, RT_COUNT(t->best), &t->nbest,
					  err, sizeof err) == RT_OK;
	if (shape->given && isfinite(t->pays_from)) {
		char who[64];
		snprintf(who, sizeof who, "%d threads", t->threads);
		find_min_batch(shape, t->pays_from, NULL, c1, cn, who, &t->model);
	}
}

/* Every backend measured at 1 thread and at more, at one precision. */
static int solve_all_threads(rt_crossover_analysis *a, const rt_crossover_shape *shape, char *err,
			     size_t errlen)
{
	const rt_replay *r = a->square.r;
	for (size_t one = 0; one < r->ncurves; one++) {
		const rt_curve *lo = &r->curves[one].id;
		if (lo->threads != 1)
			continue;
		for (size_t many = 0; many < r->ncurves; many++) {
			const rt_curve *lm = &r->curves[many].id;
			if (lm->threads <= 1 || strcmp(lo->backend, lm->backend) ||
			    strcmp(r->curves[one].precision, r->curves[many].precision) ||
			    !representative(r, many))
				continue;
			rt_crossover_threads *grown = realloc(a->threads, (a->nthreads + 1) * sizeof *grown);
			if (!grown)
				return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
			a->threads = grown;
			rt_crossover_threads *t = &a->threads[a->nthreads++];
			*t = (rt_crossover_threads){.one = one, .many = many};
			snprintf(t->precision, sizeof t->precision, "%s", r->curves[many].precision);
			solve_threads(a, shape, t);
		}
	}
	return RT_OK;
}

int rt_crossover_fit(const rt_crossover_data *d, const rt_crossover_shape *shape, rt_crossover_analysis *a, char *err,
	      size_t errlen)
{
	memset(a, 0, sizeof *a);
	int rc = fit_all(d->square, &a->square, err, errlen);
	for (int k = 0; k < RT_MAX_STEP_GEMMS && rc == RT_OK; k++)
		if (d->shaped[k] && d->shaped[k]->ncurves)
			rc = fit_all(d->shaped[k], &a->shaped[k], err, errlen);
	if (rc == RT_OK)
		rc = solve_pairs(a, shape, err, errlen);
	if (rc == RT_OK)
		rc = solve_all_threads(a, shape, err, errlen);
	if (rc)
		rt_crossover_analysis_free(a);
	return rc;
}

void rt_crossover_analysis_free(rt_crossover_analysis *a)
{
	if (!a)
		return;
	fits_free(&a->square);
	for (int k = 0; k < RT_MAX_STEP_GEMMS; k++)
		fits_free(&a->shaped[k]);
	free(a->pairs);
	free(a->threads);
	memset(a, 0, sizeof *a);
}

/* ---- the analysis as a chart ---- */

int rt_crossover_plot(const rt_crossover_analysis *a, const char *svg, char *note, size_t notelen)
{
	const rt_crossover_fits *f = &a->square;
	size_t n = f->r->ncurves, nmarks = 0;
	rt_plot_mark marks[16];
	for (size_t i = 0; i < a->npairs && nmarks < RT_COUNT(marks); i++)
		if (a->pairs[i].has_ci)
			marks[nmarks++] = (rt_plot_mark){a->pairs[i].n_star, a->pairs[i].ci.lo,
							 a->pairs[i].ci.hi, "n*"};
	rt_plot_curve *pc = calloc(n, sizeof *pc);
	char err[256], gp[4096];
	int rc = RT_OK;
	note[0] = '\0';
	if (!pc)
		return rt_fail(note, notelen, RT_ENOMEM, "plot: out of memory");
	for (size_t i = 0; i < n; i++)
		pc[i] = (rt_plot_curve){f->name[i], rt_replay_series(&f->r->curves[i]),
					f->outlier[i], &f->fit[i]};
	rt_plot_outcome outcome;
	if ((rc = rt_plot_write(svg, "GEMM time against size", pc, n, marks, nmarks, &outcome, err,
				sizeof err)))
		rt_fail(note, notelen, rc, "plot: %s", err);
	else if (outcome == RT_PLOT_NO_GNUPLOT &&
		 rt_plot_script_path(svg, gp, sizeof gp, err, sizeof err) == RT_OK)
		snprintf(note, notelen, "gnuplot not installed: wrote %s; run gnuplot %s", gp, gp);
	else
		snprintf(note, notelen, "plot written to %s", svg);
	free(pc);
	return rc;
}
