#include "rt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int rt_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* One table of status names, indexed by -code (BLIS keeps its errors so). */
static const char *const status_names[] = {
	"ok", "invalid input", "out of memory", "I/O error",
	"unavailable", "infeasible", "run-time failure",
};

const char *rt_strstatus(int code)
{
	int i = -code;
	if (i < 0 || i >= (int)RT_COUNT(status_names))
		return "unknown error";
	return status_names[i];
}

int rt_exit_code(int code)
{
	if (code == RT_OK)
		return 0;
	return code == RT_EINVAL ? 2 : 3;
}

int rt_write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

double rt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
