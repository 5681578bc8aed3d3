/*
 * check_likely.h: a slowdown that every sample shows, though the check could
 * not decide it (check.h's "likely regression").
 *
 * A check decides a regression by the trials' CI, a p-value and a change that
 * held over half the budget. A point whose trials are few and long (a
 * training script measured through --cmd) can end the budget undecided while
 * its samples leave no doubt: a library 9x slower read 88.9% slower with a
 * p of 0.095 from one trial. Such a point is a likely regression (exit 1)
 * when every sample now is past the threshold below the baseline's median,
 * and there are enough of them that an unchanged point would put them all
 * there with probability at most alpha: q^nn <= alpha, q being the share of
 * the baseline's own samples that far below its median ((k + 1) / (nb + 1):
 * never taken as 0). A baseline that spreads wide needs more samples now.
 */
#ifndef RT_CHECK_LIKELY_H
#define RT_CHECK_LIKELY_H

#include <stddef.h>

/*
 * The chance, under no change, that nn samples all fall at or below
 * (1 - threshold) times the median of base's nb: ((k + 1) / (nb + 1))^nn,
 * k of base's samples being there. 1 for an empty base.
 */
double rt_check_below_chance(const double *base, size_t nb, size_t nn, double threshold);

/* Whether now's nn samples are all past the threshold below base's median, with enough of them. */
int rt_check_every_sample_slower(const double *base, size_t nb, const double *now, size_t nn,
				 double threshold, double alpha);

#endif
