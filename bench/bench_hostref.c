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
 * Each round: one canary sample (tuner/canary.h: the scalar compute half
 * and the memory half, both vCPUs) and a short 2-thread SGEMM trial (256^3,
 * 0.1 s), the trial (transformer bf16, batch 8, 2 threads, 0.4 s of
 * samples, in a child as tune runs it), then both references again. Printed: each reference's correlation with the trial's
 * median over rounds (of logs), and the trials' spread (IQR / median) as
 * measured and divided by each reference (scaled by the least-squares
 * slope of the logs): a reference that follows the host leaves a spread far
 * below the trials' own. The 1-minute load before and after: only a quiet
 * machine says anything.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
	printf("  %-26s r = %+.2f  slope %.2f  trials' spread after: %5.1f%%\n", name, r, slope,
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
	static double trial[MAX_ROUNDS], compute[MAX_ROUNDS], memory[MAX_ROUNDS], gemm[MAX_ROUNDS];
	printf("bench_hostref: %d rounds, 1-minute load %.2f\n", rounds, load1());
	for (int i = 0; i < rounds; i++) {
		rt_canary_sample before, after;
		rt_measurement m;
		double g0, g1;
		char err[RT_ERRLEN] = "a canary thread could not start";
		if (rt_canary_measure(&before) || gemm_probe(&g0, err, sizeof err) ||
		    rt_measure(w, &pt, &sh, &o, &m, err, sizeof err) || rt_canary_measure(&after) ||
		    gemm_probe(&g1, err, sizeof err)) {
			fprintf(stderr, "bench_hostref: round %d: %s\n", i + 1, err);
			return 1;
		}
		if (!m.feasible) {
			fprintf(stderr, "bench_hostref: the trial is infeasible: %s\n", m.reason);
			return 1;
		}
		trial[i] = log(m.median);
		compute[i] = log(sqrt(before.compute * after.compute));
		memory[i] = log(sqrt(before.memory * after.memory));
		gemm[i] = log(sqrt(g0 * g1));
		printf("  round %2d: trial %7.1f samples/s  canary compute %6.2f  memory %6.2f  "
		       "sgemm %6.1f\n",
		       i + 1, m.median, exp(compute[i]), exp(memory[i]), exp(gemm[i]));
		rt_measurement_free(&m);
	}
	printf("the trials' own spread (IQR / median): %.1f%%\n", 100 * spread_of_logs(trial, rounds));
	report("canary compute (beside)", compute, trial, rounds);
	report("canary memory (beside)", memory, trial, rounds);
	report("2-thread SGEMM (beside)", gemm, trial, rounds);
	printf("bench_hostref: 1-minute load %.2f after\n", load1());
	return 0;
}
