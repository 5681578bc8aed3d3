/*
 * gemm_tiled.cuh: the plugins' own GEMM, a plain tiled kernel: what a GPU
 * without its vendor's BLAS measures (rocBLAS missing on a HIP machine), the
 * fallback of a precision the vendor's library declines, and, with
 * RIGTUNE_GEMM=own, a check of this kernel on any GPU. Row-major like the
 * ABI, all precisions: fp64, fp32 (tf32 too: computed in full fp32), and
 * bf16/fp16 from the 16-bit copies of the inputs with fp32 accumulation.
 *
 * Included by context.cuh after kernels.cuh (gpu_launch), and by
 * tests/cuda_emu.cpp, which runs it on the CPU; the vendor's file defines
 * to_acc() and store16() for its 16-bit types gpu_bf16_t and gpu_fp16_t.
 */
#ifndef RT_GPU_GEMM_TILED_CUH
#define RT_GPU_GEMM_TILED_CUH

/* Operands as the accumulator type of the GEMM. */
static __device__ __forceinline__ float to_acc(float x) { return x; }
static __device__ __forceinline__ double to_acc(double x) { return x; }

#define GEMM_TILE 64  /* rows and columns of C per block */
#define GEMM_TK 16    /* depth of one shared-memory step */
#define GEMM_SIDE 16  /* the block is GEMM_SIDE x GEMM_SIDE threads ... */
#define GEMM_REG 4    /* ... each computing GEMM_REG x GEMM_REG elements of C */
#ifndef GEMM_MAX_Z
#define GEMM_MAX_Z 65535 /* the largest gridDim.z: batches go in chunks of it */
#endif

/*
 * C = alpha op(A) op(B) + beta C, all row-major; z0 + blockIdx.z picks the
 * matrix of a batch: matrix (i, j) = (z / count, z % count) of a two-level
 * batch (outer strides oa, ob, oc; a strided batch is the outer 1), one
 * division per block. Each block computes a GEMM_TILE square of C from
 * GEMM_TK-deep slices of op(A) and op(B) staged in shared memory (as the
 * accumulator type A, zero-padded past the edges); thread (x, y) owns rows
 * y + GEMM_SIDE r and columns x + GEMM_SIDE s. The loads walk the stored
 * matrix along its rows, whichever the transpose, so they stay coalesced.
 * With beta == 0, C is not read (BLAS semantics).
 */
template <class TIn, class A, class TOut>
__global__ void k_gemm(int transa, int transb, int m, int n, int k, A alpha, const TIn *a,
		       int lda, long sa, long oa, const TIn *b, int ldb, long sb, long ob, A beta,
		       TOut *c, int ldc, long sc, long oc, int count, int z0)
{
	__shared__ A as[GEMM_TK][GEMM_TILE + 1]; /* as[p][i] = op(A)[i0 + i][p0 + p] */
	__shared__ A bs[GEMM_TK][GEMM_TILE + 1]; /* bs[p][j] = op(B)[p0 + p][j0 + j] */
	const int z = z0 + (int)blockIdx.z, zi = z / count, zj = z - zi * count;
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * GEMM_SIDE + tx;
	const int i0 = blockIdx.y * GEMM_TILE, j0 = blockIdx.x * GEMM_TILE;
	A acc[GEMM_REG][GEMM_REG];

	a += zi * oa + zj * sa;
	b += zi * ob + zj * sb;
	c += zi * oc + zj * sc;
	for (int r = 0; r < GEMM_REG; r++)
		for (int s = 0; s < GEMM_REG; s++)
			acc[r][s] = 0;
	for (int p0 = 0; p0 < k; p0 += GEMM_TK) {
		for (int e = tid; e < GEMM_TILE * GEMM_TK; e += GEMM_SIDE * GEMM_SIDE) {
			/* stored A is m x k (p runs along a row) or, transposed, k x m */
			const int i = transa ? e % GEMM_TILE : e / GEMM_TK;
			const int p = transa ? e / GEMM_TILE : e % GEMM_TK;
			const int gi = i0 + i, gp = p0 + p;
			A v = 0;
			if (gi < m && gp < k)
				v = to_acc(transa ? a[(size_t)gp * lda + gi] : a[(size_t)gi * lda + gp]);
			as[p][i] = v;
		}
		for (int e = tid; e < GEMM_TILE * GEMM_TK; e += GEMM_SIDE * GEMM_SIDE) {
			/* stored B is k x n (j runs along a row) or, transposed, n x k */
			const int j = transb ? e / GEMM_TK : e % GEMM_TILE;
			const int p = transb ? e % GEMM_TK : e / GEMM_TILE;
			const int gj = j0 + j, gp = p0 + p;
			A v = 0;
			if (gj < n && gp < k)
				v = to_acc(transb ? b[(size_t)gj * ldb + gp] : b[(size_t)gp * ldb + gj]);
			bs[p][j] = v;
		}
		__syncthreads();
		for (int p = 0; p < GEMM_TK; p++) {
			A av[GEMM_REG], bv[GEMM_REG];
			for (int r = 0; r < GEMM_REG; r++)
				av[r] = as[p][ty + GEMM_SIDE * r];
			for (int s = 0; s < GEMM_REG; s++)
				bv[s] = bs[p][tx + GEMM_SIDE * s];
			for (int r = 0; r < GEMM_REG; r++)
				for (int s = 0; s < GEMM_REG; s++)
					acc[r][s] += av[r] * bv[s];
		}
		__syncthreads();
	}
	for (int r = 0; r < GEMM_REG; r++) {
		const int i = i0 + ty + GEMM_SIDE * r;
		for (int s = 0; s < GEMM_REG; s++) {
			const int j = j0 + tx + GEMM_SIDE * s;
			if (i < m && j < n) {
				TOut *cp = c + (size_t)i * ldc + j;
				*cp = beta == (A)0 ? alpha * acc[r][s] : alpha * acc[r][s] + beta * *cp;
			}
		}
	}
}

/*
 * Launches k_gemm over the batch (outer * count matrices, fewer than 2^31),
 * GEMM_MAX_Z matrices per launch.
 */
template <class TIn, class A, class TOut>
static int launch_gemm(rt_ctx *ctx, const rt_gemm_args *g, const void *a, const void *b)
{
	const dim3 block(GEMM_SIDE, GEMM_SIDE);
	const int total = g->outer * g->count;
	for (int z0 = 0; z0 < total; z0 += GEMM_MAX_Z) {
		const int nz = total - z0 < GEMM_MAX_Z ? total - z0 : GEMM_MAX_Z;
		const dim3 grid((unsigned)((g->n + GEMM_TILE - 1) / GEMM_TILE),
				(unsigned)((g->m + GEMM_TILE - 1) / GEMM_TILE), (unsigned)nz);
		gpu_launch(ctx, grid, block, k_gemm<TIn, A, TOut>, g->transa, g->transb, g->m, g->n,
			   g->k, (A)g->alpha, (const TIn *)a, g->lda, g->sa, g->oa, (const TIn *)b,
			   g->ldb, g->sb, g->ob, (A)g->beta, (TOut *)g->c, g->ldc, g->sc, g->oc,
			   g->count, z0);
		int rc = gpu_launched(ctx, "gemm");
		if (rc)
			return rc;
	}
	return 0;
}

/* The own kernel on g, whose A and B are at a and b (16-bit copies for bf16/fp16). */
static int tiled_gemm(rt_ctx *ctx, const rt_gemm_args *g, const void *a, const void *b)
{
	switch (g->prec) {
	case RT_FP64:
		return launch_gemm<double, double, double>(ctx, g, a, b);
	case RT_FP32:
	case RT_TF32:
		return launch_gemm<float, float, float>(ctx, g, a, b);
	case RT_BF16:
		return launch_gemm<gpu_bf16_t, float, float>(ctx, g, a, b);
	case RT_FP16:
		return launch_gemm<gpu_fp16_t, float, float>(ctx, g, a, b);
	default:
		return rt_abi_fail(ctx->err, sizeof ctx->err, RT_EUNAVAIL, "gemm: precision %d",
		                   g->prec);
	}
}

#endif
