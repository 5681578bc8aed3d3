/*
 * blas_cores.h: which OpenBLAS kernel set runs this CPU's GEMMs fastest,
 * measured. Where OpenBLAS runs kernels narrower than the CPU (blas_kernels.h:
 * Debian's 0.3.21 ran Prescott's SSE kernels on an AVX-512 Xeon it did not
 * know, 5x slower on a 2048^3 SGEMM), tune measures the kernel sets the CPU's
 * flags allow (rt_blas_kernels_wider) against the one it runs, each in a
 * `rigtune bench gemm` child with OPENBLAS_CORETYPE set (OpenBLAS reads it
 * once, when it loads), and recommends the fastest in the configuration's
 * env: so that `rigtune exec` and `eval "$(rigtune env)"` give it to every
 * OpenBLAS user of the process (numpy, SciPy, Debian's PyTorch).
 */
#ifndef RT_BLAS_CORES_H
#define RT_BLAS_CORES_H

#include "machine.h"

#define RT_BLAS_MAX_CORES 6

typedef struct rt_blas_cores {
	int n;                              /* measured: [0] the kernels OpenBLAS runs */
	char core[RT_BLAS_MAX_CORES][32];
	double gflops[RT_BLAS_MAX_CORES];   /* 1-thread SGEMM at bench's default shape; 0: failed */
	int best;                           /* index of the fastest; 0 when none is faster */
	double ratio;                       /* its GFLOP/s over [0]'s; 0 when not measured */
} rt_blas_cores;

/*
 * Measures m's OpenBLAS kernels and the wider ones its CPU allows, seconds
 * each, running this binary's bench (which takes its lock in a directory of
 * its own: the caller holds the machine's). Nothing to measure (the kernels
 * fit, or another BLAS): c->n 0. RT_OK, or RT_ERUNTIME/RT_ENOMEM with err.
 */
int rt_blas_cores_measure(const rt_machine *m, double seconds, rt_blas_cores *c, char *err,
			  size_t errlen);

/* The OPENBLAS_CORETYPE to recommend ("" for none): the fastest, faster by 5% at least. */
const char *rt_blas_cores_pick(const rt_blas_cores *c);

#endif
