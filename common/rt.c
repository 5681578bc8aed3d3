#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static const char *const cause_names[RT_NCAUSE] = {
	[RT_CAUSE_NONE] = "none",       [RT_CAUSE_MEMORY] = "memory",
	[RT_CAUSE_CRASH] = "crash",     [RT_CAUSE_TIMEOUT] = "timeout",
	[RT_CAUSE_UNAVAILABLE] = "unavailable", [RT_CAUSE_BAD_OUTPUT] = "bad_output",
};

const char *rt_cause_name(rt_cause c)
{
	return (unsigned)c < RT_NCAUSE ? cause_names[c] : "unknown";
}

int rt_cause_parse(const char *name)
{
	for (int i = 0; i < RT_NCAUSE; i++)
		if (!strcmp(cause_names[i], name))
			return i;
	return -1;
}

int rt_exit_code(int code)
{
	if (code == RT_OK)
		return 0;
	return code == RT_EINVAL ? 2 : 3;
}

void rt_list_append(char *buf, size_t len, const char *sep, const char *item)
{
	size_t n = strnlen(buf, len);
	if (n + 1 < len)
		snprintf(buf + n, len - n, "%s%s", n ? sep : "", item);
}

int rt_list_has(const char *list, const char *seps, const char *word)
{
	size_t wl = strlen(word);
	while (list && *list) {
		size_t n = strcspn(list, seps);
		if (n == wl && !strncmp(list, word, wl))
			return 1;
		list += n;
		list += strspn(list, seps);
	}
	return 0;
}

size_t rt_utf8_char(const unsigned char *s, size_t n)
{
	/* by lead byte: the length, and the range of the first continuation byte */
	static const struct {
		unsigned char lo, hi, len, next_lo, next_hi;
	} leads[] = {
		{0x01, 0x7F, 1, 0, 0},       {0xC2, 0xDF, 2, 0x80, 0xBF},
		{0xE0, 0xE0, 3, 0xA0, 0xBF}, {0xE1, 0xEC, 3, 0x80, 0xBF},
		{0xED, 0xED, 3, 0x80, 0x9F}, {0xEE, 0xEF, 3, 0x80, 0xBF},
		{0xF0, 0xF0, 4, 0x90, 0xBF}, {0xF1, 0xF3, 4, 0x80, 0xBF},
		{0xF4, 0xF4, 4, 0x80, 0x8F},
	};
	for (size_t i = 0; n && i < RT_COUNT(leads); i++) {
		if (s[0] < leads[i].lo || s[0] > leads[i].hi)
			continue;
		size_t len = leads[i].len;
		if (len > n || (len > 1 && (s[1] < leads[i].next_lo || s[1] > leads[i].next_hi)))
			return 0;
		for (size_t k = 2; k < len; k++)
			if ((s[k] & 0xC0) != 0x80)
				return 0;
		return len;
	}
	return 0;
}

int rt_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	while (n) {
		size_t k = rt_utf8_char(p, n);
		if (!k)
			return 0;
		p += k;
		n -= k;
	}
	return 1;
}

void rt_printable(char *dst, size_t len, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t n = strlen(src), o = 0;
	while (n && o + 1 < len) {
		size_t k = rt_utf8_char(p, n);
		int control = !k || *p < 0x20 || *p == 0x7F || (*p == 0xC2 && p[1] < 0xA0);
		if (control) {
			dst[o++] = '?';
			k = k ? k : 1;
		} else if (o + k < len) {
			memcpy(dst + o, p, k);
			o += k;
		} else {
			break; /* a character that does not fit is not cut in half */
		}
		p += k;
		n -= k;
	}
	if (len)
		dst[o] = '\0';
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

/* Reads up to cap - 1 bytes of fd into buf; the count, or -1 (errno set). */
static ssize_t read_upto(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	while (n < cap - 1) {
		ssize_t got = read(fd, buf + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	return (ssize_t)n;
}

int rt_open_read(const char *path, int *fd, off_t *size, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (f < 0 || fstat(f, &st)) {
		int rc = rt_fail(err, errlen, RT_EIO, "cannot read %s: %s", path, strerror(errno));
		if (f >= 0)
			close(f);
		return rc;
	}
	int rc = RT_OK;
	if (S_ISDIR(st.st_mode))
		rc = rt_fail(err, errlen, RT_EIO, "cannot read %s: it is a directory", path);
	else if (!S_ISREG(st.st_mode))
		rc = rt_fail(err, errlen, RT_EINVAL, "cannot read %s: not a regular file", path);
	else if (st.st_size > RT_READ_MAX_BYTES)
		rc = rt_fail(err, errlen, RT_EINVAL,
			     "cannot read %s: %lld bytes; rigtune reads files of at most %d MiB",
			     path, (long long)st.st_size, RT_READ_MAX_BYTES >> 20);
	if (rc) {
		close(f);
		return rc;
	}
	*fd = f;
	*size = st.st_size;
	return RT_OK;
}

int rt_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	int fd;
	off_t size;
	RT_TRY(rt_open_read(path, &fd, &size, err, errlen));
	/* the size now: bytes a writer appends later are not this reading's */
	size_t cap = (size_t)size + 1;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	}
	ssize_t n = read_upto(fd, buf, cap);
	int saved = errno;
	close(fd);
	if (n < 0) {
		free(buf);
		return rt_fail(err, errlen, RT_EIO, "cannot read %s: %s", path, strerror(saved));
	}
	buf[n] = '\0';
	*text = buf;
	*len = (size_t)n;
	return RT_OK;
}

int rt_read_head(const char *path, char *buf, size_t cap, char *err, size_t errlen)
{
	int fd;
	off_t size;
	RT_TRY(rt_open_read(path, &fd, &size, err, errlen));
	ssize_t n = read_upto(fd, buf, cap);
	int saved = errno;
	close(fd);
	if (n < 0)
		return rt_fail(err, errlen, RT_EIO, "cannot read %s: %s", path, strerror(saved));
	buf[n] = '\0';
	return RT_OK;
}

int rt_drill_at(const char *point)
{
	static int reached;
	const char *d = getenv("RIGTUNE_DRILL");
	size_t n = strlen(point);
	if (!d || strncmp(d, point, n) || (d[n] && d[n] != ':'))
		return 0;
	long nth = d[n] == ':' ? strtol(d + n + 1, NULL, 10) : 1;
	return ++reached == nth;
}

void rt_drill(const char *point)
{
	if (rt_drill_at(point))
		raise(SIGKILL);
}

double rt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t rt_fnv1a(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

_Noreturn void rt_bug(const char *file, int line, const char *cond)
{
	/* The one print outside tuner/: a bug report cannot wait for a caller. */
	fprintf(stderr, "rigtune: BUG at %s:%d: %s\n"
		"rigtune: this is a defect of rigtune, not of the input: please report it\n",
		file, line, cond);
	abort();
}

int rt_grow(void *array, int *cap, int n, size_t elem, int first)
{
	if (n < *cap)
		return RT_OK;
	void *old, *p;
	memcpy(&old, array, sizeof old); /* array is a T **: its pointer, whatever T */
	int c = *cap ? 2 * *cap : first;
	if (!(p = realloc(old, elem * (size_t)c)))
		return RT_ENOMEM;
	memcpy(array, &p, sizeof p);
	*cap = c;
	return RT_OK;
}

int rt_parse_long(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno)
		return RT_EINVAL;
	*out = v;
	return RT_OK;
}

int rt_parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v))
		return RT_EINVAL;
	*out = v;
	return RT_OK;
}
