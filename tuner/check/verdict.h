/*
 * verdict.h: what `rigtune check` says of one point, shared by the check
 * (check.h) and the reader of its result (check_result.h), which needs no more
 * of the check than these words.
 */
#ifndef RT_VERDICT_H
#define RT_VERDICT_H

/* The version of the check's YAML (rigtune_check: N): written and read in check_doc.c. */
#define RT_CHECK_SCHEMA 1

typedef enum rt_verdict {
	RT_VERDICT_UNCHANGED,	/* the same: the ratio's CI within +-threshold */
	RT_VERDICT_REGRESSION,
	RT_VERDICT_IMPROVEMENT,
	RT_VERDICT_INFEASIBLE,	/* ran in the baseline, not now: a regression */
	RT_VERDICT_INCONCLUSIVE, /* unknown: needs about N more samples */
	RT_VERDICT_NOT_RUN,	/* a command's point, check not given the command (--cmd) */
	RT_VERDICT_LIKELY_REGRESSION, /* undecided, every sample slower (check_likely.h) */
	RT_NVERDICT
} rt_verdict;

/* "unchanged", "regression", ...: the words of the YAML (check_doc.c). */
const char *rt_verdict_name(rt_verdict v);

/*
 * The verdicts that are regressions (exit 1): slower, likely slower, or no
 * longer running. Inline: check_run.c, the fleet's store and bench_check
 * count them alike, and a home in check_doc.c made a call circle with
 * check_run.c.
 */
static inline int rt_verdict_is_regression(rt_verdict v)
{
	return v == RT_VERDICT_REGRESSION || v == RT_VERDICT_LIKELY_REGRESSION ||
	       v == RT_VERDICT_INFEASIBLE;
}

/* Of verdicts counted by kind, the regressions (rt_verdict_is_regression). */
static inline int rt_verdict_regressions(const int counts[RT_NVERDICT])
{
	int n = 0;
	for (int v = 0; v < RT_NVERDICT; v++)
		n += rt_verdict_is_regression((rt_verdict)v) ? counts[v] : 0;
	return n;
}

#endif
