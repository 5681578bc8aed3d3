/*
 * check_canary.h: the machine's own change during a check (canary.h),
 * inside the check family: a canary sample before every trial, compared
 * with the baseline's, and the share of the points' change it explains.
 *
 * The machine's factor is the ratio of the canary's score now / baseline
 * (rt_canary_score: compute and memory together) when the Mann-Whitney
 * test finds it changed (p < 0.05), else 1: a canary within its noise
 * explains nothing. The points are compared as now / factor, and a slowdown
 * or speedup stands only past what the canary's CI allows the machine
 * (rt_check_canary_judge). A canary whose CI is wider than +-threshold and
 * not clear of the band of no change is too noisy to do either (noisy): the
 * points are then compared as measured, and the sentence says so.
 */
#ifndef RT_CHECK_CANARY_H
#define RT_CHECK_CANARY_H

#include <stdint.h>

#include "../../search/stats.h"
#include "check_baseline.h"

/* The canary of one check: its samples now, and what they say against the baseline's. */
typedef struct rt_check_canary {
	rt_canary_sample *v; /* now, RT_CANARY_PER_TICK before every trial */
	size_t n, cap;
	int compared;        /* both sides have samples: cmp is set */
	int noisy;           /* its CI too wide to tell a change at the threshold: unused */
	rt_comparison cmp;   /* its score now against the baseline's */
	double compute_ratio, memory_ratio; /* each half's median now / baseline */
	double speed;        /* the machine's speed now / then that the points are divided
				by: cmp.ratio when significant, else 1 */
	char says[320];      /* that, in one sentence */
} rt_check_canary;

/* What the canary is to do in a check. */
typedef enum rt_canary_use {
	RT_CANARY_USE,    /* measure and compare */
	RT_CANARY_OFF,    /* --no-canary: compared as measured */
	RT_CANARY_AB,     /* an A/B check: its sides share the machine of the moment */
} rt_canary_use;

/*
 * Whether the check takes canary samples: the baseline kept some to compare
 * with, and it is neither --no-canary nor an A/B check (whose sides share
 * the machine of the moment).
 */
int rt_check_canary_wanted(const rt_baseline *b, rt_canary_use use);

/* RT_CANARY_PER_TICK canary samples now into c. RT_ENOMEM, RT_ERUNTIME. */
int rt_check_canary_tick(rt_check_canary *c, char *err, size_t errlen);

/*
 * Canary samples a check takes before it calls a point slower or faster:
 * fewer cannot tell a machine that moved from one that did not.
 */
#define RT_CHECK_CANARY_MIN 8

/* Whether the canary has enough samples now to be believed (or none is wanted). */
int rt_check_canary_settled(const rt_check_canary *c, const rt_baseline *b, rt_canary_use use);

/*
 * c's samples against the baseline b's, with alpha and threshold as the
 * check's: cmp, the halves' ratios, speed and the sentence. Without a
 * canary on either side (or not in use) the speed is 1 and the sentence
 * says why. RT_ENOMEM.
 */
int rt_check_canary_compare(rt_check_canary *c, const rt_baseline *b, rt_canary_use use,
			    double alpha, double threshold, uint64_t seed, char *err,
			    size_t errlen);

/*
 * A point's samples now against the baseline's, the machine's change taken
 * out: compared as now / c->speed (the canary's estimate) into out. A
 * slowdown stands only if it also holds with the machine as slow as the
 * canary's 95% CI allows (its lower bound, when below 1), a speedup only
 * with the machine as fast as its upper bound: a canary too noisy to pin the
 * machine's drift leaves the point undecided, never a regression. Then
 * out->change is RT_CHANGE_UNDECIDED, *explained is set and *bound is that
 * bound (else *explained is 0). RT_EINVAL for a baseline median of 0, RT_ENOMEM.
 */
int rt_check_canary_judge(const rt_check_canary *c, const double *base, size_t nb,
			  const double *now, size_t nn, const rt_compare_opts *co,
			  rt_comparison *out, int *explained, double *bound);

void rt_check_canary_free(rt_check_canary *c); /* accepts a zeroed one */

#endif
