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
/* Samples each half of a series needs for its drift to count (own_spread). */
#define DRIFT_MIN_HALF 4

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

/* Which half of a sample: 0 compute, 1 memory. */
static double field(const rt_canary_sample *s, int which)
{
	return which ? s->memory : s->compute;
}

/* One half of n samples into v (n). */
static void half_of(const rt_canary_sample *s, size_t n, int which, double *v)
{
	for (size_t i = 0; i < n; i++)
		v[i] = field(&s[i], which);
}

/* The median of one half of n samples; v is scratch of n. */
static double median_of(const rt_canary_sample *s, size_t n, int which, double *v)
{
	half_of(s, n, which, v);
	return rt_median(v, n);
}

/*
 * How far the compute half of one series (in the order it was taken) moves
 * from its first half to its second, as a ratio's distance from 1: what the
 * canary does on its own over a tune or a check. 0 with too few samples; v is
 * scratch of n.
 */
static double drift_within(const rt_canary_sample *s, size_t n, double *v)
{
	size_t h = n / 2;
	if (h < DRIFT_MIN_HALF)
		return 0;
	double first = median_of(s, h, 0, v), second = median_of(s + h, n - h, 0, v);
	return exp(fabs(log(second / first))) - 1;
}

/* Whether the comparison's CI lies wholly beyond +-spread: the canary moved. */
static int moved(const rt_comparison *k, double spread)
{
	return k->ci_hi < 1 - spread || k->ci_lo > 1 + spread;
}

static void say(rt_check_canary *c, double threshold)
{
	const rt_comparison *k = &c->cmp;
	double pct = 100 * (c->speed - 1);
	char halves[224];
	snprintf(halves, sizeof halves,
		 "canary: compute %+.1f%% [95%% CI %+.1f, %+.1f], p = %.2g; memory %+.1f%%, "
		 "shown only: it moves by a fifth between runs of an unchanged VM",
		 100 * (k->ratio - 1), 100 * (k->ci_lo - 1), 100 * (k->ci_hi - 1), k->test.p,
		 100 * (c->memory_ratio - 1));
	if (c->noisy)
		snprintf(c->says, sizeof c->says,
			 "the canary is too noisy to tell the machine's change at the threshold "
			 "(%s): the points are compared as measured",
			 halves);
	else if (c->speed == 1)
		snprintf(c->says, sizeof c->says,
			 "the machine itself is as fast as in the baseline, within the canary's "
			 "own spread of +-%.1f%% (%s): the points are compared as measured",
			 100 * c->own_spread, halves);
	else
		snprintf(c->says, sizeof c->says,
			 "the machine is %.1f%% %s overall%s (%s): the points are compared with "
			 "that taken out",
			 fabs(pct), pct < 0 ? "slower" : "faster",
			 fabs(pct) < 100 * threshold ? ", within the threshold" : "", halves);
}

/* Why a check that wanted the canary has none of the baseline's to compare with. */
static const char *no_canary_why(const rt_baseline *b)
{
	if (b->ncanary)
		return "none was measured now";
	if (b->canary_older)
		return "its tune's rigtune measured an older one, whose threads were not bound "
		       "to CPUs: not comparable";
	return "its tune was made by a rigtune that did not measure one";
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
			 no_canary_why(b));
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
	c->memory_ratio = median_of(c->v, nn, 1, y) / median_of(b->canary, nb, 1, x);
	c->own_spread = fmax(RT_CANARY_OWN_SPREAD,
			     fmax(drift_within(b->canary, nb, x), drift_within(c->v, nn, y)));
	half_of(b->canary, nb, 0, x);
	half_of(c->v, nn, 0, y);
	rt_compare_opts co = {.alpha = alpha, .threshold = threshold, .reps = BOOTSTRAP_REPS,
			      .seed = seed};
	int rc = rt_compare(x, nb, y, nn, &co, &c->cmp);
	free(x);
	if (rc)
		return rt_fail(err, errlen, rc, "%s", rc == RT_ENOMEM ? "out of memory"
								     : "the canary's samples are zero");
	c->compared = 1;
	c->compute_ratio = c->cmp.ratio;
	c->noisy = too_noisy(&c->cmp, threshold);
	if (c->cmp.test.p < CANARY_ALPHA && !c->noisy && moved(&c->cmp, c->own_spread))
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
	/* a canary that did not move past its own spread excuses nothing */
	if (rc || c->speed == 1 ||
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

int rt_check_canary_suspect(const rt_check_canary *c, char *buf, size_t len)
{
	if (!c->compared || c->noisy || c->speed != 1 || !(c->cmp.ci_hi < 1))
		return 0;
	snprintf(buf, len,
		 "the canary read the machine %.1f%% slower too (95%% CI %+.1f%% to %+.1f%%), "
		 "not enough to take out of the points: on a VM that is often the host slowing "
		 "its cores for minutes, but a canary cannot tell that from a slower component; "
		 "check again later, or compare before and after in one session (--a, --b)",
		 100 * (1 - c->cmp.ratio), 100 * (c->cmp.ci_lo - 1), 100 * (c->cmp.ci_hi - 1));
	return 1;
}

void rt_check_canary_free(rt_check_canary *c)
{
	free(c->v);
	memset(c, 0, sizeof *c);
}
