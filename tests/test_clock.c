/*
 * common/clock: the budget clock is rt_now() unless a test fakes it; the fake
 * moves only by what simulated trials report (rt_clock_advance in-process,
 * RIGTUNE_TEST_CLOCK's file for the binary), and rt_now(), what measures,
 * runs on whatever the budget clock says.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/clock.h"
#include "../common/rt.h"

/* Two milliseconds of real time. */
static void pause_2ms(void)
{
	struct timespec ts = {0, 2000000};
	while (nanosleep(&ts, &ts))
		;
}

static void write_clock(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * Runs first: the variable is read at the first reading. Its file's
 * seconds are the clock (0 while there is none); nothing in the process
 * moves it; a file that holds no number is a broken test, stopped.
 */
static void test_the_test_clock_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/rt-clock-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/clock", dir);
	setenv("RIGTUNE_TEST_CLOCK", path, 1);
	assert_float_equal(rt_clock_now(), 0, 0);
	write_clock(path, "2.5\n");
	assert_float_equal(rt_clock_now(), 2.5, 0);
	double real = rt_now();
	pause_2ms();
	rt_clock_advance(10); /* the file's clock is the simulated trials' to move */
	assert_float_equal(rt_clock_now(), 2.5, 0);
	assert_true(rt_now() - real >= 0.002);
	write_clock(path, "soon");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(open("/dev/null", O_WRONLY), 2); /* the bug report is expected */
		rt_clock_now();
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	unlink(path);
	rmdir(dir);
}

/* A unit test's fake: still while real time passes, moved by what a trial reports. */
static void test_the_fake_clock_moves_only_when_advanced(void **state)
{
	(void)state;
	rt_clock_fake(100);
	double real = rt_now();
	pause_2ms();
	assert_float_equal(rt_clock_now(), 100, 0);
	assert_true(rt_now() - real >= 0.002); /* what measures is not fake */
	rt_clock_advance(2.5);
	assert_float_equal(rt_clock_now(), 102.5, 0);
	rt_clock_real();
}

/* The real budget clock is rt_now()'s, and no advance moves it. */
static void test_the_real_clock_is_rt_now(void **state)
{
	(void)state;
	rt_clock_real();
	rt_clock_advance(1000);
	double before = rt_now(), clock = rt_clock_now(), after = rt_now();
	assert_true(before <= clock && clock <= after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_test_clock_file),
		cmocka_unit_test(test_the_fake_clock_moves_only_when_advanced),
		cmocka_unit_test(test_the_real_clock_is_rt_now),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
