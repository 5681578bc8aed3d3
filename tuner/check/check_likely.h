/*
 * check_likely.h: a slowdown that every sample shows, though the check could
 * not decide it (check.h's "likely regression").
 *
 * A check decides a regression by the trials' CI, a p-value and a change that
 * held over half the budget. A point whose trials are few and long (a
 * training script measured through --cmd) can end the budget undecided while
 * its samples leave no doubt: a library 9x slower read 88.9% slower with a
 * p of 0.095 from one trial. Such a point is a likely regression (exit 1)
 * when every sample now is slower than every sample of the baseline (all of
 * its trials, those left out too) by more than the threshold, and there are
 * enough samples that an unchanged point would put them all below the
 * baseline's with probability at most alpha: 1 / C(nb + nn, nn) <= alpha,
 * the chance that nn samples drawn alike with nb others are the nn lowest
 * of all (the threshold's margin makes it rarer still).
 */
#ifndef RT_CHECK_LIKELY_H
#define RT_CHECK_LIKELY_H

#include <stddef.h>

/* Whether now's nn samples are all past the threshold below base's nb, with enough of them (above). */
int rt_check_every_sample_slower(const double *base, size_t nb, const double *now, size_t nn,
				 double threshold, double alpha);

/* The chance, under no change, that nn samples are the lowest of nb + nn: 1 / C(nb + nn, nn). */
double rt_check_lowest_chance(size_t nb, size_t nn);

#endif
