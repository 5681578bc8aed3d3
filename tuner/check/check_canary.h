/*
 * check_canary.h: the machine's own change during a check (canary.h),
 * inside the check family: canary samples after every trial, as the tune
 * took them, compared with the baseline's, and said beside the points.
 *
 * The canary is shown, never used: it excuses no point's change and blames
 * none. Issue 33 asked that it decide only once it reads within its own CI of
 * no change in 95% of the checks of an unchanged machine. On the development
 * VM its compute half did so in 20 of 24 checks (three series of 8, its
 * threads bound to CPUs), and its medians differ by 7-35% between processes
 * (bench_canary): a gate of a few percent past which it took the machine's change
 * out of the points excused changes it had made up. The memory half moves by
 * a fifth between processes (where the host backs their pages). So the
 * points are compared as measured; for a regression while the compute half
 * read the machine slower, a suggestion says that the host may be why.
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
	rt_comparison cmp;   /* its compute half now against the baseline's */
	double memory_ratio; /* the memory half's median now / baseline */
	char says[512];      /* what it read, in one sentence */
} rt_check_canary;

/* What the canary is to do in a check. */
typedef enum rt_canary_use {
	RT_CANARY_USE,    /* measure and show */
	RT_CANARY_OFF,    /* --no-canary: not measured */
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
 * c's samples against the baseline b's: cmp (the compute half), the memory
 * half's ratio and the sentence; without a canary on either side (or not in
 * use) the sentence says why there is none. RT_ENOMEM.
 */
int rt_check_canary_compare(rt_check_canary *c, const rt_baseline *b, rt_canary_use use,
			    uint64_t seed, char *err, size_t errlen);

/*
 * For a check that found a regression: whether the canary read the machine
 * slower (its compute half's 95% CI below 1), and a sentence saying what
 * that may mean in buf (untouched when it returns 0). On the development VM
 * it read so in 28 of 29 false alarms, and in 44 of 75 checks of a BLAS 10%
 * slower too (issue 33): a reason to check again, not a verdict.
 */
int rt_check_canary_suspect(const rt_check_canary *c, char *buf, size_t len);

void rt_check_canary_free(rt_check_canary *c); /* accepts a zeroed one */

#endif
