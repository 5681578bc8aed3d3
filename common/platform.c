/* platform.c: the parts of platform.h that are the same on every system. */
#include "platform.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void rt_cpuset_zero(rt_cpuset *s)
{
	memset(s, 0, sizeof *s);
}

void rt_cpuset_add(rt_cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < RT_CPUSET_MAX)
		s->bits[cpu / 64] |= 1ull << (cpu % 64);
}

int rt_cpuset_has(const rt_cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < RT_CPUSET_MAX && (s->bits[cpu / 64] >> (cpu % 64) & 1);
}

int rt_cpuset_count(const rt_cpuset *s)
{
	int n = 0;
	for (size_t i = 0; i < sizeof s->bits / sizeof s->bits[0]; i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

/* Tries dir/file; -1 with errno as execve leaves it. */
static int exec_in(const char *dir, size_t dlen, const char *file, char *const argv[],
                   char *const env[])
{
	char full[4096];
	size_t flen = strlen(file);
	if (dlen + 1 + flen + 1 > sizeof full) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(full, dlen ? dir : ".", dlen ? dlen : 1);
	size_t at = dlen ? dlen : 1;
	full[at++] = '/';
	memcpy(full + at, file, flen + 1);
	return execve(full, argv, env);
}

int rt_execvpe_search(const char *path, const char *file, char *const argv[], char *const env[])
{
	if (!*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/'))
		return execve(file, argv, env);
	int denied = 0;
	for (const char *p = path ? path : "/usr/bin:/bin";; p++) {
		const char *end = strchr(p, ':');
		size_t dlen = end ? (size_t)(end - p) : strlen(p);
		exec_in(p, dlen, file, argv, env);
		if (errno == EACCES)
			denied = 1;
		else if (errno != ENOENT && errno != ENOTDIR && errno != ENAMETOOLONG)
			return -1;
		if (!end)
			break;
		p = end;
	}
	if (denied)
		errno = EACCES;
	return -1;
}
