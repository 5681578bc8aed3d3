/*
 * bench_transformer.c: how close the transformer training step comes to the
 * machine's large-GEMM speed on the CPU backend.
 *
 * For threads 1..nproc and batch 8..256 (default shape, fp32, workers 0) it
 * prints the step's achieved GFLOP/s (GEMM flops per step / median step
 * time) beside a 2048^3 cblas_sgemm with the same thread count, their ratio,
 * and where the step's time went. The step's GEMM flops are every GEMM's
 * 2 m n k: the projections and the MLP, forward and backward, and
 * attention's batched per-head products (q k^T, probs v and their four
 * backward products, the causal scores counted in full since they are all
 * computed); nothing else (softmax, layer norm, GELU, Adam, the data) adds
 * flops, though all of it takes step time. The sgemm is measured right
 * before and right after each transformer point and averaged, so that both
 * see the same machine (a shared machine's speed drifts).
 *
 *   build/bench/bench_transformer [MAX_THREADS [BATCH [MIN_THREADS]]]
 *
 * BATCH runs that batch alone, MIN_THREADS starts the thread counts there
 * (`bench_transformer 2 64 2`: the point, 2 threads at batch 64).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/rng.h"
#include "../workloads/blas.h"
#include "../search/stats.h"
#include "../workloads/cpu_backend.h"
#include "../workloads/transformer.h"

#define GEMM_N 2048
#define MIN_STEPS 3
#define MIN_SECONDS 1.0

/* GFLOP/s of a GEMM_N^3 sgemm on seeded data: median of 5 after a warm-up. */
static double sgemm_gflops(int threads)
{
	size_t n = GEMM_N;
	float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
	float *c = malloc(n * n * sizeof *c);
	if (!a || !b || !c) {
		free(a), free(b), free(c);
		return 0;
	}
	rt_rng r;
	rt_rng_seed(&r, 7);
	for (size_t i = 0; i < n * n; i++) {
		a[i] = (float)rt_rng_normal(&r);
		b[i] = (float)rt_rng_normal(&r);
	}
	rt_blas_set_threads(threads);
	double t[6];
	for (int i = 0; i < 6; i++) {
		double t0 = rt_now();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, GEMM_N, GEMM_N, GEMM_N,
			    1.0f, a, GEMM_N, b, GEMM_N, 0.0f, c, GEMM_N);
		t[i] = rt_now() - t0;
	}
	free(a), free(b), free(c);
	return 2.0 * n * n * n / rt_median(t + 1, 5) / 1e9;
}

/*
 * Times the transformer at one point: one warm-up step, then at least
 * MIN_STEPS steps and MIN_SECONDS. Returns 0 and fills the median step
 * time, the flops per step and the phase fractions.
 */
static int time_transformer(const rt_backend_ops *be, int batch, int threads,
			    double *step_s, double *flops, double *frac)
{
	const rt_workload *w = &rt_workload_transformer;
	rt_shape sh;
	rt_shape_default(w, &sh);
	rt_point pt;
	rt_point_default(&pt);
	pt.batch = batch;
	pt.threads = threads;
	void *st = NULL;
	char err[RT_ERRLEN] = "";
	if (w->setup(&pt, &sh, be, &st, err, sizeof err)) {
		fprintf(stderr, "batch %d threads %d: %s\n", batch, threads, err);
		return -1;
	}
	double t[256], phase[RT_MAX_PHASES] = {0}, start = 0;
	int n = -1;
	rt_step_result r;
	while (n < MIN_STEPS || (rt_now() - start < MIN_SECONDS && n < 256)) {
		double t0 = rt_now();
		if (w->step(st, &r, err, sizeof err)) {
			fprintf(stderr, "batch %d threads %d: %s\n", batch, threads, err);
			w->teardown(st);
			return -1;
		}
		if (n < 0) {
			start = rt_now();
		} else {
			t[n] = rt_now() - t0;
			for (int i = 0; i < w->nphases; i++)
				phase[i] += r.phase[i];
		}
		n++;
	}
	w->teardown(st);
	double total = 0;
	for (int i = 0; i < w->nphases; i++)
		total += phase[i];
	for (int i = 0; i < w->nphases; i++)
		frac[i] = phase[i] / total;
	*flops = r.flops;
	*step_s = rt_median(t, (size_t)n);
	return 0;
}

int main(int argc, char **argv)
{
	static const int batches[] = {8, 16, 32, 64, 128, 256};
	rt_cpu_blas_prepare(argv); /* OpenBLAS's idle threads sleep right after each GEMM */
	const rt_workload *w = &rt_workload_transformer;
	int maxthreads = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	int only_batch = argc > 2 ? atoi(argv[2]) : 0;
	int minthreads = argc > 3 ? atoi(argv[3]) : 1;
	const rt_backend_ops *be = rt_cpu_backend();
	char err[RT_ERRLEN] = "";
	if (be->init(err, sizeof err) < 1) {
		fprintf(stderr, "cpu backend: %s\n", err);
		return 1;
	}
	printf("transformer d_model=%ld heads=%ld seq_len=%ld d_ff=%ld layers=%ld prep_us=%ld, "
	       "fp32, workers 0\n",
	       w->keys[0].def, w->keys[1].def, w->keys[2].def, w->keys[3].def, w->keys[4].def,
	       w->keys[5].def);
	printf("tf_GFLOP/s: the step's GEMM flops (attention's batched products included, "
	       "causal scores in full) / its median time\n");
	printf("%7s %5s %10s %9s %11s %12s %6s  phases:", "threads", "batch", "samples/s",
	       "step_ms", "tf_GFLOP/s", "sgemm_GFLOP/s", "ratio");
	for (int i = 0; i < w->nphases; i++)
		printf(" %s", w->phase_names[i]);
	printf("\n");
	for (int th = minthreads < 1 ? 1 : minthreads; th <= maxthreads; th++) {
		for (size_t b = 0; b < sizeof batches / sizeof *batches; b++) {
			double step, flops, frac[RT_MAX_PHASES];
			if (only_batch && batches[b] != only_batch)
				continue;
			double before = sgemm_gflops(th);
			if (time_transformer(be, batches[b], th, &step, &flops, frac))
				continue;
			double peak = 0.5 * (before + sgemm_gflops(th));
			double gf = flops / step / 1e9;
			printf("%7d %5d %10.1f %9.2f %11.1f %12.1f %6.2f  ", th, batches[b],
			       batches[b] / step, step * 1e3, gf, peak, gf / peak);
			for (int i = 0; i < w->nphases; i++)
				printf(" %.3f", frac[i]);
			printf("\n");
			fflush(stdout);
		}
	}
	return 0;
}
