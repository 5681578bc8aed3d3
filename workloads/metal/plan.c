/*
 * plan.c: the launches of each fp32 elementwise call (plan.h): 1-D kernels
 * stride over n with at most MTL_MAX_GROUPS threadgroups, row kernels take
 * one threadgroup per row, column sums one per MTL_COL_TILE columns; and of
 * a bf16 GEMM, one threadgroup per MTL_GEMM_TILE-square tile of C.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../kernels.h"
#include "plan.h"

const mtl_kernel_info mtl_kernels[MK_COUNT] = {
    [MK_FILL] = {"k_fill", 1, 0, 0},
    [MK_AXPBY] = {"k_axpby", 2, 0, 0},
    [MK_ADD_BIAS] = {"k_add_bias", 2, 0, 0},
    [MK_SUM_ROWS] = {"k_sum_rows", 2, sizeof(float), 0},
    [MK_GELU] = {"k_gelu", 2, 0, 0},
    [MK_GELU_BACKWARD] = {"k_gelu_backward", 3, 0, 0},
    [MK_TANH] = {"k_tanh", 2, 0, 0},
    [MK_TANH_BACKWARD] = {"k_tanh_backward", 3, 0, 0},
    [MK_SOFTMAX] = {"k_softmax", 2, sizeof(float), 0},
    [MK_SOFTMAX_BACKWARD] = {"k_softmax_backward", 3, sizeof(float), 0},
    [MK_LAYERNORM] = {"k_layernorm", 6, sizeof(float), 0},
    [MK_LAYERNORM_DX] = {"k_layernorm_dx", 6, 2 * sizeof(float), 0},
    [MK_LAYERNORM_DPARAMS] = {"k_layernorm_dparams", 6, 2 * sizeof(float), 0},
    [MK_MSE_PARTIAL] = {"k_mse_partial", 4, sizeof(float), 0},
    [MK_MSE_LOSS] = {"k_mse_loss", 2, sizeof(float), 0},
    [MK_ADAM] = {"k_adam", 4, 0, 0},
    [MK_GEMM_BF16] = {"k_gemm_bf16", 3, 2 * sizeof(uint16_t), 310},
};

mtl_u64 mtl_groups(size_t n)
{
	mtl_u64 g = ((mtl_u64)n + MTL_GROUP - 1) / MTL_GROUP;
	return g < MTL_MAX_GROUPS ? g : MTL_MAX_GROUPS;
}

/* Appends a launch of kernel k on groups threadgroups, its arguments zero. */
static mtl_launch *add(mtl_plan *p, mtl_kernel k, mtl_u64 groups)
{
	mtl_launch *l = &p->l[p->n++];
	memset(l, 0, sizeof *l);
	l->k = k;
	l->groups = groups;
	return l;
}

/* Sets l's buffers, as many as its kernel takes (plan.h's table), from b. */
static void set_bufs(mtl_launch *l, const void *const *b)
{
	memcpy(l->buf, b, (size_t)mtl_kernels[l->k].nbuf * sizeof *b);
}

/* A 1-D launch over n elements with buffers b; none (NULL) for n == 0. */
static mtl_launch *add_1d(mtl_plan *p, mtl_kernel k, size_t n, const void *const *b)
{
	if (n == 0)
		return NULL;
	mtl_launch *l = add(p, k, mtl_groups(n));
	l->args.n = n;
	set_bufs(l, b);
	return l;
}

/* A launch over a rows x cols tensor (sizes >= 0) on groups threadgroups with buffers b. */
static mtl_launch *launch_2d(mtl_plan *p, mtl_kernel k, int rows, int cols, mtl_u64 groups,
                             const void *const *b)
{
	mtl_launch *l = add(p, k, groups);
	l->args.n = (mtl_u64)rows * (mtl_u64)cols;
	l->args.rows = (mtl_u32)rows;
	l->args.cols = (mtl_u32)cols;
	set_bufs(l, b);
	return l;
}

/*
 * launch_2d where the shape has something to do; else NULL, with *rc
 * RT_EINVAL for a negative size and 0 for an empty shape.
 */
static mtl_launch *add_2d(mtl_plan *p, mtl_kernel k, int rows, int cols, mtl_u64 groups,
                          const void *const *b, int *rc)
{
	*rc = rows < 0 || cols < 0 ? RT_EINVAL : 0;
	if (*rc || rows == 0 || cols == 0)
		return NULL;
	return launch_2d(p, k, rows, cols, groups, b);
}

static mtl_u64 col_groups(int cols)
{
	return ((mtl_u64)cols + MTL_COL_TILE - 1) / MTL_COL_TILE;
}

static mtl_u64 tiles(int size)
{
	return ((mtl_u64)size + MTL_GEMM_TILE - 1) / MTL_GEMM_TILE;
}

/* Every plan starts empty. */
static mtl_plan *start(mtl_plan *p)
{
	p->n = 0;
	return p;
}

/* Buffers, in the order of the kernel's parameters. */
#define BUFS(...) ((const void *const[]){__VA_ARGS__})

int mtl_plan_fill(mtl_plan *p, void *x, size_t n, double value)
{
	mtl_launch *l = add_1d(start(p), MK_FILL, n, BUFS(x));
	if (l)
		l->args.s[0] = (float)value;
	return 0;
}

int mtl_plan_axpby(mtl_plan *p, size_t n, double a, const void *x, double b, void *y)
{
	mtl_launch *l = add_1d(start(p), MK_AXPBY, n, BUFS(x, y));
	if (l) {
		l->args.s[0] = (float)a;
		l->args.s[1] = (float)b;
	}
	return 0;
}

int mtl_plan_add_bias(mtl_plan *p, int rows, int cols, const void *bias, void *y)
{
	int rc;
	add_2d(start(p), MK_ADD_BIAS, rows, cols, mtl_groups((size_t)rows * (size_t)cols),
	       BUFS(bias, y), &rc);
	return rc;
}

/* With rows == 0, db is all zeros (an empty sum), as on the CPU: a launch all the same. */
int mtl_plan_sum_rows(mtl_plan *p, int rows, int cols, const void *dy, void *db)
{
	start(p);
	if (rows < 0 || cols < 0)
		return RT_EINVAL;
	if (cols > 0)
		launch_2d(p, MK_SUM_ROWS, rows, cols, col_groups(cols), BUFS(dy, db));
	return 0;
}

/* gelu's constants from kernels.h, rounded to float like every scalar. */
static void gelu_constants(mtl_launch *l)
{
	if (l) {
		l->args.s[0] = (float)RT_GELU_K0;
		l->args.s[1] = (float)RT_GELU_K1;
	}
}

int mtl_plan_gelu(mtl_plan *p, size_t n, const void *x, void *y)
{
	gelu_constants(add_1d(start(p), MK_GELU, n, BUFS(x, y)));
	return 0;
}

int mtl_plan_gelu_backward(mtl_plan *p, size_t n, const void *x, const void *dy, void *dx)
{
	gelu_constants(add_1d(start(p), MK_GELU_BACKWARD, n, BUFS(x, dy, dx)));
	return 0;
}

int mtl_plan_tanh_fwd(mtl_plan *p, size_t n, const void *x, void *y)
{
	add_1d(start(p), MK_TANH, n, BUFS(x, y));
	return 0;
}

int mtl_plan_tanh_backward(mtl_plan *p, size_t n, const void *y, const void *dy, void *dx)
{
	add_1d(start(p), MK_TANH_BACKWARD, n, BUFS(y, dy, dx));
	return 0;
}

int mtl_plan_softmax(mtl_plan *p, int rows, int cols, double scale, int causal_block, const void *x,
                     void *y)
{
	int rc;
	start(p);
	if (causal_block < 0)
		return RT_EINVAL;
	mtl_launch *l = add_2d(p, MK_SOFTMAX, rows, cols, (mtl_u64)rows, BUFS(x, y), &rc);
	if (l) {
		l->args.block = (mtl_u32)causal_block;
		l->args.s[0] = (float)scale;
	}
	return rc;
}

int mtl_plan_softmax_backward(mtl_plan *p, int rows, int cols, double scale, const void *y,
                              const void *dy, void *dx)
{
	int rc;
	mtl_launch *l =
	    add_2d(start(p), MK_SOFTMAX_BACKWARD, rows, cols, (mtl_u64)rows, BUFS(y, dy, dx), &rc);
	if (l)
		l->args.s[0] = (float)scale;
	return rc;
}

int mtl_plan_layernorm(mtl_plan *p, int rows, int cols, const void *x, const void *g, const void *b,
                       void *y, void *mean, void *rstd)
{
	int rc;
	mtl_launch *l = add_2d(start(p), MK_LAYERNORM, rows, cols, (mtl_u64)rows,
	                       BUFS(x, g, b, y, mean, rstd), &rc);
	if (l)
		l->args.s[0] = (float)RT_LAYERNORM_EPS;
	return rc;
}

/* dx by rows, then dgamma and dbeta by columns, so no two threads add into one value. */
int mtl_plan_layernorm_backward(mtl_plan *p, int rows, int cols, const void *x, const void *g,
                                const void *mean, const void *rstd, const void *dy, void *dx,
                                void *dg, void *db)
{
	int rc;
	if (add_2d(start(p), MK_LAYERNORM_DX, rows, cols, (mtl_u64)rows,
	           BUFS(x, g, mean, rstd, dy, dx), &rc))
		launch_2d(p, MK_LAYERNORM_DPARAMS, rows, cols, col_groups(cols),
		          BUFS(dy, x, mean, rstd, dg, db));
	return rc;
}

/*
 * A sum per threadgroup of a 1-D grid of at most MTL_GROUP threadgroups
 * (each thread adds n / 65536 terms and more: few next to one group's
 * n / 256), then one threadgroup adds them, a thread each.
 */
int mtl_plan_mse_loss(mtl_plan *p, size_t n, const void *pred, const void *target, void *loss,
                      void *dp, void *partial)
{
	start(p);
	if (n == 0)
		return RT_EINVAL;
	mtl_u64 groups = mtl_groups(n);
	mtl_launch *l = add(p, MK_MSE_PARTIAL, groups < MTL_GROUP ? groups : MTL_GROUP);
	l->args.n = n;
	set_bufs(l, BUFS(pred, target, dp, partial));
	l->args.s[0] = (float)(2.0 / (double)n);
	mtl_launch *f = add(p, MK_MSE_LOSS, 1);
	f->args.n = l->groups;
	f->args.s[1] = (float)n;
	set_bufs(f, BUFS(partial, loss));
	return 0;
}

/* The bias corrections in double, then rounded, as kernels.h says. */
int mtl_plan_adam(mtl_plan *p, size_t n, void *w, const void *g, void *m, void *v, double lr,
                  double b1, double b2, double eps, int step)
{
	start(p);
	if (step < 1)
		return RT_EINVAL;
	mtl_launch *l = add_1d(p, MK_ADAM, n, BUFS(w, g, m, v));
	if (l) {
		const float s[MTL_NSCALARS] = {(float)lr,
		                               (float)b1,
		                               (float)b2,
		                               (float)eps,
		                               (float)(1.0 - pow(b1, step)),
		                               (float)(1.0 - pow(b2, step))};
		memcpy(l->args.s, s, sizeof s);
	}
	return 0;
}

void mtl_plan_gemm_bf16(mtl_plan *p, int transa, int transb, int m, int n, int k, double alpha,
                        const void *a, int lda, const void *b, int ldb, double beta, void *c,
                        int ldc)
{
	if (m == 0 || n == 0) {
		start(p);
		return;
	}
	mtl_launch *l = launch_2d(start(p), MK_GEMM_BF16, m, n, tiles(m) * tiles(n), BUFS(a, b, c));
	l->args.depth = (mtl_u32)k;
	l->args.lda = (mtl_u32)lda;
	l->args.ldb = (mtl_u32)ldb;
	l->args.ldc = (mtl_u32)ldc;
	l->args.trans = (transa ? 1u : 0u) | (transb ? 2u : 0u);
	l->args.s[0] = (float)alpha;
	l->args.s[1] = (float)beta;
}
