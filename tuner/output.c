#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/rt.h"

/* fsync the directory so that the rename itself survives a crash. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return;
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

int rt_write_atomic(const char *path, const char *data, size_t len, char *err,
		    size_t errlen)
{
	size_t n = strlen(path) + 16;
	char *tmp = malloc(n);
	if (!tmp)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	snprintf(tmp, n, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int rc = rt_fail(err, errlen, RT_EIO, "cannot create %s: %s", tmp,
				 strerror(errno));
		free(tmp);
		return rc;
	}
	fchmod(fd, 0644);
	int bad = rt_write_all(fd, data, len) || fsync(fd);
	int saved = errno;
	if (close(fd) && !bad) {
		bad = 1;
		saved = errno;
	}
	if (!bad && rename(tmp, path)) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		unlink(tmp);
		free(tmp);
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path,
			       strerror(saved));
	}
	free(tmp);
	sync_dir(path);
	return RT_OK;
}

int rt_output(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	if (path && strcmp(path, "-") != 0)
		return rt_write_atomic(path, data, len, err, errlen);
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout))
		return rt_fail(err, errlen, RT_EIO, "cannot write to stdout: %s",
			       strerror(errno));
	return RT_OK;
}
