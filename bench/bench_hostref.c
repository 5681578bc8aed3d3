/*
 * bench_hostref: does a reference measured beside each trial follow what
 * moves a 2-thread trial on a VM (issue 33)? On the 2-vCPU development VM a
 * 2-thread point's rate moves by up to 1.8x with the host's other tenants,
 * for seconds at a time, unseen by the contention measure; a reference that
 * moves with it could be taken out trial by trial, as the canary is taken
 * out check by check.
 *
 *   build/bench/bench_hostref [ROUNDS]     (default 40)
 *
 * Each round: the references (one canary sample, tuner/canary.h: its
 * scalar compute half and its memory half, both vCPUs; a short 2-thread
 * SGEMM trial, 256^3, 0.1 s; a vector FMA and a last-level-cache read
 * probe, below), the trial (transformer bf16, batch 8, 2 threads, 0.4 s of
 * samples, in a child as tune runs it), then the references again.
 * Printed: each reference's correlation with the trial's
 * median over rounds (of logs), and the trials' spread (IQR / median) as
 * measured and divided by each reference (scaled by the least-squares
 * slope of the logs): a reference that follows the host leaves a spread far
 * below the trials' own. The 1-minute load before and after: only a quiet
 * machine says anything.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/platform.h"

#include "../common/rt.h"
#include "../search/stats.h"
#include "../tuner/canary.h"
#include "../tuner/measure.h"

#define MAX_ROUNDS 400
#define TRIAL_S 0.4
#define PROBE_S 0.1

static double load1(void)
{
	double l[1];
	return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* Pearson's r of x and y, and the least-squares slope of y on x. */
static double correlation(const double *x, const double *y, int n, double *slope)
{
	double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;
	for (int i = 0; i < n; i++) {
		mx += x[i] / n;
		my += y[i] / n;
	}
	for (int i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	*slope = sxx > 0 ? sxy / sxx : 0;
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* IQR / median of exp(v): the spread of rates given as logs. */
static double spread_of_logs(const double *v, int n)
{
	double r[MAX_ROUNDS];
	for (int i = 0; i < n; i++)
		r[i] = exp(v[i]);
	double med = rt_median(r, (size_t)n);
	return (rt_quantile(r, (size_t)n, 0.75) - rt_quantile(r, (size_t)n, 0.25)) / med;
}

/* One reference against the trials: r, and the trials' spread once it is taken out. */
static void report(const char *name, const double *ref, const double *trial, int n)
{
	double slope, left[MAX_ROUNDS];
	double r = correlation(ref, trial, n, &slope);
	for (int i = 0; i < n; i++)
		left[i] = trial[i] - slope * ref[i];
	printf("  %-30s r = %+.2f  slope %.2f  trials' spread after: %5.1f%%\n", name, r, slope,
	       100 * spread_of_logs(left, n));
}

/* A short 2-thread SGEMM of 256^3, its median GFLOP/s: a reference that runs what trials run. */
static int gemm_probe(double *gflops, char *err, size_t errlen)
{
	const rt_workload *w = rt_workload_builtin(RT_GEMM_WORKLOAD);
	rt_point pt;
	rt_shape sh;
	rt_point_default(&pt);
	rt_shape_default(w, &sh);
	pt.threads = 2;
	for (const char *const *k = (const char *const[]){"m", "n", "k", NULL}; *k; k++)
		sh.v[rt_shape_known(w, *k)] = 256;
	rt_measure_opts o;
	rt_measure_defaults(&o);
	o.time_cap_s = PROBE_S;
	o.rel_ci = 0;
	rt_measurement m;
	int rc = rt_measure(w, &pt, &sh, &o, &m, err, errlen);
	if (rc == RT_OK && !m.feasible)
		rc = rt_fail(err, errlen, RT_ERUNTIME, "the SGEMM probe is infeasible: %s", m.reason);
	*gflops = rc == RT_OK ? m.median : 0;
	if (rc == RT_OK)
		rt_measurement_free(&m);
	return rc;
}


/*
 * Two more references that use no library, each on both vCPUs in
 * PROBE_PHASES steps with a barrier between them (as the canary's halves):
 * vector FMA throughput (8 chains of AVX2 fused multiply-adds, GFLOP/s:
 * what a GEMM's inner loop does, without its memory) and reads of a buffer
 * that fits the last-level cache but not L2 (GB/s: what other tenants
 * sharing the L3 would take).
 */
#define PROBE_THREADS 2
#define PROBE_PHASES 16
#define FMA_ITERS 2000000L
#define FMA_CHAINS 8
#define L3_BYTES ((size_t)6 << 20)
#define L3_PASSES 12

typedef enum probe_kind { PROBE_FMA, PROBE_L3 } probe_kind;

typedef struct probe_job {
	rt_barrier *step;
	probe_kind kind;
	const float *buf; /* PROBE_L3: this thread's buffer */
	float sink;
} probe_job;

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_FMA_PROBE 1
/* Eight independent chains, named so that they stay in registers. */
#define FMA_STEP(c)                                                                        \
	do {                                                                               \
		c##0 = _mm256_fmadd_ps(c##0, a, b);                                        \
		c##1 = _mm256_fmadd_ps(c##1, a, b);                                        \
		c##2 = _mm256_fmadd_ps(c##2, a, b);                                        \
		c##3 = _mm256_fmadd_ps(c##3, a, b);                                        \
		c##4 = _mm256_fmadd_ps(c##4, a, b);                                        \
		c##5 = _mm256_fmadd_ps(c##5, a, b);                                        \
		c##6 = _mm256_fmadd_ps(c##6, a, b);                                        \
		c##7 = _mm256_fmadd_ps(c##7, a, b);                                        \
	} while (0)

__attribute__((target("avx2,fma"))) static float fma_chains(rt_barrier *step)
{
	__m256 a = _mm256_set1_ps(0.9999f), b = _mm256_set1_ps(1e-6f);
	__m256 c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b, c6 = b, c7 = b;
	for (int p = 0; p < PROBE_PHASES; p++) {
		for (long n = 0; n < FMA_ITERS / PROBE_PHASES; n++)
			FMA_STEP(c);
		rt_barrier_wait(step);
	}
	__m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
				 _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
	return _mm256_cvtss_f32(s);
}
#else
#define HAVE_FMA_PROBE 0
static float fma_chains(rt_barrier *step)
{
	for (int p = 0; p < PROBE_PHASES; p++)
		rt_barrier_wait(step);
	return 0;
}
#endif

static float l3_read(const float *b, rt_barrier *step)
{
	float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t n = L3_BYTES / sizeof *b;
	for (int p = 0; p < L3_PASSES; p++) {
		for (size_t i = 0; i < n; i += 16) { /* a cache line each */
			s0 += b[i];
			s1 += b[i + 4];
			s2 += b[i + 8];
			s3 += b[i + 12];
		}
		rt_barrier_wait(step);
	}
	return s0 + s1 + s2 + s3;
}

static void *probe_main(void *arg)
{
	probe_job *j = arg;
	j->sink = j->kind == PROBE_FMA ? fma_chains(j->step) : l3_read(j->buf, j->step);
	return NULL;
}

/* One probe on PROBE_THREADS threads: GFLOP/s or GB/s of them all. */
static double probe(probe_kind kind, float *const *l3_buf)
{
	rt_barrier step;
	probe_job job[PROBE_THREADS];
	pthread_t th[PROBE_THREADS];
	if (rt_barrier_init(&step, PROBE_THREADS))
		return 0;
	double t0 = rt_now();
	for (int i = 0; i < PROBE_THREADS; i++) {
		job[i] = (probe_job){.step = &step, .kind = kind, .buf = l3_buf[i]};
		if (pthread_create(&th[i], NULL, probe_main, &job[i])) {
			/* the threads started wait at the barrier for it: nothing to join */
			fprintf(stderr, "bench_hostref: a probe thread cannot start\n");
			exit(1);
		}
	}
	for (int i = 0; i < PROBE_THREADS; i++)
		pthread_join(th[i], NULL);
	double t = rt_now() - t0;
	rt_barrier_destroy(&step);
	if (kind == PROBE_L3)
		return 1e-9 * (double)L3_BYTES / 4 * L3_PASSES * PROBE_THREADS / t;
	return 1e-9 * 2.0 * 8 * FMA_CHAINS * FMA_ITERS * PROBE_THREADS / t;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	if (rounds < 8 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: bench_hostref [ROUNDS 8-%d]\n", MAX_ROUNDS);
		return 2;
	}
	const rt_workload *w = rt_workload_builtin("transformer");
	rt_point pt;
	rt_shape sh;
	rt_point_default(&pt);
	rt_shape_default(w, &sh);
	pt.precision = RT_BF16;
	pt.batch = 8;
	pt.threads = 2;
	rt_measure_opts o;
	rt_measure_defaults(&o);
	o.time_cap_s = TRIAL_S;
	o.rel_ci = 0; /* the whole TRIAL_S, as a trial of fixed length */
	static double trial[MAX_ROUNDS], compute[MAX_ROUNDS], memory[MAX_ROUNDS], gemm[MAX_ROUNDS],
	    fma[MAX_ROUNDS], l3[MAX_ROUNDS];
	static float *l3_buf[PROBE_THREADS];
	for (int i = 0; i < PROBE_THREADS; i++) {
		if (!(l3_buf[i] = malloc(L3_BYTES))) {
			fprintf(stderr, "bench_hostref: out of memory\n");
			return 1;
		}
		for (size_t k = 0; k < L3_BYTES / sizeof **l3_buf; k++)
			l3_buf[i][k] = (float)(k & 255);
	}
	printf("bench_hostref: %d rounds, 1-minute load %.2f\n", rounds, load1());
	for (int i = 0; i < rounds; i++) {
		rt_canary_sample before, after;
		rt_measurement m;
		double g0, g1, f0 = probe(PROBE_FMA, l3_buf), l0 = probe(PROBE_L3, l3_buf);
		char err[RT_ERRLEN] = "a canary thread could not start";
		if (rt_canary_measure(&before) || gemm_probe(&g0, err, sizeof err) ||
		    rt_measure(w, &pt, &sh, &o, &m, err, sizeof err) || rt_canary_measure(&after) ||
		    gemm_probe(&g1, err, sizeof err)) {
			fprintf(stderr, "bench_hostref: round %d: %s\n", i + 1, err);
			return 1;
		}
		double f1 = probe(PROBE_FMA, l3_buf), l1 = probe(PROBE_L3, l3_buf);
		l3[i] = log(sqrt(l0 * l1));
		fma[i] = log(sqrt(f0 * f1));
		if (!m.feasible) {
			fprintf(stderr, "bench_hostref: the trial is infeasible: %s\n", m.reason);
			return 1;
		}
		trial[i] = log(m.median);
		compute[i] = log(sqrt(before.compute * after.compute));
		memory[i] = log(sqrt(before.memory * after.memory));
		gemm[i] = log(sqrt(g0 * g1));
		printf("  round %2d: trial %7.1f samples/s  canary compute %6.2f  memory %6.2f  "
		       "sgemm %6.1f  fma %6.1f  l3 %6.1f\n",
		       i + 1, m.median, exp(compute[i]), exp(memory[i]), exp(gemm[i]),
		       exp(fma[i]), exp(l3[i]));
		rt_measurement_free(&m);
	}
	printf("the trials' own spread (IQR / median): %.1f%%\n", 100 * spread_of_logs(trial, rounds));
	report("canary compute (beside)", compute, trial, rounds);
	report("canary memory (beside)", memory, trial, rounds);
	report("2-thread SGEMM (beside)", gemm, trial, rounds);
	if (HAVE_FMA_PROBE)
		report("2-thread vector FMA (beside)", fma, trial, rounds);
	report("2-thread L3 read (beside)", l3, trial, rounds);
	printf("bench_hostref: 1-minute load %.2f after\n", load1());
	return 0;
}
