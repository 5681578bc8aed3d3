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
 * With $SLOWBLAS_UNTIL (a Unix time in seconds) the calls from then on run
 * at full speed: a slowdown that passes, as a host's busy spell does.
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

/* Whether $SLOWBLAS_UNTIL is set and past. */
static int slowdown_over(void)
{
	const char *v = getenv("SLOWBLAS_UNTIL");
	struct timespec ts;
	if (!v || clock_gettime(CLOCK_REALTIME, &ts))
		return 0;
	return (double)ts.tv_sec >= strtod(v, NULL);
}

/* The extra time per second of a call: S / (1 - S); 0 when unset, out of range or over. */
static double extra_per_s(void)
{
	const char *v = getenv("SLOWBLAS_SLOWDOWN");
	double s = v ? strtod(v, NULL) : 0;
	return s > 0 && s < 0.95 && !slowdown_over() ? s / (1 - s) : 0;
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

/*
 * cblas_sgemm and cblas_dgemm, one definition for both element types T (as
 * cblas.h declares them, its enums passed as int).
 */
#define SLOW_GEMM(name, T)                                                                    \
	typedef void (*name##_fn)(int, int, int, int, int, int, T, const T *, int, const T *, \
				  int, T, T *, int);                                          \
	void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, \
		  const T *b, int ldb, T beta, T *c, int ldc)                                 \
	{                                                                                     \
		static name##_fn f;                                                           \
		if (!f)                                                                       \
			*(void **)&f = real(#name);                                           \
		double t0 = now_s();                                                          \
		f(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);               \
		slow_down(t0);                                                                \
	}

SLOW_GEMM(cblas_sgemm, float)
SLOW_GEMM(cblas_dgemm, double)

/* As dnnl.h declares it: primitive, stream, the number of arguments and their array. */
typedef int (*execute_fn)(const void *, void *, int, const void *);

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
