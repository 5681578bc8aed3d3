/*
 * cpu_backend.h: the CPU backend (OpenBLAS for GEMM, workloads/cpu_kernels.c
 * for the elementwise kernels), linked into the binary.
 */
#ifndef RT_CPU_BACKEND_H
#define RT_CPU_BACKEND_H

#include "backend.h"
#include "pool.h"

/* The CPU backend's table; a static object, never freed. */
const rt_backend_ops *rt_cpu_backend(void);

/*
 * OpenBLAS's idle threads spin for about 0.1 s after each GEMM (2^28
 * cycles) before they sleep, against the pool that runs the kernels between
 * GEMMs; OPENBLAS_THREAD_TIMEOUT shortens that, but OpenBLAS reads it only
 * when it loads. So a program that measures calls this first thing in
 * main(): unless the user set the variable, it re-executes the program
 * (/proc/self/exe, the same argv) once with OPENBLAS_THREAD_TIMEOUT set to
 * RT_BLAS_THREAD_TIMEOUT, and in the new image, after OpenBLAS has read it,
 * takes it out of the environment again, so that no child and no user's
 * command started from this process sees it. Returns when nothing is left
 * to do (or the re-exec failed: then OpenBLAS keeps its own timeout).
 */
/*
 * 2^17 cycles, ~50 us at 2.6 GHz: as long as the kernel pool polls after its
 * jobs (RT_POOL_SPIN_KERNELS), so GEMMs that follow one another find
 * OpenBLAS's threads awake and kernels that follow a GEMM find them asleep.
 * (4, OpenBLAS's least, made every GEMM pay a wake-up, which on an
 * oversubscribed machine cost milliseconds.)
 */
#define RT_BLAS_THREAD_TIMEOUT "17"
void rt_cpu_blas_prepare(char **argv);

/*
 * Whether a context of `threads` threads computes an m x n x k GEMM of
 * precision prec split by rows over its pool (each thread calling OpenBLAS
 * single-threaded on its rows) rather than with OpenBLAS's threads: see
 * cpu_gemm in cpu_backend.c. For tests.
 */
int rt_cpu_gemm_splits_rows(int threads, rt_precision prec, int m, int n, int k);

/*
 * Rounds n floats at src to bf16 at dst, to nearest even (a NaN stays a
 * quiet NaN): the inputs of a bf16 GEMM. In cpu_kernels.c, vectorized.
 */
void rt_cpu_round_bf16(uint16_t *dst, const float *src, size_t n);

#endif
