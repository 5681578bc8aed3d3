#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/rt.h"
#include "output.h"

/*
 * Whether the file open at fd may be used as the lock: a regular file with
 * one link. In a shared directory (/tmp) anyone can put something there
 * first: a FIFO, a device, or a hard link to a file of root's, which an
 * fchmod 0666 and an ftruncate as root would open to everyone and empty.
 */
static int check_lock_file(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st))
		return rt_fail(err, errlen, RT_EIO, "cannot use the measuring lock %s: %s", path,
			       strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		return rt_fail(err, errlen, RT_EIO,
			       "the measuring lock %s is not a regular file with one link (%s): "
			       "remove it, or set RIGTUNE_LOCK_DIR to a directory of your own",
			       path, S_ISREG(st.st_mode) ? "it is a hard link" : "it is not a file");
	/* every user's rigtune must open it; the owner alone may say so */
	if (st.st_uid == geteuid())
		fchmod(fd, 0666);
	return RT_OK;
}

/*
 * Opens (creating) the lock file of this host in dir, checked: -1 with
 * errno when dir will not have one (err then says why when it has one that
 * must not be used, *bad set).
 */
static int open_in(const char *dir, char *path, size_t len, int *bad, char *err, size_t errlen)
{
	char host[256] = "";
	*bad = 0;
	gethostname(host, sizeof host - 1);
	if (!*host || strchr(host, '/'))
		snprintf(host, sizeof host, "localhost");
	if ((size_t)snprintf(path, len, "%s/rigtune-%s.lock", dir, host) >= len)
		return -1;
	/* no symbolic link is followed; a FIFO put there does not block the open */
	int fd;
	if (rt_open_append(path, RT_APPEND_READ | RT_APPEND_SHARED, &fd, NULL, 0))
		return -1;
	if (check_lock_file(fd, path, err, errlen)) {
		close(fd);
		*bad = 1;
		return -1;
	}
	return fd;
}

static int open_lock_file(rt_lock *l, char *err, size_t errlen)
{
	const char *dirs[] = {getenv("RIGTUNE_LOCK_DIR"), "/run/lock", "/tmp"};
	int bad = 0;
	for (size_t i = 0; i < RT_COUNT(dirs); i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		l->fd = open_in(dirs[i], l->path, sizeof l->path, &bad, err, errlen);
		/* a directory asked for is not replaced; nor one whose lock is a trap */
		if (l->fd >= 0 || bad || (i == 0 && dirs[0]))
			break;
	}
	if (bad)
		return RT_EIO;
	if (l->fd < 0)
		return rt_fail(err, errlen, RT_EIO, "cannot make the measuring lock %s: %s", l->path,
			       strerror(errno));
	return RT_OK;
}

/*
 * What the holder wrote: "pid 42: rigtune tune", or "unknown" while it has
 * not yet; made printable (anyone can write the file: a terminal escape in
 * it must not reach the terminal).
 */
static void read_holder(int fd, char *buf, size_t len)
{
	char raw[256];
	ssize_t n = pread(fd, raw, sizeof raw - 1, 0);
	raw[n > 0 ? n : 0] = '\0';
	raw[strcspn(raw, "\n")] = '\0';
	rt_printable(buf, len, raw);
	if (!*buf)
		snprintf(buf, len, "unknown");
}

static void write_holder(int fd, const char *what)
{
	char line[512];
	int n = snprintf(line, sizeof line, "pid %ld: %s\n", (long)getpid(), what ? what : "rigtune");
	if (ftruncate(fd, 0) == 0 && n > 0)
		(void)!pwrite(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, 0);
}

int rt_lock_take(rt_lock *l, const rt_lock_opts *o, char *err, size_t errlen)
{
	memset(l, 0, sizeof *l);
	l->fd = -1;
	int rc = open_lock_file(l, err, errlen);
	if (rc)
		return rc;
	if (flock(l->fd, LOCK_EX | LOCK_NB)) {
		char holder[256];
		read_holder(l->fd, holder, sizeof holder);
		if (errno != EWOULDBLOCK || o->no_wait) {
			rc = rt_fail(err, errlen, RT_ERUNTIME,
				     "another rigtune is measuring on this machine (%s; lock %s)",
				     holder, l->path);
			goto fail;
		}
		if (o->waiting)
			o->waiting(holder, l->path);
		if (flock(l->fd, LOCK_EX)) { /* EINTR: a Ctrl-C while waiting ends the wait */
			rc = rt_fail(err, errlen, RT_ERUNTIME, "while waiting for %s: %s", l->path,
				     strerror(errno));
			goto fail;
		}
	}
	write_holder(l->fd, o->what);
	l->held = 1;
	return RT_OK;
fail:
	close(l->fd);
	l->fd = -1;
	return rc;
}

void rt_lock_release(rt_lock *l)
{
	if (!l->held)
		return;
	(void)!ftruncate(l->fd, 0); /* the file stays: removing it would race a waiter */
	close(l->fd);
	l->held = 0;
	l->fd = -1;
}

static void say_waiting(const char *holder, const char *path)
{
	fprintf(stderr,
		"rigtune: waiting for %s to finish measuring (lock %s; --no-wait to give up "
		"instead)\n",
		holder, path);
}

int rt_lock_for_command(rt_lock *l, const char *what, int no_wait, int quiet, char *err,
			size_t errlen)
{
	rt_lock_opts o = {.no_wait = no_wait, .what = what, .waiting = quiet ? NULL : say_waiting};
	return rt_lock_take(l, &o, err, errlen);
}
