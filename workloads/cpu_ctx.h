/*
 * cpu_ctx.h: what the elementwise kernels (cpu_kernels.c) read of an open
 * context of the CPU backend (cpu_backend.c): its pool. A header of its own,
 * so that the kernels do not call back into the backend that calls them.
 */
#ifndef RT_CPU_CTX_H
#define RT_CPU_CTX_H

#include "backend.h"
#include "pool.h"

/*
 * The kernel thread pool of an open CPU context. cpu_backend.c's struct
 * rt_ctx begins with it (a static assertion there says so), and a pointer to
 * a structure points to its first member (C11 6.7.2.1): the kernels read the
 * pool and nothing else of the context.
 */
static inline rt_pool *rt_cpu_ctx_pool(rt_ctx *ctx)
{
	return *(rt_pool **)(void *)ctx;
}

#endif
