/*
 * blas.h on Apple's Accelerate (vecLib's cblas): its pool is sized by
 * VECLIB_MAXIMUM_THREADS, which it reads from the environment; there is no
 * per-call thread count and no description of its kernels.
 */
#ifdef RT_BLAS_ACCELERATE
#include "blas.h"

#include <stdio.h>
#include <stdlib.h>

const char *rt_blas_name(void)
{
	return "Accelerate";
}

int rt_blas_threads_settable(void)
{
	return 0;
}

void rt_blas_set_threads(int n)
{
	char v[16];
	snprintf(v, sizeof v, "%d", n);
	setenv("VECLIB_MAXIMUM_THREADS", v, 1);
}

int rt_blas_openblas(const char **config, const char **core, int *parallel)
{
	(void)config;
	(void)core;
	(void)parallel;
	return -1;
}
#endif
