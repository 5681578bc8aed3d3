/*
 * colmajor_model.h: what a column-major BLAS computes, written from the
 * BLAS definition and nothing else, for the tests of the GPU plugins' host
 * code (tests/test_gpu_host.c) and the fake rocBLAS (tests/fakes/rocblas.c):
 *
 *   C_z = alpha op(A_z) op(B_z) + beta C_z,  z = 0 .. count-1,
 *   X(i, j) = x[i + j * ldx] (column-major), X_z starts at x + z * stride,
 *   op(X) = X or X^T; with beta == 0, C is not read.
 *
 * The sums run over p in increasing order in double, the same order as the
 * row-major reference of the tests, so the two agree bitwise.
 */
#ifndef RT_TEST_COLMAJOR_MODEL_H
#define RT_TEST_COLMAJOR_MODEL_H

/* Element (i, j) of op(X), X column-major with leading dimension ld. */
static inline double cm_op(const double *x, int trans, int ld, int i, int j)
{
	return trans ? x[j + (long)i * ld] : x[i + (long)j * ld];
}

static inline void colmajor_gemm_model(int transa, int transb, int m, int n, int k, double alpha,
				       const double *a, int lda, long sa, const double *b, int ldb,
				       long sb, double beta, double *c, int ldc, long sc, int count)
{
	for (int z = 0; z < count; z++)
		for (int j = 0; j < n; j++)
			for (int i = 0; i < m; i++) {
				double sum = 0;
				for (int p = 0; p < k; p++)
					sum += cm_op(a + z * sa, transa, lda, i, p) *
					       cm_op(b + z * sb, transb, ldb, p, j);
				double *cij = c + z * sc + i + (long)j * ldc;
				*cij = beta == 0 ? alpha * sum : alpha * sum + beta * *cij;
			}
}

#endif
