/*
 * child.h: the parent's side of a forked helper process (a trial, the
 * accelerator probe): what the child must reset, reading its report with a
 * deadline, and reaping it without ever blocking on a child that hangs.
 */
#ifndef RT_CHILD_H
#define RT_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * In the child, first thing: default dispositions for the signals whose
 * parent handlers must not run there (the tuner's SIGINT, a test framework's
 * SIGSEGV), so that a crash or a Ctrl-C ends the child the usual way.
 */
void rt_child_reset_signals(void);

/*
 * Reads exactly n bytes from fd before the monotonic deadline (rt_now()).
 * 0 on success; -1 on end of file, error, or timeout (*timed_out set).
 */
int rt_read_until(int fd, void *p, size_t n, double deadline, int *timed_out);

/*
 * Waits until the child closes fd (it exits) or the deadline passes, then
 * SIGKILLs it if it is still there, closes fd and reaps it. Returns the wait
 * status; *killed (may be NULL) says whether it had to be killed.
 */
int rt_child_finish(pid_t pid, int fd, double deadline, int *killed);

#endif
