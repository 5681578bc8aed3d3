/*
 * progress.h: what a long run says on stderr while it works. On a terminal a
 * bar redrawn in place (trials done, best so far, time left); otherwise one
 * line per trial, for logs; nothing when quiet.
 */
#ifndef RT_PROGRESS_H
#define RT_PROGRESS_H

typedef struct rt_progress {
	int quiet, tty;
	double start, budget_s; /* start: on the budget clock (common/clock.h) */
	int trials;
	int drawn; /* a bar is on screen and needs a newline before other output */
} rt_progress;

void rt_progress_init(rt_progress *p, double budget_s, int quiet);
/*
 * One finished trial: what ran ("transformer cpu fp32 batch=64 threads=2"),
 * its outcome ("812 samples/s" or "infeasible: ...") and the best so far.
 */
void rt_progress_trial(rt_progress *p, const char *what, const char *outcome,
		       const char *best);
/* A line of news (a workload starts, a backend is skipped). */
void rt_progress_note(rt_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends the bar with a newline. */
void rt_progress_done(rt_progress *p);

#endif
