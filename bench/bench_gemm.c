/*
 * bench_gemm: is `rigtune bench gemm` honest? Compares the harness's median
 * GFLOP/s for an SGEMM with a plain timing loop around cblas_sgemm on the
 * same product, interleaved (A B A B ...) so that machine noise hits both.
 *
 *   build/bench/bench_gemm [N] [THREADS] [ROUNDS]     (defaults 1024, nproc, 5)
 *
 * Target (issue 2): the harness reports >= 90% of the plain loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../common/rng.h"
#include "../workloads/blas.h"
#include "../search/stats.h"
#include "../tuner/measure.h"

/* GFLOP/s of the best of several 0.2 s runs of back-to-back SGEMMs. */
static double plain_loop(int n, int threads)
{
	size_t nn = (size_t)n * n;
	float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b),
	      *c = malloc(nn * sizeof *c);
	rt_rng r;
	rt_rng_seed(&r, 1);
	for (size_t i = 0; i < nn; i++) {
		a[i] = (float)rt_rng_uniform(&r);
		b[i] = (float)rt_rng_uniform(&r);
		c[i] = 0;
	}
	rt_blas_set_threads(threads);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
	double best = 0;
	for (int rep = 0; rep < 5; rep++) {
		int k = 0;
		double t0 = rt_now(), t;
		do {
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n,
				    b, n, 0, c, n);
			k++;
			t = rt_now() - t0;
		} while (t < 0.2);
		double g = 2.0 * n * n * (double)n * k / t * 1e-9;
		best = g > best ? g : best;
	}
	free(a);
	free(b);
	free(c);
	return best;
}

static double harness(int n, int threads)
{
	const rt_workload *w = rt_workload_find("gemm");
	rt_point pt;
	rt_point_default(&pt);
	pt.threads = threads;
	rt_shape sh;
	rt_shape_default(w, &sh);
	sh.v[0] = sh.v[1] = sh.v[2] = n;
	rt_measure_opts o;
	rt_measure_defaults(&o);
	o.time_cap_s = 1.0;
	rt_measurement m;
	char err[256];
	if (rt_measure(w, &pt, &sh, &o, &m, err, sizeof err) || !m.feasible) {
		fprintf(stderr, "bench_gemm: %s\n", m.feasible ? err : m.reason);
		exit(3);
	}
	double g = m.median;
	rt_measurement_free(&m);
	return g;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1024;
	int threads = argc > 2 ? atoi(argv[2]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	double ratio[64];
	if (rounds < 1 || rounds > 64)
		rounds = 5;
	printf("sgemm %dx%dx%d, %d threads, %d interleaved rounds\n", n, n, n, threads, rounds);
	printf("%5s %12s %12s %7s\n", "round", "plain GF/s", "harness GF/s", "ratio");
	for (int i = 0; i < rounds; i++) {
		double p = plain_loop(n, threads);
		double h = harness(n, threads);
		ratio[i] = h / p;
		printf("%5d %12.1f %12.1f %7.3f\n", i + 1, p, h, ratio[i]);
	}
	double med = rt_median(ratio, (size_t)rounds);
	printf("median ratio harness/plain: %.3f (target >= 0.90): %s\n", med,
	       med >= 0.90 ? "met" : "NOT met");
	return 0;
}
