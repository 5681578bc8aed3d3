/*
 * kernels.metal: the elementwise kernels of backend.h in Metal Shading
 * Language, for fp32 (Metal has no double: the plugin runs fp64 calls on the
 * CPU reference), and the bf16 GEMM that MPS lacks, where the OS's language
 * (3.1 and later) has bfloat. Embedded in librigtune_metal.dylib after args.h, which
 * defines mtl_args and the threadgroup sizes, and compiled when a context
 * opens (newLibraryWithSource, fast math off); one pipeline per kernel.
 *
 * The mathematics is workloads/kernels.h's, written in the same order of
 * operations as the CPU reference (workloads/cpu_kernels_t.h): scalars come
 * rounded to float in mtl_args, arithmetic in float. The one difference is
 * the sums (rows, columns, the loss): float, not double, in a fixed order so
 * that a result does not change from run to run: each thread adds its
 * strided terms in index order, then the threadgroup adds its partial sums
 * by halving (group_sum) or in split order (tile_sum).
 *
 * Buffer 0 is always the mtl_args; the buffers follow in the order of the
 * ABI call (workloads/metal/plan.c packs them; tests/test_metal_host.c
 * checks that each kernel here takes as many as its plan gives). A kernel
 * that reduces takes its threadgroup memory, MTL_GROUP floats or float2s,
 * at threadgroup index 0 (the host sets its length: plan.c's table), rather
 * than declaring it, so that tests/metal_emu.cpp can run it on a CPU.
 */
#include <metal_stdlib>
using namespace metal;

/*
 * The attribute of a kernel's threadgroup memory parameter. A macro only so
 * that the C++ shim of tests/ (which erases the threadgroup keyword, and
 * with it this attribute's name) can define it away.
 */
#ifndef TG_MEMORY
#define TG_MEMORY [[threadgroup(0)]]
#endif

/* Sum of v over the threadgroup in a fixed order; every thread gets it; sh reusable after. */
template <typename V> static V group_sum(V v, threadgroup V *sh, uint t)
{
	sh[t] = v;
	threadgroup_barrier(mem_flags::mem_threadgroup);
	for (uint s = MTL_GROUP / 2; s > 0; s >>= 1) {
		if (t < s)
			sh[t] += sh[t + s];
		threadgroup_barrier(mem_flags::mem_threadgroup);
	}
	const V r = sh[0];
	threadgroup_barrier(mem_flags::mem_threadgroup);
	return r;
}

/* Maximum of v over the threadgroup (a > b ? a : b, as the CPU's); every thread gets it. */
static float group_max(float v, threadgroup float *sh, uint t)
{
	sh[t] = v;
	threadgroup_barrier(mem_flags::mem_threadgroup);
	for (uint s = MTL_GROUP / 2; s > 0; s >>= 1) {
		if (t < s && sh[t + s] > sh[t])
			sh[t] = sh[t + s];
		threadgroup_barrier(mem_flags::mem_threadgroup);
	}
	const float r = sh[0];
	threadgroup_barrier(mem_flags::mem_threadgroup);
	return r;
}

/*
 * A column tile's sums: thread t holds the partial of column t % MTL_COL_TILE
 * over rows t / MTL_COL_TILE + k MTL_COL_SPLIT; the threads of the first
 * split (t < MTL_COL_TILE) get their column's total, the splits added in order.
 */
template <typename V> static V tile_sum(V v, threadgroup V *sh, uint t)
{
	sh[t] = v;
	threadgroup_barrier(mem_flags::mem_threadgroup);
	V s = v;
	if (t < MTL_COL_TILE)
		for (uint j = 1; j < MTL_COL_SPLIT; j++)
			s += sh[t + j * MTL_COL_TILE];
	return s;
}

kernel void k_fill(constant mtl_args &a [[buffer(0)]], device float *x [[buffer(1)]],
                   uint gid [[thread_position_in_grid]], uint grid [[threads_per_grid]])
{
	for (ulong i = gid; i < a.n; i += grid)
		x[i] = a.s[0];
}

/* With b == 0, y is not read (it may hold NaN). */
kernel void k_axpby(constant mtl_args &a [[buffer(0)]], device const float *x [[buffer(1)]],
                    device float *y [[buffer(2)]], uint gid [[thread_position_in_grid]],
                    uint grid [[threads_per_grid]])
{
	const float ca = a.s[0], cb = a.s[1];
	for (ulong i = gid; i < a.n; i += grid)
		y[i] = cb == 0.0f ? ca * x[i] : ca * x[i] + cb * y[i];
}

/* n = rows x cols elements of y. */
kernel void k_add_bias(constant mtl_args &a [[buffer(0)]], device const float *bias [[buffer(1)]],
                       device float *y [[buffer(2)]], uint gid [[thread_position_in_grid]],
                       uint grid [[threads_per_grid]])
{
	for (ulong i = gid; i < a.n; i += grid)
		y[i] += bias[i % a.cols];
}

/* One threadgroup per tile of MTL_COL_TILE columns: db[c] = sum_r dy[r][c]. */
kernel void k_sum_rows(constant mtl_args &a [[buffer(0)]], device const float *dy [[buffer(1)]],
                       device float *db [[buffer(2)]], threadgroup float *sh TG_MEMORY,
                       uint g [[threadgroup_position_in_grid]],
                       uint t [[thread_position_in_threadgroup]])
{
	const uint c = g * MTL_COL_TILE + t % MTL_COL_TILE;
	float acc = 0.0f;
	if (c < a.cols)
		for (uint r = t / MTL_COL_TILE; r < a.rows; r += MTL_COL_SPLIT)
			acc += dy[(ulong)r * a.cols + c];
	acc = tile_sum(acc, sh, t);
	if (t < MTL_COL_TILE && c < a.cols)
		db[c] = acc;
}

/* gelu's tanh argument u = K0 (x + K1 x^3), with K0, K1 in s[0], s[1]. */
static float gelu_u(float x, constant mtl_args &a)
{
	return a.s[0] * (x + a.s[1] * x * x * x);
}

kernel void k_gelu(constant mtl_args &a [[buffer(0)]], device const float *x [[buffer(1)]],
                   device float *y [[buffer(2)]], uint gid [[thread_position_in_grid]],
                   uint grid [[threads_per_grid]])
{
	for (ulong i = gid; i < a.n; i += grid)
		y[i] = 0.5f * x[i] * (1.0f + precise::tanh(gelu_u(x[i], a)));
}

kernel void k_gelu_backward(constant mtl_args &a [[buffer(0)]], device const float *x [[buffer(1)]],
                            device const float *dy [[buffer(2)]], device float *dx [[buffer(3)]],
                            uint gid [[thread_position_in_grid]], uint grid [[threads_per_grid]])
{
	const float k0 = a.s[0], k1 = a.s[1];
	for (ulong i = gid; i < a.n; i += grid) {
		const float xi = x[i], th = precise::tanh(gelu_u(xi, a));
		dx[i] = dy[i] * (0.5f * (1.0f + th) +
		                 0.5f * xi * (1.0f - th * th) * k0 * (1.0f + 3.0f * k1 * xi * xi));
	}
}

kernel void k_tanh(constant mtl_args &a [[buffer(0)]], device const float *x [[buffer(1)]],
                   device float *y [[buffer(2)]], uint gid [[thread_position_in_grid]],
                   uint grid [[threads_per_grid]])
{
	for (ulong i = gid; i < a.n; i += grid)
		y[i] = precise::tanh(x[i]);
}

/* From the forward output y: dx = dy (1 - y^2). */
kernel void k_tanh_backward(constant mtl_args &a [[buffer(0)]], device const float *y [[buffer(1)]],
                            device const float *dy [[buffer(2)]], device float *dx [[buffer(3)]],
                            uint gid [[thread_position_in_grid]], uint grid [[threads_per_grid]])
{
	for (ulong i = gid; i < a.n; i += grid)
		dx[i] = dy[i] * (1.0f - y[i] * y[i]);
}

/*
 * One threadgroup per row; scale in s[0]. Columns past last(r) (the causal
 * mask, block > 0) get +0. Each exp is stored, summed, then scaled by the
 * same thread, as the CPU does.
 */
kernel void k_softmax(constant mtl_args &a [[buffer(0)]], device const float *x [[buffer(1)]],
                      device float *y [[buffer(2)]], threadgroup float *sh TG_MEMORY,
                      uint r [[threadgroup_position_in_grid]],
                      uint t [[thread_position_in_threadgroup]])
{
	const uint cols = a.cols, last = a.block ? r % a.block : cols - 1;
	const uint valid = last + 1 < cols ? last + 1 : cols;
	device const float *xr = x + (ulong)r * cols;
	device float *yr = y + (ulong)r * cols;
	const float scale = a.s[0];
	float mx = scale * xr[0];
	for (uint c = t; c < valid; c += MTL_GROUP) {
		const float z = scale * xr[c];
		mx = z > mx ? z : mx;
	}
	mx = group_max(mx, sh, t);
	float sum = 0.0f;
	for (uint c = t; c < valid; c += MTL_GROUP) {
		yr[c] = precise::exp(scale * xr[c] - mx);
		sum += yr[c];
	}
	const float inv = 1.0f / group_sum(sum, sh, t);
	for (uint c = t; c < cols; c += MTL_GROUP)
		yr[c] = c < valid ? yr[c] * inv : 0.0f;
}

/* One threadgroup per row: dx = scale y (dy - sum(dy y)). */
kernel void k_softmax_backward(constant mtl_args &a [[buffer(0)]],
                               device const float *y [[buffer(1)]],
                               device const float *dy [[buffer(2)]], device float *dx [[buffer(3)]],
                               threadgroup float *sh TG_MEMORY,
                               uint r [[threadgroup_position_in_grid]],
                               uint t [[thread_position_in_threadgroup]])
{
	const ulong off = (ulong)r * a.cols;
	float dot = 0.0f;
	for (uint c = t; c < a.cols; c += MTL_GROUP)
		dot += dy[off + c] * y[off + c];
	const float d = group_sum(dot, sh, t), scale = a.s[0];
	for (uint c = t; c < a.cols; c += MTL_GROUP)
		dx[off + c] = scale * y[off + c] * (dy[off + c] - d);
}

/* One threadgroup per row: two-pass mean and variance; the epsilon in s[0]. */
kernel void k_layernorm(constant mtl_args &a [[buffer(0)]], device const float *x [[buffer(1)]],
                        device const float *gamma [[buffer(2)]],
                        device const float *beta [[buffer(3)]], device float *y [[buffer(4)]],
                        device float *mean [[buffer(5)]], device float *rstd [[buffer(6)]],
                        threadgroup float *sh TG_MEMORY,
                        uint r [[threadgroup_position_in_grid]],
                        uint t [[thread_position_in_threadgroup]])
{
	const uint cols = a.cols;
	device const float *xr = x + (ulong)r * cols;
	float s = 0.0f;
	for (uint c = t; c < cols; c += MTL_GROUP)
		s += xr[c];
	const float m = group_sum(s, sh, t) / (float)cols;
	float ss = 0.0f;
	for (uint c = t; c < cols; c += MTL_GROUP)
		ss += (xr[c] - m) * (xr[c] - m);
	const float var = group_sum(ss, sh, t) / (float)cols;
	const float rs = 1.0f / precise::sqrt(var + a.s[0]);
	if (t == 0) {
		mean[r] = m;
		rstd[r] = rs;
	}
	for (uint c = t; c < cols; c += MTL_GROUP)
		y[(ulong)r * cols + c] = (xr[c] - m) * rs * gamma[c] + beta[c];
}

/* layernorm's dx, one threadgroup per row: the two row sums go together. */
kernel void k_layernorm_dx(constant mtl_args &a [[buffer(0)]], device const float *x [[buffer(1)]],
                           device const float *gamma [[buffer(2)]],
                           device const float *mean [[buffer(3)]],
                           device const float *rstd [[buffer(4)]],
                           device const float *dy [[buffer(5)]], device float *dx [[buffer(6)]],
                           threadgroup float2 *sh TG_MEMORY,
                           uint r [[threadgroup_position_in_grid]],
                           uint t [[thread_position_in_threadgroup]])
{
	const ulong off = (ulong)r * a.cols;
	const float m = mean[r], rs = rstd[r];
	float2 acc = float2(0.0f);
	for (uint c = t; c < a.cols; c += MTL_GROUP) {
		const float g = dy[off + c] * gamma[c];
		acc += float2(g, g * ((x[off + c] - m) * rs));
	}
	const float2 mg = group_sum(acc, sh, t) / (float)a.cols;
	for (uint c = t; c < a.cols; c += MTL_GROUP)
		dx[off + c] = rs * (dy[off + c] * gamma[c] - mg.x - (x[off + c] - m) * rs * mg.y);
}

/* layernorm's dgamma and dbeta (+=), one threadgroup per tile of columns. */
kernel void k_layernorm_dparams(constant mtl_args &a [[buffer(0)]],
                                device const float *dy [[buffer(1)]],
                                device const float *x [[buffer(2)]],
                                device const float *mean [[buffer(3)]],
                                device const float *rstd [[buffer(4)]],
                                device float *dgamma [[buffer(5)]],
                                device float *dbeta [[buffer(6)]],
                                threadgroup float2 *sh TG_MEMORY,
                                uint g [[threadgroup_position_in_grid]],
                                uint t [[thread_position_in_threadgroup]])
{
	const uint c = g * MTL_COL_TILE + t % MTL_COL_TILE;
	float2 acc = float2(0.0f);
	if (c < a.cols)
		for (uint r = t / MTL_COL_TILE; r < a.rows; r += MTL_COL_SPLIT) {
			const ulong i = (ulong)r * a.cols + c;
			acc += float2(dy[i] * ((x[i] - mean[r]) * rstd[r]), dy[i]);
		}
	acc = tile_sum(acc, sh, t);
	if (t < MTL_COL_TILE && c < a.cols) {
		dgamma[c] += acc.x;
		dbeta[c] += acc.y;
	}
}

/*
 * mse_loss's first level, a 1-D grid of at most MTL_GROUP threadgroups:
 * dp = k (p - target) with k = 2 / n in s[0]; threadgroup g's sum of squares
 * into partial[g]. Two levels, so that each thread adds n / MTL_GROUP^2
 * terms rather than one threadgroup's n / MTL_GROUP (a float sum's error
 * grows with its terms).
 */
kernel void k_mse_partial(constant mtl_args &a [[buffer(0)]], device const float *p [[buffer(1)]],
                          device const float *target [[buffer(2)]], device float *dp [[buffer(3)]],
                          device float *partial [[buffer(4)]], threadgroup float *sh TG_MEMORY,
                          uint g [[threadgroup_position_in_grid]],
                          uint t [[thread_position_in_threadgroup]],
                          uint gid [[thread_position_in_grid]], uint grid [[threads_per_grid]])
{
	float s = 0.0f;
	for (ulong i = gid; i < a.n; i += grid) {
		const float d = p[i] - target[i];
		dp[i] = a.s[0] * d;
		s += d * d;
	}
	s = group_sum(s, sh, t);
	if (t == 0)
		partial[g] = s;
}

/* The second level, one threadgroup: the n partial sums added, over the loss's n in s[1]. */
kernel void k_mse_loss(constant mtl_args &a [[buffer(0)]], device const float *partial [[buffer(1)]],
                       device float *loss [[buffer(2)]], threadgroup float *sh TG_MEMORY,
                       uint t [[thread_position_in_threadgroup]])
{
	float s = 0.0f;
	for (ulong i = t; i < a.n; i += MTL_GROUP)
		s += partial[i];
	s = group_sum(s, sh, t);
	if (t == 0)
		loss[0] = s / a.s[1];
}

/* s: lr, b1, b2, eps, and the bias corrections c1, c2 (computed in double by the host). */
kernel void k_adam(constant mtl_args &a [[buffer(0)]], device float *w [[buffer(1)]],
                   device const float *g [[buffer(2)]], device float *m [[buffer(3)]],
                   device float *v [[buffer(4)]], uint gid [[thread_position_in_grid]],
                   uint grid [[threads_per_grid]])
{
	const float lr = a.s[0], b1 = a.s[1], b2 = a.s[2], eps = a.s[3], c1 = a.s[4], c2 = a.s[5];
	for (ulong i = gid; i < a.n; i += grid) {
		const float gi = g[i];
		const float mi = b1 * m[i] + (1.0f - b1) * gi;
		const float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
		m[i] = mi;
		v[i] = vi;
		w[i] -= lr * (mi / c1) / (precise::sqrt(vi / c2) + eps);
	}
}

#if __METAL_VERSION__ >= 310
/*
 * Element (r, c) of op(x), an r_n x c_n matrix: x row-major with ld a row
 * (transposed: x is c_n x r_n); 0 outside it.
 */
static float gemm_at(device const float *x, uint ld, uint trans, uint r, uint c, uint r_n, uint c_n)
{
	if (r >= r_n || c >= c_n)
		return 0.0f;
	return trans ? x[(ulong)c * ld + r] : x[(ulong)r * ld + c];
}

/*
 * The ABI's bf16 GEMM on fp32 data: C = alpha op(A) op(B) + beta C, row-major,
 * A and B rounded to bfloat (Metal Shading Language 3.1, macOS 14: compiled
 * only where the OS's language has it, so the plugin finds this function or
 * offers no bf16) as each tile is loaded into threadgroup memory, the
 * products and their sums in float, C in float (beta == 0: C is not read).
 * One threadgroup per MTL_GEMM_TILE-square tile of C (tiles row-major),
 * C rows x cols, inner size depth; alpha, beta in s[0], s[1]. Past the
 * edges the tiles hold zeros, which add nothing to the sums.
 */
kernel void k_gemm_bf16(constant mtl_args &a [[buffer(0)]], device const float *A [[buffer(1)]],
                        device const float *B [[buffer(2)]], device float *C [[buffer(3)]],
                        threadgroup bfloat *sh TG_MEMORY,
                        uint g [[threadgroup_position_in_grid]],
                        uint t [[thread_position_in_threadgroup]])
{
	const uint tiles_n = (a.cols + MTL_GEMM_TILE - 1) / MTL_GEMM_TILE;
	const uint ty = t / MTL_GEMM_TILE, tx = t % MTL_GEMM_TILE;
	const uint i = g / tiles_n * MTL_GEMM_TILE + ty, j = g % tiles_n * MTL_GEMM_TILE + tx;
	threadgroup bfloat *ta = sh, *tb = sh + MTL_GROUP;
	float acc = 0.0f;
	for (uint p0 = 0; p0 < a.depth; p0 += MTL_GEMM_TILE) {
		ta[t] = bfloat(gemm_at(A, a.lda, a.trans & 1u, i, p0 + tx, a.rows, a.depth));
		tb[t] = bfloat(gemm_at(B, a.ldb, a.trans & 2u, p0 + ty, j, a.depth, a.cols));
		threadgroup_barrier(mem_flags::mem_threadgroup);
		for (uint q = 0; q < MTL_GEMM_TILE; q++)
			acc += float(ta[ty * MTL_GEMM_TILE + q]) * float(tb[q * MTL_GEMM_TILE + tx]);
		threadgroup_barrier(mem_flags::mem_threadgroup);
	}
	if (i < a.rows && j < a.cols) {
		device float *c = C + (ulong)i * a.ldc + j;
		*c = a.s[1] == 0.0f ? a.s[0] * acc : a.s[0] * acc + a.s[1] * *c;
	}
}
#endif
