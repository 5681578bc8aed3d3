/*
 * crossover_doc.c: the analysis as a document, the `crossover:` mapping of
 * `rigtune crossover`'s output and of a configuration (crossover.h): its
 * writer and, beside it, its reader, so that the two name the same keys.
 * A curve's label is read into its rt_curve here, where it comes in.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crossover.h"
#include "measure_yaml.h"

/* ---- the writer: the analysis as YAML ---- */

static void emit_curves(rt_yw *w, const rt_crossover_fits *f, const char *key)
{
	rt_yw_str(w, key);
	rt_yw_seq(w, 0);
	for (size_t i = 0; i < f->r->ncurves; i++) {
		const rt_replay_curve *c = &f->r->curves[i];
		const rt_fit *ft = &f->fit[i];
		rt_yw_map(w, 0);
		rt_yw_kstr(w, "backend", c->backend);
		rt_yw_kstr(w, "precision", c->precision);
		rt_yw_str(w, "fit");
		rt_yw_map(w, 1);
		rt_yw_knum(w, "a", ft->a, 5);
		rt_yw_knum(w, "b", ft->b, 5);
		rt_yw_knum(w, "c", ft->c, 5);
		rt_yw_knum(w, "scale", ft->scale, 3);
		rt_yw_end_map(w);
		double range[2] = {ft->n_min, ft->n_max};
		rt_yw_knums(w, "range", range, 2, 6);
		rt_yw_kint(w, "observations", (long long)c->count);
		rt_yw_str(w, "outliers");
		rt_yw_seq(w, 1);
		for (size_t k = 0; k < c->count; k++)
			if (f->outlier[i][k]) {
				rt_yw_seq(w, 1);
				rt_yw_num(w, c->n[k], 6);
				rt_yw_num(w, c->seconds[k], 6);
				rt_yw_end_seq(w);
			}
		rt_yw_end_seq(w);
		rt_yw_end_map(w);
	}
	rt_yw_end_seq(w);
}

static void emit_model(rt_yw *w, const rt_crossover_model *m)
{
	rt_yw_str(w, "model");
	rt_yw_map(w, 0);
	if (!m->found) {
		rt_yw_kstr(w, "error", m->error);
	} else {
		rt_yw_kint(w, "min_batch", m->min_batch);
		rt_yw_kstr(w, "binding_gemm", m->binding_gemm);
		rt_yw_kstr(w, "basis", m->basis);
		rt_yw_kstr(w, "summary", m->summary);
	}
	rt_yw_end_map(w);
}

const char *rt_crossover_kind_name(rt_cross_kind k)
{
	static const char *const kinds[] = {
	    [RT_CROSS_IN_RANGE] = "in_range",
	    [RT_CROSS_EXTRAPOLATED] = "extrapolated",
	    [RT_CROSS_NONE] = "none",
	};
	RT_BUG_ON((size_t)k >= RT_COUNT(kinds));
	return kinds[k];
}

static void emit_pair(rt_yw *w, const rt_crossover_analysis *a, const rt_crossover_pair *p)
{
	rt_yw_map(w, 0);
	rt_yw_str(w, "between");
	rt_yw_seq(w, 1);
	rt_yw_str(w, a->square.name[p->i]);
	rt_yw_str(w, a->square.name[p->j]);
	rt_yw_end_seq(w);
	if (!p->solved) {
		rt_yw_kstr(w, "error", p->error);
		rt_yw_end_map(w);
		return;
	}
	rt_yw_kstr(w, "kind", rt_crossover_kind_name(p->cx.kind));
	if (p->cx.kind != RT_CROSS_NONE) {
		rt_yw_knum(w, "n_star", p->n_star, 5);
		if (p->has_ci) {
			double v[2] = {p->ci.lo, p->ci.hi};
			rt_yw_knums(w, "ci95", v, 2, 5);
			rt_yw_kint(w, "bootstrap_no_crossover", p->ci.no_crossover);
		}
		rt_yw_kstr(w, "faster_above", p->faster);
	} else {
		rt_yw_kstr(w, "winner", p->winner);
	}
	rt_yw_kstr(w, "summary", p->summary);
	if (p->model.given)
		emit_model(w, &p->model);
	rt_yw_end_map(w);
}

static void emit_threads(rt_yw *w, const rt_crossover_threads *t)
{
	rt_yw_map(w, 0);
	rt_yw_kstr(w, "backend", t->backend);
	rt_yw_kstr(w, "precision", t->precision);
	rt_yw_kint(w, "threads", t->threads);
	if (!t->solved) {
		rt_yw_kstr(w, "error", t->error);
		rt_yw_end_map(w);
		return;
	}
	if (!isinf(t->pays_from)) {
		rt_yw_knum(w, "pays_from_n", t->pays_from, 5);
		rt_yw_kbool(w, "extrapolated", t->extrapolated);
	}
	rt_yw_kstr(w, "summary", t->summary);
	if (t->has_best) {
		rt_yw_str(w, "best");
		rt_yw_seq(w, 0);
		for (size_t k = 0; k < t->nbest; k++) {
			rt_yw_map(w, 1);
			rt_yw_kint(w, "threads", t->best[k].threads);
			rt_yw_knum(w, "from_n", t->best[k].n_lo, 5);
			rt_yw_knum(w, "to_n", t->best[k].n_hi, 5);
			rt_yw_end_map(w);
		}
		rt_yw_end_seq(w);
	}
	if (t->model.given)
		emit_model(w, &t->model);
	rt_yw_end_map(w);
}

void rt_crossover_emit(rt_yw *w, const rt_crossover_analysis *a, const rt_crossover_data *d,
		const rt_crossover_shape *shape)
{
	rt_yw_map(w, 0);
	if (d->replay[0])
		rt_yw_kstr(w, "replay", d->replay);
	if (shape->given) {
		rt_yw_str(w, "shape");
		rt_emit_shape(w, shape->w, &shape->sh);
	}
	emit_curves(w, &a->square, "curves");
	if (d->nimpl) {
		rt_yw_str(w, "gemm_impl");
		rt_yw_map(w, 0);
		for (int i = 0; i < d->nimpl; i++)
			rt_yw_kstr(w, d->impl[i].curve, d->impl[i].impl);
		rt_yw_end_map(w);
	}
	for (int k = 0; k < shape->ngemm; k++)
		if (a->shaped[k].r) {
			char key[64];
			snprintf(key, sizeof key, "curves_%s", shape->gemm[k].label);
			emit_curves(w, &a->shaped[k], key);
		}
	rt_yw_str(w, "pairs");
	rt_yw_seq(w, 0);
	for (size_t i = 0; i < a->npairs; i++)
		emit_pair(w, a, &a->pairs[i]);
	rt_yw_end_seq(w);
	rt_yw_str(w, "threads");
	rt_yw_seq(w, 0);
	for (size_t i = 0; i < a->nthreads; i++)
		emit_threads(w, &a->threads[i]);
	rt_yw_end_seq(w);
	rt_yw_end_map(w);
}

/* ---- the reader: the mapping as a typed view ---- */

/*
 * Every number read back (a fit's coefficients, sizes, times) bounds the
 * page's axes: finite and within this. The replay CSV's n and seconds are
 * at most RT_REPLAY_MAX_VALUE, and an extrapolated n* at most
 * RT_CROSS_EXTRAPOLATE times the measured range.
 */
#define MAX_VALUE RT_YR_MAX_MEASURE
/* a size or a time: above 0, as a replay's (a range from 0 made the log axis fail) */
#define MIN_SIZE 1e-300

static int read_curve(const rt_yr *r, const rt_ynode *c, rt_crossover_doc_curve *xc)
{
	double range[2];
	const rt_ynode *fit;
	int rc = rt_yr_need_str(r, c, "backend", &xc->label);
	if (rc == RT_OK)
		xc->id = rt_curve_of_label(xc->label);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, c, "precision", &xc->precision);
	if (rc == RT_OK)
		rc = rt_yr_need(r, c, "fit", YAML_MAPPING_NODE, &fit);
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, fit, "a", 0, MAX_VALUE, &xc->fit.a);
	if (rc == RT_OK) /* as rt_fit_curve bounds it: c + a n^b stays finite where drawn */
		rc = rt_yr_need_num_in(r, fit, "b", 0, RT_FIT_B_MAX, &xc->fit.b);
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, fit, "c", 0, MAX_VALUE, &xc->fit.c);
	if (rc == RT_OK)
		rc = rt_yr_need_pair_in(r, c, "range", MIN_SIZE, MAX_VALUE, range);
	if (rc)
		return rc;
	xc->fit.n_min = range[0];
	xc->fit.n_max = range[1];
	const rt_ynode *out = rt_yr_get(r, c, "outliers");
	int n = rt_yr_nitems(out);
	if (n && !(xc->outliers = calloc(2 * (size_t)n, sizeof(double))))
		return rt_fail(r->err, r->errlen, RT_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		const rt_ynode *o = rt_yr_item(r, out, i);
		if (rt_yr_nitems(o) != 2 ||
		    rt_yr_number(r, rt_yr_item(r, o, 0), "outliers", &xc->outliers[2 * i]) ||
		    rt_yr_number(r, rt_yr_item(r, o, 1), "outliers", &xc->outliers[2 * i + 1]))
			return rt_yr_bad(r, o, "outliers: expected [n, seconds] pairs");
		for (int k = 0; k < 2; k++)
			RT_TRY(rt_yr_in_range(r, rt_yr_item(r, o, k), "outliers", MIN_SIZE, MAX_VALUE,
					      xc->outliers[2 * i + k]));
		xc->noutliers++;
	}
	return RT_OK;
}

static int read_pair(const rt_yr *r, const rt_ynode *p, rt_crossover_doc_pair *xp)
{
	const rt_ynode *btw;
	int rc = rt_yr_need(r, p, "between", YAML_SEQUENCE_NODE, &btw);
	if (rc == RT_OK && (rt_yr_nitems(btw) != 2 || !rt_yr_scalar(rt_yr_item(r, btw, 0)) ||
			    !rt_yr_scalar(rt_yr_item(r, btw, 1))))
		rc = rt_yr_bad(r, btw, "between: expected two curve names");
	if (rc)
		return rc;
	xp->a = rt_yr_scalar(rt_yr_item(r, btw, 0));
	xp->b = rt_yr_scalar(rt_yr_item(r, btw, 1));
	xp->n_star = xp->ci_lo = xp->ci_hi = NAN;
	if ((xp->error = rt_yr_scalar(rt_yr_get(r, p, "error"))))
		return RT_OK;
	rc = rt_yr_need_str(r, p, "kind", &xp->kind);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, p, "summary", &xp->summary);
	if (rc == RT_OK && strcmp(xp->kind, "none"))
		rc = rt_yr_need_num_in(r, p, "n_star", MIN_SIZE, MAX_VALUE, &xp->n_star);
	double ci[2];
	if (rc == RT_OK && rt_yr_get(r, p, "ci95") &&
	    (rc = rt_yr_need_pair_in(r, p, "ci95", MIN_SIZE, MAX_VALUE, ci)) == RT_OK) {
		xp->ci_lo = ci[0];
		xp->ci_hi = ci[1];
	}
	return rc;
}

static int read_threads(const rt_yr *r, const rt_ynode *t, rt_crossover_doc_threads *xt)
{
	long threads = 0;
	int rc = rt_yr_need_str(r, t, "backend", &xt->backend);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, t, "precision", &xt->precision);
	if (rc == RT_OK)
		rc = rt_yr_need_int(r, t, "threads", 1, 1 << 20, &threads);
	xt->threads = (int)threads;
	xt->pays_from = NAN;
	if (rc || (xt->error = rt_yr_scalar(rt_yr_get(r, t, "error"))))
		return rc;
	rc = rt_yr_need_str(r, t, "summary", &xt->summary);
	if (rc == RT_OK && rt_yr_get(r, t, "pays_from_n"))
		rc = rt_yr_need_num_in(r, t, "pays_from_n", MIN_SIZE, MAX_VALUE, &xt->pays_from);
	const rt_ynode *best = rt_yr_get(r, t, "best");
	for (int i = 0; rc == RT_OK && i < rt_yr_nitems(best) && i < RT_CROSSOVER_DOC_MAX_RANGES;
	     i++) {
		const rt_ynode *b = rt_yr_item(r, best, i);
		rt_thread_range *tr = &xt->best[xt->nbest++];
		rc = rt_yr_need_int(r, b, "threads", 1, 1 << 20, &threads);
		tr->threads = (int)threads;
		if (rc == RT_OK)
			rc = rt_yr_need_num_in(r, b, "from_n", MIN_SIZE, MAX_VALUE, &tr->n_lo);
		if (rc == RT_OK)
			rc = rt_yr_need_num_in(r, b, "to_n", MIN_SIZE, MAX_VALUE, &tr->n_hi);
	}
	return rc;
}

/* A list of the analysis (curves, pairs, threads): at most RT_CROSSOVER_DOC_MAX items. */
static int analysis_list(const rt_yr *r, const rt_ynode *xo, const char *key,
			 const rt_ynode **seq, int *n)
{
	int rc = rt_yr_need(r, xo, key, YAML_SEQUENCE_NODE, seq);
	*n = rc ? 0 : rt_yr_nitems(*seq);
	if (rc == RT_OK && *n > RT_CROSSOVER_DOC_MAX)
		rc = rt_yr_bad(r, *seq, "%s: more than %d", key, RT_CROSSOVER_DOC_MAX);
	return rc;
}

int rt_crossover_read(const rt_yr *r, const rt_ynode *xo, rt_crossover_doc *x)
{
	const rt_ynode *seq;
	memset(x, 0, sizeof *x);
	int n, rc = rt_yr_expect(r, xo, YAML_MAPPING_NODE, "crossover");
	if (rc == RT_OK)
		rc = analysis_list(r, xo, "curves", &seq, &n);
	for (int i = 0; rc == RT_OK && i < n; i++)
		rc = read_curve(r, rt_yr_item(r, seq, i), &x->curves[x->ncurves++]);
	if (rc == RT_OK)
		rc = analysis_list(r, xo, "pairs", &seq, &n);
	for (int i = 0; rc == RT_OK && i < n; i++)
		rc = read_pair(r, rt_yr_item(r, seq, i), &x->pairs[x->npairs++]);
	if (rc == RT_OK)
		rc = analysis_list(r, xo, "threads", &seq, &n);
	for (int i = 0; rc == RT_OK && i < n; i++)
		rc = read_threads(r, rt_yr_item(r, seq, i), &x->threads[x->nthreads++]);
	return rc;
}

void rt_crossover_doc_free(rt_crossover_doc *x)
{
	for (int i = 0; i < x->ncurves; i++)
		free(x->curves[i].outliers);
	x->ncurves = 0;
}
