/*
 * strategy.c: the result of a search and the knee (the table of strategies:
 * strategies.c; the run of a strategy and what every strategy shares:
 * strategy_impl.c).
 */
#include "strategy.h"

#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"

void rt_search_opts_default(rt_search_opts *o)
{
	memset(o, 0, sizeof *o);
	o->trial_s = 1.0;
	o->seed = 1;
}

/* ---- results ---------------------------------------------------------- */

rt_search_result *rt_search_result_create(int nparams)
{
	rt_search_result *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->nparams = nparams;
	r->best = -1;
	r->stop = "not run";
	return r;
}

void rt_search_result_destroy(rt_search_result *r)
{
	if (!r)
		return;
	free(r->trials);
	free(r);
}

int rt_search_result_add(rt_search_result *r, const int *idx, double value, rt_cause cause,
			 double cap_s)
{
	if (r->ntrials == r->cap) {
		int cap = r->cap ? 2 * r->cap : 64;
		rt_trial *t = realloc(r->trials, (size_t)cap * sizeof *t);
		if (!t)
			return RT_ENOMEM;
		r->trials = t;
		r->cap = cap;
	}
	rt_trial *t = &r->trials[r->ntrials];
	memset(t, 0, sizeof *t);
	memcpy(t->idx, idx, (size_t)r->nparams * sizeof *idx);
	t->value = cause ? 0.0 : value;
	t->cap_s = cap_s;
	t->cause = cause;
	if (!cause && (r->best < 0 || value > r->trials[r->best].value))
		r->best = r->ntrials;
	r->ntrials++;
	return 0;
}

/* ---- the knee ------------------------------------------------------------ */

int rt_knee_along(const rt_search_result *r, int p, int from, double within)
{
	const rt_trial *f = &r->trials[from];
	double bar = (1 - within) * r->trials[r->best].value;
	int knee = from;
	for (int t = 0; t < r->ntrials; t++) {
		const rt_trial *tr = &r->trials[t];
		int q;
		if (tr->cause || tr->value < bar || tr->idx[p] >= r->trials[knee].idx[p])
			continue;
		for (q = 0; q < r->nparams; q++)
			if (q != p && tr->idx[q] != f->idx[q])
				break;
		if (q == r->nparams)
			knee = t;
	}
	return knee;
}

int rt_knee_params(const rt_space *s, int *out)
{
	static const rt_param_role order[] = {RT_ROLE_SATURATING, RT_ROLE_PEAKED};
	int n = 0;
	for (size_t i = 0; i < RT_COUNT(order); i++)
		for (int p = 0; p < rt_space_nparams(s); p++)
			if (rt_space_numeric(s, p) && rt_space_role(s, p) == order[i])
				out[n++] = p;
	return n;
}

int rt_knee_point(const rt_space *s, const rt_search_result *r, double within, int *trial,
		  char *err, size_t errlen)
{
	int params[RT_SPACE_MAX_PARAMS];
	if (r->best < 0)
		return rt_fail(err, errlen, RT_EINVAL, "no feasible trial to take a knee from");
	int knee = r->best, n = rt_knee_params(s, params);
	for (int i = 0; i < n; i++)
		knee = rt_knee_along(r, params[i], knee, within);
	*trial = knee;
	return 0;
}
