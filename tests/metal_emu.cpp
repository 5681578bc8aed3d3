/*
 * metal_emu.cpp: runs workloads/metal/kernels.metal on the CPU. The kernels
 * are compiled as C++ against the shim of Metal's names
 * (tests/metal_shim/metal_stdlib, address spaces and attributes erased),
 * and a launch runs as Metal runs it: its threadgroups one after another,
 * each as MTL_GROUP threads sharing the threadgroup memory, whose
 * threadgroup_barrier is a barrier of those threads. What this shows is the
 * kernels' logic (indices, masks, reductions, the plans' arguments) against
 * the CPU reference; not Metal's compiler, its precise:: functions (libm's
 * here) or the GPU's memory model.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../common/platform.h"
#include "../workloads/metal/plan.h"
}
#include "metal_emu.h"

#include <metal_stdlib> /* tests/metal_shim/ */
#include "../workloads/metal/kernels.metal"

/* The barrier of the threadgroup this thread is in. */
static thread_local rt_barrier *group_barrier;

void metal::threadgroup_barrier(mem_flags)
{
	rt_barrier_wait(group_barrier);
}

float metal::precise::exp(float x)
{
	return expf(x);
}

float metal::precise::tanh(float x)
{
	return tanhf(x);
}

float metal::precise::sqrt(float x)
{
	return sqrtf(x);
}

/*
 * float -> bfloat as an Apple GPU converts: the 16 dropped bits rounded to
 * nearest, a tie to the even kept value (a carry may reach the exponent:
 * the largest floats round to infinity); a NaN keeps its sign and top bits,
 * made quiet, rather than rounding into infinity.
 */
bfloat::bfloat(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	const uint32_t keep = u >> 16, dropped = u & 0xffffu;
	if ((u & 0x7fffffffu) > 0x7f800000u)
		bits = (unsigned short)(keep | 0x40u);
	else if (dropped > 0x8000u || (dropped == 0x8000u && (keep & 1u)))
		bits = (unsigned short)(keep + 1u);
	else
		bits = (unsigned short)keep;
}

bfloat::operator float() const
{
	const uint32_t u = (uint32_t)bits << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

extern "C" float mtl_emu_bfloat(float x)
{
	return float(bfloat(x));
}

/* One launch being run: its threads share sh and bar. */
struct run {
	const mtl_launch *l;
	void *sh;
	rt_barrier bar;
};

struct worker {
	run *r;
	uint t;
	pthread_t id;
};

#define B(i) ((float *)l->buf[i])

/* Thread t of threadgroup g of launch l, with its threadgroup memory sh. */
static void call(const mtl_launch *l, mtl_args &a, void *sh, uint g, uint t)
{
	const uint gid = g * MTL_GROUP + t, grid = (uint)l->groups * MTL_GROUP;
	float *f = (float *)sh;
	float2 *f2 = (float2 *)sh;
	switch (l->k) {
	case MK_FILL:
		k_fill(a, B(0), gid, grid);
		break;
	case MK_AXPBY:
		k_axpby(a, B(0), B(1), gid, grid);
		break;
	case MK_ADD_BIAS:
		k_add_bias(a, B(0), B(1), gid, grid);
		break;
	case MK_SUM_ROWS:
		k_sum_rows(a, B(0), B(1), f, g, t);
		break;
	case MK_GELU:
		k_gelu(a, B(0), B(1), gid, grid);
		break;
	case MK_GELU_BACKWARD:
		k_gelu_backward(a, B(0), B(1), B(2), gid, grid);
		break;
	case MK_TANH:
		k_tanh(a, B(0), B(1), gid, grid);
		break;
	case MK_TANH_BACKWARD:
		k_tanh_backward(a, B(0), B(1), B(2), gid, grid);
		break;
	case MK_SOFTMAX:
		k_softmax(a, B(0), B(1), f, g, t);
		break;
	case MK_SOFTMAX_BACKWARD:
		k_softmax_backward(a, B(0), B(1), B(2), f, g, t);
		break;
	case MK_LAYERNORM:
		k_layernorm(a, B(0), B(1), B(2), B(3), B(4), B(5), f, g, t);
		break;
	case MK_LAYERNORM_DX:
		k_layernorm_dx(a, B(0), B(1), B(2), B(3), B(4), B(5), f2, g, t);
		break;
	case MK_LAYERNORM_DPARAMS:
		k_layernorm_dparams(a, B(0), B(1), B(2), B(3), B(4), B(5), f2, g, t);
		break;
	case MK_MSE_PARTIAL:
		k_mse_partial(a, B(0), B(1), B(2), B(3), f, g, t, gid, grid);
		break;
	case MK_MSE_LOSS:
		k_mse_loss(a, B(0), B(1), f, t);
		break;
	case MK_ADAM:
		k_adam(a, B(0), B(1), B(2), B(3), gid, grid);
		break;
	case MK_GEMM_BF16:
		k_gemm_bf16(a, B(0), B(1), B(2), (bfloat *)sh, g, t);
		break;
	case MK_COUNT:
		break;
	}
}

/* A thread of every threadgroup in turn; a kernel that shares memory waits for its group's end. */
static void *work(void *p)
{
	worker *w = (worker *)p;
	const mtl_launch *l = w->r->l;
	mtl_args a = l->args;
	group_barrier = &w->r->bar;
	for (uint g = 0; g < l->groups; g++) {
		call(l, a, w->r->sh, g, w->t);
		if (mtl_kernels[l->k].tg_bytes)
			rt_barrier_wait(&w->r->bar);
	}
	return nullptr;
}

static int run_launch(const mtl_launch *l)
{
	run r;
	worker w[MTL_GROUP];
	uint started = 0;
	r.l = l;
	r.sh = calloc(MTL_GROUP, 2 * sizeof(float)); /* the largest, a float2 a thread */
	static_assert(sizeof(bfloat) == 2, "two bfloats a thread fit a float2");
	if (!r.sh || rt_barrier_init(&r.bar, MTL_GROUP)) {
		free(r.sh);
		return RT_ERUNTIME;
	}
	for (; started < MTL_GROUP; started++) {
		w[started].r = &r;
		w[started].t = started;
		if (pthread_create(&w[started].id, nullptr, work, &w[started]))
			break;
	}
	/* a thread that did not start would leave the others at the barrier: only all or none */
	if (started < MTL_GROUP)
		abort();
	for (uint t = 0; t < MTL_GROUP; t++)
		pthread_join(w[t].id, nullptr);
	rt_barrier_destroy(&r.bar);
	free(r.sh);
	return 0;
}

extern "C" int mtl_emulate(const mtl_plan *p)
{
	int rc = 0;
	for (int i = 0; rc == 0 && i < p->n; i++)
		rc = run_launch(&p->l[i]);
	return rc;
}
