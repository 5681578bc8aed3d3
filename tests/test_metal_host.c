/*
 * The Metal plugin's host logic, without a Mac: the table of kernels
 * against kernels.metal itself (each name defined once, taking mtl_args and
 * as many buffers as its plans give, in order, and the threadgroup memory
 * the host sets; no kernel without a pipeline), the layout of mtl_args, the grid of a 1-D kernel
 * for a given n, and the plan of every elementwise call (its kernels, sizes, scalars rounded to
 * float, buffers in the kernels' order, grids, and the calls the CPU reference refuses); then every
 * plan run through kernels.metal itself, compiled as C++ and emulated on the CPU (metal_emu.cpp),
 * against the CPU reference. What Metal makes of the kernels is a Mac's to show:
 * scripts/mac-check.sh (tests/gpu_check.c against the CPU backend).
 * Run from the top of the tree (tests/run.sh does): it reads
 * workloads/metal/kernels.metal.
 * beside: others (the Metal plugin's host code against its emulator)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/rng.h"
#include "../workloads/cpu_backend.h"
#include "../workloads/kernels.h"
#include "../workloads/metal/plan.h"
#include "metal_emu.h"

#define KERNELS_METAL "workloads/metal/kernels.metal"

/* Distinct addresses standing for device buffers (plans only store them). */
static float B[8][4];

/* The parameter list of `kernel void NAME(` in src: from the name to the body's brace. */
static const char *params_of(const char *src, const char *name, size_t *len, int *defs)
{
	char head[96];
	snprintf(head, sizeof head, "kernel void %s(", name);
	const char *at = strstr(src, head), *p = at;
	*defs = 0;
	for (; p; p = strstr(p + 1, head))
		(*defs)++;
	if (!at)
		return NULL;
	const char *brace = strchr(at, '{');
	*len = brace ? (size_t)(brace - at) : strlen(at);
	return at;
}

static int count_in(const char *s, size_t len, const char *what)
{
	int k = 0;
	for (const char *p = s; (p = strstr(p, what)) && p < s + len; p++)
		k++;
	return k;
}

/* Whether the definition at def is inside `#if __METAL_VERSION__ >= msl` ... `#endif` of src. */
static int guarded_by(const char *src, const char *def, int msl)
{
	char head[48];
	snprintf(head, sizeof head, "#if __METAL_VERSION__ >= %d\n", msl);
	const char *open = NULL;
	for (const char *p = src; (p = strstr(p, head)) && p < def; p++)
		open = p;
	const char *end = open ? strstr(open, "#endif") : NULL;
	return end && end > def;
}

static void test_kernel_table(void **state)
{
	(void)state;
	char *src = NULL, err[256] = "";
	size_t n = 0;
	assert_int_equal(rt_read_file(KERNELS_METAL, &src, &n, err, sizeof err), 0);
	for (int k = 0; k < MK_COUNT; k++) {
		const mtl_kernel_info *ki = &mtl_kernels[k];
		assert_non_null(ki->name);
		assert_in_range(ki->nbuf, 1, MTL_MAX_BUFS);
		for (int j = 0; j < k; j++)
			assert_string_not_equal(ki->name, mtl_kernels[j].name);
		size_t len = 0;
		int defs = 0;
		const char *params = params_of(src, ki->name, &len, &defs);
		if (defs != 1)
			fail_msg("%s is defined %d times in " KERNELS_METAL, ki->name, defs);
		/* mtl_args at buffer 0, then buffers 1..nbuf, each once */
		assert_non_null(strstr(params, "constant mtl_args &a [[buffer(0)]]"));
		assert_int_equal(count_in(params, len, "[[buffer("), ki->nbuf + 1);
		for (int b = 1; b <= ki->nbuf; b++) {
			char attr[32];
			snprintf(attr, sizeof attr, "[[buffer(%d)]]", b);
			assert_int_equal(count_in(params, len, attr), 1);
		}
		/* its threadgroup memory, of the type whose size the host sets (x 16 bytes) */
		const char *tg = ki->tg_bytes == 8   ? "threadgroup float2 *sh TG_MEMORY"
		                 : ki->msl >= 310    ? "threadgroup bfloat *sh TG_MEMORY"
		                 : ki->tg_bytes == 4 ? "threadgroup float *sh TG_MEMORY"
		                                     : "TG_MEMORY";
		assert_int_equal(count_in(params, len, tg), ki->tg_bytes ? 1 : 0);
		assert_int_equal(count_in(params, len, "TG_MEMORY"), ki->tg_bytes ? 1 : 0);
		assert_int_equal(ki->tg_bytes * MTL_GROUP % 16, 0);
		if (ki->msl)
			assert_true(guarded_by(src, params, ki->msl));
	}
	/* every kernel has a pipeline: no definition outside the table */
	assert_int_equal(count_in(src, n, "kernel void "), MK_COUNT);
	free(src);
}

static void test_args_layout(void **state)
{
	(void)state;
	/* the order kernels.metal reads them in (args.h is compiled on both sides) */
	assert_int_equal(sizeof(mtl_args), MTL_ARGS_SIZE);
	assert_int_equal(offsetof(mtl_args, n), 0);
	assert_int_equal(offsetof(mtl_args, rows), 8);
	assert_int_equal(offsetof(mtl_args, cols), 12);
	assert_int_equal(offsetof(mtl_args, block), 16);
	assert_int_equal(offsetof(mtl_args, s), 20);
	assert_int_equal(offsetof(mtl_args, depth), 44);
	assert_int_equal(offsetof(mtl_args, lda), 48);
	assert_int_equal(offsetof(mtl_args, ldb), 52);
	assert_int_equal(offsetof(mtl_args, ldc), 56);
	assert_int_equal(offsetof(mtl_args, trans), 60);
	assert_int_equal(MTL_GEMM_TILE * MTL_GEMM_TILE, MTL_GROUP);
	assert_int_equal(MTL_COL_TILE * MTL_COL_SPLIT, MTL_GROUP);
}

static void test_groups(void **state)
{
	(void)state;
	assert_int_equal(mtl_groups(1), 1);
	assert_int_equal(mtl_groups(MTL_GROUP), 1);
	assert_int_equal(mtl_groups(MTL_GROUP + 1), 2);
	assert_int_equal(mtl_groups(1000), 4);
	assert_int_equal(mtl_groups((size_t)MTL_GROUP * MTL_MAX_GROUPS), MTL_MAX_GROUPS);
	/* past the cap the kernels' loops stride: the grid stops growing */
	assert_int_equal(mtl_groups((size_t)MTL_GROUP * MTL_MAX_GROUPS + 1), MTL_MAX_GROUPS);
	assert_int_equal(mtl_groups((size_t)1 << 40), MTL_MAX_GROUPS);
}

/* The one launch of p is kernel k on groups threadgroups, with exactly its table's buffers. */
static const mtl_launch *only(const mtl_plan *p, mtl_kernel k, uint64_t groups)
{
	assert_int_equal(p->n, 1);
	assert_int_equal(p->l[0].k, k);
	assert_int_equal(p->l[0].groups, groups);
	return &p->l[0];
}

/* The launch's buffers are want[0..nbuf), none past them. */
static void bufs_are(const mtl_launch *l, const void *const *want)
{
	int nbuf = mtl_kernels[l->k].nbuf;
	for (int i = 0; i < nbuf; i++)
		assert_ptr_equal(l->buf[i], want[i]);
	for (int i = nbuf; i < MTL_MAX_BUFS; i++)
		assert_null(l->buf[i]);
}

static void test_plans_1d(void **state)
{
	(void)state;
	mtl_plan p;
	const mtl_launch *l;

	assert_int_equal(mtl_plan_fill(&p, B[0], 1000, 0.1), 0);
	l = only(&p, MK_FILL, 4);
	assert_int_equal(l->args.n, 1000);
	assert_true(l->args.s[0] == (float)0.1);
	bufs_are(l, (const void *[]){B[0]});

	assert_int_equal(mtl_plan_axpby(&p, 5, 1.3, B[0], -0.6, B[1]), 0);
	l = only(&p, MK_AXPBY, 1);
	assert_true(l->args.s[0] == 1.3f && l->args.s[1] == -0.6f);
	bufs_are(l, (const void *[]){B[0], B[1]});

	assert_int_equal(mtl_plan_gelu_backward(&p, 2000000, B[0], B[1], B[2]), 0);
	l = only(&p, MK_GELU_BACKWARD, MTL_MAX_GROUPS);
	assert_int_equal(l->args.n, 2000000);
	assert_true(l->args.s[0] == (float)RT_GELU_K0 && l->args.s[1] == (float)RT_GELU_K1);
	bufs_are(l, (const void *[]){B[0], B[1], B[2]});

	assert_int_equal(mtl_plan_gelu(&p, 300, B[2], B[3]), 0);
	l = only(&p, MK_GELU, 2);
	assert_true(l->args.s[0] == (float)RT_GELU_K0 && l->args.s[1] == (float)RT_GELU_K1);
	bufs_are(l, (const void *[]){B[2], B[3]});

	assert_int_equal(mtl_plan_tanh_fwd(&p, 7, B[1], B[0]), 0);
	bufs_are(only(&p, MK_TANH, 1), (const void *[]){B[1], B[0]});
	assert_int_equal(mtl_plan_tanh_backward(&p, 7, B[0], B[1], B[2]), 0);
	bufs_are(only(&p, MK_TANH_BACKWARD, 1), (const void *[]){B[0], B[1], B[2]});

	/* adam: the bias corrections of step 3 computed in double, then rounded */
	assert_int_equal(mtl_plan_adam(&p, 513, B[0], B[1], B[2], B[3], 1e-3, 0.9, 0.999, 1e-8, 3),
	                 0);
	l = only(&p, MK_ADAM, 3);
	const float want[MTL_NSCALARS] = {
	    1e-3f, 0.9f, 0.999f, 1e-8f, (float)(1.0 - pow(0.9, 3)), (float)(1.0 - pow(0.999, 3))};
	for (int i = 0; i < MTL_NSCALARS; i++)
		assert_true(l->args.s[i] == want[i]);
	bufs_are(l, (const void *[]){B[0], B[1], B[2], B[3]});
	assert_int_equal(mtl_plan_adam(&p, 513, B[0], B[1], B[2], B[3], 1e-3, 0.9, 0.999, 1e-8, 0),
	                 RT_EINVAL);
	assert_int_equal(p.n, 0);

	/* nothing to do: no launch, success */
	assert_int_equal(mtl_plan_fill(&p, B[0], 0, 1.0), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(mtl_plan_adam(&p, 0, B[0], B[1], B[2], B[3], 1e-3, 0.9, 0.999, 1e-8, 1),
	                 0);
	assert_int_equal(p.n, 0);
}

static void test_plans_rows(void **state)
{
	(void)state;
	mtl_plan p;
	const mtl_launch *l;

	/* 66 x 33 with a causal block of 33: one threadgroup per row */
	assert_int_equal(mtl_plan_softmax(&p, 66, 33, 0.7, 33, B[0], B[1]), 0);
	l = only(&p, MK_SOFTMAX, 66);
	assert_int_equal(l->args.rows, 66);
	assert_int_equal(l->args.cols, 33);
	assert_int_equal(l->args.block, 33);
	assert_true(l->args.s[0] == 0.7f);
	bufs_are(l, (const void *[]){B[0], B[1]});
	assert_int_equal(mtl_plan_softmax(&p, 66, 33, 0.7, -1, B[0], B[1]), RT_EINVAL);
	assert_int_equal(mtl_plan_softmax(&p, -1, 33, 0.7, 0, B[0], B[1]), RT_EINVAL);
	assert_int_equal(mtl_plan_softmax(&p, 0, 33, 0.7, 0, B[0], B[1]), 0);
	assert_int_equal(p.n, 0);

	assert_int_equal(mtl_plan_softmax_backward(&p, 300, 257, 0.5, B[0], B[1], B[2]), 0);
	l = only(&p, MK_SOFTMAX_BACKWARD, 300);
	assert_true(l->args.s[0] == 0.5f);
	bufs_are(l, (const void *[]){B[0], B[1], B[2]});

	assert_int_equal(mtl_plan_layernorm(&p, 7, 1000, B[0], B[1], B[2], B[3], B[4], B[5]), 0);
	l = only(&p, MK_LAYERNORM, 7);
	assert_int_equal(l->args.cols, 1000);
	assert_true(l->args.s[0] == (float)RT_LAYERNORM_EPS);
	bufs_are(l, (const void *[]){B[0], B[1], B[2], B[3], B[4], B[5]});
	assert_int_equal(mtl_plan_layernorm(&p, 7, 0, B[0], B[1], B[2], B[3], B[4], B[5]), 0);
	assert_int_equal(p.n, 0);

	/* dx by rows, then dgamma and dbeta by tiles of 32 columns: 257 columns are 9 tiles */
	assert_int_equal(mtl_plan_layernorm_backward(&p, 300, 257, B[0], B[1], B[2], B[3], B[4],
	                                             B[5], B[6], B[7]),
	                 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.l[0].k, MK_LAYERNORM_DX);
	assert_int_equal(p.l[0].groups, 300);
	bufs_are(&p.l[0], (const void *[]){B[0], B[1], B[2], B[3], B[4], B[5]});
	assert_int_equal(p.l[1].k, MK_LAYERNORM_DPARAMS);
	assert_int_equal(p.l[1].groups, 9);
	assert_int_equal(p.l[1].args.rows, 300);
	assert_int_equal(p.l[1].args.cols, 257);
	bufs_are(&p.l[1], (const void *[]){B[4], B[0], B[2], B[3], B[6], B[7]});
}

static void test_plans_columns_and_loss(void **state)
{
	(void)state;
	mtl_plan p;
	const mtl_launch *l;

	assert_int_equal(mtl_plan_sum_rows(&p, 300, 64, B[0], B[1]), 0);
	l = only(&p, MK_SUM_ROWS, 2);
	assert_int_equal(l->args.rows, 300);
	assert_int_equal(l->args.cols, 64);
	bufs_are(l, (const void *[]){B[0], B[1]});
	/* no rows: db is zeroed (an empty sum); no columns: nothing */
	assert_int_equal(mtl_plan_sum_rows(&p, 0, 65, B[0], B[1]), 0);
	only(&p, MK_SUM_ROWS, 3);
	assert_int_equal(mtl_plan_sum_rows(&p, 5, 0, B[0], B[1]), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(mtl_plan_sum_rows(&p, 5, -2, B[0], B[1]), RT_EINVAL);

	/* add_bias runs over every element, the bias by column */
	assert_int_equal(mtl_plan_add_bias(&p, 300, 257, B[0], B[1]), 0);
	l = only(&p, MK_ADD_BIAS, mtl_groups(300 * 257));
	assert_int_equal(l->args.n, 300 * 257);
	assert_int_equal(l->args.cols, 257);
	bufs_are(l, (const void *[]){B[0], B[1]});
	assert_int_equal(mtl_plan_add_bias(&p, -1, 4, B[0], B[1]), RT_EINVAL);

	/*
	 * the loss: a sum per threadgroup of a 1-D grid (at most MTL_GROUP threadgroups) into the
	 * partials, k = 2 / n in double then rounded; then one threadgroup adds the grid's
	 * partials, over n as float
	 */
	assert_int_equal(mtl_plan_mse_loss(&p, 77100, B[0], B[1], B[2], B[3], B[4]), 0);
	assert_int_equal(p.n, 2);
	l = &p.l[0];
	assert_int_equal(l->k, MK_MSE_PARTIAL);
	assert_int_equal(l->groups, MTL_GROUP); /* 302 groups of the 1-D grid, capped */
	assert_int_equal(l->args.n, 77100);
	assert_true(l->args.s[0] == (float)(2.0 / 77100.0));
	bufs_are(l, (const void *[]){B[0], B[1], B[3], B[4]});
	l = &p.l[1];
	assert_int_equal(l->k, MK_MSE_LOSS);
	assert_int_equal(l->groups, 1);
	assert_int_equal(l->args.n, MTL_GROUP);
	assert_true(l->args.s[1] == 77100.0f);
	bufs_are(l, (const void *[]){B[4], B[2]});
	/* under the cap, a group per MTL_GROUP terms and a partial sum each */
	assert_int_equal(mtl_plan_mse_loss(&p, 1000, B[0], B[1], B[2], B[3], B[4]), 0);
	assert_int_equal(p.l[0].groups, 4);
	assert_int_equal(p.l[1].args.n, 4);
	assert_int_equal(mtl_plan_mse_loss(&p, 0, B[0], B[1], B[2], B[3], B[4]), RT_EINVAL);
	assert_int_equal(p.n, 0);
}

/* ---- the kernels, emulated on the CPU (metal_emu.cpp), against the CPU reference ---- */

typedef struct eshape {
	int rows, cols, block;
} eshape;

#define NELEM(s) ((size_t)(s)->rows * (size_t)(s)->cols)

/* The reference's call when cpu is set, else the plan's launches on the emulator. */
#define REF_OR_EMU(name, ...)                                                                      \
	(cpu ? rt_cpu_##name(cpu, RT_F32, __VA_ARGS__)                                             \
	     : emulated(mtl_plan_##name(&plan, __VA_ARGS__), &plan))

static int emulated(int rc, const mtl_plan *p)
{
	return rc ? rc : mtl_emulate(p);
}

static int op_fill(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(fill, b[0], NELEM(s), 0.37);
}

static int op_axpby(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(axpby, NELEM(s), 1.3, b[0], -0.6, b[1]);
}

static int op_add_bias(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(add_bias, s->rows, s->cols, b[0], b[1]);
}

static int op_sum_rows(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(sum_rows, s->rows, s->cols, b[0], b[1]);
}

static int op_gelu(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(gelu, NELEM(s), b[0], b[1]);
}

static int op_gelu_backward(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(gelu_backward, NELEM(s), b[0], b[1], b[2]);
}

static int op_tanh(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(tanh_fwd, NELEM(s), b[0], b[1]);
}

static int op_tanh_backward(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(tanh_backward, NELEM(s), b[0], b[1], b[2]);
}

static int op_softmax(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(softmax, s->rows, s->cols, 0.7, s->block, b[0], b[1]);
}

static int op_softmax_backward(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(softmax_backward, s->rows, s->cols, 0.7, b[0], b[1], b[2]);
}

static int op_layernorm(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(layernorm, s->rows, s->cols, b[0], b[1], b[2], b[3], b[4], b[5]);
}

static int op_layernorm_backward(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(layernorm_backward, s->rows, s->cols, b[0], b[1], b[2], b[3], b[4], b[5],
	                  b[6], b[7]);
}

/* The first level's sums, which the plugin keeps in its context. */
static float partials[MTL_PARTIALS_SIZE / sizeof(float)];

static int op_mse_loss(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	if (cpu)
		return rt_cpu_mse_loss(cpu, RT_F32, NELEM(s), b[0], b[1], b[2], b[3]);
	return emulated(mtl_plan_mse_loss(&plan, NELEM(s), b[0], b[1], b[2], b[3], partials),
	                &plan);
}

static int op_adam(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(adam, NELEM(s), b[0], b[1], b[2], b[3], 1e-3, 0.9, 0.999, 1e-8, 3);
}

/* A buffer's length (n elements, rows x cols, rows, cols, one) and role. */
enum { LN, LRC, LR, LC, L1 };
enum { IN, POS, OUT, INOUT, INPOS };
#define EMU_MAX_BUFS 8

typedef struct eop {
	const char *name;
	int (*run)(rt_ctx *cpu, const eshape *s, float *const *b);
	int nbuf, len[EMU_MAX_BUFS], kind[EMU_MAX_BUFS];
	int tiles_columns; /* a threadgroup per 32 columns: too many for a million columns here */
} eop;

static const eop eops[] = {
    {"fill", op_fill, 1, {LN}, {OUT}, 0},
    {"axpby", op_axpby, 2, {LN, LN}, {IN, INOUT}, 0},
    {"add_bias", op_add_bias, 2, {LC, LRC}, {IN, INOUT}, 0},
    {"sum_rows", op_sum_rows, 2, {LRC, LC}, {IN, OUT}, 1},
    {"gelu", op_gelu, 2, {LN, LN}, {IN, OUT}, 0},
    {"gelu_backward", op_gelu_backward, 3, {LN, LN, LN}, {IN, IN, OUT}, 0},
    {"tanh", op_tanh, 2, {LN, LN}, {IN, OUT}, 0},
    {"tanh_backward", op_tanh_backward, 3, {LN, LN, LN}, {IN, IN, OUT}, 0},
    {"softmax", op_softmax, 2, {LRC, LRC}, {IN, OUT}, 0},
    {"softmax_backward", op_softmax_backward, 3, {LRC, LRC, LRC}, {POS, IN, OUT}, 0},
    {"layernorm", op_layernorm, 6, {LRC, LC, LC, LRC, LR, LR}, {IN, IN, IN, OUT, OUT, OUT}, 0},
    {"layernorm_backward",
     op_layernorm_backward,
     8,
     {LRC, LC, LR, LR, LRC, LRC, LC, LC},
     {IN, IN, IN, POS, IN, OUT, INOUT, INOUT},
     1},
    {"mse_loss", op_mse_loss, 4, {LN, LN, L1, LN}, {IN, IN, OUT, OUT}, 0},
    {"adam", op_adam, 4, {LN, LN, LN, LN}, {INOUT, IN, INOUT, INPOS}, 0},
};

/*
 * A single element; rows wider than a threadgroup (strided columns); a
 * causal mask (block = cols); a partial column tile over rows that are no
 * multiple of the split; and a million elements and more, past a capped
 * 1-D grid (4096 threadgroups of 256: the loops stride), for the kernels
 * that do not tile columns.
 */
static const eshape eshapes[] = {
    {1, 1, 0}, {5, 300, 0}, {12, 6, 6}, {19, 70, 0}, {1, 1100000, 0},
};

/* Relative to the largest reference value: float sums against double ones, libm's tanh. */
#define EMU_RTOL 2e-5

static size_t elen(int code, const eshape *s)
{
	return code == LN || code == LRC ? NELEM(s)
	       : code == LR              ? (size_t)s->rows
	       : code == LC              ? (size_t)s->cols
	                                 : 1;
}

/* Runs op on shape s both ways on the same seeded data; the worst relative difference. */
static double emu_vs_ref(rt_ctx *cpu, const eop *op, const eshape *s, rt_rng *rng)
{
	float *emu[EMU_MAX_BUFS], *ref[EMU_MAX_BUFS];
	double worst = 0;
	for (int i = 0; i < op->nbuf; i++) {
		size_t n = elen(op->len[i], s);
		emu[i] = malloc(n * sizeof(float));
		ref[i] = malloc(n * sizeof(float));
		assert_non_null(emu[i]);
		assert_non_null(ref[i]);
		int pos = op->kind[i] == POS || op->kind[i] == INPOS;
		for (size_t j = 0; j < n; j++)
			emu[i][j] = ref[i][j] =
			    (float)(pos ? 0.5 + rt_rng_uniform(rng) : rt_rng_normal(rng));
	}
	assert_int_equal(op->run(NULL, s, emu), 0);
	assert_int_equal(op->run(cpu, s, ref), 0);
	for (int i = 0; i < op->nbuf; i++) {
		size_t n = elen(op->len[i], s);
		double diff = 0, top = 0;
		for (size_t j = 0; op->kind[i] >= OUT && j < n; j++) {
			double d = fabs((double)emu[i][j] - ref[i][j]);
			if (!(d <= diff)) /* NaN sticks */
				diff = d;
			top = fabs(ref[i][j]) > top ? fabs(ref[i][j]) : top;
		}
		double rel = diff / (top > 0 ? top : 1);
		worst = !(rel <= worst) ? rel : worst;
		free(emu[i]);
		free(ref[i]);
	}
	return worst;
}

static void test_kernels_emulated(void **state)
{
	(void)state;
	rt_ctx *cpu = NULL;
	char err[256] = "";
	rt_rng rng;
	rt_rng_seed(&rng, 20261126);
	assert_int_equal(rt_cpu_backend()->open(0, 1, &cpu, err, sizeof err), 0);
	for (size_t i = 0; i < RT_COUNT(eops); i++)
		for (size_t k = 0; k < RT_COUNT(eshapes); k++) {
			const eshape *s = &eshapes[k];
			if (eops[i].tiles_columns && s->cols > 100000)
				continue;
			double rel = emu_vs_ref(cpu, &eops[i], s, &rng);
			if (!(rel <= EMU_RTOL))
				fail_msg(
				    "%s %dx%d%s: the kernel differs from the CPU reference by %.3g "
				    "of its largest value",
				    eops[i].name, s->rows, s->cols, s->block ? " causal" : "", rel);
		}
	rt_cpu_backend()->close(cpu);
}

/* axpby with a scalar 0.1% off on the emulated side: what a wrong kernel would look like. */
static int op_axpby_off(rt_ctx *cpu, const eshape *s, float *const *b)
{
	mtl_plan plan;
	return REF_OR_EMU(axpby, NELEM(s), cpu ? 1.3 : 1.3013, b[0], -0.6, b[1]);
}

static void test_emulation_catches(void **state)
{
	(void)state;
	rt_ctx *cpu = NULL;
	char err[256] = "";
	rt_rng rng;
	const eop off = {"axpby_off", op_axpby_off, 2, {LN, LN}, {IN, INOUT}, 0};
	rt_rng_seed(&rng, 7);
	assert_int_equal(rt_cpu_backend()->open(0, 1, &cpu, err, sizeof err), 0);
	assert_true(emu_vs_ref(cpu, &off, &eshapes[1], &rng) > EMU_RTOL);
	assert_true(emu_vs_ref(cpu, &eops[1], &eshapes[1], &rng) <= EMU_RTOL); /* the real one */
	rt_cpu_backend()->close(cpu);
}

static void test_plan_gemm_bf16(void **state)
{
	(void)state;
	mtl_plan p;
	/* C 33 x 17: 3 x 2 tiles of 16, row-major; k, the leading dimensions, both transposes */
	mtl_plan_gemm_bf16(&p, 1, 1, 33, 17, 70, 1.5, B[0], 40, B[1], 71, 0.25, B[2], 20);
	const mtl_launch *l = only(&p, MK_GEMM_BF16, 6);
	assert_int_equal(l->args.rows, 33);
	assert_int_equal(l->args.cols, 17);
	assert_int_equal(l->args.depth, 70);
	assert_int_equal(l->args.lda, 40);
	assert_int_equal(l->args.ldb, 71);
	assert_int_equal(l->args.ldc, 20);
	assert_int_equal(l->args.trans, 3);
	assert_true(l->args.s[0] == 1.5f && l->args.s[1] == 0.25f);
	bufs_are(l, (const void *[]){B[0], B[1], B[2]});
	mtl_plan_gemm_bf16(&p, 0, 1, 16, 16, 1, 1, B[0], 1, B[1], 1, 0, B[2], 16);
	assert_int_equal(only(&p, MK_GEMM_BF16, 1)->args.trans, 2);
	/* k == 0 still writes beta C; an empty C launches nothing */
	mtl_plan_gemm_bf16(&p, 0, 0, 5, 7, 0, 1, B[0], 1, B[1], 7, 0.5, B[2], 7);
	only(&p, MK_GEMM_BF16, 1);
	mtl_plan_gemm_bf16(&p, 0, 0, 0, 7, 3, 1, B[0], 3, B[1], 7, 0, B[2], 7);
	assert_int_equal(p.n, 0);
}

static float bits_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static uint32_t float_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

/* The emulated bfloat(x), bit for bit, is the CPU backend's rounding (to nearest even). */
static void test_bfloat_rounds_to_nearest_even(void **state)
{
	(void)state;
	const uint32_t cases[] = {
	    0x3f808000u, /* a tie to the even 0x3f80: down */
	    0x3f818000u, /* a tie to the even 0x3f82: up */
	    0x3f808001u, /* past the tie: up */
	    0x3f807fffu, /* short of it: down */
	    0xbf818000u, /* negative, a tie: away from zero to the even */
	    0x7f7fffffu, /* the largest float: up into infinity */
	    0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u,
	    0x00018000u, /* a subnormal tie */
	    0x7fc00001u, 0x7f800001u, /* NaNs, the second signalling: a NaN still */
	};
	for (size_t i = 0; i < RT_COUNT(cases); i++) {
		const float x = bits_float(cases[i]);
		uint16_t want;
		rt_cpu_round_bf16(&want, &x, 1);
		const uint32_t got = float_bits(mtl_emu_bfloat(x));
		if (got != (uint32_t)want << 16)
			fail_msg("bfloat(0x%08x) is 0x%08x, not 0x%08x", cases[i], got,
			         (uint32_t)want << 16);
	}
	assert_true(mtl_emu_bfloat(bits_float(0x3f808000u)) == 1.0f);
	assert_true(mtl_emu_bfloat(bits_float(0x3f818000u)) == bits_float(0x3f820000u));
	assert_true(isinf(mtl_emu_bfloat(bits_float(0x7f7fffffu))));
	assert_true(isnan(mtl_emu_bfloat(bits_float(0x7f800001u))));
	rt_rng rng;
	rt_rng_seed(&rng, 35);
	for (int i = 0; i < 100000; i++) {
		const float x = (float)(rt_rng_normal(&rng) * 1e3);
		uint16_t want;
		rt_cpu_round_bf16(&want, &x, 1);
		assert_int_equal(float_bits(mtl_emu_bfloat(x)), (uint32_t)want << 16);
	}
}

/* A bf16 GEMM's shape: C m x n, inner k; the operands' leading dimensions padded by pad. */
typedef struct gshape {
	int m, n, k, transa, transb, pad;
	double alpha, beta;
} gshape;

/* Edge tiles of every kind, each transpose, padded rows, k past a tile and none, C read. */
static const gshape gshapes[] = {
    {1, 1, 1, 0, 0, 0, 1.0, 0.0},     {37, 45, 70, 0, 0, 0, 1.3, 0.0},
    {33, 17, 50, 1, 0, 3, 1.0, 0.5},  {20, 40, 33, 0, 1, 5, -0.7, 0.0},
    {64, 48, 300, 1, 1, 0, 1.0, 0.0}, {5, 7, 0, 0, 0, 0, 1.0, 0.5},
};

/* One bf16 GEMM's buffers, seeded: op(A), op(B), C, and their leading dimensions. */
typedef struct gbufs {
	float *a, *b, *c;
	int lda, ldb, ldc;
	size_t na, nb, nc;
} gbufs;

static void gbufs_make(gbufs *g, const gshape *s, rt_rng *rng)
{
	g->lda = (s->transa ? s->m : s->k) + s->pad + (s->k == 0); /* lda >= 1 */
	g->ldb = (s->transb ? s->k : s->n) + s->pad;
	g->ldc = s->n + s->pad;
	g->na = (size_t)(s->transa ? s->k : s->m) * (size_t)g->lda + 1;
	g->nb = (size_t)(s->transb ? s->n : s->k) * (size_t)g->ldb + 1;
	g->nc = (size_t)s->m * (size_t)g->ldc + 1;
	float **all[3] = {&g->a, &g->b, &g->c};
	size_t lens[3] = {g->na, g->nb, g->nc};
	for (int i = 0; i < 3; i++) {
		*all[i] = malloc(lens[i] * sizeof(float));
		assert_non_null(*all[i]);
		for (size_t j = 0; j < lens[i]; j++)
			(*all[i])[j] = (float)rt_rng_normal(rng);
	}
}

static void gbufs_free(gbufs *g)
{
	free(g->a);
	free(g->b);
	free(g->c);
}

/* A copy of n floats, each rounded to bf16 (rt_cpu_round_bf16) or kept as is. */
static float *copy_rounded(const float *x, size_t n, int round)
{
	float *y = malloc(n * sizeof *y);
	uint16_t *h = malloc(n * sizeof *h);
	assert_non_null(y);
	assert_non_null(h);
	rt_cpu_round_bf16(h, x, n);
	for (size_t i = 0; i < n; i++)
		y[i] = round ? bits_float((uint32_t)h[i] << 16) : x[i];
	free(h);
	return y;
}

/*
 * The CPU reference of the bf16 GEMM into c: its inputs rounded to bf16
 * (round; 0 for the fp32 GEMM a kernel that forgot them would be), then the
 * CPU backend's fp32 GEMM (a product of two bf16 is exact in float, so only
 * the order of the sums differs); flip swaps B's transpose, a kernel that
 * read B the wrong way.
 */
static void gemm_reference(rt_ctx *cpu, const gshape *s, const gbufs *g, float *c, int round,
                           int flip)
{
	float *a = copy_rounded(g->a, g->na, round), *b = copy_rounded(g->b, g->nb, round);
	int transb = flip ? !s->transb : s->transb, ldb = g->ldb;
	if (flip && s->n != s->k) /* B is square for the flip to read it: as far as it goes */
		transb = s->transb;
	assert_int_equal(rt_cpu_backend()->gemm(cpu, RT_F32, RT_FP32, s->transa, transb, s->m,
	                                        s->n, s->k, s->alpha, a, g->lda, b, ldb, s->beta,
	                                        c, g->ldc),
	                 0);
	free(a);
	free(b);
}

/* The emulated C against want over C's m x n: the worst difference over the largest |want|. */
static double gemm_rel(const gshape *s, const gbufs *g, const float *got, const float *want)
{
	double diff = 0, top = 0;
	for (int i = 0; i < s->m; i++)
		for (int j = 0; j < s->n; j++) {
			const size_t at = (size_t)i * (size_t)g->ldc + (size_t)j;
			const double d = fabs((double)got[at] - want[at]);
			diff = !(d <= diff) ? d : diff;
			top = fabs(want[at]) > top ? fabs(want[at]) : top;
		}
	return diff / (top > 0 ? top : 1);
}

/* The sums in float, against a double reference: what order alone moves (k <= 300). */
#define GEMM_RTOL 1e-5

/* k_gemm_bf16 through the emulator; the padding of C past n (its ldc) left as it was. */
static float *gemm_emulated(const gshape *s, const gbufs *g)
{
	float *c = copy_rounded(g->c, g->nc, 0);
	mtl_plan p;
	mtl_plan_gemm_bf16(&p, s->transa, s->transb, s->m, s->n, s->k, s->alpha, g->a, g->lda, g->b,
	                   g->ldb, s->beta, c, g->ldc);
	assert_int_equal(mtl_emulate(&p), 0);
	return c;
}

static void test_gemm_bf16_emulated(void **state)
{
	(void)state;
	rt_ctx *cpu = NULL;
	char err[256] = "";
	rt_rng rng;
	rt_rng_seed(&rng, 20261127);
	assert_int_equal(rt_cpu_backend()->open(0, 1, &cpu, err, sizeof err), 0);
	for (size_t i = 0; i < RT_COUNT(gshapes); i++) {
		const gshape *s = &gshapes[i];
		gbufs g;
		gbufs_make(&g, s, &rng);
		float *got = gemm_emulated(s, &g), *want = copy_rounded(g.c, g.nc, 0);
		gemm_reference(cpu, s, &g, want, 1, 0);
		double rel = gemm_rel(s, &g, got, want);
		if (!(rel <= GEMM_RTOL))
			fail_msg("bf16 GEMM %dx%dx%d (%c%c): off the reference by %.3g", s->m, s->n,
			         s->k, s->transa ? 'T' : 'N', s->transb ? 'T' : 'N', rel);
		/* C's padding past n is not written */
		for (int r = 0; r < s->m; r++)
			for (int j = s->n; j < g.ldc; j++)
				assert_true(got[(size_t)r * g.ldc + j] == g.c[(size_t)r * g.ldc + j]);
		free(got);
		free(want);
		gbufs_free(&g);
	}
	rt_cpu_backend()->close(cpu);
}

/*
 * What the tolerance catches: inputs not rounded to bf16, B read transposed,
 * and sums kept in bf16 rather than float, each off by far more than
 * GEMM_RTOL on a 64 x 64 x 64 GEMM.
 */
static void test_gemm_bf16_tolerance_catches(void **state)
{
	(void)state;
	rt_ctx *cpu = NULL;
	char err[256] = "";
	rt_rng rng;
	const gshape s = {64, 64, 64, 0, 0, 0, 1.0, 0.0};
	gbufs g;
	rt_rng_seed(&rng, 11);
	assert_int_equal(rt_cpu_backend()->open(0, 1, &cpu, err, sizeof err), 0);
	gbufs_make(&g, &s, &rng);
	float *got = gemm_emulated(&s, &g), *want = copy_rounded(g.c, g.nc, 0);
	gemm_reference(cpu, &s, &g, want, 1, 0);
	assert_true(gemm_rel(&s, &g, got, want) <= GEMM_RTOL);
	gemm_reference(cpu, &s, &g, want, 0, 0); /* fp32 inputs */
	assert_true(gemm_rel(&s, &g, got, want) > 10 * GEMM_RTOL);
	gemm_reference(cpu, &s, &g, want, 1, 1); /* B transposed */
	assert_true(gemm_rel(&s, &g, got, want) > 10 * GEMM_RTOL);
	/* the bf16 inputs' products summed with each partial sum rounded to bf16 */
	for (int i = 0; i < s.m; i++)
		for (int j = 0; j < s.n; j++) {
			float acc = 0;
			for (int p = 0; p < s.k; p++)
				acc = mtl_emu_bfloat(acc + mtl_emu_bfloat(g.a[i * g.lda + p]) *
				                               mtl_emu_bfloat(g.b[p * g.ldb + j]));
			want[i * g.ldc + j] = acc;
		}
	assert_true(gemm_rel(&s, &g, got, want) > 10 * GEMM_RTOL);
	free(got);
	free(want);
	gbufs_free(&g);
	rt_cpu_backend()->close(cpu);
}

/*
 * The loss of n = 2^22 terms (p - target = 1.0001, all alike) against a
 * double sum: within 1e-6. One threadgroup adding it all (each thread 2^14
 * terms, past 4096 where a float's half step exceeds each term's 0.0002
 * over 1) loses that part of most terms, about 1e-4: this data tells the
 * two, as the simulated one-level sum below shows.
 */
static void test_mse_loss_large_n(void **state)
{
	(void)state;
	const size_t n = (size_t)1 << 22;
	float *pred = malloc(n * sizeof *pred), *target = malloc(n * sizeof *target);
	float *dp = malloc(n * sizeof *dp), loss = 0;
	assert_non_null(pred);
	assert_non_null(target);
	assert_non_null(dp);
	rt_rng rng;
	rt_rng_seed(&rng, 4);
	double want = 0, one_level = 0;
	float thread_sums[MTL_GROUP] = {0};
	for (size_t i = 0; i < n; i++) {
		target[i] = (float)rt_rng_normal(&rng);
		pred[i] = target[i] + 1.0001f;
		const float d = pred[i] - target[i];
		want += (double)d * d;
		thread_sums[i % MTL_GROUP] += d * d;
	}
	for (int t = 0; t < MTL_GROUP; t++)
		one_level += thread_sums[t];
	want /= (double)n;
	mtl_plan plan;
	assert_int_equal(mtl_plan_mse_loss(&plan, n, pred, target, &loss, dp, partials), 0);
	assert_int_equal(mtl_emulate(&plan), 0);
	const double rel = fabs(loss - want) / want;
	if (!(rel <= 1e-6))
		fail_msg("mse_loss of 2^22 terms: %.9g, the double sum %.9g (%.3g off)", loss, want,
		         rel);
	assert_true(fabs(one_level / (double)n - want) / want > 1e-5);
	for (size_t i = 0; i < n; i += 4099)
		assert_true(dp[i] == (float)(2.0 / (double)n) * (pred[i] - target[i]));
	free(pred);
	free(target);
	free(dp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_table),     cmocka_unit_test(test_args_layout),
	    cmocka_unit_test(test_groups),           cmocka_unit_test(test_plans_1d),
	    cmocka_unit_test(test_plans_rows),       cmocka_unit_test(test_plans_columns_and_loss),
	    cmocka_unit_test(test_kernels_emulated), cmocka_unit_test(test_emulation_catches),
	    cmocka_unit_test(test_plan_gemm_bf16),
	    cmocka_unit_test(test_bfloat_rounds_to_nearest_even),
	    cmocka_unit_test(test_gemm_bf16_emulated),
	    cmocka_unit_test(test_gemm_bf16_tolerance_catches),
	    cmocka_unit_test(test_mse_loss_large_n),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
