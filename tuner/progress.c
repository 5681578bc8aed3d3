#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/rt.h"
#include "cli.h"

void rt_progress_init(rt_progress *p, double budget_s, int quiet)
{
	*p = (rt_progress){.quiet = quiet, .tty = isatty(STDERR_FILENO), .start = rt_clock_now(),
			   .budget_s = budget_s};
}

static void end_bar(rt_progress *p)
{
	if (p->drawn) {
		fputc('\n', stderr);
		p->drawn = 0;
	}
}

void rt_progress_trial(rt_progress *p, const char *what, const char *outcome,
		       const char *best)
{
	p->trials++;
	if (p->quiet)
		return;
	double used = rt_clock_now() - p->start;
	double left = p->budget_s - used > 0 ? p->budget_s - used : 0;
	if (!p->tty) {
		rt_tprintf(stderr, "rigtune: trial %d (%.0f s left): %s: %s\n", p->trials, left, what,
			   outcome);
		return;
	}
	enum { WIDTH = 24 };
	int filled = p->budget_s > 0 ? (int)(WIDTH * used / p->budget_s) : 0;
	char bar[WIDTH + 1];
	for (int i = 0; i < WIDTH; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[WIDTH] = '\0';
	fputs("\r\033[K", stderr); /* rigtune's own escape: the line redrawn */
	rt_tprintf(stderr, "[%s] %d trials, %3.0f s left, best %s", bar, p->trials, left, best);
	fflush(stderr);
	p->drawn = 1;
}

void rt_progress_note(rt_progress *p, const char *fmt, ...)
{
	if (p->quiet)
		return;
	end_bar(p);
	va_list ap;
	va_start(ap, fmt);
	rt_verrorf(fmt, ap);
	va_end(ap);
}

void rt_progress_done(rt_progress *p)
{
	if (!p->quiet)
		end_bar(p);
}
