#include "checkdoc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"

static const char *const verdict_names[RT_NVERDICT] = {
	[RT_VERDICT_REGRESSION] = "regression",
	[RT_VERDICT_INCONCLUSIVE] = "inconclusive",
	[RT_VERDICT_IMPROVEMENT] = "improvement",
	[RT_VERDICT_UNCHANGED] = "unchanged",
};

const char *rt_verdict_name(rt_verdict v)
{
	return v < RT_NVERDICT ? verdict_names[v] : "?";
}

static int decode_verdict(const rt_yr *r, const rt_ynode *map, rt_verdict *v)
{
	const char *s;
	int rc = rt_yr_need_str(r, map, "verdict", &s);
	for (int i = 0; rc == RT_OK && i < RT_NVERDICT; i++)
		if (!strcmp(s, verdict_names[i])) {
			*v = (rt_verdict)i;
			return RT_OK;
		}
	return rc ? rc
		  : rt_yr_bad(r, rt_yr_get(r, map, "verdict"),
			      "verdict: '%s' is none of regression, inconclusive, improvement, "
			      "unchanged",
			      s);
}

/* baseline: / now: — a median with its CI, or infeasible: reason. */
static int decode_side(const rt_yr *r, const rt_ynode *pt, const char *key, rt_check_side *s)
{
	const rt_ynode *m;
	double ci[2];
	int rc = rt_yr_need(r, pt, key, YAML_MAPPING_NODE, &m);
	if (rc)
		return rc;
	s->infeasible = rt_yr_scalar(rt_yr_get(r, m, "infeasible"));
	if (s->infeasible)
		return RT_OK;
	rc = rt_yr_need_num(r, m, "median", &s->median);
	if (rc == RT_OK)
		rc = rt_yr_need_pair(r, m, "ci95", ci);
	s->ci_lo = ci[0];
	s->ci_hi = ci[1];
	return rc;
}

/* point: {backend: cpu, ...} as "backend=cpu precision=fp32 ..." */
static int decode_point_text(const rt_yr *r, const rt_ynode *map, char *buf, size_t len)
{
	const rt_ynode *pt;
	int rc = rt_yr_need(r, map, "point", YAML_MAPPING_NODE, &pt);
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; rc == RT_OK && i < rt_yr_npairs(pt); i++) {
		const rt_ynode *k, *v;
		rt_yr_pair(r, pt, i, &k, &v);
		if (!rt_yr_scalar(k) || !rt_yr_scalar(v))
			return rt_yr_bad(r, k, "point: expected key: value pairs of scalars");
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
						 rt_yr_scalar(k), rt_yr_scalar(v));
	}
	return rc;
}

static int decode_ratio(const rt_yr *r, const rt_ynode *map, rt_check_point *p)
{
	const rt_ynode *ratio;
	double ci[2];
	int rc = rt_yr_need(r, map, "ratio", YAML_MAPPING_NODE, &ratio);
	if (rc == RT_OK)
		rc = rt_yr_need_num(r, ratio, "median", &p->ratio);
	if (rc == RT_OK)
		rc = rt_yr_need_pair(r, ratio, "ci95", ci);
	if (rc == RT_OK)
		rc = rt_yr_need_num(r, map, "p", &p->p);
	p->ratio_lo = ci[0];
	p->ratio_hi = ci[1];
	p->has_ratio = rc == RT_OK;
	return rc;
}

static int decode_point(const rt_yr *r, const rt_ynode *map, rt_check_point *p)
{
	p->node = map;
	int rc = rt_yr_expect(r, map, YAML_MAPPING_NODE, "points");
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "workload", &p->workload);
	if (rc == RT_OK)
		rc = decode_point_text(r, map, p->point, sizeof p->point);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "unit", &p->unit);
	if (rc == RT_OK)
		rc = decode_side(r, map, "baseline", &p->baseline);
	if (rc == RT_OK)
		rc = decode_side(r, map, "now", &p->now);
	if (rc == RT_OK && !p->baseline.infeasible && !p->now.infeasible)
		rc = decode_ratio(r, map, p);
	if (rc == RT_OK)
		rc = decode_verdict(r, map, &p->verdict);
	p->role = rt_yr_scalar(rt_yr_get(r, map, "role"));
	p->note = rt_yr_scalar(rt_yr_get(r, map, "note"));
	return rc;
}

static int decode_diff(const rt_yr *r, const rt_ynode *map, rt_check_diff *d)
{
	int rc = rt_yr_expect(r, map, YAML_MAPPING_NODE, "machine_diff");
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "field", &d->field);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "before", &d->before);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "after", &d->after);
	return rc;
}

/* The items of the sequence at key into a new array of n elements of size `size`. */
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

static int decode_lists(rt_checkdoc *d, const rt_yr *r, const rt_ynode *root)
{
	const rt_ynode *seq;
	int rc = need_items(r, root, "machine_diff", 0, sizeof *d->diff, (void **)&d->diff,
			    &d->ndiff, &seq);
	for (int i = 0; rc == RT_OK && i < d->ndiff; i++)
		rc = decode_diff(r, rt_yr_item(r, seq, i), &d->diff[i]);
	if (rc == RT_OK)
		rc = need_items(r, root, "suggestions", 1, sizeof *d->suggestions,
				(void **)&d->suggestions, &d->nsuggestions, &seq);
	for (int i = 0; rc == RT_OK && i < d->nsuggestions; i++)
		if (!(d->suggestions[i] = rt_yr_scalar(rt_yr_item(r, seq, i))))
			rc = rt_yr_bad(r, rt_yr_item(r, seq, i), "suggestions: expected sentences");
	if (rc == RT_OK)
		rc = need_items(r, root, "points", 0, sizeof *d->points, (void **)&d->points,
				&d->npoints, &seq);
	for (int i = 0; rc == RT_OK && i < d->npoints; i++)
		rc = decode_point(r, rt_yr_item(r, seq, i), &d->points[i]);
	return rc;
}

static int decode(rt_checkdoc *d)
{
	const rt_yr *r = &d->yr;
	const rt_ynode *root = rt_yr_root(r);
	int rc = rt_yr_need_schema(r, root, "rigtune_check", RT_CHECK_SCHEMA, "a check result",
				   "rigtune check");
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, root, "baseline", &d->baseline);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, root, "verdict", &d->verdict);
	if (rc == RT_OK)
		rc = rt_yr_need_num(r, root, "threshold_pct", &d->threshold_pct);
	if (rc == RT_OK)
		rc = rt_yr_need_num(r, root, "alpha", &d->alpha);
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
	free(d->suggestions);
	free(d->points);
	d->diff = NULL;
	d->suggestions = NULL;
	d->points = NULL;
	d->ndiff = d->nsuggestions = d->npoints = 0;
}
