#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/rt.h"

#define MAX_LINKS 40 /* as the kernel's own limit on nested symbolic links */

/* fsync the directory so that the rename itself survives a crash. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return;
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

/*
 * The file a chain of symbolic links at path ends at (relative targets taken
 * from each link's directory), into out; the target need not exist yet.
 */
static int resolve_links(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	char cur[PATH_MAX], target[PATH_MAX];
	snprintf(cur, sizeof cur, "%s", path);
	for (int hops = 0; hops < MAX_LINKS; hops++) {
		struct stat st;
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode)) {
			if ((size_t)snprintf(out, len, "%s", cur) >= len)
				break;
			return RT_OK;
		}
		ssize_t n = readlink(cur, target, sizeof target - 1);
		if (n < 0)
			return rt_fail(err, errlen, RT_EIO, "cannot read the link %s: %s", cur,
				       strerror(errno));
		target[n] = '\0';
		if (target[0] == '/') {
			snprintf(cur, sizeof cur, "%s", target);
		} else {
			char dir[PATH_MAX];
			snprintf(dir, sizeof dir, "%s", cur);
			if ((size_t)snprintf(cur, sizeof cur, "%s/%s", dirname(dir), target) >=
			    sizeof cur)
				break;
		}
	}
	return rt_fail(err, errlen, RT_EIO, "cannot write %s: too many levels of links", path);
}

/*
 * Writes to something that is not a file to be replaced (a device, a FIFO, a
 * socket): opened and written in place, every error checked.
 */
static int write_in_place(const char *path, const char *data, size_t len, char *err,
			  size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return rt_fail(err, errlen, RT_EIO, "cannot open %s: %s", path, strerror(errno));
	int bad = rt_write_all(fd, data, len);
	int saved = errno;
	if (close(fd) && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad)
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path, strerror(saved));
	return RT_OK;
}

/* The temporary file's name and contents, fsync'd; the descriptor is closed. */
static int write_temp(const char *tmp_template, char **tmp, mode_t mode, const char *data,
		      size_t len, int *saved)
{
	*tmp = strdup(tmp_template);
	if (!*tmp) {
		*saved = ENOMEM;
		return -1;
	}
	int fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		*saved = errno;
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	int bad = fchmod(fd, mode) || rt_write_all(fd, data, len) || fsync(fd);
	*saved = errno;
	if (close(fd) && !bad) {
		bad = 1;
		*saved = errno;
	}
	return bad ? -1 : 0;
}

/* Replaces the regular file at path (or creates it) atomically. */
static int write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	struct stat st;
	mode_t mode = 0644; /* a replaced file keeps its own permissions */
	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;
	char tmpl[PATH_MAX];
	if ((size_t)snprintf(tmpl, sizeof tmpl, "%s.tmp.XXXXXX", path) >= sizeof tmpl)
		return rt_fail(err, errlen, RT_EINVAL, "path too long: %s", path);
	/*
	 * A Ctrl-C between creating the temporary file and renaming it would
	 * leave it behind: hold the signals until it is gone or in place.
	 */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	char *tmp = NULL;
	int saved = 0;
	int bad = write_temp(tmpl, &tmp, mode, data, len, &saved);
	rt_drill("output-rename");
	if (!bad && rename(tmp, path)) {
		bad = 1;
		saved = errno;
	}
	if (bad && tmp)
		unlink(tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
	if (bad)
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path, strerror(saved));
	sync_dir(path);
	return RT_OK;
}

int rt_write_file(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char target[PATH_MAX];
	int rc = resolve_links(path, target, sizeof target, err, errlen);
	if (rc)
		return rc;
	struct stat st;
	if (stat(target, &st)) {
		if (errno != ENOENT)
			return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path,
				       strerror(errno));
		return write_atomic(target, data, len, err, errlen);
	}
	if (S_ISDIR(st.st_mode))
		return rt_fail(err, errlen, RT_EINVAL, "cannot write %s: it is a directory", path);
	if (S_ISREG(st.st_mode))
		return write_atomic(target, data, len, err, errlen);
	return write_in_place(target, data, len, err, errlen);
}

int rt_output(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	if (path && strcmp(path, "-") != 0)
		return rt_write_file(path, data, len, err, errlen);
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout))
		return rt_fail(err, errlen, RT_EIO, "cannot write to stdout: %s",
			       strerror(errno));
	return RT_OK;
}
