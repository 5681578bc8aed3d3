/*
 * A fake librocblas for tests/test_gpu_host.c: the entry points the HIP
 * plugin calls (workloads/gpu/rocblas_api.h), computing on host memory with
 * the column-major model of tests/colmajor_model.h (fp32, fp64 and bf16
 * inputs; fp16 is "not implemented", as a rocBLAS without it would say).
 * rocblas_gemm_batched_ex takes arrays of pointers, here host pointers.
 * It records its calls in fake_rocblas_log, and returns fake_rocblas_status
 * instead of computing when that is set; the test reaches both with dlsym.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../colmajor_model.h"

enum { SUCCESS = 0, NOT_IMPLEMENTED = 2, INVALID_SIZE = 4, MEMORY_ERROR = 5, INVALID_VALUE = 11 };
enum { OP_N = 111, OP_T = 112, F16 = 150, F32 = 151, F64 = 152, BF16 = 168 };

/*
 * What the last GEMM call received, and how many calls there were; batched
 * is 0 for gemm_ex, 1 for the strided batch, 2 for the pointer arrays.
 */
struct fake_rocblas_call {
	int calls, batched;
	int trans_a, trans_b, m, n, k, a_type, c_type, compute_type, lda, ldb, ldc, count;
	long stride_a, stride_b, stride_c;
	void *stream;
} fake_rocblas_log;
int fake_rocblas_status;

static int handle_storage;

int rocblas_create_handle(void **h)
{
	*h = &handle_storage;
	return SUCCESS;
}

int rocblas_destroy_handle(void *h)
{
	return h == &handle_storage ? SUCCESS : INVALID_VALUE;
}

int rocblas_set_stream(void *h, void *stream)
{
	fake_rocblas_log.stream = stream;
	return h == &handle_storage ? SUCCESS : INVALID_VALUE;
}

int rocblas_get_version_string(char *buf, size_t len)
{
	strncpy(buf, "9.9.9.fake", len);
	return SUCCESS;
}

const char *rocblas_status_to_string(int s)
{
	switch (s) {
	case NOT_IMPLEMENTED:
		return "rocblas_status_not_implemented";
	case MEMORY_ERROR:
		return "rocblas_status_memory_error";
	case INVALID_SIZE:
		return "rocblas_status_invalid_size";
	default:
		return "rocblas_status_other";
	}
}

/* Element i of an array of rocblas_datatype t, as a double. */
static double load(const void *x, int t, long i)
{
	uint32_t u;
	float f;
	switch (t) {
	case F64:
		return ((const double *)x)[i];
	case F32:
		return ((const float *)x)[i];
	default: /* bf16: the upper half of an fp32 */
		u = (uint32_t)((const uint16_t *)x)[i] << 16;
		memcpy(&f, &u, sizeof f);
		return f;
	}
}

/* Elements a batch of rows x cols column-major matrices spans. */
static long extent(int rows, int cols, int ld, long stride, int count)
{
	return (count - 1) * stride + (long)(cols - 1) * ld + rows;
}

static double *widen(const void *x, int t, long n)
{
	double *d = malloc((size_t)n * sizeof *d);
	for (long i = 0; d && i < n; i++)
		d[i] = load(x, t, i);
	return d;
}

static int gemm(int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int at,
		int lda, long sa, const void *b, int bt, int ldb, long sb, const void *beta,
		const void *c, int ct, int ldc, long sc, void *d, int dt, int ldd, long sd, int count,
		int compute)
{
	struct fake_rocblas_call *l = &fake_rocblas_log;
	l->calls++;
	l->trans_a = ta, l->trans_b = tb, l->m = m, l->n = n, l->k = k, l->a_type = at;
	l->c_type = ct, l->compute_type = compute, l->lda = lda, l->ldb = ldb, l->ldc = ldc;
	l->count = count, l->stride_a = sa, l->stride_b = sb, l->stride_c = sc;
	if (fake_rocblas_status)
		return fake_rocblas_status;
	if (at != bt || ct != dt || c != d || ldc != ldd || sc != sd || (ta != OP_N && ta != OP_T) ||
	    (tb != OP_N && tb != OP_T))
		return INVALID_VALUE;
	if (at == F16)
		return NOT_IMPLEMENTED;
	double al = compute == F64 ? *(const double *)alpha : *(const float *)alpha;
	double be = compute == F64 ? *(const double *)beta : *(const float *)beta;
	long na = extent(ta == OP_T ? k : m, ta == OP_T ? m : k, lda, sa, count);
	long nb = extent(tb == OP_T ? n : k, tb == OP_T ? k : n, ldb, sb, count);
	long nc = extent(m, n, ldc, sc, count);
	double *A = widen(a, at, na), *B = widen(b, bt, nb), *C = widen(c, ct, nc);
	if (!A || !B || !C) {
		free(A), free(B), free(C);
		return MEMORY_ERROR;
	}
	colmajor_gemm_model(ta == OP_T, tb == OP_T, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc,
			    sc, count);
	for (long i = 0; i < nc; i++)
		if (ct == F64)
			((double *)d)[i] = C[i];
		else
			((float *)d)[i] = (float)C[i];
	free(A), free(B), free(C);
	return SUCCESS;
}

int rocblas_gemm_ex(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
		    int at, int lda, const void *b, int bt, int ldb, const void *beta, const void *c,
		    int ct, int ldc, void *d, int dt, int ldd, int compute, int algo, int32_t sol,
		    uint32_t flags)
{
	(void)algo, (void)sol, (void)flags;
	if (h != &handle_storage)
		return INVALID_VALUE;
	fake_rocblas_log.batched = 0;
	return gemm(ta, tb, m, n, k, alpha, a, at, lda, 0, b, bt, ldb, 0, beta, c, ct, ldc, 0, d,
		    dt, ldd, 0, 1, compute);
}

int rocblas_gemm_strided_batched_ex(void *h, int ta, int tb, int m, int n, int k,
				    const void *alpha, const void *a, int at, int lda, int64_t sa,
				    const void *b, int bt, int ldb, int64_t sb, const void *beta,
				    const void *c, int ct, int ldc, int64_t sc, void *d, int dt,
				    int ldd, int64_t sd, int count, int compute, int algo,
				    int32_t sol, uint32_t flags)
{
	(void)algo, (void)sol, (void)flags;
	if (h != &handle_storage)
		return INVALID_VALUE;
	fake_rocblas_log.batched = 1;
	return gemm(ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc, d,
		    dt, ldd, sd, count, compute);
}

/* gemm_batched_ex: each matrix of the pointer arrays as a gemm of one, D the same as C. */
int rocblas_gemm_batched_ex(void *h, int ta, int tb, int m, int n, int k, const void *alpha,
			    const void *a, int at, int lda, const void *b, int bt, int ldb,
			    const void *beta, const void *c, int ct, int ldc, void *d, int dt,
			    int ldd, int count, int compute, int algo, int32_t sol, uint32_t flags)
{
	(void)algo, (void)sol, (void)flags;
	if (h != &handle_storage)
		return INVALID_VALUE;
	void *const *pa = a, *const *pb = b, *const *pc = c, *const *pd = d;
	int rc = SUCCESS, calls = fake_rocblas_log.calls;
	for (int z = 0; z < count && rc == SUCCESS; z++)
		rc = gemm(ta, tb, m, n, k, alpha, pa[z], at, lda, 0, pb[z], bt, ldb, 0, beta, pc[z],
			  ct, ldc, 0, pd[z], dt, ldd, 0, 1, compute);
	fake_rocblas_log.calls = calls + 1;
	fake_rocblas_log.batched = 2;
	fake_rocblas_log.count = count;
	return rc;
}
