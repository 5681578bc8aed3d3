/*
 * check_pairs.h: how an A/B check compares its sides (check.h): by pairs of
 * trials, not by pooled samples.
 *
 * The samples of one trial share the machine's mood of that second; two
 * trials a minute apart do not. Pooled, they look like many independent
 * samples and a drift between trials reads as a difference. So each round's
 * A trial and B trial (run back to back, A B then B A) make one pair, its
 * log ratio log(median B / median A) one observation, and the rounds are
 * what the interval counts:
 *   ratio   exp(median of the log ratios), with the bootstrap 95% CI of
 *           that median: a drift between rounds widens it, a drift that
 *           falls on both trials of a pair cancels in it;
 *   p       the larger of two: Wilcoxon's signed-rank test of the pairs' log
 *           ratios (exact: the pairs are what is independent, and a check
 *           that looks again after every pair must not stop on a few that
 *           happen to agree; at alpha 0.01 it takes 8 pairs at least) and
 *           the Mann-Whitney test of the pooled samples (as a check against
 *           a baseline);
 *   change  SLOWER / FASTER when p < alpha, the pairs' CI on one side of 1
 *           and the ratio past the threshold; SAME when the whole CI is
 *           within +-threshold; UNDECIDED else, with about how many more
 *           pairs would decide it (the CI's half-width shrinking as
 *           1/sqrt(n)).
 * Fewer than three pairs decide nothing.
 */
#ifndef RT_CHECK_PAIRS_H
#define RT_CHECK_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "../../search/stats.h"

/*
 * The comparison of n pairs' log ratios (B over A) with the pooled
 * samples' test, as above, into c (ratio, ci_lo, ci_hi, test, change,
 * more_samples: pairs; base_n, now_n: the pairs).
 */
void rt_compare_pairs(const double *log_ratios, size_t n, const rt_mwu *pooled,
		      const rt_compare_opts *o, rt_comparison *c);

#endif
