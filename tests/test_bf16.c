/*
 * The CPU backend's bf16 path, which Debian's OpenBLAS (no cblas_sbgemm)
 * never takes: this binary exports its own plain cblas_sbgemm (linked with
 * -rdynamic, so the backend's dlsym finds it), and the backend's rounding to
 * bf16 and packing are checked against a reference that rounds to nearest
 * even by the definition.
 */
#include <cblas.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../common/rng.h"
#include "../workloads/cpu_backend.h"

static int calls;

static float from_bf16(bfloat16 h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* A plain row/column-major bf16 GEMM with fp32 accumulation, as OpenBLAS documents it. */
void cblas_sbgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb,
		  blasint m, blasint n, blasint k, float alpha, const bfloat16 *a, blasint lda,
		  const bfloat16 *b, blasint ldb, float beta, float *c, blasint ldc)
{
	calls++;
	assert_int_equal(order, CblasRowMajor);
	for (blasint i = 0; i < m; i++)
		for (blasint j = 0; j < n; j++) {
			float s = 0;
			for (blasint p = 0; p < k; p++) {
				float x = from_bf16(ta == CblasNoTrans ? a[i * lda + p] : a[p * lda + i]);
				float y = from_bf16(tb == CblasNoTrans ? b[p * ldb + j] : b[j * ldb + p]);
				s += x * y;
			}
			c[i * ldc + j] = alpha * s + (beta != 0 ? beta * c[i * ldc + j] : 0);
		}
}

/* Round to nearest, ties to even, by the definition: the reference. */
static double round_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	uint32_t low = u & 0xffff, keep = u >> 16;
	if (low > 0x8000 || (low == 0x8000 && (keep & 1)))
		keep++;
	return from_bf16((bfloat16)keep);
}

static void test_bf16_offered_and_rounded(void **state)
{
	(void)state;
	enum { M = 7, N = 13, K = 5 };
	const rt_backend_ops *be = rt_cpu_backend();
	rt_device_info info;
	assert_int_equal(be->device_info(0, &info), 0);
	assert_true(info.precisions & RT_PREC_BIT(RT_BF16));
	rt_ctx *ctx;
	assert_int_equal(be->open(0, 1, &ctx, NULL, 0), 0);

	rt_rng r;
	rt_rng_seed(&r, 5);
	float a[M * K], b[N * K], c[M * N];
	for (int i = 0; i < M * K; i++)
		a[i] = (float)rt_rng_normal(&r);
	for (int i = 0; i < N * K; i++)
		b[i] = (float)rt_rng_normal(&r);
	a[0] = 1.0f + 0x1p-8f;  /* a tie: rounds down to even 1.0 */
	a[1] = 1.0f + 0x3p-8f;  /* a tie: rounds up to even 1 + 2^-6 */
	for (int i = 0; i < M * N; i++)
		c[i] = 1.0f;
	void *da, *db, *dc;
	assert_int_equal(be->alloc(ctx, sizeof a, &da), 0);
	assert_int_equal(be->alloc(ctx, sizeof b, &db), 0);
	assert_int_equal(be->alloc(ctx, sizeof c, &dc), 0);
	be->upload(ctx, da, a, sizeof a);
	be->upload(ctx, db, b, sizeof b);
	be->upload(ctx, dc, c, sizeof c);
	/* C = 2 A B^T + 0.5 C, B stored n x k (transposed) */
	calls = 0;
	assert_int_equal(be->gemm(ctx, RT_F32, RT_BF16, 0, 1, M, N, K, 2.0, da, K, db, K, 0.5, dc, N), 0);
	assert_int_equal(calls, 1);
	float got[M * N];
	be->download(ctx, got, dc, sizeof got);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int p = 0; p < K; p++)
				s += round_bf16(a[i * K + p]) * round_bf16(b[j * K + p]);
			double want = 2 * s + 0.5;
			assert_float_equal(got[i * N + j], want, 1e-5 * (1 + fabs(want)));
		}
	be->free(ctx, da);
	be->free(ctx, db);
	be->free(ctx, dc);
	be->close(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bf16_offered_and_rounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
