/*
 * tuner/memwatch: the memory cap that holds where RLIMIT_AS does not
 * (macOS), run here on Linux, where rt_plat_footprint reads the resident set:
 * one process, a process group's whole tree, how a cap holds, the reason.
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
	assert_int_equal(rt_memwatch_start(&w, pid, 0, 64 * MIB), RT_OK);
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
	assert_int_equal(rt_memwatch_start(&w, pid, 0, 256 * MIB), RT_OK);
	siginfo_t si;
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(rt_memwatch_stop(&w), 0);
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * A process group: a leader that holds little and n eaters below it of mib
 * MiB each (start_eater), held hold_s; the leader exits 0 when they all did.
 */
static pid_t start_group(int n, size_t mib, double hold_s)
{
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		for (int i = 0; i < n; i++)
			if (start_eater(mib, hold_s) < 0)
				_exit(4);
		int status, bad = 0;
		while (wait(&status) > 0)
			bad |= !WIFEXITED(status) || WEXITSTATUS(status);
		_exit(bad);
	}
	setpgid(pid, pid); /* either side may get there first */
	return pid;
}

/* Waits for pid to end, leaves it unreaped, stops w; whether w ended it. */
static int watch_to_the_end(rt_memwatch *w, pid_t pid, int *status)
{
	siginfo_t si; /* ended, not reaped: the watchdog stops while the pid is still ours */
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	int fired = rt_memwatch_stop(w);
	assert_int_equal(waitpid(pid, status, 0), pid);
	return fired;
}

/*
 * A group is watched whole: two eaters of 128 MiB under a 192 MiB cap, each
 * within it alone (as a limit per process, RLIMIT_AS, would see them), end
 * the group; the leader's own footprint alone never reaches the cap.
 */
static void test_group_counts_its_tree(void **state)
{
	(void)state;
	int status;
	rt_memwatch w;
	rt_plat_subreaper(1); /* where there are subreapers, the eaters come back here */
	pid_t pid = start_group(2, 128, 30);
	assert_int_equal(rt_memwatch_start(&w, pid, 1, 192 * MIB), RT_OK);
	assert_int_equal(watch_to_the_end(&w, pid, &status), 1);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_true(w.seen > 192 * MIB && w.seen < 512 * MIB);
	/* the eaters were in the group: gone too, once reaped (here, or by launchd) */
	while (waitpid(-1, NULL, 0) > 0)
		;
	rt_plat_subreaper(0);
	double until = rt_now() + 10;
	while (killpg(pid, 0) == 0 && rt_now() < until)
		usleep(10000);
	assert_int_equal(killpg(pid, 0), -1);

	pid = start_group(2, 128, 0.5);
	assert_int_equal(rt_memwatch_start(&w, pid, 0, 192 * MIB), RT_OK);
	assert_int_equal(watch_to_the_end(&w, pid, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* How a cap holds: the system's where it can, the watchdog where not or when the test hook asks. */
static void test_how_a_cap_holds(void **state)
{
	(void)state;
	unsetenv("RIGTUNE_MEMWATCH_MIB");
	assert_int_equal(rt_memcap_how(0), RT_MEMCAP_NONE);
	assert_int_equal(rt_memcap_how(MIB),
			 rt_plat_can_cap_memory() ? RT_MEMCAP_SYSTEM : RT_MEMCAP_WATCHDOG);
	assert_true(rt_memwatch_test_cap() == 0);
	static const char *const bad[] = {"", "0", "-5", "12x", "x", "99999999999999999999"};
	for (size_t i = 0; i < RT_COUNT(bad); i++) {
		setenv("RIGTUNE_MEMWATCH_MIB", bad[i], 1);
		if (rt_memwatch_test_cap() != 0)
			fail_msg("RIGTUNE_MEMWATCH_MIB='%s' taken as a cap", bad[i]);
	}
	setenv("RIGTUNE_MEMWATCH_MIB", "300", 1);
	assert_true(rt_memwatch_test_cap() == 300ull * MIB);
	assert_int_equal(rt_memcap_how(MIB), RT_MEMCAP_WATCHDOG);
	assert_int_equal(rt_memcap_how(0), RT_MEMCAP_NONE);
	unsetenv("RIGTUNE_MEMWATCH_MIB");
}

/* Both kinds of trial say it in the same words. */
static void test_reason(void **state)
{
	(void)state;
	char buf[160];
	rt_memwatch_reason(4ull << 30, (9ull << 30) / 2, buf, sizeof buf);
	assert_string_equal(buf, "needs more than the 4.0 GiB cap (4.5 GiB when the watchdog "
				 "ended it)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_footprint),
		cmocka_unit_test(test_over_the_cap_is_killed),
		cmocka_unit_test(test_under_the_cap_runs),
		cmocka_unit_test(test_group_counts_its_tree),
		cmocka_unit_test(test_how_a_cap_holds),
		cmocka_unit_test(test_reason),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
