/* hints.c: framework hints that follow each framework's threading model (hints.h). */
#include "hints.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../common/platform.h"
#include "../common/rt.h"
#include "../workloads/loader.h"

/* Lines a workload may add (its data loading, its environments). */
#define WORKLOAD_LINES 3

/*
 * How a PyTorch build's BLAS threads (frameworks.h: blas_threading), and
 * what that makes of a point's threads: the intra-op pool's size and the
 * BLAS's, as all of them (1) or one (0). A CPU bf16 point's matmuls do not
 * run on the BLAS at all: under torch.autocast('cpu', dtype=torch.bfloat16)
 * PyTorch sends them to oneDNN (mkldnn), which runs in its intra-op OpenMP
 * pool, so a build whose BLAS has a pool of its own gives the threads to
 * the intra-op pool there (rows with cpu_bf16 are tried first for such a
 * point). Measured with Debian's PyTorch 1.13 on 2 cores with avx512_bf16
 * (bench/bench_torch): bf16 with intra-op 2 and OpenBLAS 1 ran 1.7x bf16
 * with intra-op 1 and OpenBLAS 2.
 */
typedef struct pool_rule {
	const char *threading; /* NULL: PyTorch not probed */
	int cpu_bf16;          /* 1: only for a CPU bf16 point */
	int intra_all, blas_all;
	int blas_own_pool;     /* the BLAS sizes a pool of its own (blas_pool_var) */
	int proven;            /* a build the tests install threads so (tests/framework_hints.py) */
	const char *why;
} pool_rule;

static const pool_rule pool_rules[] = {
	{"pthreads", 1, 1, 0, 1, 1,
	 "bf16 matmuls run in oneDNN under autocast, in PyTorch's intra-op pool: that pool gets "
	 "the threads, the BLAS's own pthread pool 1 (both at the core count fight over the "
	 "cores)"},
	{"pthreads", 0, 0, 1, 1, 1,
	 "its BLAS runs a pthread pool of its own: the BLAS pool gets the threads, the "
	 "intra-op pool 1 (both at the core count fight over the cores)"},
	{"openmp", 0, 1, 1, 0, 1, "its BLAS runs in PyTorch's OpenMP pool: set_num_threads sizes both"},
	{"tbb", 0, 1, 1, 0, 0,
	 "its BLAS (MKL on TBB) follows the intra-op setting; no build the tests install threads "
	 "so"},
	{"accelerate", 0, 1, 1, 1, 0,
	 "PyPI's macOS wheels run the intra-op pool on the libomp they bundle (set_num_threads "
	 "sizes it, as on Linux's pip build) and the matmuls in Accelerate's own pool, which "
	 "VECLIB_MAXIMUM_THREADS sizes: the two take turns op by op, so each gets the threads"},
	{"serial", 0, 1, 0, 0, 0,
	 "its BLAS is single-threaded: only the intra-op pool runs in parallel; no build the "
	 "tests install threads so"},
	{NULL, 0, 1, 1, 0, 0,
	 "lines for a build whose BLAS shares PyTorch's OpenMP pool (pip and conda: MKL); one "
	 "whose BLAS has a pthread pool of its own (Debian's python3-torch) wants "
	 "torch.set_num_threads(1) with OPENBLAS_NUM_THREADS at the threads"},
};

/*
 * SB3's PPO step beside its policy's GEMMs, counted from stable-baselines3
 * 2.x (collect_rollouts, PPO.train) with PyTorch's foreach Adam: a vector
 * step copies the observations in and the actions, values and log
 * probabilities out, and runs the activations and the Gaussian's sampling
 * and log-probability; a minibatch copies its six arrays in, waits twice
 * for its statistics (.item(), .cpu()), and runs the forward's and the
 * backward's elementwise kernels, the losses, the gradients' clipping and
 * Adam.
 */
static const rt_fw_step_kernels sb3_ppo_step = {
	.rollout_kernels = 12, .rollout_copies = 4, .update_kernels = 80, .update_copies = 8};

/*
 * A hand-written PyTorch PPO step, counted from CleanRL's
 * ppo_continuous_action.py (the reference such loop, whose Agent has SB3's
 * MlpPolicy's shape). SB3's counts do not carry over: SB3 keeps its rollout
 * in NumPy on the host, CleanRL in tensors on the device. fwdevice.h's
 * model does: what it leaves out, Python's cost per op, a plain loop pays
 * on either device as SB3 does. A vector step copies the observations,
 * rewards and dones in and the actions out, and runs the four activations,
 * the Gaussian's std, sampling (3), log-probability (10) and entropy (3)
 * and six stores into the device's buffers: 27 kernels; a minibatch
 * gathers eight slices of those buffers with NumPy indices (8 kernels,
 * each index copied in), waits once (.item()), and runs the forward's
 * elementwise kernels (18), the losses and statistics (40), their
 * backward (about 75), the gradients' clipping (7) and foreach Adam
 * (about 10): 158.
 */
static const rt_fw_step_kernels torch_ppo_step = {
	.rollout_kernels = 27, .rollout_copies = 4, .update_kernels = 158, .update_copies = 9};

/* A library that runs a workload's policy per env step: its step, and its line's words unmeasured. */
typedef struct policy_lib {
	rt_hint_lib lib;
	const rt_fw_step_kernels *step;
	const char *unmeasured;
} policy_lib;

static const policy_lib sb3_policy = {RT_HINT_SB3, &sb3_ppo_step,
				      "SB3's advice for an MlpPolicy; not measured here"};
static const policy_lib torch_policy = {RT_HINT_PYTORCH, &torch_ppo_step,
					"the CPU for an MLP policy, as SB3 advises; not "
					"measured here"};

/*
 * The device a library's lines name for its policy, with a short why for
 * a line and a sentence for its block (after the device as the library
 * spells it).
 */
typedef struct library_device {
	char device[24];
	int on_host;
	char short_why[72];
	char why[560];
} library_device;

/*
 * The one place that decides the device of a policy run per env step
 * (fwdevice.h), for SB3's line and a PyTorch loop's alike: at a device
 * point, from the crossover's fits dev of its device against the host;
 * unmeasured (dev NULL or another backend's), SB3's documented advice for
 * an MlpPolicy: the CPU. 0 where the lines keep the point's device (a CPU
 * point, a workload without a policy for lib).
 */
static int policy_device(const policy_lib *lib, const rt_workload *w, const rt_point *pt,
			 const rt_shape *sh, const rt_hint_cost *cost,
			 const rt_fw_device_fits *dev, library_device *out)
{
	rt_policy p;
	char device[24];
	memset(out, 0, sizeof *out);
	if (rt_backend_on_host(pt->backend) || !w->policy ||
	    !w->policy(lib->lib, pt, sh, cost, &p))
		return 0;
	rt_backend_framework_device(pt->backend, device, sizeof device);
	if (!dev || strcmp(dev->backend, pt->backend)) {
		rt_backend_framework_device(RT_HOST_BACKEND, out->device, sizeof out->device);
		out->on_host = 1;
		snprintf(out->short_why, sizeof out->short_why, "%s", lib->unmeasured);
		snprintf(out->why, sizeof out->why,
			 "not measured here (no crossover was fitted: --no-crossover or too short "
			 "a budget), so SB3's own advice: PPO with an MlpPolicy runs faster on the "
			 "CPU, '%s' pays off with a CNN policy or large minibatches", device);
		return 1;
	}
	rt_fw_device_choice c;
	rt_fw_device_choose(dev, &p, lib->step, &c);
	out->on_host = !c.device_faster;
	if (out->on_host)
		rt_backend_framework_device(RT_HOST_BACKEND, out->device, sizeof out->device);
	else
		snprintf(out->device, sizeof out->device, "%s", device);
	snprintf(out->short_why, sizeof out->short_why, "%.3g us an env-step here, %.3g on %s",
		 1e6 * fmin(c.host_s, c.device_s), 1e6 * fmax(c.host_s, c.device_s),
		 c.device_faster ? "the CPU" : device);
	rt_fw_device_why(&c, &p, device, out->why, sizeof out->why);
	return 1;
}

/*
 * Where PyTorch's lines put the work: the device as PyTorch names it,
 * whether it is the host, the precision there, and the policy's device
 * where the workload runs one (else NULL). A device point whose policy
 * runs on the CPU takes fp32 for the GPU's tf32 and fp16 (the CPU backend
 * offers neither, and CPU autocast takes bf16 alone).
 */
typedef struct torch_target {
	char device[24];
	int on_host;
	rt_precision precision;
	const library_device *policy;
} torch_target;

static torch_target torch_target_of(const rt_point *pt, const library_device *policy)
{
	torch_target t = {.on_host = rt_backend_on_host(pt->backend),
			  .precision = pt->precision,
			  .policy = policy};
	if (policy) {
		snprintf(t.device, sizeof t.device, "%s", policy->device);
		t.on_host = policy->on_host;
	} else {
		rt_backend_framework_device(pt->backend, t.device, sizeof t.device);
	}
	if (t.on_host && (t.precision == RT_TF32 || t.precision == RT_FP16))
		t.precision = RT_FP32;
	return t;
}

/* The probed framework id of f, NULL where it was not probed or is not installed. */
static const rt_framework *installed(const rt_frameworks *f, rt_fw_id id)
{
	return f && f->probed && f->fw[id].installed ? &f->fw[id] : NULL;
}

static const pool_rule *rule_for(const rt_frameworks *f, const torch_target *t)
{
	const rt_framework *pt = installed(f, RT_FW_PYTORCH);
	const char *threading = pt ? rt_framework_get(pt, "blas_threading") : NULL;
	int cpu_bf16 = t->precision == RT_BF16 && t->on_host;
	size_t i = 0;
	for (; i + 1 < RT_COUNT(pool_rules); i++)
		if (threading && !strcmp(threading, pool_rules[i].threading) &&
		    (cpu_bf16 || !pool_rules[i].cpu_bf16))
			break;
	return &pool_rules[i];
}

static void add_line(rt_hint_block *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_line(rt_hint_block *b, const char *fmt, ...)
{
	va_list ap;
	if (b->n == RT_HINTS_MAX_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(b->line[b->n++], RT_HINT_LEN, fmt, ap);
	va_end(ap);
}

/*
 * Lines that need what the machines the tests run on lack (a GPU, Apple's
 * Accelerate): tests/framework_hints.py can only skip them, so they are
 * marked untested and name the documented setting alone. They are those
 * that name a device point's device as the frameworks quote it ('cuda',
 * 'mps': PyTorch's device and autocast, SB3's device=), and these.
 */
static const char *const untestable[] = {
	"to jnp.float16",         /* JAX's fp16, an accelerator's precision */
	"VECLIB_MAXIMUM_THREADS", /* Accelerate, macOS's BLAS */
	"taskpolicy -b",          /* macOS's background band */
};

static void mark_untestable(rt_hint_block *b, const rt_point *pt)
{
	char device[24], quoted[32] = "";
	if (!rt_backend_on_host(pt->backend)) {
		rt_backend_framework_device(pt->backend, device, sizeof device);
		snprintf(quoted, sizeof quoted, "'%s'", device);
	}
	for (int i = 0; i < b->n; i++) {
		b->line_untested[i] = quoted[0] && strstr(b->line[i], quoted);
		for (size_t k = 0; k < RT_COUNT(untestable); k++)
			b->line_untested[i] |= strstr(b->line[i], untestable[k]) != NULL;
	}
}

static void add_env(rt_hints *h, const char *name, int value)
{
	if (h->nenv == RT_HINTS_MAX_ENV)
		return;
	snprintf(h->env_name[h->nenv], sizeof h->env_name[0], "%s", name);
	snprintf(h->env_value[h->nenv], sizeof h->env_value[0], "%d", value);
	h->nenv++;
}

/*
 * The pools' sizes in the environment, read when the libraries load:
 * PyTorch's intra-op pool from MKL_NUM_THREADS (which it reads first) or
 * OMP_NUM_THREADS, OpenBLAS's from OPENBLAS_NUM_THREADS, Accelerate's from
 * VECLIB_MAXIMUM_THREADS.
 */
static void thread_env(rt_hints *h, int intra, int blas, int threads)
{
	add_env(h, "OMP_NUM_THREADS", intra);
	add_env(h, "MKL_NUM_THREADS", intra);
	add_env(h, "OPENBLAS_NUM_THREADS", blas);
	add_env(h, "VECLIB_MAXIMUM_THREADS", blas);
	add_env(h, "NUMEXPR_NUM_THREADS", threads);
}

/* What the workload says lib must be told (its data loading, its environments). */
static void workload_lines(rt_hint_block *b, rt_hint_lib lib, const rt_workload *w,
			   const rt_point *pt, const rt_shape *sh, const rt_hint_cost *cost)
{
	char own[WORKLOAD_LINES][RT_HINT_LEN];
	int n = w->hints ? w->hints(lib, pt, sh, cost, own, WORKLOAD_LINES) : 0;
	for (int i = 0; i < n && i < WORKLOAD_LINES; i++)
		add_line(b, "%s", own[i]);
}

/* Why framework id has no probe's answer here, with how to get one. */
static const char *not_found(const rt_frameworks *f, rt_fw_id id)
{
	static char why[200];
	const char *note = f && f->probed && f->fw[id].note[0] ? f->fw[id].note : "not probed";
	snprintf(why, sizeof why, "%.120s for this Python (tune --python PATH probes another)",
		 note);
	return why;
}

/*
 * The variable a BLAS with a pool of its own sizes it from when it loads:
 * Accelerate (macOS's; PyTorch's macOS wheels use it) reads
 * VECLIB_MAXIMUM_THREADS, OpenBLAS OPENBLAS_NUM_THREADS.
 */
static const char *blas_pool_var(const rt_frameworks *f)
{
	const rt_framework *pt = installed(f, RT_FW_PYTORCH);
	const char *blas = pt ? rt_framework_get(pt, "blas") : NULL;
	int accelerate = blas && !strcmp(blas, "accelerate");
	return accelerate ? "VECLIB_MAXIMUM_THREADS" : "OPENBLAS_NUM_THREADS";
}

static void pytorch_about(rt_hint_block *b, const rt_frameworks *f, const pool_rule *r)
{
	if (!r->threading) { /* f may be NULL: no probe */
		snprintf(b->about, sizeof b->about, "PyTorch: %s: %s", not_found(f, RT_FW_PYTORCH),
			 r->why);
		return;
	}
	const rt_framework *pt = &f->fw[RT_FW_PYTORCH];
	const char *v = rt_framework_get(pt, "version"), *blas = rt_framework_get(pt, "blas");
	const char *bv = rt_framework_get(pt, "blas_version");
	int veclib = r->blas_own_pool && !strcmp(blas_pool_var(f), "VECLIB_MAXIMUM_THREADS");
	snprintf(b->about, sizeof b->about, "PyTorch %s with %s %s (%s): %s%s", v ? v : "?",
		 blas ? blas : "?", bv ? bv : "", r->threading, r->why,
		 veclib ? "; Accelerate sizes that pool from VECLIB_MAXIMUM_THREADS (untested: "
			  "the tests run on Linux, which has no Accelerate)" : "");
}

/*
 * What a device's autocast needs beyond the dtype, as PyTorch's releases
 * say per device: on MPS autocast takes fp16 from torch 2.5 and bf16 from
 * 2.6 (on macOS 14 or later, as the Metal plugin offers bf16), and
 * GradScaler works on MPS from 2.8; every fp16 wants a GradScaler for its
 * gradients.
 */
static const char *autocast_note(const char *device, rt_precision p)
{
	int mps = !strcmp(device, "mps");
	if (p == RT_FP16)
		return mps ? "torch 2.5 or later, and a torch.amp.GradScaler('mps') for the "
			     "gradients (torch 2.8 or later)"
			   : "and a torch.amp.GradScaler for the gradients";
	return mps ? "torch 2.6 or later, macOS 14 or later" : NULL;
}

/* The device line: a device point's, or where the workload's policy runs, and why. */
static void pytorch_device(rt_hint_block *b, const torch_target *t)
{
	if (t->policy)
		add_line(b, "device = torch.device('%s')  # the policy and each batch .to(device): %s",
			 t->device, t->policy->short_why);
	else if (!t->on_host)
		add_line(b, "device = torch.device('%s')  # the model and each batch .to(device)",
			 t->device);
}

/* The precision in PyTorch on t's device, as PyTorch names it. */
static void pytorch_precision(rt_hint_block *b, const torch_target *t)
{
	const char *note = autocast_note(t->device, t->precision);
	switch (t->precision) {
	case RT_FP64:
		add_line(b, "torch.set_default_dtype(torch.float64)");
		break;
	case RT_TF32:
		add_line(b, "torch.set_float32_matmul_precision('high')  # TF32 matmuls");
		break;
	case RT_BF16:
	case RT_FP16: /* fp16 a device's: torch_target_of gives the CPU fp32 for it */
		add_line(b, "with torch.autocast('%s', dtype=torch.%s): ...%s%s", t->device,
			 t->precision == RT_BF16 ? "bfloat16" : "float16", note ? "  # " : "",
			 note ? note : "");
		break;
	default:
		break;
	}
}

/* Why the policy runs where the device line says, after the build's sentence. */
static void pytorch_policy_about(rt_hint_block *b, const rt_point *pt, const torch_target *t)
{
	size_t n = strlen(b->about);
	if (!t->policy || n >= sizeof b->about)
		return;
	snprintf(b->about + n, sizeof b->about - n, "; torch.device('%s'): %s%s%s%s", t->device,
		 t->policy->why, t->precision != pt->precision ? "; the point's " : "",
		 t->precision != pt->precision ? rt_precision_name(pt->precision) : "",
		 t->precision != pt->precision ? " is the GPU's: the CPU takes fp32" : "");
}

static void pytorch_lines(rt_hint_block *b, const rt_frameworks *f, const pool_rule *r,
			  const rt_workload *w, const rt_point *pt, const rt_shape *sh,
			  const torch_target *t)
{
	b->framework = "pytorch";
	b->untested = !r->proven;
	pytorch_about(b, f, r);
	pytorch_policy_about(b, pt, t);
	if (r->blas_own_pool)
		add_line(b, "os.environ['%s'] = '%d'  # before importing torch", blas_pool_var(f),
			 r->blas_all ? pt->threads : 1);
	add_line(b, "torch.set_num_threads(%d)", r->intra_all ? pt->threads : 1);
	workload_lines(b, RT_HINT_PYTORCH, w, pt, sh, NULL);
	pytorch_device(b, t);
	pytorch_precision(b, t);
	mark_untestable(b, pt);
}

/*
 * The frameworks' devices JAX has no maintained plugin for: a point there
 * gets JAX's CPU lines (its GPU is for PyTorch), and says why.
 */
static const struct {
	const char *device;
	const char *why;
} jax_no_plugin[] = {
	{"mps", "jax-metal, JAX's Metal plugin, is no longer maintained (JAX issue #26968)"},
};

/* Why JAX runs on the CPU at point pt though it is a device's; NULL where JAX has the device. */
static const char *jax_cpu_only(const rt_point *pt)
{
	char device[24];
	if (rt_backend_on_host(pt->backend))
		return NULL;
	rt_backend_framework_device(pt->backend, device, sizeof device);
	for (size_t i = 0; i < RT_COUNT(jax_no_plugin); i++)
		if (!strcmp(device, jax_no_plugin[i].device))
			return jax_no_plugin[i].why;
	return NULL;
}

/*
 * JAX on the CPU: XLA's levers, each read in XLA's source (openxla/xla) and
 * measured on jaxlib 0.10.2 (tests/framework_hints.py applies each line and
 * counts the threads that ran). XLA_FLAGS is split by ParseArgvFromString
 * (xla/parse_flags_from_env.cc), which stops at the first word that does not
 * begin with '-': only --flags count, and there is no intra-op thread flag.
 * The CPU client sizes its Eigen intra-op pool (tf_XLAEigen threads) with
 * DefaultThreadPoolSize() (xla/pjrt/cpu/cpu_client.cc), which is PJRT_NPROC,
 * else NPROC, else tsl::port::MaxParallelism(): the CPUs of the process's
 * affinity mask (xla/pjrt/utils.cc). So the thread count is the affinity
 * mask (rigtune exec binds to the point's CPUs) or NPROC. The older lever
 * --xla_cpu_multi_thread_eigen=false is not given: on jaxlib 0.10.2 a
 * jitted matmul still ran on both of the pool's threads with it. bf16 on
 * the CPU is the lever that certainly acts, a dot of bf16 operands with an
 * fp32 result (autocast's semantics), rather than the matmul-precision
 * setting that accelerators' dot algorithms follow.
 */
/*
 * Whether the frameworks run on macOS, where no thread binds to a CPU: as the probe's
 * Python said (sys.platform), else as this system is.
 */
static int on_macos(const rt_frameworks *f)
{
	for (int id = 0; f && f->probed && id < RT_NFW; id++) {
		const char *os = rt_framework_get(&f->fw[id], "os");
		if (os)
			return !strcmp(os, "darwin");
	}
	return !rt_plat_can_bind();
}

/*
 * What bounds XLA's CPU pools beside NPROC: the affinity mask on Linux (rigtune exec binds
 * it to the point's CPUs, taskset to the first ones); on macOS nothing binds (no taskset,
 * and exec steers by QoS class, which XLA's pool size does not follow): NPROC alone sizes
 * it, and an E-cores point runs in the background band, which macOS keeps on them.
 */
static void jax_placement(rt_hint_block *b, const rt_point *pt, int macos)
{
	if (macos) {
		if (pt->pin == RT_PIN_ECORES)
			add_line(b, "taskpolicy -b python3 train.py  # the background band, which "
				    "macOS keeps on the E-cores");
		return;
	}
	if (pt->pin != RT_PIN_NONE)
		add_line(b, "rigtune exec -- python3 train.py  # binds to the point's %d CPU%s: "
			    "XLA's CPU pools take the affinity mask's size",
			 pt->threads + pt->workers, pt->threads + pt->workers == 1 ? "" : "s");
	else
		add_line(b, "taskset -c 0-%d python3 train.py  # XLA's CPU pools take the affinity "
			    "mask's size",
			 pt->threads - 1);
}

static void jax_lines(rt_hint_block *b, const rt_frameworks *f, const rt_point *pt)
{
	const char *cpu_only = jax_cpu_only(pt);
	int cpu = rt_backend_on_host(pt->backend) || cpu_only;
	const rt_framework *jax = installed(f, RT_FW_JAX);
	static const char *const prec[RT_NPRECISION] = {
		[RT_FP64] = "jax.config.update('jax_enable_x64', True)",
		[RT_FP32] = "jax.config.update('jax_default_matmul_precision', 'highest')",
		[RT_TF32] = "jax.config.update('jax_default_matmul_precision', 'tensorfloat32')",
		[RT_BF16] = "jax.config.update('jax_default_matmul_precision', 'bfloat16')",
		[RT_FP16] = "cast params and inputs to jnp.float16",
	};
	b->framework = "jax";
	b->untested = jax == NULL;
	if (jax) {
		const char *v = rt_framework_get(jax, "version");
		const char *pool = rt_framework_get(jax, "cpu_pool_threads");
		snprintf(b->about, sizeof b->about,
			 "JAX %s (jaxlib %s; its CPU client ran %s Eigen threads here): XLA's "
			 "CPU pools take the affinity mask's size or NPROC; XLA_FLAGS has no "
			 "thread-count flag",
			 v ? v : "?", rt_framework_get(jax, "jaxlib") ? rt_framework_get(jax, "jaxlib") : "?",
			 pool ? pool : "?");
	} else {
		snprintf(b->about, sizeof b->about,
			 "JAX: %s: XLA's levers as jaxlib 0.10.2 reads them (the affinity mask or "
			 "NPROC; XLA_FLAGS has no thread-count flag)",
			 not_found(f, RT_FW_JAX));
	}
	if (cpu_only)
		add_line(b, "JAX_PLATFORMS=cpu  # %s: JAX runs on the CPU here", cpu_only);
	int macos = on_macos(f);
	jax_placement(b, pt, macos);
	if (macos)
		add_line(b, "NPROC=%d  # XLA's CPU client sizes its Eigen pool from PJRT_NPROC, then "
			    "NPROC: on macOS, which binds no thread to a CPU, the one lever",
			 pt->threads);
	else
		add_line(b, "NPROC=%d  # or this: XLA's CPU client sizes its Eigen pool from "
			    "PJRT_NPROC, then NPROC",
			 pt->threads);
	if (cpu && pt->precision == RT_BF16)
		add_line(b, "jnp.dot(x.astype(jnp.bfloat16), w.astype(jnp.bfloat16), "
			    "preferred_element_type=jnp.float32)  # bf16 inputs, fp32 result");
	else if (!cpu || pt->precision == RT_FP64)
		add_line(b, "%s", prec[pt->precision]);
	mark_untestable(b, pt);
}

/* What the probe timed of SB3's vector step (frameworks.h); fixed_us 0 where it did not. */
static void library_cost(const rt_framework *fw, rt_hint_cost *cost)
{
	const char *fixed = fw ? rt_framework_get(fw, "step_fixed_us") : NULL;
	const char *per_env = fw ? rt_framework_get(fw, "step_per_env_us") : NULL;
	memset(cost, 0, sizeof *cost);
	if (!fixed || !per_env || rt_parse_double(fixed, &cost->fixed_us) ||
	    rt_parse_double(per_env, &cost->per_env_us) || cost->fixed_us <= 0 ||
	    cost->per_env_us < 0)
		cost->fixed_us = cost->per_env_us = 0;
}

/*
 * The RL libraries' lines come from the workload (its environments); a
 * workload without environments gives none, and the block is left out.
 */
static void rl_lines(rt_hint_block *b, const rt_frameworks *f, rt_fw_id id, rt_hint_lib lib,
		     const rt_workload *w, const rt_point *pt, const rt_shape *sh,
		     const rt_fw_device_fits *dev)
{
	static const char *const names[] = {[RT_FW_GYMNASIUM] = "gymnasium",
					    [RT_FW_SB3] = "stable_baselines3"};
	const rt_framework *fw = installed(f, id);
	const char *v = fw ? rt_framework_get(fw, "version") : NULL;
	rt_hint_cost cost;
	library_device ld = {0};
	char why[sizeof ld.why + 40] = "";
	b->framework = names[id];
	b->untested = fw == NULL;
	library_cost(fw, &cost);
	if (lib == RT_HINT_SB3 && policy_device(&sb3_policy, w, pt, sh, &cost, dev, &ld)) {
		cost.device = ld.device;
		cost.device_why = ld.short_why;
		snprintf(why, sizeof why, "; device='%s': %s", ld.device, ld.why);
	}
	workload_lines(b, lib, w, pt, sh, cost.fixed_us > 0 || cost.device ? &cost : NULL);
	if (fw)
		snprintf(b->about, sizeof b->about, "%s %s: the point's environments, workers and "
			 "update as its classes take them%s", names[id], v ? v : "?", why);
	else
		snprintf(b->about, sizeof b->about, "%s: %s: lines as %s%s", names[id],
			 not_found(f, id),
			 id == RT_FW_SB3 ? "stable-baselines3 2.9 takes them" :
					   "gymnasium 1.4 takes them", why);
	mark_untestable(b, pt);
}

static void tensorflow_lines(rt_hint_block *b, const rt_point *pt)
{
	static const char *const prec[RT_NPRECISION] = {
		[RT_FP64] = "tf.keras.backend.set_floatx('float64')",
		[RT_TF32] = "tf.config.experimental.enable_tensor_float_32_execution(True)",
		[RT_BF16] = "tf.keras.mixed_precision.set_global_policy('mixed_bfloat16')",
		[RT_FP16] = "tf.keras.mixed_precision.set_global_policy('mixed_float16')",
	};
	b->framework = "tensorflow";
	b->untested = 1;
	snprintf(b->about, sizeof b->about,
		 "TensorFlow's documented settings; not run here (the test environment has no "
		 "TensorFlow)");
	add_line(b, "tf.config.threading.set_intra_op_parallelism_threads(%d)", pt->threads);
	if (prec[pt->precision])
		add_line(b, "%s", prec[pt->precision]);
}

void rt_hints_for(const rt_frameworks *f, const rt_workload *w, const rt_point *pt,
		  const rt_shape *sh, const rt_fw_device_fits *dev, rt_hints *out)
{
	library_device policy;
	int has_policy = policy_device(&torch_policy, w, pt, sh, NULL, dev, &policy);
	torch_target t = torch_target_of(pt, has_policy ? &policy : NULL);
	const pool_rule *r = rule_for(f, &t);
	memset(out, 0, sizeof *out);
	thread_env(out, r->intra_all ? pt->threads : 1, r->blas_all ? pt->threads : 1,
		   pt->threads);
	pytorch_lines(&out->fw[RT_FW_PYTORCH], f, r, w, pt, sh, &t);
	jax_lines(&out->fw[RT_FW_JAX], f, pt);
	tensorflow_lines(&out->fw[RT_FW_TENSORFLOW], pt);
	rl_lines(&out->fw[RT_FW_GYMNASIUM], f, RT_FW_GYMNASIUM, RT_HINT_GYMNASIUM, w, pt, sh, dev);
	rl_lines(&out->fw[RT_FW_SB3], f, RT_FW_SB3, RT_HINT_SB3, w, pt, sh, dev);
}

/* untested_lines: the block's lines the tests cannot run, where the block is tested. */
static void emit_untested_lines(rt_yw *w, const rt_hint_block *b)
{
	int any = 0;
	for (int k = 0; k < b->n; k++)
		any |= b->line_untested[k];
	if (b->untested || !any)
		return;
	rt_yw_str(w, "untested_lines");
	rt_yw_seq(w, 0);
	for (int k = 0; k < b->n; k++)
		if (b->line_untested[k])
			rt_yw_str(w, b->line[k]);
	rt_yw_end_seq(w);
}

void rt_hints_emit(rt_yw *w, const rt_hints *h)
{
	rt_yw_str(w, "env");
	rt_yw_map(w, 0);
	for (int i = 0; i < h->nenv; i++)
		rt_yw_kstr(w, h->env_name[i], h->env_value[i]);
	rt_yw_end_map(w);
	rt_yw_str(w, "hints");
	rt_yw_map(w, 0);
	for (int i = 0; i < RT_NFW; i++) {
		const rt_hint_block *b = &h->fw[i];
		if (!b->n)
			continue; /* a library the workload does not use */
		rt_yw_str(w, b->framework);
		rt_yw_map(w, 0);
		if (b->untested)
			rt_yw_kbool(w, "untested", 1);
		rt_yw_kstr(w, "for", b->about);
		rt_yw_str(w, "lines");
		rt_yw_seq(w, 0);
		for (int k = 0; k < b->n; k++)
			rt_yw_str(w, b->line[k]);
		rt_yw_end_seq(w);
		emit_untested_lines(w, b);
		rt_yw_end_map(w);
	}
	rt_yw_end_map(w);
}
