/*
 * host_common.h: host-side code only the CUDA and HIP plugins share: how
 * gemm_impl words the GEMM's implementation. What every side of the ABI
 * uses (the error writer, the GEMM arguments and their checks, symbol
 * look-ups) is workloads/host_abi.h. Plain C that C++ compiles too, no
 * device runtime, so that host tests include it.
 */
#ifndef RT_GPU_HOST_COMMON_H
#define RT_GPU_HOST_COMMON_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../host_abi.h"

/*
 * gemm_impl's words for what a GEMM runs on: `lib`, the vendor library's
 * own description ("rocblas 4.4.0"), when it is used; else the own tiled
 * kernel and why not the library (`why`: "rocBLAS not found (...)", a handle
 * that could not be made), since a GPU measured on it looks slower than it
 * is. forced: RIGTUNE_GEMM=own asked for the own kernel.
 */
static inline void gemm_impl_text(int forced, int usable, const char *lib, const char *why,
				  char *buf, size_t len)
{
	if (forced)
		snprintf(buf, len, "own-tiled (RIGTUNE_GEMM=own)");
	else if (usable)
		snprintf(buf, len, "%s", lib);
	else
		snprintf(buf, len, "own-tiled, %.120s: the crossover understates this GPU", why);
}

/* gemm_impl's words once the library `lib` declined precision p, saying `why`. */
static inline void gemm_impl_declined(const char *lib, rt_precision p, const char *why, char *buf,
				      size_t len)
{
	snprintf(buf, len, "own-tiled, %.40s declined %s: %.100s", lib, rt_abi_precision_name(p),
	         why);
}

#endif
