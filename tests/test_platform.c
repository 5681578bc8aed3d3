/* common/platform: the system calls behind one interface, on the system the tests run on. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/platform.h"

static void test_cpuset(void **state)
{
	(void)state;
	rt_cpuset s;
	rt_cpuset_zero(&s);
	assert_int_equal(rt_cpuset_count(&s), 0);
	rt_cpuset_add(&s, 0);
	rt_cpuset_add(&s, 63);
	rt_cpuset_add(&s, 64);
	rt_cpuset_add(&s, RT_CPUSET_MAX - 1);
	rt_cpuset_add(&s, RT_CPUSET_MAX); /* outside: ignored */
	rt_cpuset_add(&s, -1);
	rt_cpuset_add(&s, 64); /* twice: once */
	assert_int_equal(rt_cpuset_count(&s), 4);
	assert_true(rt_cpuset_has(&s, 63) && rt_cpuset_has(&s, 64));
	assert_false(rt_cpuset_has(&s, 1) || rt_cpuset_has(&s, -1) ||
	             rt_cpuset_has(&s, RT_CPUSET_MAX));
}

/* The allowed CPUs are online ones, at least one; binding to the first keeps us there. */
static void test_cpus_and_bind(void **state)
{
	(void)state;
	rt_cpuset all, one;
	assert_int_equal(rt_plat_cpus_allowed(&all), 0);
	int n = rt_cpuset_count(&all);
	assert_true(n >= 1 && n <= sysconf(_SC_NPROCESSORS_ONLN));
	if (!rt_plat_can_bind())
		return;
	int first = 0;
	while (!rt_cpuset_has(&all, first))
		first++;
	rt_cpuset_zero(&one);
	rt_cpuset_add(&one, first);
	assert_int_equal(rt_plat_bind(&one), 0);
	rt_cpuset now;
	assert_int_equal(rt_plat_cpus_allowed(&now), 0);
	assert_int_equal(rt_cpuset_count(&now), 1);
	assert_true(rt_cpuset_has(&now, first));
	assert_int_equal(rt_plat_bind(&all), 0);
}

static void test_memory_and_cpu_times(void **state)
{
	(void)state;
	uint64_t total = 0, avail = 0;
	assert_int_equal(rt_plat_memory(&total, &avail), 0);
	assert_true(total > (64u << 20) && avail > 0 && avail <= total);
	double busy[RT_CPUSET_MAX];
	int n = rt_plat_cpu_busy(busy, RT_CPUSET_MAX);
	assert_true(n >= 1 && n <= RT_CPUSET_MAX);
	for (int c = 0; c < n; c++)
		assert_true(busy[c] >= 0);
	assert_true(rt_plat_cpu_tick_s() > 0 && rt_plat_cpu_tick_s() <= 0.01);
	/* a cap below the count: only that many */
	assert_int_equal(rt_plat_cpu_busy(busy, 1), 1);
}

static void test_exe_path(void **state)
{
	(void)state;
	char path[PATH_MAX];
	assert_int_equal(rt_plat_exe_path(path, sizeof path), 0);
	assert_true(path[0] == '/');
	const char *base = strrchr(path, '/') + 1;
	assert_string_equal(base, "test_platform");
	char tiny[4];
	assert_int_equal(rt_plat_exe_path(tiny, sizeof tiny), -1);
}

/* Two children, listed; neither any more once reaped. */
static void test_children(void **state)
{
	(void)state;
	pid_t kids[2], seen[16];
	for (int i = 0; i < 2; i++)
		if ((kids[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
	int n = rt_plat_children(getpid(), seen, 16), found = 0;
	for (int i = 0; i < n; i++)
		found += seen[i] == kids[0] || seen[i] == kids[1];
	assert_int_equal(found, 2);
	for (int i = 0; i < 2; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	n = rt_plat_children(getpid(), seen, 16);
	for (int i = 0; i < n; i++)
		assert_true(seen[i] != kids[0] && seen[i] != kids[1]);
}

/* What is written comes back from offset 0; the descriptor ends at exec. */
static void test_memfile_and_pipe(void **state)
{
	(void)state;
	int fd = rt_plat_memfile("rigtune-test");
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "plot", 4), 4);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	char buf[8] = "";
	assert_int_equal(read(fd, buf, sizeof buf), 4);
	assert_memory_equal(buf, "plot", 4);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	int p[2];
	assert_int_equal(rt_plat_pipe_cloexec(p), 0);
	assert_true((fcntl(p[0], F_GETFD) & FD_CLOEXEC) && (fcntl(p[1], F_GETFD) & FD_CLOEXEC));
	close(p[0]);
	close(p[1]);
}

/*
 * Runs rt_execvpe_search(path, file) in a child with env {"MARK=m"}: the
 * child's exit status when the program ran; 200 + errno when exec failed.
 */
static int exec_search(const char *path, const char *file)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = {(char *)file, NULL}, *env[] = {(char *)"MARK=m", NULL};
		rt_execvpe_search(path, file, argv, env);
		_exit(200 + errno);
	}
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A shell script at dir/name that exits 7 when MARK is m (the environment given), else 9. */
static void write_script(const char *dir, const char *name, int mode)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\n[ \"$MARK\" = m ] && exit 7\nexit 9\n", f);
	fclose(f);
	assert_int_equal(chmod(path, (mode_t)mode), 0);
}

/*
 * The search macOS's exec relies on (no execvpe there): directories in
 * order, a missing or non-executable file passed over, EACCES when only a
 * non-executable one was there, ENOENT when none, a slash run as it is,
 * and the given environment, not ours.
 */
static void test_execvpe_search(void **state)
{
	(void)state;
	char a[] = "/tmp/rt-plat-a.XXXXXX", b[] = "/tmp/rt-plat-b.XXXXXX", path[200];
	assert_non_null(mkdtemp(a));
	assert_non_null(mkdtemp(b));
	write_script(a, "tool", 0644); /* not executable: passed over */
	write_script(b, "tool", 0755);
	snprintf(path, sizeof path, "/nonexistent:%s:%s", a, b);
	assert_int_equal(exec_search(path, "tool"), 7);
	snprintf(path, sizeof path, "%s", a);
	assert_int_equal(exec_search(path, "tool"), 200 + EACCES);
	assert_int_equal(exec_search("/nonexistent", "tool"), 200 + ENOENT);
	assert_int_equal(exec_search("/nonexistent", ""), 200 + ENOENT);
	snprintf(path, sizeof path, "%s/tool", b);
	assert_int_equal(exec_search("/nonexistent", path), 7);
	snprintf(path, sizeof path, "%s:", a); /* an empty entry: the current directory */
	char cwd[PATH_MAX];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(b), 0);
	assert_int_equal(exec_search(path, "tool"), 7);
	assert_int_equal(chdir(cwd), 0);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s %s", a, b);
	assert_int_equal(system(cmd), 0);
}

/* ---- barrier and sort ---- */

#define THREADS 4
#define ROUNDS 200

typedef struct barrier_test {
	rt_barrier b;
	int arrived[ROUNDS]; /* how many reached each round, under lock */
	int short_seen;      /* a thread that passed a round before all had reached it */
	pthread_mutex_t lock;
} barrier_test;

static void *barrier_thread(void *arg)
{
	barrier_test *t = arg;
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&t->lock);
		t->arrived[r]++;
		pthread_mutex_unlock(&t->lock);
		rt_barrier_wait(&t->b);
		pthread_mutex_lock(&t->lock);
		if (t->arrived[r] != THREADS)
			t->short_seen = 1;
		pthread_mutex_unlock(&t->lock);
	}
	return NULL;
}

/* No thread passes a round until every thread has reached it. */
static void test_barrier(void **state)
{
	(void)state;
	static barrier_test t;
	memset(&t, 0, sizeof t);
	pthread_mutex_init(&t.lock, NULL);
	assert_int_equal(rt_barrier_init(&t.b, THREADS), 0);
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, barrier_thread, &t), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	rt_barrier_destroy(&t.b);
	assert_false(t.short_seen);
	for (int r = 0; r < ROUNDS; r++)
		assert_int_equal(t.arrived[r], THREADS);
}

/* Indices ordered by the values they point at: the context is cmp's third argument. */
static int by_value_desc(const void *a, const void *b, void *ctx)
{
	const double *v = ctx;
	double x = v[*(const int *)a], y = v[*(const int *)b];
	return (x < y) - (x > y);
}

static void test_sort_r(void **state)
{
	(void)state;
	double values[] = {0.5, 3.0, -1.0, 2.0, 3.5};
	int idx[] = {0, 1, 2, 3, 4}, want[] = {4, 1, 3, 0, 2};
	rt_sort_r(idx, 5, sizeof *idx, by_value_desc, values);
	assert_memory_equal(idx, want, sizeof want);
	rt_sort_r(idx, 0, sizeof *idx, by_value_desc, values); /* nothing: fine */
}

/* /proc's links are on procfs where there is one; /tmp never is. */
static void test_on_procfs(void **state)
{
	(void)state;
	assert_false(rt_plat_on_procfs("/tmp"));
#ifdef __linux__
	assert_true(rt_plat_on_procfs("/proc/self/fd"));
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpuset),
	    cmocka_unit_test(test_cpus_and_bind),
	    cmocka_unit_test(test_memory_and_cpu_times),
	    cmocka_unit_test(test_exe_path),
	    cmocka_unit_test(test_children),
	    cmocka_unit_test(test_memfile_and_pipe),
	    cmocka_unit_test(test_execvpe_search),
	    cmocka_unit_test(test_barrier),
	    cmocka_unit_test(test_sort_r),
	    cmocka_unit_test(test_on_procfs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
