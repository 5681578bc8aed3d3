/*
 * The output writer: atomic replacement of regular files, links written
 * through, devices and FIFOs written directly, nothing destroyed and no
 * temporary file left by a failure or a signal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/rt.h"
#include "../tuner/canary.h"
#include "../tuner/output.h"

#define NOBODY 65534

static const char DATA[] = "machine:\n  pus: 4\n";

/* A fresh directory per test, open to everyone (tests drop to nobody in it). */
static int make_dir(void **state)
{
	static char dir[64];
	snprintf(dir, sizeof dir, "/tmp/test_output.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0777))
		return -1;
	*state = dir;
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *)*state);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in(char *out, const char *dir, const char *name)
{
	assert_true(snprintf(out, PATH_MAX, "%s/%s", dir, name) < PATH_MAX);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The whole file (static buffer). */
static const char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Number of entries of dir, and of those with ".tmp." in the name. */
static int count_entries(const char *dir, int *temps)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	*temps = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		*temps += strstr(e->d_name, ".tmp.") != NULL;
	}
	closedir(d);
	return n;
}

static void assert_entries(const char *dir, int want)
{
	int temps;
	assert_int_equal(count_entries(dir, &temps), want);
	assert_int_equal(temps, 0);
}

static void assert_link(const char *path, const char *target)
{
	char buf[PATH_MAX];
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	ssize_t n = readlink(path, buf, sizeof buf - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, target);
}

static int write_data(const char *path, char *err)
{
	return rt_write_file(path, DATA, strlen(DATA), err, RT_ERRLEN);
}

static void test_new_file_gets_umask_mode(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX], err[RT_ERRLEN];
	path_in(path, dir, "new.yaml");
	mode_t old = umask(027);
	int rc = write_data(path, err);
	umask(old);
	assert_int_equal(rc, RT_OK);
	assert_string_equal(slurp(path), DATA);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_entries(dir, 1);
}

static void test_replace_is_a_rename_keeping_the_mode(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX], err[RT_ERRLEN];
	struct stat before, after;
	path_in(path, dir, "config.yaml");
	put(path, "old\n");
	assert_int_equal(chmod(path, 0604), 0);
	assert_int_equal(stat(path, &before), 0);
	assert_int_equal(write_data(path, err), RT_OK);
	assert_string_equal(slurp(path), DATA);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(after.st_mode & 0777, 0604);
	assert_true(after.st_ino != before.st_ino); /* a new file renamed over the old one */
	assert_entries(dir, 1);
}

static void test_symlink_is_written_through(void **state)
{
	const char *dir = *state;
	char link[PATH_MAX], real[PATH_MAX], err[RT_ERRLEN];
	path_in(real, dir, "real.yaml");
	path_in(link, dir, "link.yaml");
	put(real, "old\n");
	assert_int_equal(symlink("real.yaml", link), 0);
	assert_int_equal(write_data(link, err), RT_OK);
	assert_link(link, "real.yaml");
	assert_string_equal(slurp(real), DATA);
	assert_entries(dir, 2);
}

/* a/first -> ../b/second (relative) -> DIR/b/final.yaml (absolute) */
static void test_symlink_chain_with_relative_targets(void **state)
{
	const char *dir = *state;
	char a[PATH_MAX], b[PATH_MAX], first[PATH_MAX], second[PATH_MAX], final[PATH_MAX];
	char err[RT_ERRLEN];
	path_in(a, dir, "a");
	path_in(b, dir, "b");
	assert_int_equal(mkdir(a, 0755), 0);
	assert_int_equal(mkdir(b, 0755), 0);
	path_in(first, a, "first");
	path_in(second, b, "second");
	path_in(final, b, "final.yaml");
	put(final, "old\n");
	assert_int_equal(symlink("../b/second", first), 0);
	assert_int_equal(symlink(final, second), 0);
	assert_int_equal(write_data(first, err), RT_OK);
	assert_string_equal(slurp(final), DATA);
	assert_link(first, "../b/second");
	assert_link(second, final);
	assert_entries(a, 1);
	assert_entries(b, 2);
}

static void test_dangling_symlink_creates_its_target(void **state)
{
	const char *dir = *state;
	char link[PATH_MAX], target[PATH_MAX], err[RT_ERRLEN];
	path_in(link, dir, "link.yaml");
	path_in(target, dir, "later.yaml");
	assert_int_equal(symlink("later.yaml", link), 0);
	assert_int_equal(write_data(link, err), RT_OK);
	assert_link(link, "later.yaml");
	assert_string_equal(slurp(target), DATA);
	assert_entries(dir, 2);
}

static void test_symlink_loop_is_an_error(void **state)
{
	const char *dir = *state;
	char a[PATH_MAX], b[PATH_MAX], err[RT_ERRLEN];
	path_in(a, dir, "a");
	path_in(b, dir, "b");
	assert_int_equal(symlink("b", a), 0);
	assert_int_equal(symlink("a", b), 0);
	assert_int_equal(write_data(a, err), RT_EIO);
	assert_non_null(strstr(err, "too many levels of links"));
	assert_link(a, "b");
	assert_entries(dir, 2);
}

static void test_directory_is_refused(void **state)
{
	const char *dir = *state;
	char sub[PATH_MAX], err[RT_ERRLEN];
	path_in(sub, dir, "out");
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(write_data(sub, err), RT_EINVAL);
	assert_non_null(strstr(err, "is a directory"));
	struct stat st;
	assert_int_equal(stat(sub, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_entries(sub, 0);
	assert_entries(dir, 1);
}

static void test_missing_directory(void **state)
{
	const char *dir = *state;
	char deep[PATH_MAX], err[RT_ERRLEN];
	path_in(deep, dir, "no/such/file");
	assert_int_equal(write_data(deep, err), RT_EIO);
	assert_non_null(strstr(err, strerror(ENOENT)));
	assert_entries(dir, 0);
}

static void test_empty_path_is_refused(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	assert_int_equal(write_data("", err), RT_EINVAL);
	assert_string_equal(err, "the output path is empty");
}

/* /dev/full: ENOSPC reported, and the device node is still the device. */
static void test_dev_full_is_an_error_and_stays_a_device(void **state)
{
	(void)state;
	struct stat before, after;
	char err[RT_ERRLEN], want[128];
	if (stat("/dev/full", &before) || !S_ISCHR(before.st_mode))
		skip();
	assert_int_equal(write_data("/dev/full", err), RT_EIO);
	snprintf(want, sizeof want, "cannot write /dev/full: %s", strerror(ENOSPC));
	assert_string_equal(err, want);
	assert_int_equal(stat("/dev/full", &after), 0);
	assert_true(S_ISCHR(after.st_mode));
	assert_int_equal(after.st_rdev, before.st_rdev);
	assert_int_equal(after.st_ino, before.st_ino);
}

static void test_dev_null_is_written_directly(void **state)
{
	(void)state;
	struct stat before, after;
	char err[RT_ERRLEN];
	if (stat("/dev/null", &before) || !S_ISCHR(before.st_mode))
		skip();
	assert_int_equal(write_data("/dev/null", err), RT_OK);
	assert_int_equal(stat("/dev/null", &after), 0);
	assert_true(S_ISCHR(after.st_mode));
	assert_int_equal(after.st_ino, before.st_ino);
}

/* A child reads the FIFO into got.yaml while the writer writes to the FIFO. */
static void test_fifo_with_a_reader(void **state)
{
	const char *dir = *state;
	char fifo[PATH_MAX], got[PATH_MAX], err[RT_ERRLEN];
	path_in(fifo, dir, "pipe");
	path_in(got, dir, "got.yaml");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[4096];
		int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT, 0600);
		ssize_t n = in >= 0 && out >= 0 ? read(in, buf, sizeof buf) : -1;
		_exit(n > 0 && write(out, buf, (size_t)n) == n ? 0 : 1);
	}
	assert_int_equal(write_data(fifo, err), RT_OK);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(slurp(got), DATA);
	struct stat st;
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_entries(dir, 2);
}

/*
 * A block device node of no driver (0:0: opening it fails), so that a writer
 * that did not refuse it cannot reach a real disk.
 */
static void test_block_device_is_refused(void **state)
{
	const char *dir = *state;
	char dev[PATH_MAX], err[RT_ERRLEN];
	path_in(dev, dir, "disk");
	if (mknod(dev, S_IFBLK | 0600, makedev(0, 0)))
		skip(); /* needs CAP_MKNOD */
	assert_int_equal(write_data(dev, err), RT_EINVAL);
	assert_non_null(strstr(err, "is a block device"));
	struct stat st;
	assert_int_equal(lstat(dev, &st), 0);
	assert_true(S_ISBLK(st.st_mode));
	assert_entries(dir, 1);
}

/*
 * Runs body(dir) in a child, as nobody when root (permissions do not bind
 * root); the child's exit status, or -1 when it could not drop privileges.
 */
static int in_child(const char *dir, int as_nobody, int (*body)(const char *dir))
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (as_nobody && geteuid() == 0 && (setgid(NOBODY) || setuid(NOBODY)))
			_exit(100);
		_exit(body(dir));
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status) == 100 ? -1 : WEXITSTATUS(status);
}

/* 0 when writing dir/config.yaml fails with RT_EIO and "Permission denied". */
static int write_is_denied(const char *dir)
{
	char path[PATH_MAX], err[RT_ERRLEN];
	path_in(path, dir, "config.yaml");
	int rc = write_data(path, err);
	return rc == RT_EIO && strstr(err, strerror(EACCES)) ? 0 : 1;
}

static void test_unwritable_directory(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX];
	path_in(path, dir, "config.yaml");
	put(path, "old\n");
	assert_int_equal(chmod(path, 0666), 0); /* the file is writable, its directory not */
	assert_int_equal(chmod(dir, 0555), 0);
	int rc = in_child(dir, 1, write_is_denied);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(rc, 0);
	assert_string_equal(slurp(path), "old\n");
	assert_entries(dir, 1);
}

static void test_read_only_file_is_not_replaced(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX];
	path_in(path, dir, "config.yaml");
	put(path, "old\n");
	assert_int_equal(chmod(path, 0444), 0); /* its directory is writable: rename would work */
	assert_int_equal(in_child(dir, 1, write_is_denied), 0);
	assert_string_equal(slurp(path), "old\n");
	assert_entries(dir, 1);
}

/* 0 when a write past RLIMIT_FSIZE fails with EFBIG (and does not kill the process). */
static int write_past_file_size_limit(const char *dir)
{
	char path[PATH_MAX], err[RT_ERRLEN], want[PATH_MAX + 64];
	static char big[65536];
	struct rlimit lim = { 4096, 4096 };
	path_in(path, dir, "config.yaml");
	memset(big, 'x', sizeof big);
	if (setrlimit(RLIMIT_FSIZE, &lim))
		return 2;
	int rc = rt_write_file(path, big, sizeof big, err, sizeof err);
	snprintf(want, sizeof want, "cannot write %s: %s", path, strerror(EFBIG));
	return rc == RT_EIO && !strcmp(err, want) ? 0 : 1;
}

static void test_failed_write_keeps_the_old_file(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX];
	path_in(path, dir, "config.yaml");
	put(path, "old\n");
	assert_int_equal(in_child(dir, 0, write_past_file_size_limit), 0);
	assert_string_equal(slurp(path), "old\n");
	assert_entries(dir, 1);
}

/* Writes 64 MiB to dir/big.yaml once (long enough to be killed in the middle). */
static int write_big(const char *dir)
{
	char path[PATH_MAX], err[RT_ERRLEN];
	size_t n = 64u << 20;
	char *big = malloc(n);
	if (!big)
		return 2;
	memset(big, 'x', n);
	path_in(path, dir, "big.yaml");
	return rt_write_file(path, big, n, err, sizeof err) ? 1 : 0;
}

/*
 * SIGTERM while the temporary file exists: the child dies of it and the file
 * is gone. inotify says when the temporary file is created; a round where
 * the child finished first proves nothing and is run again.
 */
static void test_sigterm_removes_the_temporary_file(void **state)
{
	const char *dir = *state;
	int killed = 0;
	for (int round = 0; round < 20 && !killed; round++) {
		int in = inotify_init1(IN_CLOEXEC);
		assert_true(in >= 0);
		assert_true(inotify_add_watch(in, dir, IN_CREATE) >= 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			_exit(write_big(dir));
		char ev[sizeof(struct inotify_event) + NAME_MAX + 1];
		assert_true(read(in, ev, sizeof ev) > 0);
		assert_non_null(strstr(((struct inotify_event *)ev)->name, ".tmp."));
		kill(pid, SIGTERM);
		close(in);
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM;
		if (!killed)
			assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		int temps;
		count_entries(dir, &temps);
		assert_int_equal(temps, 0);
	}
	assert_true(killed);
}

/*
 * rt_write_new_file: a new file gets the data and the umask's mode; a path
 * where anything is (a file, a dangling link) is taken: nothing written,
 * nothing replaced, no temporary file; a missing directory is RT_EIO.
 */
static void test_new_file_never_replaces(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX], err[RT_ERRLEN] = "";
	int taken = -1;
	path_in(path, dir, "sweep.csv");
	mode_t old = umask(022);
	int rc = rt_write_new_file(path, DATA, strlen(DATA), &taken, err, sizeof err);
	umask(old);
	assert_int_equal(rc, RT_OK);
	assert_int_equal(taken, 0);
	assert_string_equal(slurp(path), DATA);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(st.st_nlink, 1); /* the temporary name is gone */

	assert_int_equal(rt_write_new_file(path, "other\n", 6, &taken, err, sizeof err), RT_OK);
	assert_int_equal(taken, 1);
	assert_string_equal(slurp(path), DATA);
	assert_entries(dir, 1);

	path_in(link_path, dir, "dangling.csv");
	path_in(target, dir, "nowhere.csv");
	assert_int_equal(symlink(target, link_path), 0);
	assert_int_equal(rt_write_new_file(link_path, DATA, strlen(DATA), &taken, err, sizeof err),
			 RT_OK);
	assert_int_equal(taken, 1);
	assert_link(link_path, target);
	assert_int_equal(access(target, F_OK), -1);
	assert_entries(dir, 2);

	path_in(path, dir, "no/such/dir.csv");
	assert_int_equal(rt_write_new_file(path, DATA, strlen(DATA), &taken, err, sizeof err),
			 RT_EIO);
	assert_int_equal(taken, 0);
	assert_non_null(strstr(err, "cannot write "));
	assert_non_null(strstr(err, "no/such/dir.csv: No such file or directory"));
}

/*
 * rt_output(target) in a child whose fd 1 is path opened with flags (a child,
 * so that a failed write leaves nothing in this process's stdout buffer);
 * its status, as the child's exit code.
 */
static int output_with_stdout_at(const char *path, int flags, const char *target)
{
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[RT_ERRLEN];
		int fd = open(path, flags, 0644);
		if (fd < 0 || dup2(fd, 1) != 1)
			_exit(100);
		_exit(-rt_output(target, DATA, strlen(DATA), err, sizeof err));
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 100);
	return -WEXITSTATUS(status);
}

static void test_dash_is_stdout(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX];
	path_in(path, dir, "stdout.yaml");
	assert_int_equal(output_with_stdout_at(path, O_WRONLY | O_CREAT | O_TRUNC, "-"), RT_OK);
	assert_string_equal(slurp(path), DATA);
	assert_entries(dir, 1);
	if (access("/dev/full", W_OK) == 0)
		assert_int_equal(output_with_stdout_at("/dev/full", O_WRONLY, "-"), RT_EIO);
}

/* -o /dev/stdout with stdout appended to a log: appended to, never replaced. */
static void test_dev_stdout_appends_to_the_open_file(void **state)
{
	const char *dir = *state;
	char path[PATH_MAX], want[256];
	struct stat before, after;
	path_in(path, dir, "log");
	put(path, "first\n");
	assert_int_equal(stat(path, &before), 0);
	assert_int_equal(output_with_stdout_at(path, O_WRONLY | O_APPEND, "/dev/stdout"), RT_OK);
	snprintf(want, sizeof want, "first\n%s", DATA);
	assert_string_equal(slurp(path), want);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_entries(dir, 1);
}

/* -o /dev/stdout with stdout a pipe: /proc/self/fd/1 names "pipe:[N]", no path to replace. */
static void test_dev_stdout_into_a_pipe(void **state)
{
	(void)state;
	int p[2];
	char got[256] = "";
	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[RT_ERRLEN];
		close(p[0]);
		if (dup2(p[1], 1) != 1)
			_exit(100);
		_exit(-rt_output("/dev/stdout", DATA, strlen(DATA), err, sizeof err));
	}
	close(p[1]);
	size_t n = 0;
	for (ssize_t r; (r = read(p[0], got + n, sizeof got - 1 - n)) > 0;)
		n += (size_t)r;
	got[n] = '\0';
	close(p[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(got, DATA);
}

/* ---- appending (issue 47.2): the canary's samples, the journals, the lock ---- */

static const rt_canary_sample SAMPLE = {.t = 1700000000, .compute = 6.5, .memory = 12.25};

static void assert_canary_refused(const char *path, const char *why)
{
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_canary_append(path, &SAMPLE, err, sizeof err), RT_EINVAL);
	if (!strstr(err, why))
		fail_msg("'%s' does not say '%s'", err, why);
}

/* A link planted under the canary's name in a shared results/ is never followed. */
static void test_canary_never_follows_a_planted_link(void **state)
{
	char path[PATH_MAX], victim[PATH_MAX], kept[PATH_MAX];
	path_in(path, *state, "host-20261128-101010-canary.csv");
	path_in(victim, *state, "victim");
	path_in(kept, *state, "kept");
	assert_int_equal(symlink(victim, path), 0);
	assert_canary_refused(path, "it is a symbolic link");
	assert_int_equal(access(victim, F_OK), -1); /* nothing created through it */
	put(kept, "root's own\n");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(kept, path), 0);
	assert_canary_refused(path, "it is a symbolic link");
	assert_string_equal(slurp(kept), "root's own\n");
}

/* Another user's file, or a hard link to a file of ours, is never appended to. */
static void test_canary_never_appends_to_a_foreign_file(void **state)
{
	char path[PATH_MAX], kept[PATH_MAX];
	path_in(path, *state, "host-20261128-101010-canary.csv");
	path_in(kept, *state, "kept");
	put(path, "unix_time,compute_v2,memory_v2\n");
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	assert_canary_refused(path, "a file of another user (uid 65534)");
	assert_string_equal(slurp(path), "unix_time,compute_v2,memory_v2\n");
	assert_int_equal(unlink(path), 0);
	put(kept, "unix_time,compute_v2,memory_v2\n");
	assert_int_equal(link(kept, path), 0);
	assert_canary_refused(path, "other hard links");
	assert_string_equal(slurp(kept), "unix_time,compute_v2,memory_v2\n");
}

/* Its own file: created 0644 with the header, then appended to. */
static void test_canary_appends_to_its_own_file(void **state)
{
	char path[PATH_MAX], err[RT_ERRLEN];
	struct stat st;
	path_in(path, *state, "host-20261128-101010-canary.csv");
	mode_t old = umask(0);
	assert_int_equal(rt_canary_append(path, &SAMPLE, err, sizeof err), RT_OK);
	umask(old);
	assert_int_equal(rt_canary_append(path, &SAMPLE, err, sizeof err), RT_OK);
	assert_string_equal(slurp(path), "unix_time,compute_v2,memory_v2\n"
					 "1700000000,6.5,12.25\n1700000000,6.5,12.25\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
}

/* Only creating: anything under the name, even a dangling link, is taken. */
static void test_append_new_only_creates(void **state)
{
	char path[PATH_MAX], err[RT_ERRLEN];
	int fd;
	path_in(path, *state, "journal.yaml");
	assert_int_equal(symlink("/nonexistent/x", path), 0);
	assert_int_equal(rt_open_append(path, RT_APPEND_NEW, &fd, err, sizeof err), RT_OK);
	assert_int_equal(fd, -1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rt_open_append(path, RT_APPEND_NEW, &fd, err, sizeof err), RT_OK);
	assert_true(fd >= 0);
	close(fd);
	assert_entries(*state, 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, remove_dir)
	const struct CMUnitTest tests[] = {
		T(test_new_file_gets_umask_mode),
		T(test_replace_is_a_rename_keeping_the_mode),
		T(test_symlink_is_written_through),
		T(test_symlink_chain_with_relative_targets),
		T(test_dangling_symlink_creates_its_target),
		T(test_symlink_loop_is_an_error),
		T(test_directory_is_refused),
		T(test_missing_directory),
		T(test_empty_path_is_refused),
		T(test_dev_full_is_an_error_and_stays_a_device),
		T(test_dev_null_is_written_directly),
		T(test_fifo_with_a_reader),
		T(test_block_device_is_refused),
		T(test_unwritable_directory),
		T(test_read_only_file_is_not_replaced),
		T(test_failed_write_keeps_the_old_file),
		T(test_sigterm_removes_the_temporary_file),
		T(test_new_file_never_replaces),
		T(test_dash_is_stdout),
		T(test_dev_stdout_appends_to_the_open_file),
		T(test_dev_stdout_into_a_pipe),
		T(test_canary_never_follows_a_planted_link),
		T(test_canary_never_appends_to_a_foreign_file),
		T(test_canary_appends_to_its_own_file),
		T(test_append_new_only_creates),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
