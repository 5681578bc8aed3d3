/*
 * bench_canary: how much the canary (tuner/canary.h) moves on a machine
 * that did not change, and what moves it (issue 33: its memory half read
 * 11-27% slower in each check than after the tune's trials).
 *
 *   build/bench/bench_canary [PROCESSES] [SAMPLES]     (defaults 8, 12)
 *
 * 1. Between processes: PROCESSES fresh processes (a tune and a check are
 *    each one), SAMPLES samples each; each process's median compute and
 *    memory, the spread of those medians (highest / lowest - 1) beside the
 *    spread within a process (the median of the processes' interquartile
 *    range / median). A spread between processes wider than within is what
 *    a check's tight CI cannot see.
 * 2. After a trial or not: one fresh process, SAMPLES rounds of two samples
 *    right after a forked child ran 2-thread SGEMMs for 0.5 s (as the tune's
 *    canary follows each trial) and two after 0.5 s idle; the median of each
 *    round's after-trial / after-idle, per half.
 * The 1-minute load before and after is printed: only a quiet machine says
 * anything about the canary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/rt.h"
#include "../workloads/blas.h"
#include "../search/stats.h"
#include "../tuner/canary.h"

#define MAX_SAMPLES 64
#define MAX_PROCESSES 32
#define TRIAL_S 0.5

static double load1(void)
{
	double l[1];
	return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* The median and interquartile range / median of n values. */
static double spread_in(double *v, int n, double *median)
{
	*median = rt_median(v, (size_t)n);
	return (rt_quantile(v, (size_t)n, 0.75) - rt_quantile(v, (size_t)n, 0.25)) / *median;
}

/* n samples in a fresh child: each half's median and relative IQR, through a pipe. */
static int fresh_process(int n, double out[4])
{
	int fd[2];
	if (pipe(fd))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		double c[MAX_SAMPLES], m[MAX_SAMPLES], r[4] = {0};
		rt_canary_sample s;
		for (int i = 0; i < n; i++) {
			if (rt_canary_measure(&s))
				_exit(1);
			c[i] = s.compute;
			m[i] = s.memory;
		}
		r[1] = spread_in(c, n, &r[0]);
		r[3] = spread_in(m, n, &r[2]);
		_exit(write(fd[1], r, sizeof r) == sizeof r ? 0 : 1);
	}
	close(fd[1]);
	int status = 0, ok = pid > 0 && read(fd[0], out, 4 * sizeof *out) == 4 * sizeof *out;
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return ok && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static void between_processes(int procs, int n)
{
	double med[2][MAX_PROCESSES], iqr[2][MAX_PROCESSES];
	printf("1. %d fresh processes, %d samples each (compute G ops/s, memory GB/s):\n", procs,
	       n);
	for (int p = 0; p < procs; p++) {
		double r[4];
		if (fresh_process(n, r)) {
			fprintf(stderr, "bench_canary: a process's canary did not run\n");
			exit(1);
		}
		med[0][p] = r[0], iqr[0][p] = r[1], med[1][p] = r[2], iqr[1][p] = r[3];
		printf("   process %2d: compute %.3f (IQR %4.1f%%)  memory %.3f (IQR %4.1f%%)\n", p + 1,
		       r[0], 100 * r[1], r[2], 100 * r[3]);
	}
	const char *name[2] = {"compute", "memory"};
	for (int h = 0; h < 2; h++) {
		double lo = med[h][0], hi = med[h][0], within;
		for (int p = 1; p < procs; p++)
			lo = med[h][p] < lo ? med[h][p] : lo, hi = med[h][p] > hi ? med[h][p] : hi;
		within = rt_median(iqr[h], (size_t)procs);
		printf("   %-7s: between processes %.1f%% (highest / lowest median), within one "
		       "%.1f%% (median IQR / median)\n",
		       name[h], 100 * (hi / lo - 1), 100 * within);
	}
}

/* A trial's stand-in: a child that runs 2-thread SGEMMs for TRIAL_S seconds. */
static void trial(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		enum { N = 512 };
		static float a[N * N], b[N * N], c[N * N];
		for (int i = 0; i < N * N; i++)
			a[i] = b[i] = (float)(i % 7);
		rt_blas_set_threads(2);
		for (double t0 = rt_now(); rt_now() - t0 < TRIAL_S;)
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1, a, N,
				    b, N, 0, c, N);
		_exit(c[1] > 0 ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* The median of two samples' halves now: ratio[0] compute, ratio[1] memory. */
static void two_samples(double half[2])
{
	rt_canary_sample s[2];
	double c[2], m[2];
	for (int i = 0; i < 2; i++) {
		if (rt_canary_measure(&s[i]))
			exit(1);
		c[i] = s[i].compute;
		m[i] = s[i].memory;
	}
	half[0] = rt_median(c, 2);
	half[1] = rt_median(m, 2);
}

static void after_trial(int n)
{
	double r[2][MAX_SAMPLES], trial_side[2], idle_side[2];
	rt_canary_sample warm;
	if (rt_canary_measure(&warm)) /* the buffer made before the first round */
		exit(1);
	for (int i = 0; i < n; i++) {
		trial();
		two_samples(trial_side);
		usleep((useconds_t)(TRIAL_S * 1e6));
		two_samples(idle_side);
		r[0][i] = trial_side[0] / idle_side[0];
		r[1][i] = trial_side[1] / idle_side[1];
	}
	double lo, hi;
	printf("2. %d rounds in one process, two samples after a 2-thread SGEMM child and two "
	       "after %.1f s idle:\n",
	       n, TRIAL_S);
	for (int h = 0; h < 2; h++) {
		rt_bootstrap_ci(r[h], (size_t)n, rt_median, 2000, 0.95, 1, &lo, &hi);
		printf("   %-7s after a trial / after idle: %.3f (95%% CI %.3f to %.3f)\n",
		       h ? "memory" : "compute", rt_median(r[h], (size_t)n), lo, hi);
	}
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 8, n = argc > 2 ? atoi(argv[2]) : 12;
	if (procs < 2 || procs > MAX_PROCESSES || n < 4 || n > MAX_SAMPLES) {
		fprintf(stderr, "usage: bench_canary [PROCESSES 2-%d] [SAMPLES 4-%d]\n",
			MAX_PROCESSES, MAX_SAMPLES);
		return 2;
	}
	printf("bench_canary: %ld CPUs, 1-minute load %.2f\n", sysconf(_SC_NPROCESSORS_ONLN),
	       load1());
	between_processes(procs, n);
	after_trial(n);
	printf("bench_canary: 1-minute load %.2f after\n", load1());
	return 0;
}
