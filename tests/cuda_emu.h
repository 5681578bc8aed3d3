/*
 * cuda_emu.h: the GPU plugins' kernels (workloads/gpu/kernels.cuh and
 * kernels_plain.cuh) run on the CPU (tests/cuda_emu.cpp), for
 * tests/test_gpu_emu.c: a launch runs its blocks one after another, each as
 * blockDim threads with the block's barrier and a barrier per warp.
 */
#ifndef RT_TESTS_CUDA_EMU_H
#define RT_TESTS_CUDA_EMU_H

#include <stdint.h>

#include "../workloads/backend.h"
#include "../workloads/gpu/blas_map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An emulated device of sms multiprocessors with warps of `warp` (32 or 64) threads. */
rt_ctx *cuda_emu_open(int sms, int warp);
void cuda_emu_close(rt_ctx *ctx);
/*
 * A table whose kernels (fill ... adam, bias_gelu) are the fast ones of
 * kernels.cuh, or with plain set the plain ones of kernels_plain.cuh (whose
 * bias_gelu is NULL: add_bias, then gelu); its other entries are NULL. Buffers are host memory. A launch the hardware would refuse
 * (an empty grid, a block over 1024 threads or not whole warps, grid.y over
 * 65535) fails with RT_ERUNTIME.
 */
const rt_backend_ops *cuda_emu_ops(int plain);
/*
 * The plugins' rounding of bf16 GEMM inputs: count matrices of rows x cols
 * floats at x (row stride ld, matrix i at i * stride) into y as bfloat16
 * bits at the same offsets, nothing else of y written.
 */
int cuda_emu_round16(rt_ctx *ctx, int count, int rows, int cols, int ld, long stride,
		     const float *x, uint16_t *y);
/*
 * The plugins' pointer arrays of a two-level batch (gemm_batch2.cuh): into
 * out, the addresses of c's A's, B's and C's, outer * count each, as
 * host pointers.
 */
int cuda_emu_batch_ptrs(rt_ctx *ctx, const colmajor_gemm *c, int es_ab, int es_c, void **out);
/*
 * The plugins' own tiled GEMM (gemm_tiled.cuh) on host memory: g's A and B
 * as its precision takes them (bf16/fp16: their bits), C in fp32 or fp64.
 * Batches go GEMM_MAX_Z = 4 matrices per launch here.
 */
int cuda_emu_tiled_gemm(rt_ctx *ctx, const rt_gemm_args *g);
/* Launches run since the context was opened (each kernel of a call counts). */
long cuda_emu_launches(const rt_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
