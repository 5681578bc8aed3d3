/*
 * gemm_batch2.cuh: the arrays of device pointers that a batched BLAS call
 * (cublasGemmBatchedEx, rocblas_gemm_batched_ex) takes for a two-level
 * batch of GEMMs (gemm_batched2: attention's heads x sequences, which no
 * single stride reaches). One small kernel writes them on the GEMM's own
 * stream, right before it: no copy from the host, no wait, and a buffer of
 * the context reused by every call (the stream orders its users).
 *
 * Included by context.cuh after kernels.cuh (grid_for, GRID_LOOP,
 * gpu_launch), and by tests/cuda_emu.cpp, which runs the kernel on the CPU.
 */
#ifndef RT_GPU_GEMM_BATCH2_CUH
#define RT_GPU_GEMM_BATCH2_CUH

#include "blas_map.h"

/*
 * out[q * total + z], q = 0, 1, 2 for the BLAS's A, B and C: where matrix z
 * of the column-major call c starts (colmajor_matrix), z < total.
 */
__global__ void k_batch_ptrs(colmajor_gemm c, int es_ab, int es_c, int total, void **out)
{
	GRID_LOOP(z, (size_t)total)
	{
		for (int q = 0; q < 3; q++)
			out[(size_t)q * total + z] = colmajor_matrix(&c, q, (int)z, es_ab, es_c);
	}
}

/*
 * Enqueues the pointers of c (outer * count matrices, fewer than 2^31:
 * the BLAS's batch count is an int) into out, 3 * outer * count of them.
 */
static int batch_ptrs_launch(rt_ctx *ctx, const colmajor_gemm *c, int es_ab, int es_c,
			     void **out)
{
	const int total = c->outer * c->count;
	gpu_launch(ctx, grid_for(ctx, (size_t)total), GPU_THREADS, k_batch_ptrs, *c, es_ab, es_c,
		   total, out);
	return gpu_launched(ctx, "gemm pointers");
}

#endif
