/* tune_pick.c: what a finished search recommends, from its trials (tune_run.h). */
#include <string.h>

#include "../common/rt.h"
#include "../search/strategy.h"
#include "tune_run.h"

int rt_tune_top_trials(const rt_tune_workload *twl, const int *skip, int nskip, int *out, int n)
{
	int k = 0;
	while (k < n) {
		int next = -1;
		for (int i = 0; i < twl->ntrials; i++) {
			const rt_tune_trial *t = &twl->trials[i];
			int taken = 0;
			for (int j = 0; j < k; j++)
				taken |= out[j] == i;
			for (int j = 0; j < nskip; j++)
				taken |= skip[j] == i;
			if (t->feasible && !taken && (next < 0 || t->score > twl->trials[next].score))
				next = i;
		}
		if (next < 0)
			break;
		out[k++] = next;
	}
	return k;
}

const rt_tune_trial *rt_tune_trial_at(const rt_tune_workload *twl, const int *idx)
{
	for (int i = 0; i < twl->ntrials; i++)
		if (!memcmp(twl->trials[i].idx, idx, sizeof(int) * (size_t)rt_space_nparams(twl->space)))
			return &twl->trials[i];
	return NULL;
}

int rt_tune_pick(const rt_tune_workload *twl, const rt_tune_trial **fastest,
		 const rt_tune_trial **rec, int *naive_kept)
{
	const rt_search_result *r = twl->result;
	int k;
	*naive_kept = 0;
	*fastest = *rec = NULL;
	if (twl->status != RT_OK || !r || r->best < 0 ||
	    !(*fastest = rt_tune_trial_at(twl, r->trials[r->best].idx)))
		return RT_EINVAL;
	*rec = *fastest;
	if (rt_knee_point(twl->space, r, RT_KNEE_WITHIN, &k, NULL, 0) == RT_OK &&
	    rt_tune_trial_at(twl, r->trials[k].idx))
		*rec = rt_tune_trial_at(twl, r->trials[k].idx);
	const rt_tune_trial *naive = twl->naive.feasible ? &twl->naive : NULL;
	const rt_tune_trial *cand = twl->w ? rt_tune_trial_at(twl, twl->naive_idx) : NULL;
	if (!naive && cand && cand->feasible)
		naive = cand;
	if (!naive)
		return RT_OK;
	if ((*fastest)->median <= naive->ci_hi && cand && cand->feasible) {
		*rec = cand; /* nothing beat the naive default beyond its noise: keep it */
		*naive_kept = 1;
	} else if ((*rec)->median < naive->median) {
		*rec = *fastest; /* the knee gave up more than tuning won */
	}
	return RT_OK;
}

double rt_tune_naive_ratio(const rt_tune_workload *twl, const rt_tune_trial *rec)
{
	const rt_tune_trial *n = &twl->naive;
	if (!rec || !(n->feasible || n->predicted) || n->median <= 0 || rec->median <= 0)
		return 0;
	return twl->minimize ? n->median / rec->median : rec->median / n->median;
}

int rt_tune_recommends(const rt_tune_run *run)
{
	for (int i = 0; i < run->nwl; i++)
		if (run->wl[i].status == RT_OK && run->wl[i].result && run->wl[i].result->best >= 0)
			return 1;
	return 0;
}

