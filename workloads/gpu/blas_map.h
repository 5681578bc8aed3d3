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
 * stride unchanged (a stride counts elements in either layout).
 */
#ifndef RT_GPU_BLAS_MAP_H
#define RT_GPU_BLAS_MAP_H

#include "host_common.h"

/* One (strided-batched) GEMM in a column-major BLAS's own terms. */
typedef struct colmajor_gemm {
	int transa, transb; /* op() of the BLAS's first and second operand */
	int m, n, k;        /* the BLAS's op(A) is m x k, op(B) k x n, C m x n */
	const void *a, *b;
	void *c;
	int lda, ldb, ldc;  /* leading dimensions, column-major */
	long sa, sb, sc;    /* elements from one matrix of a batch to the next */
	int count;
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
	return c;
}

#endif
