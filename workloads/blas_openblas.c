/* blas.h on OpenBLAS, which says how it threads and takes a thread count per call. */
#ifndef RT_BLAS_ACCELERATE
#include "blas.h"

const char *rt_blas_name(void)
{
	return "OpenBLAS";
}

int rt_blas_threads_settable(void)
{
	return 1;
}

void rt_blas_set_threads(int n)
{
	openblas_set_num_threads(n);
}

int rt_blas_openblas(const char **config, const char **core, int *parallel)
{
	*config = openblas_get_config();
	*core = openblas_get_corename();
	*parallel = openblas_get_parallel();
	return 0;
}
#endif
