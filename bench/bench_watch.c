/*
 * bench_watch: what `rigtune watch` costs the run it watches.
 *
 *   build/bench/bench_watch [--rounds N] [--rate HZ] [--work N]
 *   (defaults: 8 rounds, 10 Hz, 20000000 loop iterations per process)
 *
 * A CPU-bound Python script (one process per CPU, each a fixed count of
 * loop iterations: fixed work, not a fixed time) runs unwatched and under
 * `build/rigtune watch --quiet -o /dev/null --`, in turns (A B A B ...,
 * the first of each pair alternating), so that the machine's drift falls on
 * both alike. Printed: each side's median wall time, the overhead as the
 * median of the pairs' ratios (watched / unwatched - 1) with the lowest
 * and highest, and the watcher's own CPU time per second watched (its
 * sampler thread's, which the YAML gives as sampler_cpu_s, over the run's
 * wall time): a figure the noise of a shared machine's wall times does
 * not blur. Target (issue 36): under 1% slower.
 */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/rt.h"

#define MAX_ROUNDS 200

static const char script[] =
	"import multiprocessing as mp, os, sys\n"
	"def work(n):\n"
	"    x = 0\n"
	"    for i in range(n):\n"
	"        x += i * i\n"
	"    return x\n"
	"if __name__ == '__main__':\n"
	"    n = int(sys.argv[1]); k = len(os.sched_getaffinity(0))\n"
	"    with mp.Pool(k) as p:\n"
	"        p.map(work, [n] * k)\n";

/* One run of argv: its wall time. */
static int run(char *const *argv, double *wall)
{
	double t0 = rt_now();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	*wall = rt_now() - t0;
	return 0;
}

/* sampler_cpu_s of the watch YAML at path; -1 when it is not there. */
static double sampler_cpu(const char *path)
{
	char line[256];
	double v = -1;
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "sampler_cpu_s: %lf", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* build/rigtune beside build/bench/bench_watch. */
static void rigtune_path(char *buf, size_t len)
{
	char self[PATH_MAX] = "";
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	snprintf(buf, len, "%s/../rigtune", dirname(self));
}

int main(int argc, char **argv)
{
	int rounds = 8;
	const char *rate = "10", *work = "20000000";
	static const struct option opts[] = {{"rounds", required_argument, NULL, 'n'},
					     {"rate", required_argument, NULL, 'r'},
					     {"work", required_argument, NULL, 'w'},
					     {NULL, 0, NULL, 0}};
	for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		if (c == 'n')
			rounds = atoi(optarg);
		else if (c == 'r')
			rate = optarg;
		else if (c == 'w')
			work = optarg;
		else
			return 2;
	}
	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "bench_watch: --rounds from 1 to %d\n", MAX_ROUNDS);
		return 2;
	}
	char rigtune[PATH_MAX + 16], py[] = "/usr/bin/python3", *src = (char *)script;
	rigtune_path(rigtune, sizeof rigtune);
	char *plain[] = {py, "-c", src, (char *)work, NULL};
	char yaml[] = "/tmp/bench_watch-XXXXXX";
	int fd = mkstemp(yaml);
	if (fd < 0)
		return 3;
	close(fd);
	char *watched[] = {rigtune, "watch", "--quiet", "--rate", (char *)rate, "-o", yaml,
			   "--", py, "-c", src, (char *)work, NULL};
	static double wa[MAX_ROUNDS], wb[MAX_ROUNDS], ratio[MAX_ROUNDS], cost[MAX_ROUNDS];
	run(plain, &wa[0]); /* a warm-up: the interpreter's files in the page cache */
	for (int i = 0; i < rounds; i++) {
		int first_plain = i % 2 == 0;
		if (run(first_plain ? plain : watched, first_plain ? &wa[i] : &wb[i]) ||
		    run(first_plain ? watched : plain, first_plain ? &wb[i] : &wa[i])) {
			fprintf(stderr, "bench_watch: a run failed\n");
			unlink(yaml);
			return 3;
		}
		ratio[i] = wb[i] / wa[i] - 1;
		cost[i] = sampler_cpu(yaml) / wb[i];
		printf("round %2d: unwatched %.3f s, watched %.3f s (%+.2f%%), watcher CPU %.1f ms/s\n",
		       i + 1, wa[i], wb[i], 100 * ratio[i], 1e3 * cost[i]);
		fflush(stdout);
	}
	unlink(yaml);
	double lo = ratio[0], hi = ratio[0];
	for (int i = 1; i < rounds; i++) {
		lo = ratio[i] < lo ? ratio[i] : lo;
		hi = ratio[i] > hi ? ratio[i] : hi;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	printf("watch at %s Hz, %d rounds, %ld CPU-bound processes (%s iterations each):\n", rate,
	       rounds, ncpu, work);
	printf("  median wall: unwatched %.3f s, watched %.3f s\n", median(wa, rounds),
	       median(wb, rounds));
	printf("  overhead: median %+.2f%% of the pairs (lowest %+.2f%%, highest %+.2f%%)\n",
	       100 * median(ratio, rounds), 100 * lo, 100 * hi);
	printf("  watcher CPU: median %.1f ms per second watched (%.2f%% of one core, %.2f%% of "
	       "the machine)\n",
	       1e3 * median(cost, rounds), 100 * median(cost, rounds),
	       100 * median(cost, rounds) / (double)ncpu);
	return 0;
}
