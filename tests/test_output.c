/* Writing results: files replaced atomically, links kept, devices and FIFOs written in place. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/output.h"

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/rt-output-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

/* PATH_IN(var, "name"): a char array var holding dir/name. */
#define PATH_IN(var, name)  \
	char var[128];      \
	snprintf(var, sizeof var, "%s/%s", dir, name)

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void assert_content(const char *path, const char *want)
{
	char *text;
	size_t len;
	assert_int_equal(rt_read_file(path, &text, &len, NULL, 0), RT_OK);
	assert_string_equal(text, want);
	free(text);
}

/* Only the named entries are in the directory: no temporary file was left. */
static void assert_entries(int want)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	assert_int_equal(n, want);
}

static void test_new_and_replaced_file(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	PATH_IN(f, "out.yaml");
	assert_int_equal(rt_write_file(f, "a: 1\n", 5, err, sizeof err), RT_OK);
	assert_content(f, "a: 1\n");
	struct stat st;
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	chmod(f, 0600); /* a replaced file keeps its permissions */
	assert_int_equal(rt_write_file(f, "b: 2\n", 5, err, sizeof err), RT_OK);
	assert_content(f, "b: 2\n");
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_entries(1);
	unlink(f);
}

/* A chain of links, one relative, one absolute: the file at the end is replaced, links stay. */
static void test_links_are_followed_and_kept(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	PATH_IN(target, "target.yaml");
	PATH_IN(inner, "inner");
	PATH_IN(outer, "outer");
	put(target, "old\n");
	assert_int_equal(symlink("target.yaml", inner), 0);
	assert_int_equal(symlink(inner, outer), 0);
	assert_int_equal(rt_write_file(outer, "new\n", 4, err, sizeof err), RT_OK);
	assert_content(target, "new\n");
	struct stat st;
	assert_int_equal(lstat(outer, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(inner, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_entries(3);
	/* a dangling link: its target is created */
	unlink(target);
	assert_int_equal(rt_write_file(outer, "made\n", 5, err, sizeof err), RT_OK);
	assert_content(target, "made\n");
	unlink(target);
	unlink(inner);
	unlink(outer);
}

static void test_link_loop(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	PATH_IN(a, "a");
	PATH_IN(b, "b");
	assert_int_equal(symlink("b", a), 0);
	assert_int_equal(symlink("a", b), 0);
	assert_int_equal(rt_write_file(a, "x", 1, err, sizeof err), RT_EIO);
	assert_non_null(strstr(err, "too many levels of links"));
	unlink(a);
	unlink(b);
}

static void *read_fifo(void *path)
{
	static char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

static void test_fifo_written_in_place(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	PATH_IN(fifo, "pipe");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pthread_t reader;
	assert_int_equal(pthread_create(&reader, NULL, read_fifo, fifo), 0);
	assert_int_equal(rt_write_file(fifo, "through\n", 8, err, sizeof err), RT_OK);
	void *got;
	pthread_join(reader, &got);
	assert_string_equal(got, "through\n");
	struct stat st;
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(fifo);
}

static void test_full_device(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	struct stat st;
	if (stat("/dev/full", &st) || !S_ISCHR(st.st_mode))
		skip();
	assert_int_equal(rt_write_file("/dev/full", "x\n", 2, err, sizeof err), RT_EIO);
	assert_string_equal(err, "cannot write /dev/full: No space left on device");
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

static void test_directory_refused(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	assert_int_equal(rt_write_file(dir, "x", 1, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "it is a directory"));
	assert_entries(0);
}

static void test_missing_directory(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	PATH_IN(deep, "no/such/file");
	assert_int_equal(rt_write_file(deep, "x", 1, err, sizeof err), RT_EIO);
	assert_non_null(strstr(err, "No such file or directory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_replaced_file),
		cmocka_unit_test(test_links_are_followed_and_kept),
		cmocka_unit_test(test_link_loop),
		cmocka_unit_test(test_fifo_written_in_place),
		cmocka_unit_test(test_full_device),
		cmocka_unit_test(test_directory_refused),
		cmocka_unit_test(test_missing_directory),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
