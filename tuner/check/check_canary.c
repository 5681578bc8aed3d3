/* check_canary.c: the machine's own change during a check (check_canary.h). */
#include "check_canary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BOOTSTRAP_REPS 2000
/*
 * The level at which the canary counts as moved. Looser than a point's: taking
 * out a small change of the machine that is only noise costs a point little,
 * leaving in one that is real costs a false verdict.
 */
#define CANARY_ALPHA 0.05

/*
 * Whether the canary's CI is too wide to say anything at the threshold's
 * scale: wider than +-threshold (in log terms) and not clear of the band of
 * no change either. A VM's canary can spread so (a vCPU slowed for part of
 * the samples, a memory read that varies by a fifth); taking its share out,
 * or letting its CI bound explain a point's change, would then hide any
 * regression smaller than its noise.
 */
static int too_noisy(const rt_comparison *k, double threshold)
{
	int clear = k->ci_hi < 1 - threshold || k->ci_lo > 1 + threshold;
	return !clear && 0.5 * log(k->ci_hi / k->ci_lo) > log1p(threshold);
}

int rt_check_canary_wanted(const rt_baseline *b, rt_canary_use use)
{
	return use == RT_CANARY_USE && b->ncanary > 0;
}

static int tick_once(rt_check_canary *c, char *err, size_t errlen)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		rt_canary_sample *v = realloc(c->v, cap * sizeof *v);
		if (!v)
			return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		c->v = v;
		c->cap = cap;
	}
	int rc = rt_canary_measure(&c->v[c->n]);
	if (rc)
		return rt_fail(err, errlen, rc, "the canary cannot run: %s",
			       rc == RT_ENOMEM ? "out of memory" : "no thread");
	c->n++;
	return RT_OK;
}

int rt_check_canary_tick(rt_check_canary *c, char *err, size_t errlen)
{
	int rc = RT_OK;
	for (int i = 0; rc == RT_OK && i < RT_CANARY_PER_TICK; i++)
		rc = tick_once(c, err, errlen);
	return rc;
}

int rt_check_canary_settled(const rt_check_canary *c, const rt_baseline *b, rt_canary_use use)
{
	return !rt_check_canary_wanted(b, use) || c->n >= RT_CHECK_CANARY_MIN;
}

/* Which half of a sample, or its score (-1). */
static double field(const rt_canary_sample *s, int which)
{
	return which == 0 ? s->compute : which == 1 ? s->memory : rt_canary_score(s);
}

/* The median of one half (or the score) of n samples; v is scratch of n. */
static double median_of(const rt_canary_sample *s, size_t n, int which, double *v)
{
	for (size_t i = 0; i < n; i++)
		v[i] = field(&s[i], which);
	return rt_median(v, n);
}

static void say(rt_check_canary *c, double threshold)
{
	const rt_comparison *k = &c->cmp;
	double pct = 100 * (c->speed - 1);
	char halves[160];
	snprintf(halves, sizeof halves,
		 "canary: compute %+.1f%%, memory %+.1f%%, together %+.1f%% [95%% CI %+.1f, "
		 "%+.1f], p = %.2g",
		 100 * (c->compute_ratio - 1), 100 * (c->memory_ratio - 1), 100 * (k->ratio - 1),
		 100 * (k->ci_lo - 1), 100 * (k->ci_hi - 1), k->test.p);
	if (c->noisy)
		snprintf(c->says, sizeof c->says,
			 "the canary is too noisy to tell the machine's change at the threshold "
			 "(%s): the points are compared as measured",
			 halves);
	else if (c->speed == 1)
		snprintf(c->says, sizeof c->says,
			 "the machine itself is as fast as in the baseline (%s): the points are "
			 "compared as measured",
			 halves);
	else
		snprintf(c->says, sizeof c->says,
			 "the machine is %.1f%% %s overall%s (%s): the points are compared with "
			 "that taken out",
			 fabs(pct), pct < 0 ? "slower" : "faster",
			 fabs(pct) < 100 * threshold ? ", within the threshold" : "", halves);
}

/* Why the points are compared as measured, when the canary is not compared. */
static void say_uncompared(rt_check_canary *c, const rt_baseline *b, rt_canary_use use)
{
	if (use == RT_CANARY_AB)
		snprintf(c->says, sizeof c->says,
			 "A and B were measured interleaved in one session (A B, then B A, "
			 "...): the machine's drift falls on both alike");
	else if (use == RT_CANARY_OFF)
		snprintf(c->says, sizeof c->says,
			 "no canary (--no-canary): the points are compared as measured");
	else
		snprintf(c->says, sizeof c->says,
			 "the baseline has no canary (%s): a slower machine cannot be told from "
			 "a slower component, the points are compared as measured",
			 b->ncanary ? "none was measured now"
				    : "its tune was made by a rigtune that did not measure one");
}

int rt_check_canary_compare(rt_check_canary *c, const rt_baseline *b, rt_canary_use use,
			    double alpha, double threshold, uint64_t seed, char *err,
			    size_t errlen)
{
	c->speed = 1;
	c->compared = c->noisy = 0;
	if (use != RT_CANARY_USE || !b->ncanary || !c->n) {
		say_uncompared(c, b, use);
		return RT_OK;
	}
	size_t nb = b->ncanary, nn = c->n;
	double *x = malloc(sizeof(double) * (nb + nn)), *y = x ? x + nb : NULL;
	if (!x)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	c->compute_ratio = median_of(c->v, nn, 0, y) / median_of(b->canary, nb, 0, x);
	c->memory_ratio = median_of(c->v, nn, 1, y) / median_of(b->canary, nb, 1, x);
	median_of(b->canary, nb, -1, x);
	median_of(c->v, nn, -1, y);
	rt_compare_opts co = {.alpha = alpha, .threshold = threshold, .reps = BOOTSTRAP_REPS,
			      .seed = seed};
	int rc = rt_compare(x, nb, y, nn, &co, &c->cmp);
	free(x);
	if (rc)
		return rt_fail(err, errlen, rc, "%s", rc == RT_ENOMEM ? "out of memory"
								     : "the canary's samples are zero");
	c->compared = 1;
	c->noisy = too_noisy(&c->cmp, threshold);
	if (c->cmp.test.p < CANARY_ALPHA && !c->noisy)
		c->speed = c->cmp.ratio;
	say(c, threshold);
	return RT_OK;
}

/* now / machine against base into out. */
static int compare_at(const double *base, size_t nb, const double *now, size_t nn,
		      double machine, const rt_compare_opts *co, rt_comparison *out)
{
	double *v = malloc(sizeof(double) * nn);
	if (!v)
		return RT_ENOMEM;
	for (size_t i = 0; i < nn; i++)
		v[i] = now[i] / machine;
	int rc = rt_compare(base, nb, v, nn, co, out);
	free(v);
	return rc;
}

int rt_check_canary_judge(const rt_check_canary *c, const double *base, size_t nb,
			  const double *now, size_t nn, const rt_compare_opts *co,
			  rt_comparison *out, int *explained, double *bound)
{
	*explained = 0;
	*bound = c->speed;
	int rc = compare_at(base, nb, now, nn, c->speed, co, out);
	if (rc || !c->compared || c->noisy ||
	    (out->change != RT_CHANGE_SLOWER && out->change != RT_CHANGE_FASTER))
		return rc;
	/* the bound of the machine's change that explains most of the point's */
	double m = out->change == RT_CHANGE_SLOWER ? fmin(1, c->cmp.ci_lo) : fmax(1, c->cmp.ci_hi);
	if (out->change == RT_CHANGE_SLOWER ? m >= c->speed : m <= c->speed)
		return RT_OK;
	rt_comparison worst;
	rc = compare_at(base, nb, now, nn, m, co, &worst);
	if (rc == RT_OK && worst.change != out->change) {
		out->change = RT_CHANGE_UNDECIDED;
		out->more_samples = worst.more_samples;
		*explained = 1;
		*bound = m;
	}
	return rc;
}

void rt_check_canary_free(rt_check_canary *c)
{
	free(c->v);
	memset(c, 0, sizeof *c);
}
