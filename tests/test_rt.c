/* common/rt: RT_BUG_ON stops the program at a broken invariant and names it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/rt.h"

/* Runs RT_BUG_ON(value > 2) in a child; returns its wait status, its stderr in msg. */
static int bug_on_in_child(int value, char *msg, size_t len)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		RT_BUG_ON(value > 2);
		_exit(0);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_bug_on_holds(void **state)
{
	(void)state;
	char msg[512];
	int status = bug_on_in_child(2, msg, sizeof msg);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(msg, "");
}

static void test_bug_on_broken(void **state)
{
	(void)state;
	char msg[512];
	int status = bug_on_in_child(3, msg, sizeof msg);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_non_null(strstr(msg, "rigtune: BUG at tests/test_rt.c:"));
	assert_non_null(strstr(msg, ": value > 2\n"));
}


static void test_utf8(void **state)
{
	(void)state;
	assert_true(rt_utf8_valid("plain \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 20));
	assert_false(rt_utf8_valid("ab\xff", 3));          /* never a UTF-8 byte */
	assert_false(rt_utf8_valid("\xc0\xaf", 2));        /* overlong '/' */
	assert_false(rt_utf8_valid("\xed\xa0\x80", 3));    /* a surrogate */
	assert_false(rt_utf8_valid("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
	assert_false(rt_utf8_valid("\xe2\x82", 2));        /* cut short */
	assert_false(rt_utf8_valid("a\0b", 3));
}

static void test_printable(void **state)
{
	(void)state;
	char out[64];
	/* ESC ] 0 ; title BEL: a terminal would retitle itself; C1 CSI too */
	rt_printable(out, sizeof out, "pid 7: \x1b]0;pwned\x07 x\xc2\x9b" "2J \xff ok \xc3\xa9");
	assert_string_equal(out, "pid 7: ?]0;pwned? x?2J ? ok \xc3\xa9");
	rt_printable(out, 5, "abcdef");
	assert_string_equal(out, "abcd");
	rt_printable(out, 3, "a\xc3\xa9");
	assert_string_equal(out, "a"); /* the 2-byte character does not fit whole */
}

/* rt_grow keeps what the array held as it doubles, from `first`. */
static void test_grow(void **state)
{
	(void)state;
	int *v = NULL, cap = 0;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(rt_grow(&v, &cap, i, sizeof *v, 4), RT_OK);
		v[i] = i * i;
	}
	assert_int_equal(cap, 1024);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(v[i], i * i);
	assert_int_equal(rt_grow(&v, &cap, 10, sizeof *v, 4), RT_OK); /* room already */
	assert_int_equal(cap, 1024);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bug_on_holds),
		cmocka_unit_test(test_bug_on_broken),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
