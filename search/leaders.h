/*
 * leaders.h: telling the best points of a search apart before one is picked.
 *
 * A point measured once (one run of a user's command) carries that run's
 * luck: two points whose 95% CIs overlap are not told apart by it, and the
 * pick between them is a coin toss (a held-out PyTorch client: 0.871 of the
 * best). rt_leaders_separate() measures the leaders again, interleaved
 * (A B C, C A B, ...: every round runs each once, never one point's runs in
 * a block), pools each point's samples and recomputes its median and CI,
 * until the leaders are separated or the budget is spent.
 *
 * The leaders, from the pooled figures (higher is better; a caller that
 * minimizes passes 1/x): the fastest (highest median) and every point
 * whose CI reaches within `within` of the fastest's, hi >= (1 - within) *
 * fastest.lo: those that may tie with it, and those that may be the knee (a
 * smaller batch within 5% of the fastest, strategy.h). They are separated
 * when each leader but the fastest is clearly within the band, lo >= (1 -
 * within) * fastest.hi: then which is the fastest, and which points fall
 * within `within` of it, no longer depends on the runs' luck. With within 0
 * that means the fastest's CI overlaps no other's.
 *
 * Knows no workload: a candidate is its samples, and the caller's measure()
 * runs it once more. Error contract: 0, or the code measure() aborted with,
 * or RT_ENOMEM.
 */
#ifndef RT_LEADERS_H
#define RT_LEADERS_H

#include <stddef.h>

/* One candidate: its samples so far (the caller's first run among them) and their figures. */
typedef struct rt_leader {
	double *v;      /* pooled samples, higher is better; malloc'ed, owned (rt_leaders_free) */
	size_t n;
	double median, lo, hi; /* of v: median and its distribution-free 95% CI */
	int again;      /* runs measured here */
} rt_leader;

typedef struct rt_leaders_opts {
	double within;   /* the knee's band (RT_KNEE_WITHIN); 0: the fastest alone */
	double deadline; /* on clock(): a round starts only when its predicted cost fits */
	int min_rounds;  /* rounds run whatever the CIs say, budget permitting (2) */
	int max_rounds;  /* 0: until separated or the budget is spent */
	double (*clock)(void *user);
	/* predicted seconds of one run of candidate i (its last run's, say) */
	double (*cost)(void *user, int i);
	/*
	 * Runs candidate i once: 0 with its new samples in *v (malloc'ed, the
	 * callee's to fill, higher is better), RT_EINFEASIBLE for a run that
	 * failed (no samples; the candidate keeps its old ones), another code
	 * to abort. round is the round's number (from 0), for progress lines.
	 */
	int (*measure)(void *user, int i, int round, double **v, size_t *n);
	void *user;
} rt_leaders_opts;

typedef struct rt_leaders_result {
	int rounds;     /* interleaved rounds run */
	int runs;       /* runs in them */
	int separated;  /* the leaders were separated (or there was one) at the end */
	int nleaders;   /* leaders at the end, the fastest among them */
	int first_leaders; /* leaders before any run here */
	int best;       /* the fastest at the end; -1 when no candidate has a sample */
} rt_leaders_result;

/* Fills c->median, lo and hi from its samples (0 when it has none). */
void rt_leader_summarize(rt_leader *c);

/*
 * The leaders of c[0..n) into out (the fastest first; out has room for n),
 * from their current figures; returns how many (0 when none has a sample).
 * *separated says whether they are.
 */
int rt_leaders_of(const rt_leader *c, int n, double within, int *out, int *separated);

/*
 * Measures the leaders of c[0..n) again in interleaved rounds while they
 * are not separated, a round's cost (the sum of its candidates' cost())
 * fits before o->deadline and o->max_rounds allows. A round runs the
 * fastest and every leader not yet clearly within the band, in an order
 * rotated by one each round. The first o->min_rounds rounds run whatever
 * the CIs say, where the budget allows: the fastest and every leader, or
 * the fastest and the next point when it has no other leader (a run's CI
 * covers its steps, not its luck: one lucky run on a machine that other
 * work left alone stands apart). Each candidate's figures are recomputed
 * from its pooled samples after every run.
 */
int rt_leaders_separate(rt_leader *c, int n, const rt_leaders_opts *o, rt_leaders_result *res);

/* Frees every candidate's samples. */
void rt_leaders_free(rt_leader *c, int n);

#endif
