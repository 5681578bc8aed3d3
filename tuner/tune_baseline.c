/* tune_baseline.c: what a check compares, measured again at the tune's end (tune_baseline.h). */
#include "tune_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/clock.h"
#include "../common/rt.h"
#include "replay.h"
#include "tune_target.h"

/* A workload's trial gets the length its search gave it, within these. */
#define TRIAL_MIN_S 0.25
#define TRIAL_MAX_S 2.0

/* One point a check compares: a workload's trial, or a size of a sweep's curve. */
typedef struct item {
	int wl;                  /* the workload's index in run->wl; -1 for a sweep size */
	const rt_tune_trial *t;  /* the workload's trial of the point */
	size_t curve;            /* a sweep size's curve in run->crossover.square */
	long n;
	double cost;             /* seconds its last run took */
} item;

typedef struct items {
	item *v;
	int n, cap;
} items;

static int add(items *s, item it)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		item *v = realloc(s->v, sizeof *v * (size_t)cap);
		if (!v)
			return RT_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = it;
	return RT_OK;
}

/* Each built-in workload's recommended point, and its fastest when that is another. */
static int add_workloads(const rt_tune_run *run, items *s)
{
	int rc = RT_OK;
	for (int i = 0; rc == RT_OK && i < run->nwl; i++) {
		const rt_tune_workload *twl = &run->wl[i];
		const rt_tune_trial *fastest, *rec;
		int kept;
		if (twl->target->confirm || rt_tune_pick(twl, &fastest, &rec, &kept))
			continue;
		rc = add(s, (item){.wl = i, .t = rec, .cost = rec->seconds});
		if (rc == RT_OK && fastest != rec)
			rc = add(s, (item){.wl = i, .t = fastest, .cost = fastest->seconds});
	}
	return rc;
}

/* The sizes of each square curve that a check compares (rt_replay_check_sizes). */
static int add_sweep(const rt_tune_run *run, const rt_crossover_sweep_opts *xo, items *s)
{
	const rt_replay *r = run->crossover.square;
	int rc = RT_OK;
	for (size_t c = 0; xo && r && rc == RT_OK && c < r->ncurves; c++) {
		double sizes[RT_REPLAY_CHECK_SIZES];
		size_t picked, distinct;
		rc = rt_replay_check_sizes(r->curves[c].n, r->curves[c].count, sizes, &picked,
					   &distinct);
		for (size_t k = 0; rc == RT_OK && k < picked; k++)
			rc = add(s, (item){.wl = -1, .curve = c, .n = (long)sizes[k],
					   .cost = 2 * xo->seconds_per_point});
	}
	return rc;
}

/* A workload's point once more, journaled (and a canary sample after it). */
static int measure_trial(const rt_tune_rounds *r, item *it, char *err, size_t errlen)
{
	tune_ctx c = {.run = r->run, .twl = &r->run->wl[it->wl], .o = r->o,
		      .progress = r->progress, .journal = r->journal, .topo = r->topo,
		      .deadline = r->deadline};
	double cap = fmin(TRIAL_MAX_S, fmax(TRIAL_MIN_S, it->t->seconds - it->t->setup_seconds));
	rt_tune_trial again = *it->t; /* journaled as role: again */
	again.again = 1;
	rt_measurement m;
	int rc = rt_tune_measure_fresh(&c, &again, cap, &m, err, errlen);
	if (rc)
		return rc;
	it->cost = m.seconds > 0 ? m.seconds : it->cost;
	rt_measurement_free(&m);
	return RT_OK;
}

/* A sweep's size once more, its samples added to its curve. */
static int measure_size(const rt_tune_rounds *r, item *it, char *err, size_t errlen)
{
	double seconds = 0;
	int rc = rt_crossover_measure_again(r->xo, r->run->crossover.square, it->curve, it->n,
					    &seconds, err, errlen);
	it->cost = seconds > 0 ? seconds : it->cost;
	return rc;
}

/*
 * One round, forward or backward, so that each point's runs fall at
 * different places of the rounds; *runs counts them. Stops before a run
 * predicted to end past the deadline.
 */
static int round_of(const rt_tune_rounds *r, items *s, int backward, int *runs, char *err,
		    size_t errlen)
{
	for (int k = 0; k < s->n; k++) {
		item *it = &s->v[backward ? s->n - 1 - k : k];
		if ((r->stop && r->stop()) || rt_clock_now() + it->cost > r->deadline)
			return RT_OK;
		int rc = it->wl >= 0 ? measure_trial(r, it, err, errlen) : measure_size(r, it, err, errlen);
		if (rc)
			return rc;
		(*runs)++;
	}
	return RT_OK;
}

int rt_tune_baseline(const rt_tune_rounds *r, char *err, size_t errlen)
{
	items s = {0};
	int rc = add_workloads(r->run, &s);
	if (rc == RT_OK)
		rc = add_sweep(r->run, r->xo, &s);
	if (rc == RT_ENOMEM)
		rt_fail(err, errlen, rc, "out of memory");
	int runs = 0;
	if (rc == RT_OK && s.n)
		rt_progress_note(r->progress, "measuring again what a check compares (%d point%s, up to "
					      "%d rounds, %.0f s), so that its baseline is more than "
					      "one draw of the machine's state",
				 s.n, s.n == 1 ? "" : "s", RT_TUNE_BASELINE_ROUNDS,
				 fmax(0, r->deadline - rt_clock_now()));
	for (int k = 0; rc == RT_OK && s.n && k < RT_TUNE_BASELINE_ROUNDS; k++)
		rc = round_of(r, &s, k % 2, &runs, err, errlen);
	if (rc == RT_OK && s.n)
		rt_progress_note(r->progress, "measured again: %d run%s of %d point%s", runs,
				 runs == 1 ? "" : "s", s.n, s.n == 1 ? "" : "s");
	free(s.v);
	return rc;
}
