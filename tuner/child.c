#include "child.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/rt.h"

void rt_child_reset_signals(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
				   SIGINT, SIGTERM, SIGPIPE};
	for (size_t i = 0; i < RT_COUNT(sigs); i++)
		signal(sigs[i], SIG_DFL);
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
