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

/* The kernel thread pool of an open CPU context (for cpu_kernels.c). */
rt_pool *rt_cpu_ctx_pool(rt_ctx *ctx);

#endif
