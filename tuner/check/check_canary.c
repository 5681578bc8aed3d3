/* check_canary.c: the machine's own change during a check (check_canary.h). */
#include "check_canary.h"

#include <stdlib.h>
#include <string.h>

#define BOOTSTRAP_REPS 2000

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

static void say(rt_check_canary *c)
{
	const rt_comparison *k = &c->cmp;
	snprintf(c->says, sizeof c->says,
		 "compute %+.1f%% [95%% CI %+.1f, %+.1f], p = %.2g; memory %+.1f%%; shown "
		 "only, the points are compared as measured (on an unchanged VM it moves by "
		 "a third or more between runs)",
		 100 * (k->ratio - 1), 100 * (k->ci_lo - 1), 100 * (k->ci_hi - 1), k->test.p,
		 100 * (c->memory_ratio - 1));
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

/* Why there is no canary to show. */
static void say_uncompared(rt_check_canary *c, const rt_baseline *b, rt_canary_use use)
{
	if (use == RT_CANARY_AB)
		snprintf(c->says, sizeof c->says,
			 "none: A and B were measured interleaved in one session (A B, then B "
			 "A, ...), so the machine's drift falls on both alike");
	else if (use == RT_CANARY_OFF)
		snprintf(c->says, sizeof c->says,
			 "none (--no-canary)");
	else
		snprintf(c->says, sizeof c->says,
			 "none: the baseline has none (%s)",
			 no_canary_why(b));
}

int rt_check_canary_compare(rt_check_canary *c, const rt_baseline *b, rt_canary_use use,
			    uint64_t seed, char *err, size_t errlen)
{
	c->compared = 0;
	if (use != RT_CANARY_USE || !b->ncanary || !c->n) {
		say_uncompared(c, b, use);
		return RT_OK;
	}
	size_t nb = b->ncanary, nn = c->n;
	double *x = malloc(sizeof(double) * (nb + nn)), *y = x ? x + nb : NULL;
	if (!x)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	c->memory_ratio = median_of(c->v, nn, 1, y) / median_of(b->canary, nb, 1, x);
	half_of(b->canary, nb, 0, x);
	half_of(c->v, nn, 0, y);
	/* alpha and threshold classify a change, which nothing reads here: the CI and p are said */
	rt_compare_opts co = {.alpha = 0.05, .threshold = 0.05, .reps = BOOTSTRAP_REPS,
			      .seed = seed};
	int rc = rt_compare(x, nb, y, nn, &co, &c->cmp);
	free(x);
	if (rc)
		return rt_fail(err, errlen, rc, "%s", rc == RT_ENOMEM ? "out of memory"
								     : "the canary's samples are zero");
	c->compared = 1;
	say(c);
	return RT_OK;
}

int rt_check_canary_suspect(const rt_check_canary *c, char *buf, size_t len)
{
	if (!c->compared || !(c->cmp.ci_hi < 1))
		return 0;
	snprintf(buf, len,
		 "the canary read the machine %.1f%% slower too (95%% CI %+.1f%% to %+.1f%%): "
		 "on a VM that is often the host slowing its cores for minutes, but a canary "
		 "cannot tell that from a slower machine or component; check again later, or "
		 "compare before and after in one session (--a, --b)",
		 100 * (1 - c->cmp.ratio), 100 * (c->cmp.ci_lo - 1), 100 * (c->cmp.ci_hi - 1));
	return 1;
}

void rt_check_canary_free(rt_check_canary *c)
{
	free(c->v);
	memset(c, 0, sizeof *c);
}
