#include "child.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/platform.h"
#include "../common/rt.h"

static void reset_signals(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT,
				   SIGTERM, SIGPIPE, SIGHUP, SIGQUIT};
	for (size_t i = 0; i < RT_COUNT(sigs); i++)
		signal(sigs[i], SIG_DFL);
}

void rt_child_begin(pid_t parent)
{
	reset_signals();
	rt_plat_die_with_parent(SIGKILL);
	if (getppid() != parent) /* it died between fork and the request */
		_exit(127);
}

/* The guard's end as its program's: the same exit status, or the same signal. */
static void exit_as(int status)
{
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	int sig = WTERMSIG(status);
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none); /* the program dumped its own core */
	signal(sig, SIG_DFL);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
	_exit(128 + sig); /* a signal whose default is to go on (SIGCHLD, SIGWINCH) */
}

/*
 * The guard's life, SIGTERM and SIGCHLD blocked (waited for, so that none
 * is lost between a look and a wait): reap what ends until the program
 * does, or end the whole tree at rigtune's end.
 */
static void guard(pid_t program, const sigset_t *waited, pid_t rigtune)
{
	for (;;) {
		int status;
		pid_t r;
		while ((r = waitpid(-1, &status, WNOHANG)) > 0)
			if (r == program)
				exit_as(status);
		if (rt_plat_wait_signal(waited, rigtune) == SIGTERM)
			break;
	}
	rt_child_end_descendants();
	_exit(128 + SIGTERM);
}

void rt_child_guard(const int *fds, int n)
{
	pid_t self = getpid(), rigtune = getppid();
	sigset_t waited;
	sigemptyset(&waited);
	sigaddset(&waited, SIGTERM);
	sigaddset(&waited, SIGCHLD);
	sigprocmask(SIG_BLOCK, &waited, NULL);
	/* the orphans of the program's tree come to the guard, to be ended with it */
	rt_child_adopt_orphans(1);
	/* rigtune's end, from here on a SIGTERM to wait for (before: rt_child_begin's SIGKILL) */
	rt_plat_die_with_parent(SIGTERM);
	pid_t program = fork();
	if (program == 0) {
		sigprocmask(SIG_UNBLOCK, &waited, NULL);
		rt_child_begin(self);
		return;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	if (program < 0)
		_exit(127);
	guard(program, &waited, rigtune);
}

/* Waits for fd to be readable; 1 ready, 0 timeout, -1 error. */
static int wait_readable(int fd, double deadline)
{
	for (;;) {
		double left = deadline - rt_now();
		if (left <= 0)
			return 0;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int r = poll(&pfd, 1, (int)ceil(left * 1000));
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 ? -1 : r > 0;
	}
}

int rt_read_until(int fd, void *p, size_t n, double deadline, int *timed_out)
{
	char *c = p;
	while (n) {
		int r = wait_readable(fd, deadline);
		if (r == 0)
			*timed_out = 1;
		if (r <= 0)
			return -1;
		ssize_t k = read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int rt_child_finish(pid_t pid, int fd, double deadline, int *killed)
{
	char byte;
	int kill_it = 1;
	/* end of file: the child has exited (or closed its end on the way out) */
	while (wait_readable(fd, deadline) > 0) {
		ssize_t k = read(fd, &byte, 1);
		if (k == 0) {
			kill_it = 0;
			break;
		}
		if (k < 0 && errno != EINTR)
			break;
	}
	if (kill_it)
		kill(pid, SIGKILL);
	if (killed)
		*killed = kill_it;
	close(fd);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* Rounds of killing before a tree that keeps growing is given up on. */
#define END_ROUNDS 64
/* Children ended per round at most; the rest in the next. */
#define END_BATCH 256

int rt_child_adopt_orphans(int on)
{
	return rt_plat_subreaper(on);
}

int rt_child_end_descendants(void)
{
	int ended = 0;
	for (int round = 0; round < END_ROUNDS; round++) {
		pid_t kids[END_BATCH];
		int n = rt_plat_children(getpid(), kids, END_BATCH);
		if (n == 0)
			return ended;
		for (int i = 0; i < n; i++)
			kill(kids[i], SIGKILL);
		/* once reaped, a child's own children have been handed to us */
		for (int i = 0; i < n; i++)
			while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
				;
		ended += n;
	}
	return -1;
}
