/*
 * blas_map.h: a row-major GEMM of the backend ABI as a column-major BLAS
 * (cuBLAS, cuBLASLt, rocBLAS) takes it. Pure host code, C and C++, so that
 * tests/test_gpu_host.c checks it against a CPU model of column-major BLAS
 * for every transpose, leading dimension and strided batch.
 *
 * Why it is a swap: a row-major matrix with row stride ld, read column-major
 * with leading dimension ld, is its transpose. Row-major C = op(A) op(B)
 * (m x n) is therefore column-major C^T = op(B)^T op(A)^T (n x m): the BLAS
 * gets our B as its first operand with our transb, our A as its second with
 * our transa, n and m exchanged, and every leading dimension and batch
 * stride unchanged (a stride counts elements in either layout), the outer
 * strides of a two-level batch (gemm_batched2) too.
 */
#ifndef RT_GPU_BLAS_MAP_H
#define RT_GPU_BLAS_MAP_H

#include "host_common.h"

/* A function the kernels call too (colmajor_matrix); plain host code elsewhere. */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define RT_HOST_DEVICE __host__ __device__
#else
#define RT_HOST_DEVICE
#endif

/* One (strided-batched, or two-level batched) GEMM in a column-major BLAS's own terms. */
typedef struct colmajor_gemm {
	int transa, transb; /* op() of the BLAS's first and second operand */
	int m, n, k;        /* the BLAS's op(A) is m x k, op(B) k x n, C m x n */
	const void *a, *b;
	void *c;
	int lda, ldb, ldc;  /* leading dimensions, column-major */
	long sa, sb, sc;    /* elements from one matrix of a batch to the next */
	int count;
	int outer;          /* batches of count matrices ... */
	long oa, ob, oc;    /* ... this many elements apart (1 and 0s: one batch) */
} colmajor_gemm;

/* The column-major call that computes the row-major GEMM g (see above). */
static inline colmajor_gemm colmajor_of(const rt_gemm_args *g)
{
	colmajor_gemm c;
	c.transa = g->transb;
	c.transb = g->transa;
	c.m = g->n;
	c.n = g->m;
	c.k = g->k;
	c.a = g->b;
	c.lda = g->ldb;
	c.sa = g->sb;
	c.b = g->a;
	c.ldb = g->lda;
	c.sb = g->sa;
	c.c = g->c;
	c.ldc = g->ldc;
	c.sc = g->sc;
	c.count = g->count;
	c.outer = g->outer;
	c.oa = g->ob;
	c.ob = g->oa;
	c.oc = g->oc;
	return c;
}

/*
 * A forward linear layer u[m][n] = x[m][k] w[k][n] + bias[n] (g: the GEMM
 * x w, row-major), with a = gelu(u) where a is not NULL, as a column-major
 * BLAS's epilogue takes it (cuBLASLt's BIAS, GELU_AUX_BIAS): the call is
 * colmajor_of(g), whose D is u transposed (n x m), so the bias runs along
 * D's rows, bias_len = n of them, broadcast over its columns. With GELU, D
 * is a and the pre-activation u goes to aux, with D's leading dimension.
 */
typedef struct colmajor_linear {
	colmajor_gemm g;
	void *aux;    /* where the pre-activation goes; NULL: no GELU */
	int bias_len; /* the rows of D */
} colmajor_linear;

static inline colmajor_linear colmajor_linear_of(const rt_gemm_args *g, void *a)
{
	colmajor_linear l;
	l.g = colmajor_of(g);
	l.aux = a ? l.g.c : NULL;
	if (a)
		l.g.c = a;
	l.bias_len = l.g.m;
	return l;
}

/*
 * A two-level batch that one stride reaches (one level of one matrix, or
 * the inner batches end to end for A, B and C alike) as the strided batch
 * it is, so that it takes the strided path; any other is left as it is.
 */
static inline void rt_gemm_flatten(rt_gemm_args *g)
{
	if (g->outer == 1 || g->count == 0 || g->outer == 0)
		return;
	if (g->count == 1) {
		g->count = g->outer;
		g->sa = g->oa, g->sb = g->ob, g->sc = g->oc;
	} else if (g->oa == g->count * g->sa && g->ob == g->count * g->sb &&
		   g->oc == g->count * g->sc) {
		g->count *= g->outer;
	} else {
		return;
	}
	g->outer = 1;
	g->oa = g->ob = g->oc = 0;
}

/*
 * Where matrix z of operand q (0: A, 1: B, 2: C) of the column-major call c
 * starts, z = i * count + j for matrix (i, j) of a two-level batch, the
 * elements of A and B es_ab bytes, of C es_c: the pointer arrays of a
 * batched call (cublasGemmBatchedEx, rocblas_gemm_batched_ex) hold these.
 * One 32-bit division: the pointer kernel runs it per matrix.
 */
static inline RT_HOST_DEVICE char *colmajor_matrix(const colmajor_gemm *c, int q, int z,
						   int es_ab, int es_c)
{
	const int i = z / c->count, j = z - i * c->count;
	const char *base = q == 0 ? (const char *)c->a : q == 1 ? (const char *)c->b : (char *)c->c;
	const long outer = q == 0 ? c->oa : q == 1 ? c->ob : c->oc;
	const long inner = q == 0 ? c->sa : q == 1 ? c->sb : c->sc;
	return (char *)base + (i * outer + j * inner) * (q == 2 ? es_c : es_ab);
}

#endif
