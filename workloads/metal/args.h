/*
 * args.h: what the host hands the Metal kernels, written once for both
 * sides. The plugin compiles it as C; at run time it is put in front of
 * kernels.metal (both embedded in the plugin) and compiled as Metal Shading
 * Language, so one struct layout serves the two. Kept to the subset both
 * languages read: fixed-width scalars, a float array, macros.
 */
#ifndef RT_METAL_ARGS_H
#define RT_METAL_ARGS_H

/* Threads of a threadgroup in every kernel (a power of two: the reductions halve it). */
#define MTL_GROUP 256
/* Column sums: a threadgroup is MTL_COL_TILE columns x MTL_COL_SPLIT threads down the rows. */
#define MTL_COL_TILE 32
#define MTL_COL_SPLIT 8
/* The bf16 GEMM: a threadgroup computes a square tile of C, one thread an element. */
#define MTL_GEMM_TILE 16
/* Scalars of one call, in the order of the ABI call (adam: lr, b1, b2, eps, c1, c2). */
#define MTL_NSCALARS 6

#ifdef __METAL_VERSION__
typedef ulong mtl_u64;
typedef uint mtl_u32;
#define MTL_ASSERT static_assert
#else
#include <stdint.h>
typedef uint64_t mtl_u64;
typedef uint32_t mtl_u32;
#define MTL_ASSERT _Static_assert
#endif

/*
 * The kernel's arguments at buffer index 0 (setBytes): n elements (1-D
 * kernels), or rows x cols with softmax's causal block; the scalars rounded
 * to float once, as kernels.h says; a GEMM's inner size, leading dimensions
 * and transposes (bit 0: A's, bit 1: B's), its C being rows x cols.
 * 8 + 3 * 4 + 6 * 4 + 5 * 4 = 64 bytes, no padding on either side.
 */
typedef struct mtl_args {
	mtl_u64 n;
	mtl_u32 rows, cols, block;
	float s[MTL_NSCALARS];
	mtl_u32 depth, lda, ldb, ldc, trans;
} mtl_args;

#define MTL_ARGS_SIZE 64
MTL_ASSERT(sizeof(mtl_args) == MTL_ARGS_SIZE, "mtl_args: one layout on the host and the GPU");
MTL_ASSERT(MTL_GROUP == MTL_COL_TILE * MTL_COL_SPLIT, "a column tile is one threadgroup");
MTL_ASSERT(MTL_GROUP == MTL_GEMM_TILE * MTL_GEMM_TILE, "a GEMM tile is one threadgroup");

#endif
