/*
 * blas.h: the BLAS the binary links, one of two: OpenBLAS (Linux; a Mac's
 * `make BLAS=openblas`, Homebrew's) or Apple's Accelerate (a Mac's default:
 * PyPI's torch and numpy run their matmuls there). Both are cblas_sgemm and
 * cblas_dgemm; what differs is how a program sizes the library's threads and
 * what the library says of itself: these calls (blas_openblas.c,
 * blas_accelerate.c: the Makefile's RT_BLAS_ACCELERATE picks one).
 */
#ifndef RT_BLAS_H
#define RT_BLAS_H

#if defined(RT_BLAS_ACCELERATE) && defined(__APPLE__) && __has_include(<Accelerate/Accelerate.h>)
#include <Accelerate/Accelerate.h> /* a Mac's SDK: vecLib's cblas.h (the cross-build: its stub) */
#include <stdint.h>
/* cblas_sbgemm's types as OpenBLAS names them: Accelerate has none (looked up at run time) */
typedef int blasint;
typedef uint16_t bfloat16;
#else
#include <cblas.h> /* OpenBLAS's (the cross-build's for Accelerate too: the same prototypes) */
#endif

/* "OpenBLAS" or "Accelerate". */
const char *rt_blas_name(void);

/*
 * Whether rt_blas_set_threads acts on each call after it (OpenBLAS). Accelerate
 * sizes its pool from VECLIB_MAXIMUM_THREADS in the environment, not per call, so
 * a caller cannot run it single-threaded on some calls and wide on others.
 */
int rt_blas_threads_settable(void);

/*
 * Sizes the library's pool: openblas_set_num_threads; under Accelerate,
 * VECLIB_MAXIMUM_THREADS in the environment, the knob it reads (setenv: call it
 * before other threads may read the environment).
 */
void rt_blas_set_threads(int n);

/*
 * OpenBLAS's own description: its config string, the kernels it chose, and its
 * threading layer (0 sequential, 1 pthreads, 2 OpenMP). 0, or -1 where the binary
 * runs another BLAS (then nothing is set).
 */
int rt_blas_openblas(const char **config, const char **core, int *parallel);

#endif
