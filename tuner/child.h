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
 * In a child of parent, first thing after fork: default dispositions for the
 * signals whose parent handlers must not run there (the tuner's SIGINT, a
 * test framework's SIGSEGV), so that a crash or a Ctrl-C ends the child the
 * usual way; and the child gets SIGKILL when parent ends, however it ends
 * (its SIGKILL too: PR_SET_PDEATHSIG; macOS has no such signal, and there
 * only a guard, rt_child_guard, hears the parent's end). A parent already
 * gone before the request took effect ends the child at once. The signal
 * comes when the thread that forked ends: fork from the main thread.
 */
void rt_child_begin(pid_t parent);

/*
 * For a child whose program may start processes of its own (a user's
 * command): called in the child after rt_child_begin and setpgid(0, 0),
 * it forks once more and returns in the new process, which goes on to exec
 * the program and dies with this one. This one stays as the guard of the
 * tree: rigtune's parent-death signal reaches the guard as SIGTERM, and it
 * then kills every process below it, the ones that left the group as well
 * (it is their subreaper), before it ends; when the program exits first,
 * the guard exits as it did (status, or the same signal), so that rigtune
 * reaps the guard for the program. fds (n of them) are closed in the guard:
 * the program's pipes must end when it does.
 */
void rt_child_guard(const int *fds, int n);

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

/*
 * A child that leaves its process group (setsid, a daemon's double fork)
 * escapes killpg. While on, this process is the subreaper of its
 * descendants (PR_SET_CHILD_SUBREAPER): an orphan below it is reparented to
 * it, not to init, so that rt_child_end_descendants finds it. -1 (errno)
 * where the kernel has no subreapers.
 */
int rt_child_adopt_orphans(int on);

/*
 * Ends every process below this one: SIGKILLs each child (rt_plat_children),
 * reaps it, and goes on with the orphans that come back to it as a
 * subreaper, until none is left. For when a trial is over and nothing of it
 * may run on: its main child already reaped, and no other child alive.
 * The number of processes ended; -1 if some were still coming after many
 * rounds (a fork bomb outrunning the kills).
 */
int rt_child_end_descendants(void);

#endif
