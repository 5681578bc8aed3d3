/*
 * plan.h: the Metal plugin's host logic that needs no Metal: the table of
 * kernels (kernels.metal's names, one compute pipeline each) and, for each
 * elementwise call of the ABI in fp32, its plan: which kernels, their
 * mtl_args (sizes, scalars rounded to float once), their buffers in the
 * kernels' order and their grids. Plain C: metal.c dispatches a plan through
 * the Objective-C runtime, tests/test_metal_host.c checks plans on Linux.
 */
#ifndef RT_METAL_PLAN_H
#define RT_METAL_PLAN_H

#include <stddef.h>

#include "../backend.h"
#include "args.h"

typedef enum mtl_kernel {
	MK_FILL,
	MK_AXPBY,
	MK_ADD_BIAS,
	MK_SUM_ROWS,
	MK_GELU,
	MK_GELU_BACKWARD,
	MK_TANH,
	MK_TANH_BACKWARD,
	MK_SOFTMAX,
	MK_SOFTMAX_BACKWARD,
	MK_LAYERNORM,
	MK_LAYERNORM_DX,
	MK_LAYERNORM_DPARAMS,
	MK_MSE_PARTIAL,
	MK_MSE_LOSS,
	MK_ADAM,
	MK_GEMM_BF16,
	MK_COUNT
} mtl_kernel;

/*
 * A kernel of kernels.metal: its function name, how many buffers follow
 * mtl_args, the bytes of threadgroup memory each of its MTL_GROUP threads
 * takes at threadgroup index 0 (0: none; a float, a float2, two bfloats),
 * and the Metal Shading Language version it needs (as __METAL_VERSION__,
 * 310 for 3.1; 0: any), which an older OS compiles it out of: no pipeline,
 * and what it serves is not offered.
 */
typedef struct mtl_kernel_info {
	const char *name;
	int nbuf;
	int tg_bytes;
	int msl;
} mtl_kernel_info;

extern const mtl_kernel_info mtl_kernels[MK_COUNT];

#define MTL_MAX_BUFS 6
#define MTL_MAX_LAUNCHES 2
/* A 1-D kernel's grid is at most this many threadgroups; its loop strides over the rest. */
#define MTL_MAX_GROUPS 4096
/* mse_loss's first level: at most MTL_GROUP threadgroups, a sum each for a thread of the second. */
#define MTL_PARTIALS_SIZE (MTL_GROUP * sizeof(float))

/* One dispatch: groups threadgroups of MTL_GROUP threads (1-D). */
typedef struct mtl_launch {
	mtl_kernel k;
	mtl_args args;
	const void *buf[MTL_MAX_BUFS]; /* mtl_kernels[k].nbuf of them, buffer indices 1, 2, ... */
	mtl_u64 groups;
} mtl_launch;

/* What one call dispatches, in order: n launches (0: nothing to do). */
typedef struct mtl_plan {
	int n;
	mtl_launch l[MTL_MAX_LAUNCHES];
} mtl_plan;

/* Threadgroups of a 1-D grid-stride kernel over n > 0 items. */
mtl_u64 mtl_groups(size_t n);

/*
 * The plan of one bf16 GEMM of the ABI (fp32 data, the shape already
 * checked by the plugin, host_abi.h's rt_gemm_check): k_gemm_bf16 on a
 * threadgroup per tile of C; nothing for an empty C.
 */
void mtl_plan_gemm_bf16(mtl_plan *p, int transa, int transb, int m, int n, int k, double alpha,
                        const void *a, int lda, const void *b, int ldb, double beta, void *c,
                        int ldc);

/*
 * The plans of the fp32 calls, with the ABI's arguments less the context
 * and dtype: 0 (p->n launches), or RT_EINVAL for what the CPU reference
 * refuses too (negative sizes, a negative causal block, mse_loss of
 * nothing, adam's step < 1).
 */
int mtl_plan_fill(mtl_plan *p, void *x, size_t n, double value);
int mtl_plan_axpby(mtl_plan *p, size_t n, double a, const void *x, double b, void *y);
int mtl_plan_add_bias(mtl_plan *p, int rows, int cols, const void *bias, void *y);
int mtl_plan_sum_rows(mtl_plan *p, int rows, int cols, const void *dy, void *db);
int mtl_plan_gelu(mtl_plan *p, size_t n, const void *x, void *y);
int mtl_plan_gelu_backward(mtl_plan *p, size_t n, const void *x, const void *dy, void *dx);
int mtl_plan_tanh_fwd(mtl_plan *p, size_t n, const void *x, void *y);
int mtl_plan_tanh_backward(mtl_plan *p, size_t n, const void *y, const void *dy, void *dx);
int mtl_plan_softmax(mtl_plan *p, int rows, int cols, double scale, int causal_block, const void *x,
                     void *y);
int mtl_plan_softmax_backward(mtl_plan *p, int rows, int cols, double scale, const void *y,
                              const void *dy, void *dx);
int mtl_plan_layernorm(mtl_plan *p, int rows, int cols, const void *x, const void *g, const void *b,
                       void *y, void *mean, void *rstd);
int mtl_plan_layernorm_backward(mtl_plan *p, int rows, int cols, const void *x, const void *g,
                                const void *mean, const void *rstd, const void *dy, void *dx,
                                void *dg, void *db);
/* partial: MTL_PARTIALS_SIZE bytes of the plugin's, for the first level's sums. */
int mtl_plan_mse_loss(mtl_plan *p, size_t n, const void *pred, const void *target, void *loss,
                      void *dp, void *partial);
int mtl_plan_adam(mtl_plan *p, size_t n, void *w, const void *g, void *m, void *v, double lr,
                  double b1, double b2, double eps, int step);

#endif
