/*
 * check_canary.h: the machine's own change during a check (canary.h),
 * inside the check family: canary samples after every trial, as the tune
 * took them, compared with the baseline's, and the share of the points'
 * change they explain.
 *
 * Only the compute half decides (a scalar chain on every core: steal, a
 * lower clock, other processes). The memory half is measured and shown but
 * used to excuse nothing and to blame nothing: on the development VM it read
 * 11-27% slower in every check of an unchanged machine than in its tune, with
 * a tight CI (issue 33), more than any change it would take out.
 *
 * The compute half changes the points' verdicts only when it moved past its
 * own spread: the Mann-Whitney test finds it changed (p < 0.05), its 95% CI
 * lies wholly beyond +-own_spread (the most it moves with nothing changed:
 * RT_CANARY_OWN_SPREAD, or more if the baseline's or this check's series
 * drifts that much from its first half to its second), and the CI is not
 * wider than +-threshold (noisy). Then the machine's factor (speed) is its
 * ratio now / baseline, the points are compared as now / speed, and a
 * slowdown or speedup stands only past what the canary's CI allows the
 * machine (rt_check_canary_judge). Otherwise the speed is 1, the points are
 * compared as measured and nothing is excused; the sentence says which.
 */
#ifndef RT_CHECK_CANARY_H
#define RT_CHECK_CANARY_H

#include <stdint.h>

#include "../../search/stats.h"
#include "check_baseline.h"

/* The canary of one check: its samples now, and what they say against the baseline's. */
typedef struct rt_check_canary {
	rt_canary_sample *v; /* now, RT_CANARY_PER_TICK after every trial */
	size_t n, cap;
	int compared;        /* both sides have samples: cmp is set */
	int noisy;           /* its CI too wide to tell a change at the threshold: unused */
	rt_comparison cmp;   /* its compute half now against the baseline's */
	double compute_ratio, memory_ratio; /* each half's median now / baseline */
	double own_spread;   /* the most its compute half moves with nothing changed */
	double speed;        /* the machine's speed now / then that the points are divided
				by: cmp.ratio when it moved past own_spread, else 1 */
	char says[512];      /* that, in one sentence */
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
 * The compute half's own spread: how far its median moves between a tune and
 * a check of an unchanged machine (each a process of its own, minutes apart).
 * A change within it is not the machine's, as far as anyone can tell.
 * bench_canary on the development VM (1-minute load 2.4): 4.4% between the
 * medians of 8 fresh processes, 0.5% within one (the memory half: 77% and
 * 2.8%).
 */
#define RT_CANARY_OWN_SPREAD 0.05

/*
 * Canary samples a check takes before it calls a point slower or faster:
 * fewer cannot tell a machine that moved from one that did not.
 */
#define RT_CHECK_CANARY_MIN 8

/* Whether the canary has enough samples now to be believed (or none is wanted). */
int rt_check_canary_settled(const rt_check_canary *c, const rt_baseline *b, rt_canary_use use);

/*
 * c's samples against the baseline b's, with alpha and threshold as the
 * check's: cmp (the compute half), the halves' ratios, own_spread, speed and
 * the sentence. Without a
 * canary on either side (or not in use) the speed is 1 and the sentence
 * says why. RT_ENOMEM.
 */
int rt_check_canary_compare(rt_check_canary *c, const rt_baseline *b, rt_canary_use use,
			    double alpha, double threshold, uint64_t seed, char *err,
			    size_t errlen);

/*
 * A point's samples now against the baseline's, the machine's change taken
 * out: compared as now / c->speed (the canary's estimate) into out. When
 * the canary moved (speed not 1), a slowdown stands only if it also holds
 * with the machine as slow as the canary's 95% CI allows (its lower bound),
 * a speedup only with the machine as fast as its upper bound; else out->change
 * is RT_CHANGE_UNDECIDED, *explained is set and *bound is that bound (else
 * *explained is 0). A canary that did not move past its own spread excuses
 * nothing: the point is judged as measured. RT_EINVAL for a baseline median of 0, RT_ENOMEM.
 */
int rt_check_canary_judge(const rt_check_canary *c, const double *base, size_t nb,
			  const double *now, size_t nn, const rt_compare_opts *co,
			  rt_comparison *out, int *explained, double *bound);

/*
 * For a check that found a regression: whether the canary read the machine
 * slower (its compute half's 95% CI below 1) but not enough to be taken out
 * (speed 1, not noisy), and a sentence saying what that may mean in buf
 * (untouched when it returns 0). On the development VM it read so in 28 of
 * 29 false alarms, and in 44 of 75 checks of a BLAS 10% slower too (issue
 * 33): a reason to check again, not a verdict.
 */
int rt_check_canary_suspect(const rt_check_canary *c, char *buf, size_t len);

void rt_check_canary_free(rt_check_canary *c); /* accepts a zeroed one */

#endif
