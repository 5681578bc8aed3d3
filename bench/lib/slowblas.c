/*
 * libslowblas.so: a slower BLAS, for bench_check and the check's tests.
 * LD_PRELOADed into a process (rigtune check, rigtune bench, a trial), it
 * stands before the GEMM entry points the CPU backend calls:
 *
 *   cblas_sgemm, cblas_dgemm   OpenBLAS, fp32 and fp64 (cpu_backend.c)
 *   sgemm_, dgemm_             the Fortran BLAS interface, fp32 and fp64:
 *                              what Debian's PyTorch calls (libtorch_cpu)
 *   dnnl_primitive_execute     oneDNN, the bf16 GEMMs where OpenBLAS has
 *                              no cblas_sbgemm (cpu_dnnl.c, PyTorch's
 *                              autocast)
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
 * OpenBLAS's cblas_ and Fortran entries each call its kernels directly, never
 * one another, so no GEMM is slowed twice.
 *
 * cblas_sbgemm is left alone on purpose: the backend asks dlsym whether the
 * library has one, and an interposer that exported it would change the answer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
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

struct lookup {
	const char *name;
	void *self; /* this library's own entry: never the real one */
	void *found;
};

/* One loaded object of dl_iterate_phdr: does it define lookup's name? */
static int find_in_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct lookup *l = data;
	void *h = dlopen(info->dlpi_name[0] ? info->dlpi_name : NULL, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	void *f = dlsym(h, l->name);
	dlclose(h);
	if (f && f != l->self)
		l->found = f;
	return l->found != NULL;
}

/*
 * The real function under name. RTLD_NEXT sees only the global scope, where a
 * library dlopened RTLD_LOCAL (Python's extension modules: PyTorch's BLAS and
 * oneDNN) is not, so those are then looked for object by object. A missing
 * one is a broken setup, said and ended.
 */
static void *real(const char *name, void *self)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (f)
		return f;
	struct lookup l = {name, self, NULL};
	dl_iterate_phdr(find_in_object, &l);
	if (!l.found) {
		fprintf(stderr, "libslowblas: no %s after this library\n", name);
		abort();
	}
	return l.found;
}

/*
 * One wrapper: call, the real name(params) timed and slowed (t0, f). Every
 * entry slowed is one line of the table below.
 */
#define SLOWED(ret, name, params, call)                                                            \
	typedef ret(*name##_fn) params;                                                            \
	ret name params                                                                            \
	{                                                                                          \
		static name##_fn f;                                                                \
		if (!f)                                                                            \
			*(void **)&f = real(#name, (void *)name);                                  \
		double t0 = now_s();                                                               \
		call;                                                                              \
	}

/* A void call, then the spin; a call with a result, the spin, then the result. */
#define VOID_CALL(args) (f args, slow_down(t0))
#define INT_CALL(args)                                                                             \
	int rc = f args;                                                                           \
	slow_down(t0);                                                                             \
	return rc

/* cblas.h's GEMM, its enums passed as int. */
#define CBLAS_GEMM(T)                                                                              \
	(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, \
	 int ldb, T beta, T *c, int ldc)
#define CBLAS_GEMM_ARGS (order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
/*
 * The Fortran ABI: every argument by pointer. gfortran's hidden lengths of
 * the two character arguments are not forwarded: OpenBLAS's entries are C
 * and never read them, and callers from C (PyTorch) do not pass them.
 */
#define F77_GEMM(T)                                                                                \
	(const char *ta, const char *tb, const int *m, const int *n, const int *k, const T *alpha, \
	 const T *a, const int *lda, const T *b, const int *ldb, const T *beta, T *c,              \
	 const int *ldc)
#define F77_GEMM_ARGS (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
/* As dnnl.h declares it: primitive, stream, the number of arguments and their array. */
#define DNNL_EXECUTE (const void *prim, void *stream, int nargs, const void *args)
#define DNNL_EXECUTE_ARGS (prim, stream, nargs, args)

SLOWED(void, cblas_sgemm, CBLAS_GEMM(float), VOID_CALL(CBLAS_GEMM_ARGS))
SLOWED(void, cblas_dgemm, CBLAS_GEMM(double), VOID_CALL(CBLAS_GEMM_ARGS))
SLOWED(void, sgemm_, F77_GEMM(float), VOID_CALL(F77_GEMM_ARGS))
SLOWED(void, dgemm_, F77_GEMM(double), VOID_CALL(F77_GEMM_ARGS))
SLOWED(int, dnnl_primitive_execute, DNNL_EXECUTE, INT_CALL(DNNL_EXECUTE_ARGS))
