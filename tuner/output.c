/* Writing results without destroying what is there (output.h). */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/platform.h"
#include "../common/rt.h"

#define MAX_LINKS 40 /* as the kernel's own limit on nested symbolic links */
#define MAX_TEMP_NAMES 100

/* How the end of a path is written. */
enum write_how { WRITE_ATOMIC, WRITE_IN_PLACE };

/* The directory part of path ("." when it has none) into dir (PATH_MAX bytes). */
static void dir_of(const char *path, char *dir)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, PATH_MAX, ".");
	else
		snprintf(dir, PATH_MAX, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* fsync the directory so that the rename itself survives a crash. */
static void sync_dir(const char *path)
{
	char dir[PATH_MAX];
	dir_of(path, dir);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Whether the link at path is one of /proc's (/dev/stdout -> /proc/self/fd/1):
 * it names an open file, a pipe or a terminal, not a path that can be replaced.
 */
static int proc_link(const char *path)
{
	char dir[PATH_MAX];
	dir_of(path, dir);
	return rt_plat_on_procfs(dir);
}

/*
 * Whether the file at path (st: its lstat) is another user's in a sticky
 * world-writable directory (/tmp): owned by neither us nor the directory's
 * owner. The kernel's protected_symlinks and protected_regular refuse such
 * a link or file to root too, but only where they are on, and never to the
 * links this module follows itself: the same rules, applied here. dir gets
 * the directory (PATH_MAX bytes).
 */
static int foreign_in_sticky_dir(const char *path, const struct stat *st, char *dir)
{
	struct stat d;
	dir_of(path, dir);
	if (stat(dir, &d) || !(d.st_mode & S_ISVTX) || !(d.st_mode & S_IWOTH))
		return 0;
	return st->st_uid != d.st_uid && st->st_uid != geteuid();
}

/*
 * Whether the link at path (st: its lstat) must not be followed: it is
 * another user's in a directory others can write to (group or world). In a
 * sticky one (/tmp) the directory's owner's links are followed too, as the
 * kernel's protected_symlinks has it; in one without the sticky bit (a
 * group's configs/, 2775) anyone who can write there can put a link in place
 * of any name, so only the caller's own are: a group member's link to
 * /etc/passwd would otherwise have root's fleet task replace that file. dir
 * gets the directory (PATH_MAX bytes).
 */
static int foreign_link(const char *path, const struct stat *st, char *dir)
{
	struct stat d;
	dir_of(path, dir);
	if (stat(dir, &d) || !(d.st_mode & (S_IWGRP | S_IWOTH)) || st->st_uid == geteuid())
		return 0;
	return !(d.st_mode & S_ISVTX) || st->st_uid != d.st_uid;
}

static int refuse_foreign(const char *path, const char *what, const struct stat *st,
			  const char *dir, char *err, size_t errlen)
{
	return rt_fail(err, errlen, RT_EINVAL,
		       "cannot write %s: it is %s of another user (uid %ld) in the shared "
		       "directory %s, which rigtune never follows or replaces; write elsewhere",
		       path, what, (long)st->st_uid, dir);
}

/*
 * Follows the chain of symbolic links at path (relative targets taken from
 * each link's directory) into out (PATH_MAX bytes): to the file it ends at,
 * which need not exist yet, or to the first link of /proc (*proc set).
 */
static int resolve_links(const char *path, char *out, int *proc, char *err, size_t errlen)
{
	char target[PATH_MAX], dir[PATH_MAX];
	*proc = 0;
	if (snprintf(out, PATH_MAX, "%s", path) >= PATH_MAX)
		return rt_fail(err, errlen, RT_EINVAL, "path too long: %.64s...", path);
	for (int hops = 0; hops < MAX_LINKS; hops++) {
		struct stat st;
		if (lstat(out, &st) || !S_ISLNK(st.st_mode))
			return RT_OK;
		if (proc_link(out)) {
			*proc = 1;
			return RT_OK;
		}
		if (foreign_link(out, &st, dir))
			return refuse_foreign(path, "a symbolic link", &st, dir, err, errlen);
		ssize_t n = readlink(out, target, sizeof target - 1);
		if (n < 0)
			return rt_fail(err, errlen, RT_EIO, "cannot read the link %s: %s", out,
				       strerror(errno));
		target[n] = '\0';
		dir_of(out, dir);
		if (target[0] == '/')
			snprintf(out, PATH_MAX, "%s", target);
		else if (snprintf(out, PATH_MAX, "%s/%s", dir, target) >= PATH_MAX)
			return rt_fail(err, errlen, RT_EINVAL, "cannot write %s: path too long",
				       path);
	}
	return rt_fail(err, errlen, RT_EIO, "cannot write %s: too many levels of links", path);
}

/*
 * How to write target (path resolved), and in *mode the permissions of the
 * regular file it replaces (0 for a new one). A directory or a block device
 * is no place for output; a read-only file is refused as `>` would refuse it
 * (renaming over it would succeed, since that needs only its directory); so
 * is another user's file or FIFO in a sticky shared directory.
 */
static int choose(const char *path, const char *target, int proc, enum write_how *how,
		  mode_t *mode, char *err, size_t errlen)
{
	struct stat st;
	*how = WRITE_IN_PLACE;
	*mode = 0;
	if (proc)
		return RT_OK;
	if (stat(target, &st)) {
		if (errno != ENOENT)
			return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path,
				       strerror(errno));
		*how = WRITE_ATOMIC;
		return RT_OK;
	}
	if (S_ISDIR(st.st_mode))
		return rt_fail(err, errlen, RT_EINVAL, "cannot write %s: it is a directory", path);
	if (S_ISBLK(st.st_mode))
		return rt_fail(err, errlen, RT_EINVAL, "cannot write %s: it is a block device",
			       path);
	char dir[PATH_MAX];
	if ((S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) &&
	    foreign_in_sticky_dir(target, &st, dir))
		return refuse_foreign(path, S_ISREG(st.st_mode) ? "a file" : "a FIFO", &st, dir,
				      err, errlen);
	if (!S_ISREG(st.st_mode))
		return RT_OK;
	if (access(target, W_OK))
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path, strerror(errno));
	*how = WRITE_ATOMIC;
	*mode = st.st_mode & 0777;
	return RT_OK;
}

/*
 * Writes to what is not a file to be replaced (a device, a FIFO, a socket, a
 * /proc link to an open file): opened and written in place, appending (so
 * that `-o /dev/stdout >>log` appends to log), every error checked.
 */
static int write_in_place(const char *path, const char *target, const char *data, size_t len,
			  char *err, size_t errlen)
{
	int fd = open(target, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
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

/*
 * Creates a new file tmp (PATH_MAX bytes) beside target: its descriptor, or
 * -1 with errno. Created 0666 so that the umask decides, as for any new file.
 */
static int create_temp(const char *target, char *tmp)
{
	for (int i = 0; i < MAX_TEMP_NAMES; i++) {
		if (snprintf(tmp, PATH_MAX, "%s.tmp.%ld.%d", target, (long)getpid(), i) >=
		    PATH_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* Fills the temporary file (fd, closed here) with data, fsync'd; 0 or errno. */
static int fill_temp(int fd, mode_t mode, const char *data, size_t len)
{
	int saved = 0;
	if ((mode && fchmod(fd, mode)) || rt_write_all(fd, data, len) || fsync(fd))
		saved = errno;
	if (close(fd) && !saved)
		saved = errno;
	return saved;
}

/* The signal state a write replaced, to put back after it. */
typedef struct held_signals {
	sigset_t mask;
	struct sigaction xfsz;
} held_signals;

/*
 * A Ctrl-C between creating the temporary file and renaming it would leave
 * it behind: the signals that end a process are held until the file is gone
 * or in place. SIGXFSZ (past RLIMIT_FSIZE) would end it silently: ignored,
 * write() fails with EFBIG instead, reported like any other error.
 */
static void hold_signals(held_signals *h)
{
	static const int ending[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	sigset_t block;
	sigemptyset(&block);
	for (size_t i = 0; i < RT_COUNT(ending); i++)
		sigaddset(&block, ending[i]);
	sigprocmask(SIG_BLOCK, &block, &h->mask);
	struct sigaction ignore = { .sa_handler = SIG_IGN };
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGXFSZ, &ignore, &h->xfsz);
}

static void release_signals(const held_signals *h)
{
	sigaction(SIGXFSZ, &h->xfsz, NULL);
	sigprocmask(SIG_SETMASK, &h->mask, NULL);
}

/*
 * Gives the written temporary file tmp the name target: renamed over what is
 * there, or, exclusive, linked (EEXIST when target exists) and its temporary
 * name removed. 0 or errno.
 */
static int publish(const char *tmp, const char *target, int exclusive)
{
	int saved = (exclusive ? link(tmp, target) : rename(tmp, target)) ? errno : 0;
	if (saved || exclusive)
		unlink(tmp);
	return saved;
}

/*
 * Replaces the regular file target (or creates it) atomically, or, exclusive,
 * only creates it (EEXIST, nothing written, when it exists). 0 or errno.
 */
static int write_atomic(const char *target, mode_t mode, int exclusive, const char *data,
			size_t len)
{
	held_signals held;
	hold_signals(&held);
	char tmp[PATH_MAX];
	int fd = create_temp(target, tmp);
	int saved = fd < 0 ? errno : fill_temp(fd, mode, data, len);
	rt_drill("output-rename");
	if (fd >= 0 && saved)
		unlink(tmp);
	else if (fd >= 0)
		saved = publish(tmp, target, exclusive);
	release_signals(&held);
	if (!saved)
		sync_dir(target);
	return saved;
}

int rt_write_file(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char target[PATH_MAX];
	int proc;
	enum write_how how;
	mode_t mode;
	if (!path[0])
		return rt_fail(err, errlen, RT_EINVAL, "the output path is empty");
	RT_TRY(resolve_links(path, target, &proc, err, errlen));
	RT_TRY(choose(path, target, proc, &how, &mode, err, errlen));
	if (how == WRITE_IN_PLACE)
		return write_in_place(path, target, data, len, err, errlen);
	int saved = write_atomic(target, mode, 0, data, len);
	if (saved)
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path, strerror(saved));
	return RT_OK;
}

/*
 * Whether a new file can be made in the directory of target: it exists, is
 * a directory, and may be written and searched.
 */
static int dir_takes_files(const char *path, const char *target, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;
	dir_of(target, dir);
	if (stat(dir, &st))
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: the directory %s: %s", path,
			       dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s is not a directory", path,
			       dir);
	if (access(dir, W_OK | X_OK))
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: the directory %s: %s", path,
			       dir, strerror(errno));
	return RT_OK;
}

int rt_output_check(const char *path, char *err, size_t errlen)
{
	char target[PATH_MAX];
	int proc;
	enum write_how how;
	mode_t mode;
	if (!path || !strcmp(path, "-"))
		return RT_OK;
	if (!path[0])
		return rt_fail(err, errlen, RT_EINVAL, "the output path is empty");
	RT_TRY(resolve_links(path, target, &proc, err, errlen));
	RT_TRY(choose(path, target, proc, &how, &mode, err, errlen));
	return how == WRITE_ATOMIC ? dir_takes_files(path, target, err, errlen) : RT_OK;
}

int rt_write_new_file(const char *path, const char *data, size_t len, int *taken, char *err,
		      size_t errlen)
{
	*taken = 0;
	if (!path[0])
		return rt_fail(err, errlen, RT_EINVAL, "the output path is empty");
	int saved = write_atomic(path, 0, 1, data, len);
	*taken = saved == EEXIST;
	if (saved && !*taken)
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path, strerror(saved));
	return RT_OK;
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

/*
 * Why the file open at fd (path) must not be appended to, in err; RT_OK
 * when it may: a regular file with one link, and ours. Another user's file,
 * or a hard link to one (root's /etc/passwd linked into a group's results/),
 * never is.
 */
static int check_append(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st))
		return rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return rt_fail(err, errlen, RT_EINVAL, "cannot write %s: it is not a regular file",
			       path);
	if (st.st_nlink != 1)
		return rt_fail(err, errlen, RT_EINVAL,
			       "cannot write %s: it has other hard links, which rigtune never "
			       "appends to; write elsewhere",
			       path);
	if (st.st_uid != geteuid())
		return rt_fail(err, errlen, RT_EINVAL,
			       "cannot write %s: it is a file of another user (uid %ld), which "
			       "rigtune never appends to; write elsewhere",
			       path, (long)st.st_uid);
	return RT_OK;
}

int rt_open_append(const char *path, int flags, int *fd, char *err, size_t errlen)
{
	int access_mode = flags & RT_APPEND_READ ? O_RDWR : O_WRONLY;
	int common = access_mode | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
	mode_t mode = flags & RT_APPEND_SHARED ? 0666 : 0644;
	*fd = -1;
	for (int tries = 0; tries < 2 && *fd < 0; tries++) {
		*fd = open(path, common | O_CREAT | O_EXCL, mode);
		if (*fd >= 0)
			return RT_OK;
		if (errno != EEXIST)
			break;
		if (flags & RT_APPEND_NEW)
			return RT_OK; /* *fd -1: taken */
		*fd = open(path, common); /* ENOENT: removed meanwhile, created next time */
	}
	if (*fd < 0) {
		int saved = errno; /* kept for the caller (lock.c's message) */
		rt_fail(err, errlen, RT_EIO, "cannot write %s: %s", path,
			saved == ELOOP ? "it is a symbolic link, which rigtune never follows to append"
				       : strerror(saved));
		errno = saved;
		return saved == ELOOP ? RT_EINVAL : RT_EIO;
	}
	int rc = flags & RT_APPEND_SHARED ? RT_OK : check_append(*fd, path, err, errlen);
	if (rc) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

int rt_make_dirs(const char *path, mode_t mode, char *err, size_t errlen)
{
	char *copy = strdup(path);
	if (!copy)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	for (char *s = copy + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(copy, mode);
		*s = '/';
	}
	int rc = RT_OK;
	if (mkdir(copy, mode) && errno != EEXIST)
		rc = rt_fail(err, errlen, RT_EIO, "cannot create directory %s: %s", path,
			     strerror(errno));
	free(copy);
	return rc;
}
