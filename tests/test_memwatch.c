/*
 * tuner/memwatch: the memory cap that holds where RLIMIT_AS does not
 * (macOS), run here on Linux, where rt_plat_footprint reads the resident set.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/platform.h"
#include "../common/rt.h"
#include "../tuner/memwatch.h"

#define MIB (1u << 20)

/* A child that touches mib MiB, one at a time, then waits to be ended (or exits at hold_s). */
static pid_t start_eater(size_t mib, double hold_s)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *p = malloc(mib * MIB);
		for (size_t i = 0; p && i < mib; i++) {
			memset(p + i * MIB, 1, MIB);
			usleep(1000);
		}
		usleep((useconds_t)(hold_s * 1e6));
		_exit(p ? 0 : 3);
	}
	return pid;
}

/* Memory this process touches shows in its footprint. */
static void test_footprint(void **state)
{
	(void)state;
	uint64_t before, after;
	assert_int_equal(rt_plat_footprint(getpid(), &before), 0);
	char *p = malloc(64 * MIB);
	assert_non_null(p);
	memset(p, 1, 64 * MIB);
	assert_int_equal(rt_plat_footprint(getpid(), &after), 0);
	assert_true(after >= before + 48 * MIB);
	free(p);
	assert_int_equal(rt_plat_footprint(-1, &after), -1);
}

/* A trial that grows past the cap is killed there, and the watchdog says so. */
static void test_over_the_cap_is_killed(void **state)
{
	(void)state;
	pid_t pid = start_eater(512, 30);
	rt_memwatch w;
	assert_int_equal(rt_memwatch_start(&w, pid, 64 * MIB), RT_OK);
	siginfo_t si; /* ended, not reaped: the watchdog stops while the pid is still ours */
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(rt_memwatch_stop(&w), 1);
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_true(w.seen > 64 * MIB && w.seen < 512 * MIB);
}

/* One that stays under it ends as it would have. */
static void test_under_the_cap_runs(void **state)
{
	(void)state;
	pid_t pid = start_eater(16, 0.2);
	rt_memwatch w;
	assert_int_equal(rt_memwatch_start(&w, pid, 256 * MIB), RT_OK);
	siginfo_t si;
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(rt_memwatch_stop(&w), 0);
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_footprint),
		cmocka_unit_test(test_over_the_cap_is_killed),
		cmocka_unit_test(test_under_the_cap_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
