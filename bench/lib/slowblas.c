/*
 * libslowblas.so: a slower BLAS, for bench_check and the check's tests.
 * LD_PRELOADed into a process (rigtune check, rigtune bench, a trial), it
 * stands before the GEMM entry points the CPU backend calls:
 *
 *   cblas_sgemm, cblas_dgemm   OpenBLAS, fp32 and fp64 (cpu_backend.c)
 *   dnnl_primitive_execute     oneDNN, the bf16 GEMMs where OpenBLAS has
 *                              no cblas_sbgemm (cpu_dnnl.c)
 *
 * Each call goes to the real function (dlsym RTLD_NEXT) and then spins on
 * the calling thread until the call has taken 1 / (1 - S) of its time, S
 * being $SLOWBLAS_SLOWDOWN (0.10: the library at 90% of its speed; unset or
 * 0: as fast as the real one). The time is the wall clock's, so a call that
 * waits for a core waits as long again in proportion: the slowdown lives in
 * the component, whatever the machine's load, and no idle time is left for
 * a hypervisor to give back. The variable is read at every call, so a
 * process can change it between calls (a forked trial keeps its parent's).
 *
 * cblas_sbgemm is left alone on purpose: the backend asks dlsym whether the
 * library has one, and an interposer that exported it would change the answer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The extra time per second of a call: S / (1 - S); 0 when unset or out of range. */
static double extra_per_s(void)
{
	const char *v = getenv("SLOWBLAS_SLOWDOWN");
	double s = v ? strtod(v, NULL) : 0;
	return s > 0 && s < 0.95 ? s / (1 - s) : 0;
}

/* After a call that began at t0: spin until it has taken its share more. */
static void slow_down(double t0)
{
	double extra = extra_per_s();
	if (extra <= 0)
		return;
	double t1 = now_s(), until = t1 + extra * (t1 - t0);
	volatile unsigned long spins = 0;
	while (now_s() < until)
		spins++;
}

/* The real function under name; a missing one is a broken setup, said and ended. */
static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		fprintf(stderr, "libslowblas: no %s after this library: %s\n", name, dlerror());
		abort();
	}
	return f;
}

/* The calls' types, as cblas.h and dnnl.h have them (enums passed as int). */
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
			 int, float, float *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
			 const double *, int, double, double *, int);
typedef int (*execute_fn)(const void *, void *, int, const void *);

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
		 int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
	static sgemm_fn f;
	if (!f)
		*(void **)&f = real("cblas_sgemm");
	double t0 = now_s();
	f(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
	slow_down(t0);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
		 int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
	static dgemm_fn f;
	if (!f)
		*(void **)&f = real("cblas_dgemm");
	double t0 = now_s();
	f(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
	slow_down(t0);
}

int dnnl_primitive_execute(const void *prim, void *stream, int nargs, const void *args)
{
	static execute_fn f;
	if (!f)
		*(void **)&f = real("dnnl_primitive_execute");
	double t0 = now_s();
	int rc = f(prim, stream, nargs, args);
	slow_down(t0);
	return rc;
}
