/*
 * check_doc.c: the result of `rigtune check` as a document, written
 * (rt_check_emit, for check -o) and read back (rt_checkdoc_load, for report
 * --check) in one place, so that the two cannot drift apart. The schema is
 * in check.h; the words of the verdicts are here.
 */
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rt.h"
#include "../measure_yaml.h"

static const char *const verdict_names[RT_NVERDICT] = {
	[RT_VERDICT_UNCHANGED] = "unchanged",	  [RT_VERDICT_REGRESSION] = "regression",
	[RT_VERDICT_IMPROVEMENT] = "improvement", [RT_VERDICT_INFEASIBLE] = "infeasible",
	[RT_VERDICT_INCONCLUSIVE] = "inconclusive", [RT_VERDICT_NOT_RUN] = "not_run",
	[RT_VERDICT_LIKELY_REGRESSION] = "likely_regression",
};

const char *rt_verdict_name(rt_verdict v)
{
	return (unsigned)v < RT_NVERDICT ? verdict_names[v] : "unknown";
}

/* ---- writing ---- */

static const char *const role_names[] = {"recommended", "fastest", "sweep", "runner_up"};

static void emit_str_or_null(rt_yw *w, const char *key, const char *s)
{
	rt_yw_str(w, key);
	if (s)
		rt_yw_str(w, s);
	else
		rt_yw_null(w);
}

static void emit_baseline(rt_yw *w, const rt_check_run *run, const rt_check_opts *o)
{
	const rt_baseline *b = &run->base;
	rt_yw_str(w, "baseline");
	rt_yw_map(w, 0);
	rt_yw_kstr(w, "file", b->path);
	rt_yw_kstr(w, "kind", o->ab ? "ab" : b->is_journal ? "journal" : "configuration");
	if (o->ab) {
		rt_yw_kstr(w, "a", o->side[0].spec);
		rt_yw_kstr(w, "b", o->side[1].spec);
	}
	rt_yw_kstr(w, "journal", b->journal);
	emit_str_or_null(w, "sweep", b->sweep[0] ? b->sweep : NULL);
	rt_yw_kstr(w, "fingerprint", b->fingerprint);
	rt_yw_kbool(w, "machine", b->machine != NULL);
	rt_yw_end_map(w);
	rt_yw_str(w, "machine");
	rt_yw_map(w, 1);
	rt_yw_kstr(w, "fingerprint", run->fingerprint);
	rt_yw_kbool(w, "same_fingerprint", !strcmp(run->fingerprint, b->fingerprint));
	rt_yw_end_map(w);
}

/* A list of the diff's entries under key: machine_diff, machine_state. */
static void emit_entries(rt_yw *w, const char *key, const rt_mdiff_entry *v, size_t n)
{
	rt_yw_str(w, key);
	rt_yw_seq(w, 0);
	for (size_t i = 0; i < n; i++) {
		rt_yw_map(w, 1);
		rt_yw_kstr(w, "field", v[i].field);
		emit_str_or_null(w, "before", v[i].before);
		emit_str_or_null(w, "after", v[i].after);
		rt_yw_end_map(w);
	}
	rt_yw_end_seq(w);
}

/* The changes, then the moment's state that differs (machdiff.h), apart. */
static void emit_diff(rt_yw *w, const rt_mdiff *d)
{
	emit_entries(w, "machine_diff", d->v, d->n);
	emit_entries(w, "machine_state", d->state, d->nstate);
}

static void emit_num_or_null(rt_yw *w, const char *key, double v, int ok, int digits)
{
	if (ok) {
		rt_yw_knum(w, key, v, digits);
	} else {
		rt_yw_str(w, key);
		rt_yw_null(w);
	}
}

/* ci95: [lo, hi] of a comparison's ratio, or null */
static void emit_ci(rt_yw *w, const rt_comparison *c, int ok)
{
	rt_yw_str(w, "ci95");
	if (!ok) {
		rt_yw_null(w);
		return;
	}
	rt_yw_seq(w, 1);
	rt_yw_num(w, c->ci_lo, 4);
	rt_yw_num(w, c->ci_hi, 4);
	rt_yw_end_seq(w);
}

/* One side of the canary: the medians of its halves and how many samples. */
static void emit_canary_side(rt_yw *w, const char *key, const rt_canary_sample *s, size_t n)
{
	double *v = n ? malloc(n * sizeof *v) : NULL;
	double half[2] = {NAN, NAN};
	for (int h = 0; v && h < 2; h++) {
		for (size_t i = 0; i < n; i++)
			v[i] = h ? s[i].memory : s[i].compute;
		half[h] = rt_median(v, n);
	}
	free(v);
	rt_yw_str(w, key);
	rt_yw_map(w, 1);
	emit_num_or_null(w, "compute", half[0], isfinite(half[0]), 4);
	emit_num_or_null(w, "memory", half[1], isfinite(half[1]), 4);
	rt_yw_kint(w, "n", (long)n);
	rt_yw_end_map(w);
}

static void emit_canary(rt_yw *w, const rt_check_run *run)
{
	const rt_check_canary *k = &run->canary;
	const rt_comparison *c = &k->cmp;
	int ok = k->compared;
	rt_yw_str(w, "canary");
	rt_yw_map(w, 0);
	emit_str_or_null(w, "file", run->base.canary_file[0] ? run->base.canary_file : NULL);
	emit_canary_side(w, "baseline", run->base.canary, run->base.ncanary);
	emit_canary_side(w, "now", k->v, k->n);
	emit_num_or_null(w, "ratio", c->ratio, ok, 4);
	emit_ci(w, c, ok);
	emit_num_or_null(w, "p", c->test.p, ok, 3);
	rt_yw_kstr(w, "says", k->says);
	rt_yw_end_map(w);
}

static void emit_point(rt_yw *w, const rt_check_point *p)
{
	const rt_base_point *b = p->base;
	int ok = rt_check_point_compared(p);
	rt_yw_map(w, 0);
	rt_yw_kstr(w, "workload", b->name);
	rt_yw_str(w, "roles");
	rt_yw_seq(w, 1);
	for (size_t r = 0; r < RT_COUNT(role_names); r++)
		if (b->roles & (1u << r))
			rt_yw_str(w, role_names[r]);
	rt_yw_end_seq(w);
	if (b->curve[0])
		rt_yw_kstr(w, "curve", b->curve);
	rt_yw_str(w, "point");
	if (b->cmd) {
		rt_cmd_point_emit(w, &b->knobs, 0); /* {knob: value, ...}, as the baseline has them */
	} else {
		rt_emit_point(w, &b->pt, b->w);
		rt_yw_str(w, "shape");
		rt_emit_shape(w, b->w, &b->sh);
	}
	rt_yw_kstr(w, "unit", b->unit);
	rt_yw_str(w, "baseline");
	rt_yw_map(w, 1);
	double base = rt_check_point_base_median(p);
	emit_num_or_null(w, "median", base, isfinite(base), 6);
	rt_yw_kint(w, "n", b->nsamples);
	if (b->trials) { /* a sweep's sizes do not keep their trials apart */
		rt_yw_kint(w, "trials", b->trials);
		rt_yw_kint(w, "left_out", (long)p->cmp.base_left_out);
	}
	rt_yw_end_map(w);
	rt_yw_str(w, "now");
	rt_yw_map(w, 1);
	emit_num_or_null(w, "median", ok ? p->now_median : 0, ok, 6);
	rt_yw_kint(w, "n", p->nsamples);
	rt_yw_kint(w, "trials", p->trials);
	rt_yw_kint(w, "left_out", (long)p->cmp.now_left_out);
	rt_yw_end_map(w);
	emit_num_or_null(w, "ratio", p->cmp.ratio, ok, 4);
	emit_ci(w, &p->cmp, ok);
	emit_num_or_null(w, "p", p->cmp.test.p, ok, 3);
	emit_str_or_null(w, "test", ok ? (p->cmp.test.exact ? "exact" : "normal") : NULL);
	rt_yw_str(w, "contention");
	rt_yw_map(w, 1);
	rt_yw_knum(w, "baseline", b->contention, 3);
	rt_yw_knum(w, "now", p->contention, 3);
	rt_yw_end_map(w);
	rt_yw_kint(w, "set_aside", p->set_aside);
	rt_yw_kstr(w, "verdict", rt_verdict_name(p->verdict));
	if (p->verdict == RT_VERDICT_INFEASIBLE)
		rt_yw_kstr(w, "cause", rt_cause_name(p->cause));
	if (p->verdict == RT_VERDICT_INCONCLUSIVE || p->verdict == RT_VERDICT_LIKELY_REGRESSION)
		rt_yw_kint(w, "more_samples", p->cmp.more_samples);
	rt_yw_kstr(w, "reason", p->reason);
	rt_yw_end_map(w);
}

static void emit_lines(rt_yw *w, const char *key, const char lines[][640], int n)
{
	rt_yw_str(w, key);
	rt_yw_seq(w, 0);
	for (int i = 0; i < n; i++)
		rt_yw_str(w, lines[i]);
	rt_yw_end_seq(w);
}

int rt_check_emit(const rt_check_run *run, const rt_check_opts *o, char **text, size_t *len,
		  char *err, size_t errlen)
{
	rt_yw w;
	int rc = rt_yw_start_doc(&w, "rigtune_check", RT_CHECK_SCHEMA, err, errlen);
	if (rc)
		return rc;
	emit_baseline(&w, run, o);
	emit_diff(&w, &run->diff);
	emit_canary(&w, run);
	rt_yw_str(&w, "settings");
	rt_yw_map(&w, 1);
	rt_yw_knum(&w, "alpha", o->alpha, 4);
	rt_yw_knum(&w, "threshold", o->threshold, 4);
	rt_yw_knum(&w, "budget_s", run->budget_s, 4);
	rt_yw_knum(&w, "seconds", run->seconds, 4);
	rt_yw_end_map(&w);
	rt_yw_str(&w, "points");
	rt_yw_seq(&w, 0);
	for (int i = 0; i < run->npoints; i++)
		emit_point(&w, &run->points[i]);
	rt_yw_end_seq(&w);
	emit_lines(&w, "notes", run->notes, run->nnotes);
	emit_lines(&w, "suggestions", run->suggestions, run->nsuggestions);
	rt_yw_str(&w, "summary");
	rt_yw_map(&w, 1);
	for (int v = 0; v < RT_NVERDICT; v++)
		rt_yw_kint(&w, rt_verdict_name((rt_verdict)v), run->counts[v]);
	rt_yw_end_map(&w);
	rt_yw_kstr(&w, "result", rt_check_regressed(run) ? "regression" : "pass");
	rt_yw_end_map(&w);
	return rt_yw_finish(&w, text, len, err, errlen);
}

/* ---- reading ---- */

/* A measured value: finite, and a chart's axis over it has a few decades. */
#define MAX_VALUE RT_YR_MAX_MEASURE

/* A number from lo to hi, or NAN for null; the key must be there. */
static int num_or_null(const rt_yr *r, const rt_ynode *map, const char *key, double lo,
		       double hi, double *v)
{
	const rt_ynode *n = rt_yr_get(r, map, key);
	*v = NAN;
	if (!n)
		return rt_yr_bad(r, map, "missing key '%s'", key);
	return rt_yr_is_null(n) ? RT_OK : rt_yr_number_in(r, n, key, lo, hi, v);
}

static int decode_verdict(const rt_yr *r, const rt_ynode *map, rt_verdict *v)
{
	const char *s;
	int rc = rt_yr_need_str(r, map, "verdict", &s);
	for (int i = 0; rc == RT_OK && i < RT_NVERDICT; i++)
		if (!strcmp(s, rt_verdict_name((rt_verdict)i))) {
			*v = (rt_verdict)i;
			return RT_OK;
		}
	return rc ? rc
	          : rt_yr_bad(r, rt_yr_get(r, map, "verdict"),
	                      "verdict: '%s' is none of unchanged, regression, improvement, "
	                      "infeasible, inconclusive, not_run, likely_regression",
	                      s);
}

/* The scalars of a flow mapping or sequence joined: "backend=cpu threads=2", "a, b". */
static int join(const rt_yr *r, const rt_ynode *n, const char *what, char *buf, size_t len)
{
	size_t used = 0;
	int pairs = n->type == YAML_MAPPING_NODE, count = pairs ? rt_yr_npairs(n) : rt_yr_nitems(n);
	buf[0] = '\0';
	for (int i = 0; i < count; i++) {
		const rt_ynode *k = NULL, *v;
		if (pairs)
			rt_yr_pair(r, n, i, &k, &v);
		else
			v = rt_yr_item(r, n, i);
		if ((pairs && !rt_yr_scalar(k)) || !rt_yr_scalar(v))
			return rt_yr_bad(r, v, "%s: expected scalars", what);
		if (used < len)
			used += (size_t)snprintf(
			    buf + used, len - used, "%s%s%s%s", used ? (pairs ? " " : ", ") : "",
			    pairs ? rt_yr_scalar(k) : "", pairs ? "=" : "", rt_yr_scalar(v));
	}
	return RT_OK;
}

/* baseline: {median, n} and now: {median (null when it never ran), n, trials} */
static int decode_sides(const rt_yr *r, const rt_ynode *map, rt_checkdoc_point *p)
{
	const rt_ynode *b, *now;
	int rc = rt_yr_need(r, map, "baseline", YAML_MAPPING_NODE, &b);
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, b, "median", -MAX_VALUE, MAX_VALUE, &p->base_median);
	if (rc == RT_OK)
		rc = rt_yr_need_int(r, b, "n", 0, 1L << 30, &p->base_n);
	if (rc == RT_OK)
		rc = rt_yr_need(r, map, "now", YAML_MAPPING_NODE, &now);
	if (rc == RT_OK)
		rc = num_or_null(r, now, "median", -MAX_VALUE, MAX_VALUE, &p->now_median);
	if (rc == RT_OK)
		rc = rt_yr_need_int(r, now, "n", 0, 1L << 30, &p->now_n);
	if (rc == RT_OK)
		rc = rt_yr_need_int(r, now, "trials", 0, 1L << 30, &p->now_trials);
	return rc;
}

/* ratio, ci95 and p: numbers when it ran on both sides, else null */
static int decode_ratio(const rt_yr *r, const rt_ynode *map, rt_checkdoc_point *p)
{
	double ci[2] = {NAN, NAN};
	int rc = num_or_null(r, map, "ratio", -MAX_VALUE, MAX_VALUE, &p->ratio);
	if (rc == RT_OK)
		rc = num_or_null(r, map, "p", 0, 1, &p->p);
	const rt_ynode *c = rt_yr_get(r, map, "ci95");
	if (rc == RT_OK && !rt_yr_is_null(c))
		rc = rt_yr_need_pair_in(r, map, "ci95", -MAX_VALUE, MAX_VALUE, ci);
	p->has_ratio = isfinite(p->ratio);
	p->ci_lo = isfinite(ci[0]) ? ci[0] : p->ratio;
	p->ci_hi = isfinite(ci[1]) ? ci[1] : p->ratio;
	return rc;
}

static int decode_point(const rt_yr *r, const rt_ynode *map, rt_checkdoc_point *p)
{
	const rt_ynode *n;
	int rc = rt_yr_expect(r, map, YAML_MAPPING_NODE, "points");
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "workload", &p->workload);
	if (rc == RT_OK)
		rc = rt_yr_need(r, map, "roles", YAML_SEQUENCE_NODE, &n);
	if (rc == RT_OK)
		rc = join(r, n, "roles", p->roles, sizeof p->roles);
	if (rc == RT_OK)
		rc = rt_yr_need(r, map, "point", YAML_MAPPING_NODE, &n);
	if (rc == RT_OK)
		rc = join(r, n, "point", p->point, sizeof p->point);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "unit", &p->unit);
	if (rc == RT_OK)
		rc = decode_sides(r, map, p);
	if (rc == RT_OK)
		rc = decode_ratio(r, map, p);
	if (rc == RT_OK)
		rc = decode_verdict(r, map, &p->verdict);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "reason", &p->reason);
	if (rc == RT_OK && rt_yr_get(r, map, "more_samples"))
		rc = rt_yr_need_int(r, map, "more_samples", 0, 1L << 30, &p->more_samples);
	p->curve = rt_yr_scalar(rt_yr_get(r, map, "curve"));
	p->cause = rt_yr_scalar(rt_yr_get(r, map, "cause"));
	return rc;
}

static int decode_diff(const rt_yr *r, const rt_ynode *map, rt_checkdoc_diff *d)
{
	int rc = rt_yr_expect(r, map, YAML_MAPPING_NODE, "machine_diff");
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "field", &d->field);
	d->before = rt_yr_scalar(rt_yr_get(r, map, "before"));
	d->after = rt_yr_scalar(rt_yr_get(r, map, "after"));
	if (rt_yr_is_null(rt_yr_get(r, map, "before")))
		d->before = NULL;
	if (rt_yr_is_null(rt_yr_get(r, map, "after")))
		d->after = NULL;
	return rc;
}

/* The items of the sequence at key into a new array of *n elements of size `size`. */
static int need_items(const rt_yr *r, const rt_ynode *root, const char *key, int optional,
                      size_t size, void **arr, int *n, const rt_ynode **seq)
{
	*seq = rt_yr_get(r, root, key);
	*n = 0;
	*arr = NULL;
	if (!*seq && optional)
		return RT_OK;
	int rc = rt_yr_need(r, root, key, YAML_SEQUENCE_NODE, seq);
	if (rc || !rt_yr_nitems(*seq))
		return rc;
	if (!(*arr = calloc((size_t)rt_yr_nitems(*seq), size)))
		return rt_fail(r->err, r->errlen, RT_ENOMEM, "out of memory");
	*n = rt_yr_nitems(*seq);
	return RT_OK;
}

/* A list of sentences (notes, suggestions), absent or empty allowed. */
static int decode_lines(const rt_yr *r, const rt_ynode *root, const char *key, const char ***lines,
                        int *n)
{
	const rt_ynode *seq;
	int rc = need_items(r, root, key, 1, sizeof **lines, (void **)lines, n, &seq);
	for (int i = 0; rc == RT_OK && i < *n; i++)
		if (!((*lines)[i] = rt_yr_scalar(rt_yr_item(r, seq, i))))
			rc = rt_yr_bad(r, rt_yr_item(r, seq, i), "%s: expected sentences", key);
	return rc;
}

static int decode_lists(rt_checkdoc *d, const rt_yr *r, const rt_ynode *root)
{
	const rt_ynode *seq;
	int rc = need_items(r, root, "machine_diff", 0, sizeof *d->diff, (void **)&d->diff,
	                    &d->ndiff, &seq);
	for (int i = 0; rc == RT_OK && i < d->ndiff; i++)
		rc = decode_diff(r, rt_yr_item(r, seq, i), &d->diff[i]);
	if (rc == RT_OK)
		rc = decode_lines(r, root, "notes", &d->notes, &d->nnotes);
	if (rc == RT_OK)
		rc = decode_lines(r, root, "suggestions", &d->suggestions, &d->nsuggestions);
	if (rc == RT_OK)
		rc = need_items(r, root, "points", 0, sizeof *d->points, (void **)&d->points,
		                &d->npoints, &seq);
	for (int i = 0; rc == RT_OK && i < d->npoints; i++) {
		rc = decode_point(r, rt_yr_item(r, seq, i), &d->points[i]);
		d->counts[d->points[i].verdict] += rc == RT_OK;
	}
	return rc;
}

static int decode(rt_checkdoc *d)
{
	const rt_yr *r = &d->yr;
	const rt_ynode *root = rt_yr_root(r), *settings;
	int rc = rt_yr_need_schema(r, root, "rigtune_check", RT_CHECK_SCHEMA, "a check result",
	                           "rigtune check");
	if (rc == RT_OK)
		rc = rt_yr_need(r, root, "baseline", YAML_MAPPING_NODE, &settings);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, settings, "file", &d->baseline);
	if (rc == RT_OK)
		rc = rt_yr_need(r, root, "settings", YAML_MAPPING_NODE, &settings);
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, settings, "alpha", 0, 0.5, &d->alpha); /* --alpha */
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, settings, "threshold", 0, 1, &d->threshold);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, root, "result", &d->result);
	if (rc == RT_OK)
		rc = decode_lists(d, r, root);
	d->generated = rt_yr_scalar(rt_yr_get(r, root, "generated"));
	return rc;
}

int rt_checkdoc_load(const char *path, rt_checkdoc *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	int rc = rt_yr_load_file(&d->yr, path, err, errlen);
	if (rc == RT_OK)
		rc = decode(d);
	if (rc)
		rt_checkdoc_free(d);
	/* the caller's buffer is gone after this call */
	d->yr.err = NULL;
	d->yr.errlen = 0;
	return rc;
}

void rt_checkdoc_free(rt_checkdoc *d)
{
	rt_yr_free(&d->yr);
	free(d->diff);
	free(d->notes);
	free(d->suggestions);
	free(d->points);
	d->diff = NULL;
	d->notes = d->suggestions = NULL;
	d->points = NULL;
	d->ndiff = d->nnotes = d->nsuggestions = d->npoints = 0;
}
