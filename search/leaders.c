/* leaders.c: the best points measured again, interleaved, until told apart (leaders.h). */
#include "leaders.h"

#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"
#include "stats.h"

void rt_leader_summarize(rt_leader *c)
{
	c->median = c->lo = c->hi = 0;
	if (c->n == 0)
		return;
	c->median = rt_median(c->v, c->n);
	rt_median_ci95(c->v, c->n, &c->lo, &c->hi);
}

/* Whether leader i is clearly within the band of the fastest, b. */
static int clearly_within(const rt_leader *c, int i, int b, double within)
{
	return c[i].lo >= (1 - within) * c[b].hi;
}

int rt_leaders_of(const rt_leader *c, int n, double within, int *out, int *separated)
{
	int best = -1, k = 0;
	*separated = 1;
	for (int i = 0; i < n; i++)
		if (c[i].n && (best < 0 || c[i].median > c[best].median))
			best = i;
	if (best < 0)
		return 0;
	out[k++] = best;
	for (int i = 0; i < n; i++) {
		if (i == best || !c[i].n || c[i].hi < (1 - within) * c[best].lo)
			continue;
		out[k++] = i;
		*separated &= clearly_within(c, i, best, within);
	}
	return k;
}

/* Adds v[0..nv) to c's samples and recomputes its figures. RT_ENOMEM. */
static int pool(rt_leader *c, const double *v, size_t nv)
{
	double *all = realloc(c->v, sizeof *all * (c->n + nv));
	if (!all)
		return RT_ENOMEM;
	memcpy(all + c->n, v, sizeof *all * nv);
	c->v = all;
	c->n += nv;
	rt_leader_summarize(c);
	return RT_OK;
}

/*
 * This round's candidates into out: the fastest and every leader not yet
 * clearly within its band; returns how many (1: nothing left to tell apart).
 */
static int round_members(const rt_leader *c, int n, double within, int *out)
{
	int sep, k = 0, *lead = malloc(sizeof *lead * (size_t)n);
	if (!lead)
		return -1;
	int nl = rt_leaders_of(c, n, within, lead, &sep);
	for (int j = 0; j < nl; j++)
		if (j == 0 || !clearly_within(c, lead[j], lead[0], within))
			out[k++] = lead[j];
	free(lead);
	return k;
}

/*
 * The least rounds' candidates into out: the fastest and every leader, or
 * the fastest and the next when it has no leader besides itself: a run's CI
 * covers its steps, not its luck (a run on a machine that other work left
 * alone for its seconds), so the fastest is measured again beside its
 * closest rival even when one run each set them apart. Returns how many.
 */
static int least_members(const rt_leader *c, int n, double within, int *out)
{
	int k = rt_leaders_of(c, n, within, out, &(int){0});
	if (k != 1)
		return k;
	for (int i = 0; i < n; i++)
		if (i != out[0] && c[i].n && (k == 1 || c[i].median > c[out[1]].median))
			out[(k = 2) - 1] = i;
	return k;
}

/*
 * One interleaved round over members m[0..k), started at offset rot, or one
 * further when that would run *last (the previous round's last) twice in a
 * row; *last gets this round's last.
 */
static int run_round(rt_leader *c, const int *m, int k, int rot, int *last,
		     const rt_leaders_opts *o, int round, rt_leaders_result *res)
{
	if (m[rot % k] == *last)
		rot++;
	*last = m[(rot + k - 1) % k];
	for (int j = 0; j < k; j++) {
		int i = m[(j + rot) % k];
		double *v = NULL;
		size_t nv = 0;
		int rc = o->measure(o->user, i, round, &v, &nv);
		if (rc == RT_EINFEASIBLE) {
			free(v);
			continue;
		}
		if (rc == RT_OK && nv)
			rc = pool(&c[i], v, nv);
		free(v);
		if (rc)
			return rc;
		c[i].again++;
		res->runs++;
	}
	return RT_OK;
}

int rt_leaders_separate(rt_leader *c, int n, const rt_leaders_opts *o, rt_leaders_result *res)
{
	int *m = malloc(sizeof *m * (size_t)(n > 0 ? n : 1)), rc = RT_OK, last = -1;
	memset(res, 0, sizeof *res);
	if (!m)
		return RT_ENOMEM;
	res->first_leaders = rt_leaders_of(c, n, o->within, m, &(int){0});
	for (;;) {
		int k = round_members(c, n, o->within, m);
		if (k < 0) {
			rc = RT_ENOMEM;
			break;
		}
		/* separated: stop once the least rounds ran */
		if (k <= 1 && res->rounds >= o->min_rounds)
			break;
		if (k <= 1) /* the least rounds: the fastest, every leader, however clear */
			k = least_members(c, n, o->within, m);
		if (k <= 1 || (o->max_rounds > 0 && res->rounds >= o->max_rounds))
			break;
		double cost = 0;
		for (int j = 0; j < k; j++)
			cost += o->cost(o->user, m[j]);
		if (o->clock(o->user) + cost > o->deadline)
			break;
		rc = run_round(c, m, k, res->rounds % k, &last, o, res->rounds, res);
		res->rounds++;
		if (rc)
			break;
	}
	int sep; /* m has room for n: the leaders at the end */
	res->nleaders = rc == RT_ENOMEM ? 0 : rt_leaders_of(c, n, o->within, m, &sep);
	res->best = res->nleaders ? m[0] : -1;
	res->separated = res->nleaders ? sep : 0;
	free(m);
	return rc;
}

void rt_leaders_free(rt_leader *c, int n)
{
	for (int i = 0; i < n; i++) {
		free(c[i].v);
		c[i].v = NULL;
		c[i].n = 0;
	}
}
