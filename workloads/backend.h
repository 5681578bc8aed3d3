/*
 * backend.h: the backend plugin ABI.
 *
 * A backend is a table of operations (rt_backend_ops). The CPU backend is
 * linked into the binary; GPU backends live in librigtune_<name>.so and export
 * one symbol, RT_BACKEND_SYMBOL, a function returning their table. The loader
 * (loader.c) checks `abi` before it touches anything else in the table.
 *
 * Memory model: buffers are opaque device pointers from alloc(); the host
 * moves data with upload()/download(). On the CPU backend they are plain host
 * pointers. Every kernel is asynchronous with respect to the host on a GPU
 * (one stream per context); synchronize() waits, and download() synchronizes.
 *
 * Data types: tensors are stored as fp32 (RT_F32) or fp64 (RT_F64). The GEMM
 * precision is a separate choice (rt_precision): fp32 data may be multiplied
 * in tf32, bf16 or fp16 (inputs rounded, fp32 accumulation), fp64 data only
 * in fp64. A backend advertises which it offers per device.
 *
 * Layout: every matrix is row-major. gemm computes
 *     C = alpha * op(A) * op(B) + beta * C
 * with op(A) m x k, op(B) k x n, C m x n, lda/ldb/ldc the row strides of the
 * stored (untransposed) matrices, like cblas_?gemm with CblasRowMajor.
 *
 * Return values: 0 or a negative RT_E* code (common/rt.h); functions that
 * take (err, errlen) also describe the failure there.
 */
#ifndef RT_BACKEND_H
#define RT_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../common/rt.h"

/* Bump on any change to rt_backend_ops or the types it uses. */
#define RT_BACKEND_ABI 7
#define RT_BACKEND_SYMBOL "rigtune_backend"

/*
 * The one backend linked into the binary, which computes on the host's
 * CPUs and memory (its table says host); every plugin is a device.
 */
#define RT_HOST_BACKEND "cpu"
/* Whether the backend called name is the host's: what code outside workloads/ asks, by name. */
static inline int rt_backend_on_host(const char *name)
{
	return strcmp(name, RT_HOST_BACKEND) == 0;
}

typedef enum rt_dtype { RT_F32 = 0, RT_F64 = 1 } rt_dtype;

typedef enum rt_precision {
	RT_FP64 = 0,
	RT_FP32,
	RT_TF32,
	RT_BF16,
	RT_FP16,
	RT_NPRECISION
} rt_precision;

#define RT_PREC_BIT(p) (1u << (p))

/* "fp64", "fp32", ...; rt_precision_parse returns -1 for an unknown name. */
const char *rt_precision_name(rt_precision p);
int rt_precision_parse(const char *name);
/* The storage type a precision computes on (fp64 -> RT_F64, others RT_F32). */
rt_dtype rt_precision_dtype(rt_precision p);
size_t rt_dtype_size(rt_dtype t);

typedef struct rt_device_info {
	char name[128];
	char driver[64];       /* driver / runtime version, "" if unknown */
	uint64_t mem_total;    /* bytes */
	uint64_t mem_free;     /* bytes, at probe time */
	int compute_units;     /* SMs, CUs or cores */
	unsigned precisions;   /* RT_PREC_BIT mask of GEMM precisions offered */
	int unified_memory;    /* 1 when host and device share memory */
	/*
	 * What its GEMMs run on: "cublas 13.0.2, cublasLt for bf16/fp16 where
	 * measured faster", "rocblas 4.4.0", "own-tiled, rocBLAS not found (...):
	 * the crossover understates this GPU", "OpenBLAS 0.3.21 Haswell".
	 */
	char gemm_impl[160];
	char monitor[16];      /* its utilization monitor: "nvml", "rocm_smi"; "" none */
} rt_device_info;

typedef struct rt_ctx rt_ctx; /* opaque, one per open device */

/*
 * A two-level batch of GEMMs (gemm_batched2): outer x inner matrices, the
 * strides in elements, none negative. Attention's heads are the outer
 * level (a head's columns start dh further along a row), its sequences the
 * inner one (T rows further): no single stride reaches them all.
 */
typedef struct rt_batch2 {
	int outer, inner;
	long a_outer, a_inner;
	long b_outer, b_inner;
	long c_outer, c_inner;
} rt_batch2;

typedef struct rt_backend_ops {
	unsigned abi;      /* RT_BACKEND_ABI of the build that made this table */
	const char *name;  /* "cpu", "cuda", "hip" */
	/*
	 * The environment variable that shows a process only some of this
	 * backend's devices ("CUDA_VISIBLE_DEVICES"); NULL when it has none (the
	 * CPU). `tune --cmd`'s device knob sets it (BACKEND:N shows device N
	 * alone, cpu hides every backend's), so a plugin from outside the tree
	 * needs no line anywhere else.
	 */
	const char *visible_devices;
	/*
	 * 1 when it computes on the host's own CPUs and memory (the CPU backend,
	 * RT_HOST_BACKEND): its threads are the point's, its memory the
	 * machine's. A plugin is a device: 0 (the loader refuses one that says 1).
	 */
	int host;
	/*
	 * The ML frameworks' name for its devices, which a hint or a user's
	 * command is given: "cpu", "cuda" (PyTorch's for CUDA and for ROCm),
	 * "mps". NULL: the frameworks have none (a test backend).
	 */
	const char *framework_device;

	/*
	 * Loads the vendor runtime and counts devices. Returns the device count
	 * (>= 0), or RT_EUNAVAIL with the reason in err ("libcudart.so.13: not
	 * found", "no CUDA device"). Zero devices is RT_EUNAVAIL, not an error.
	 */
	int (*init)(char *err, size_t errlen);
	int (*device_info)(int dev, rt_device_info *info);

	/*
	 * Opens a device for one measurement. threads is the host thread budget
	 * for this backend's own host work (the CPU backend's BLAS and kernels
	 * together never use more).
	 */
	int (*open)(int dev, int threads, rt_ctx **ctx, char *err, size_t errlen);
	void (*close)(rt_ctx *ctx);

	int (*alloc)(rt_ctx *ctx, size_t bytes, void **ptr);
	void (*free)(rt_ctx *ctx, void *ptr);
	int (*upload)(rt_ctx *ctx, void *dst, const void *src, size_t bytes);
	int (*download)(rt_ctx *ctx, void *dst, const void *src, size_t bytes);
	int (*synchronize)(rt_ctx *ctx);
	/* Device memory in bytes (total, free now). */
	int (*mem_info)(rt_ctx *ctx, uint64_t *total, uint64_t *free_bytes);

	/* C = alpha op(A) op(B) + beta C; RT_EUNAVAIL if prec is not offered. */
	int (*gemm)(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb,
		    int m, int n, int k, double alpha, const void *a, int lda,
		    const void *b, int ldb, double beta, void *c, int ldc);
	/*
	 * count independent GEMMs of one shape; matrix i starts at
	 * a + i*stride_a (elements), likewise b and c. Used by attention.
	 */
	int (*gemm_batched)(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa,
			    int transb, int m, int n, int k, double alpha,
			    const void *a, int lda, long stride_a, const void *b, int ldb,
			    long stride_b, double beta, void *c, int ldc, long stride_c,
			    int count);

	/*
	 * Optional: outer x inner GEMMs of one shape (rt_batch2), all in one
	 * call, as attention's heads x sequences: matrix (i, j) of A starts at
	 * a + i*a_outer + j*a_inner elements, likewise B and C. The results are
	 * those of gemm_batched over j for each i in turn. NULL: the workload
	 * makes those outer gemm_batched calls itself.
	 */
	int (*gemm_batched2)(rt_ctx *ctx, rt_dtype t, rt_precision prec, int transa, int transb,
			     int m, int n, int k, double alpha, const void *a, int lda,
			     const void *b, int ldb, double beta, void *c, int ldc,
			     const rt_batch2 *batch);

	/*
	 * Elementwise kernels: n elements or rows x cols row-major tensors, all
	 * of dtype t. See workloads/kernels.h for their exact mathematics; the
	 * CPU implementation there is the reference the GPU plugins are checked
	 * against (tests/gpu_check.sh).
	 */
	int (*fill)(rt_ctx *ctx, rt_dtype t, void *x, size_t n, double value);
	/* y = a*x + b*y */
	int (*axpby)(rt_ctx *ctx, rt_dtype t, size_t n, double a, const void *x,
		     double b, void *y);
	/* y[r][c] += bias[c] */
	int (*add_bias)(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias,
			void *y);
	/* db[c] = sum_r dy[r][c] (overwrites db) */
	int (*sum_rows)(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *dy,
			void *db);
	/* y = gelu(x) (tanh form); dx = dy * gelu'(x) */
	int (*gelu)(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y);
	int (*gelu_backward)(rt_ctx *ctx, rt_dtype t, size_t n, const void *x,
			     const void *dy, void *dx);
	/* tanh and its backward from y = tanh(x): dx = dy * (1 - y^2) */
	int (*tanh_fwd)(rt_ctx *ctx, rt_dtype t, size_t n, const void *x, void *y);
	int (*tanh_backward)(rt_ctx *ctx, rt_dtype t, size_t n, const void *y,
			     const void *dy, void *dx);
	/*
	 * Row softmax of scale*x, with an optional causal mask: in row r of each
	 * block of `block` rows, columns c > r % block are -inf (block = 0: none).
	 */
	int (*softmax)(rt_ctx *ctx, rt_dtype t, int rows, int cols, double scale,
		       int causal_block, const void *x, void *y);
	/* dx = scale * y * (dy - sum(dy*y)) row-wise, y the softmax output */
	int (*softmax_backward)(rt_ctx *ctx, rt_dtype t, int rows, int cols,
				double scale, const void *y, const void *dy, void *dx);
	/*
	 * y = (x - mean) * rstd * gamma + beta per row; saves mean and rstd
	 * (rows values each) for the backward pass, which writes dx and
	 * accumulates dgamma, dbeta (+=).
	 */
	int (*layernorm)(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *x,
			 const void *gamma, const void *beta, void *y, void *mean,
			 void *rstd);
	int (*layernorm_backward)(rt_ctx *ctx, rt_dtype t, int rows, int cols,
				  const void *x, const void *gamma, const void *mean,
				  const void *rstd, const void *dy, void *dx,
				  void *dgamma, void *dbeta);
	/*
	 * Mean squared error over n elements: loss (one value, device memory)
	 * = sum((p - target)^2) / n, and dp = 2 (p - target) / n.
	 */
	int (*mse_loss)(rt_ctx *ctx, rt_dtype t, size_t n, const void *p,
			const void *target, void *loss, void *dp);
	/*
	 * One Adam step (bias-corrected, step >= 1) over n parameters:
	 * m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
	 * w -= lr * (m / (1-b1^step)) / (sqrt(v / (1-b2^step)) + eps)
	 */
	int (*adam)(rt_ctx *ctx, rt_dtype t, size_t n, void *w, const void *g,
		    void *m, void *v, double lr, double b1, double b2, double eps,
		    int step);

	/*
	 * Optional: the device's utilization as its vendor's monitor (NVML,
	 * rocm_smi) samples it at its own rate: the mean busy fraction, in
	 * [0, 1], of the samples taken since the previous call. The first call
	 * opens the monitor and starts the window. RT_EUNAVAIL, with the reason
	 * in last_error(), when there is no monitor or no sample in the window.
	 */
	int (*utilization)(rt_ctx *ctx, double *busy);
	/*
	 * The sentence describing the last failure of an operation on ctx that
	 * has no err buffer ("cublasGemmEx: CUBLAS_STATUS_NOT_SUPPORTED"), or
	 * "" if none failed; with ctx NULL, the last failure of device_info().
	 * Optional (NULL): the CPU backend has nothing to add.
	 */
	const char *(*last_error)(rt_ctx *ctx);

	/*
	 * Optional: what a GEMM of precision p runs on in ctx now, in the words
	 * of rt_device_info.gemm_impl; it differs from them when the vendor's
	 * library declined p and the backend fell back ("own-tiled, rocblas
	 * 4.4.0 declined fp16: ..."). NULL: device_info()'s gemm_impl.
	 */
	const char *(*gemm_impl)(rt_ctx *ctx, rt_precision p);
	/*
	 * Optional: the device's own busy time. device_time(ctx, 1, &s) starts
	 * recording an event right before and right after every kernel, GEMM
	 * and copy enqueued on ctx; device_time(ctx, 0, &s) stops. Either waits
	 * for what was recorded and sets *s to the device seconds spent inside
	 * those pairs since the previous call.
	 */
	int (*device_time)(rt_ctx *ctx, int on, double *busy_s);
	/*
	 * Optional: phases timed on the device, so that a workload need not
	 * wait for the device at every change of phase (no framework does).
	 * phase_mark(ctx, ph, NULL, 0) with 0 <= ph < RT_PHASE_MARKS_MAX
	 * enqueues a mark on ctx's stream and returns at once: the device time
	 * from that mark to the next one is charged to phase ph.
	 * phase_mark(ctx, RT_PHASE_END, seconds, n) enqueues the closing mark,
	 * waits for the device to reach it, adds each phase's device seconds
	 * since the previous closing mark into seconds[ph] (ph < n) and forgets
	 * the marks. NULL (the CPU): the workload synchronizes at every change
	 * of phase and reads the host's clock.
	 */
	int (*phase_mark)(rt_ctx *ctx, int phase, double *seconds, int n);
	/*
	 * Optional: u[r][c] += bias[c], then a = gelu(u) (u keeps the biased
	 * value, which the backward pass reads), in one pass as frameworks fuse
	 * them; the same results as add_bias then gelu. NULL: those two.
	 */
	int (*bias_gelu)(rt_ctx *ctx, rt_dtype t, int rows, int cols, const void *bias, void *u,
			 void *a);
	/*
	 * Optional, together: uploads that overlap the kernels, as a DataLoader
	 * with pinned memory overlaps them. host_alloc() gives host memory the
	 * device copies from at full speed (page-locked); host_free() frees it.
	 * upload_async() enqueues a copy from such memory on a stream of its own
	 * and returns at once: it runs beside the kernels enqueued on ctx, which
	 * must not touch dst until it is done, and neither may the host touch
	 * src. synchronize() and phase_mark()'s closing mark wait for it too.
	 * NULL: upload() from ordinary memory, which waits.
	 */
	int (*host_alloc)(rt_ctx *ctx, size_t bytes, void **ptr);
	void (*host_free)(rt_ctx *ctx, void *ptr);
	int (*upload_async)(rt_ctx *ctx, void *dst, const void *src, size_t bytes);
	/*
	 * Optional: a forward linear layer in one call, as a BLAS's epilogues
	 * fuse it (cuBLASLt's bias and bias+GELU): u[m][n] = x[m][k] w[k][n] +
	 * bias[n] (all row-major, rows tight), and where a is not NULL also
	 * a = gelu(u), u keeping the biased value the backward pass reads. The
	 * results of gemm, then add_bias (and gelu), to the GEMM precision's
	 * rounding; a backend whose library declines a shape runs those
	 * itself. NULL: the workload makes those calls.
	 */
	int (*linear_fwd)(rt_ctx *ctx, rt_dtype t, rt_precision prec, int m, int n, int k,
			  const void *x, const void *w, const void *bias, void *u, void *a);
} rt_backend_ops;

/* The phases phase_mark() tells apart, and the mark that closes a step's. */
#define RT_PHASE_MARKS_MAX 16
#define RT_PHASE_END (-1)

/*
 * RT_EUNAVAIL ("cuda device 0 does not offer bf16 GEMMs") unless device dev
 * of be offers GEMMs in precision p; the device query's failure otherwise.
 */
int rt_backend_require_precision(const rt_backend_ops *be, int dev, rt_precision p, char *err,
				 size_t errlen);

/*
 * Opens device dev of be for one workload run, checked the same way for
 * every workload: the device offers GEMMs in precision p (RT_EUNAVAIL
 * otherwise), open() with the host thread budget succeeds, the device says
 * how much memory is free (a failed query is that query's error: a point
 * cannot be said to fit), and `need` bytes fit in it (RT_EINFEASIBLE "needs
 * N GiB, M GiB available" otherwise). On any failure nothing stays open and
 * *ctx is NULL.
 */
int rt_backend_open_checked(const rt_backend_ops *be, int dev, int threads, rt_precision p,
			    uint64_t need, rt_ctx **ctx, char *err, size_t errlen);

/*
 * The backend's own words on its last failure ("cublasGemmEx:
 * CUBLAS_STATUS_NOT_SUPPORTED"), "" when it keeps none: for messages.
 */
const char *rt_backend_why(const rt_backend_ops *be, rt_ctx *ctx);

/* The one function a plugin exports under RT_BACKEND_SYMBOL. */
typedef const rt_backend_ops *(*rt_backend_entry_fn)(void);

#endif
