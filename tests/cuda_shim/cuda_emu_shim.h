/*
 * cuda_emu_shim.h: CUDA's names as tests/cuda_emu.cpp gives them to
 * workloads/gpu/kernels.cuh compiled as plain C++: qualifiers erased,
 * __shared__ a function's static (the blocks of a launch run one after
 * another), the thread's coordinates thread-local, __syncthreads a barrier
 * of the block, __shfl_xor_sync an exchange among the warp's threads.
 */
#ifndef RT_TESTS_CUDA_EMU_SHIM_H
#define RT_TESTS_CUDA_EMU_SHIM_H

#include <string.h>

#define GPU_EMULATED 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

extern thread_local dim3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
extern int warpSize;

void __syncthreads();
/* This thread's value into its warp's exchange; waits for the warp; reads lane's; waits again. */
void emu_exchange(const void *mine, void *theirs, size_t bytes, unsigned lane);

template <class A> A __shfl_xor_sync(unsigned mask, A v, int o)
{
	(void)mask;
	A r;
	const unsigned me = threadIdx.x + blockDim.x * threadIdx.y;
	emu_exchange(&v, &r, sizeof v, me ^ (unsigned)o);
	return r;
}

#endif
