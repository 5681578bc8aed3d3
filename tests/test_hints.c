/*
 * Framework hints (tuner/hints.c): the rule of each threading model on the
 * env variables and the PyTorch lines, the JAX levers and the RL libraries'
 * lines; and every line and env the code emits for a real probe of each
 * framework build the tests install, applied in a real process of that build
 * (tests/framework_hints.py): Debian's python3-torch (/usr/bin/python3) and
 * PyPI's torch, jax, gymnasium and stable-baselines3 (RIGTUNE_TEST_PYTHON,
 * scripts/venv.sh).
 * tier: integration (probes and runs PyTorch, JAX, gymnasium and SB3)
 * beside: others (the lines applied in real processes and read back; no check reads a time)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/hints.h"
#include "../tuner/usercmd.h"
#include "../workloads/loader.h"
#include "fw_fits.h"

#define SYSTEM_PYTHON "/usr/bin/python3"

/*
 * A probe's result for a PyTorch whose BLAS threads as `threading`, with JAX,
 * gymnasium and SB3 beside it (NULL: none probed).
 */
static void fake_frameworks(rt_frameworks *f, const char *threading)
{
	static const char *const names[RT_NFW] = {"pytorch", "jax", "tensorflow", "gymnasium",
						  "stable_baselines3"};
	memset(f, 0, sizeof *f);
	f->probed = threading != NULL;
	for (int id = 0; id < RT_NFW; id++) { /* all but TensorFlow, as in make test's venv */
		f->fw[id].name = names[id];
		f->fw[id].installed = threading != NULL && id != RT_FW_TENSORFLOW;
	}
	rt_framework *pt = &f->fw[RT_FW_PYTORCH];
	static const char *const kv[][2] = {{"version", "1.13.0a0"}, {"blas", "openblas"},
					    {"blas_version", "0.3.21"}};
	for (size_t i = 0; threading && i < RT_COUNT(kv); i++) {
		snprintf(pt->key[pt->n], sizeof pt->key[0], "%s", kv[i][0]);
		snprintf(pt->value[pt->n++], sizeof pt->value[0], "%s", kv[i][1]);
	}
	if (threading) {
		snprintf(pt->key[pt->n], sizeof pt->key[0], "blas_threading");
		snprintf(pt->value[pt->n++], sizeof pt->value[0], "%s", threading);
	}
}

static const char *env_of(const rt_hints *h, const char *name)
{
	for (int i = 0; i < h->nenv; i++)
		if (!strcmp(h->env_name[i], name))
			return h->env_value[i];
	return NULL;
}

static int has_line(const rt_hint_block *b, const char *line)
{
	for (int i = 0; i < b->n; i++)
		if (!strcmp(b->line[i], line))
			return 1;
	return 0;
}

/* The transformer's hints on frameworks f for a CPU point of threads in prec. */
/* The transformer's hints at a point of threads, precision prec and pin (< 0: the default's). */
static void hints_pinned(const rt_frameworks *f, int threads, rt_precision prec, int pin,
			 rt_hints *h)
{
	rt_point pt;
	rt_shape sh;
	const rt_workload *w = rt_workload_find("transformer");
	rt_point_default(&pt);
	pt.threads = threads;
	pt.precision = prec;
	if (pin >= 0)
		pt.pin = (rt_pin)pin;
	rt_shape_default(w, &sh);
	rt_hints_for(f, w, &pt, &sh, NULL, h);
}

static void hints_with(const rt_frameworks *f, int threads, rt_precision prec, rt_hints *h)
{
	hints_pinned(f, threads, prec, -1, h);
}

static void hints_at(const char *threading, int threads, rt_precision prec, rt_hints *h)
{
	rt_frameworks f;
	fake_frameworks(&f, threading);
	hints_with(&f, threads, prec, h);
}

/* A BLAS with a pthread pool of its own gets the threads; PyTorch's pool gets one. */
static void test_separate_pools(void **state)
{
	(void)state;
	rt_hints h;
	hints_at("pthreads", 2, RT_FP32, &h);
	assert_string_equal(env_of(&h, "OMP_NUM_THREADS"), "1");
	assert_string_equal(env_of(&h, "MKL_NUM_THREADS"), "1"); /* PyTorch reads it first */
	assert_string_equal(env_of(&h, "OPENBLAS_NUM_THREADS"), "2");
	assert_string_equal(env_of(&h, "VECLIB_MAXIMUM_THREADS"), "2");
	assert_null(env_of(&h, "OMP_PROC_BIND")); /* it would shrink OpenBLAS's pool to 1 */
	const rt_hint_block *b = &h.fw[RT_FW_PYTORCH];
	assert_false(b->untested);
	assert_true(has_line(b, "os.environ['OPENBLAS_NUM_THREADS'] = '2'  # before importing torch"));
	assert_true(has_line(b, "torch.set_num_threads(1)"));
	assert_true(has_line(b, "DataLoader(batch_size=32, num_workers=0)")); /* the workload's */
	assert_non_null(strstr(b->about, "PyTorch 1.13.0a0 with openblas 0.3.21 (pthreads)"));
}

/* A BLAS in PyTorch's OpenMP pool (MKL, OpenBLAS with OpenMP): one setting sizes both. */
static void test_shared_pool(void **state)
{
	(void)state;
	rt_hints h;
	hints_at("openmp", 2, RT_BF16, &h);
	assert_string_equal(env_of(&h, "OMP_NUM_THREADS"), "2");
	assert_string_equal(env_of(&h, "MKL_NUM_THREADS"), "2");
	assert_string_equal(env_of(&h, "OPENBLAS_NUM_THREADS"), "2");
	const rt_hint_block *b = &h.fw[RT_FW_PYTORCH];
	assert_true(has_line(b, "torch.set_num_threads(2)"));
	assert_true(has_line(b, "with torch.autocast('cpu', dtype=torch.bfloat16): ..."));
	for (int i = 0; i < b->n; i++)
		assert_null(strstr(b->line[i], "OPENBLAS"));
	hints_at("serial", 3, RT_FP32, &h);
	assert_string_equal(env_of(&h, "OPENBLAS_NUM_THREADS"), "1");
	assert_true(has_line(&h.fw[RT_FW_PYTORCH], "torch.set_num_threads(3)"));
}

/* Nothing probed: the shared-pool lines, untested, saying what the other build wants. */
static void test_not_probed(void **state)
{
	(void)state;
	rt_hints h;
	hints_at(NULL, 2, RT_FP32, &h);
	const rt_hint_block *b = &h.fw[RT_FW_PYTORCH];
	assert_true(b->untested);
	assert_true(has_line(b, "torch.set_num_threads(2)"));
	assert_string_equal(env_of(&h, "OMP_NUM_THREADS"), "2");
	assert_non_null(strstr(b->about, "PyTorch: not probed for this Python (tune --python PATH"));
	assert_non_null(strstr(b->about, "torch.set_num_threads(1) with OPENBLAS_NUM_THREADS"));
	/* JAX and TensorFlow name their documented settings, untested */
	assert_true(h.fw[RT_FW_JAX].untested && h.fw[RT_FW_TENSORFLOW].untested);
	assert_true(has_line(&h.fw[RT_FW_TENSORFLOW],
			     "tf.config.threading.set_intra_op_parallelism_threads(2)"));
	assert_true(has_line(&h.fw[RT_FW_JAX], "NPROC=2  # or this: XLA's CPU client sizes its "
					     "Eigen pool from PJRT_NPROC, then NPROC"));
	assert_non_null(strstr(h.fw[RT_FW_JAX].about, "JAX: not probed for this Python"));
}


static int untested(const rt_hint_block *b, const char *line)
{
	for (int i = 0; i < b->n; i++)
		if (!strcmp(b->line[i], line))
			return b->line_untested[i];
	fail_msg("no line '%s'", line);
	return -1;
}

/*
 * A workload's hints at a point of backend, threads (0: the default's),
 * workers and prec with its default shape, num_envs and stocks set where
 * they are not 0, on crossover fits dev (NULL: none).
 */
static void point_hints(const char *workload, const char *backend, int threads, int workers,
			rt_precision prec, long envs, long stocks, const rt_fw_device_fits *dev,
			rt_hints *h)
{
	rt_frameworks f;
	rt_point pt;
	rt_shape sh;
	const rt_workload *w = rt_workload_find(workload);
	fake_frameworks(&f, "pthreads");
	rt_point_default(&pt);
	snprintf(pt.backend, sizeof pt.backend, "%s", backend);
	if (threads)
		pt.threads = threads;
	pt.workers = workers;
	pt.precision = prec;
	rt_shape_default(w, &sh);
	if (envs)
		sh.v[rt_shape_known(w, "num_envs")] = envs;
	if (stocks)
		sh.v[rt_shape_known(w, "stocks")] = stocks;
	rt_hints_for(&f, w, &pt, &sh, dev, h);
}

static void hints_of(const char *workload, const char *backend, int workers, rt_precision prec,
		     rt_hints *h)
{
	point_hints(workload, backend, 0, workers, prec, 0, 0, NULL, h);
}

/* PPO's hints at an fp32 point of backend with envs and stocks, on a simulated H100's fits (fw_fits.h). */
static void fitted_hints(const char *backend, long envs, long stocks, rt_hints *h)
{
	rt_fw_device_fits dev;
	test_fw_fits(&dev, backend);
	point_hints("ppo", backend, 0, 0, RT_FP32, envs, stocks, &dev, h);
}

/* The hints' YAML, emitted into a string (freed by the caller). */
static char *emitted(const rt_hints *h)
{
	rt_yw w;
	char *text, err[RT_ERRLEN];
	size_t len;
	assert_int_equal(rt_yw_init(&w), 0);
	rt_yw_map(&w, 0);
	rt_hints_emit(&w, h);
	rt_yw_end_map(&w);
	assert_int_equal(rt_yw_finish(&w, &text, &len, err, sizeof err), 0);
	return text;
}

/* The untested mark of the line of b that begins with start (-1: none does). */
static int untested_from(const rt_hint_block *b, const char *start)
{
	for (int i = 0; i < b->n; i++)
		if (!strncmp(b->line[i], start, strlen(start)))
			return b->line_untested[i];
	return -1;
}

/*
 * In a tested block, the lines that need what the test machines lack (a
 * GPU) are marked one by one and listed under untested_lines; the others are
 * not. PPO's environments are gymnasium's and SB3's lines, not PyTorch's.
 */
static void test_untested_lines(void **state)
{
	(void)state;
	rt_hints h;
	hints_of("ppo", "cuda", 2, RT_FP32, &h);
	const rt_hint_block *b = &h.fw[RT_FW_SB3];
	/* SB3's step unmeasured: its advice for an MlpPolicy, the CPU, which runs here */
	const char *ppo = "model = PPO('MlpPolicy', env, n_steps=128, batch_size=256, n_epochs=4, "
			  "device='cpu')  # SB3's advice for an MlpPolicy; not measured here";
	assert_false(b->untested);
	assert_int_equal(untested(b, ppo), 0);
	assert_int_equal(untested(b, "env = make_vec_env(make_env, n_envs=64, "
				     "vec_env_cls=DummyVecEnv)"), 0);
	assert_int_equal(untested(&h.fw[RT_FW_GYMNASIUM], "envs = gymnasium.vector.SyncVectorEnv("
				  "[make_env] * 64)  # stepped on the learner's thread"), 0);
	for (int i = 0; i < h.fw[RT_FW_PYTORCH].n; i++)
		assert_null(strstr(h.fw[RT_FW_PYTORCH].line[i], "gymnasium"));
	/* the policy's device unmeasured: the CPU for PyTorch too, which runs here */
	assert_int_equal(untested_from(&h.fw[RT_FW_PYTORCH], "device = torch.device('cpu')"), 0);
	char *y = emitted(&h);
	assert_null(strstr(y, "untested_lines"));
	free(y);
	/* where the crossover says the device wins the steps, the lines name it, untested here */
	fitted_hints("cuda", 1024, 1000, &h);
	assert_int_equal(untested_from(&h.fw[RT_FW_SB3], "model = PPO('MlpPolicy', env, "
				       "n_steps=128, batch_size=256, n_epochs=4, device='cuda')  # "), 1);
	y = emitted(&h);
	assert_non_null(strstr(y, "\n    untested_lines:\n    - 'device = torch.device(''cuda'')"));
	assert_non_null(strstr(y, "\n    untested_lines:\n    - 'model = PPO(''MlpPolicy''"));
	free(y);

	hints_of("transformer", "cuda", 0, RT_BF16, &h);
	b = &h.fw[RT_FW_PYTORCH];
	assert_int_equal(untested(b, "with torch.autocast('cuda', dtype=torch.bfloat16): ..."), 1);
	assert_int_equal(untested(b, "DataLoader(batch_size=32, num_workers=0)"), 0);
	assert_int_equal(h.fw[RT_FW_SB3].n, 0); /* no environments: no RL block */
	hints_of("transformer", "cpu", 0, RT_BF16, &h);
	b = &h.fw[RT_FW_PYTORCH];
	assert_int_equal(untested(b, "with torch.autocast('cpu', dtype=torch.bfloat16): ..."), 0);
	y = emitted(&h);
	assert_null(strstr(y, "untested_lines"));
	assert_null(strstr(y, "stable_baselines3"));
	free(y);

	/* a block untested as a whole does not list its lines again */
	hints_at(NULL, 2, RT_FP16, &h);
	assert_true(h.fw[RT_FW_PYTORCH].untested);
	y = emitted(&h);
	assert_null(strstr(y, "untested_lines"));
	free(y);
}

/* PPO's PyTorch block at a point of backend, threads and prec, envs and stocks, on fits dev. */
static const rt_hint_block *ppo_torch(const char *backend, int threads, rt_precision prec,
				      long envs, long stocks, const rt_fw_device_fits *dev,
				      rt_hints *h)
{
	point_hints("ppo", backend, threads, 0, prec, envs, stocks, dev, h);
	return &h->fw[RT_FW_PYTORCH];
}

/* Whether a line of b names the device dev as PyTorch quotes it ('cuda'). */
static int names_device(const rt_hint_block *b, const char *dev)
{
	char quoted[32];
	snprintf(quoted, sizeof quoted, "'%s'", dev);
	for (int i = 0; i < b->n; i++)
		if (strstr(b->line[i], quoted))
			return 1;
	return 0;
}

/*
 * A hand-written PyTorch PPO loop (CleanRL's) runs its policy per env step
 * as SB3 does, so at a device point PyTorch's device and precision lines
 * name the device the crossover's fits support for that step (the
 * simulated H100's, fw_fits.h), with why in for:. SB3's MlpPolicy at 16
 * envs of 30 stocks, minibatch 256, 4 epochs, by hand: per vector step the
 * CPU's six GEMMs 51.7 us against 6 GEMM steps and 27 kernels at 16 us and
 * 4 copies at 10.1 us on the device, 569 us; per minibatch 1.94 ms against
 * 18 GEMMs, 158 kernels and 9 copies, 2.91 ms; per env-step 3.2 + 4/256 x
 * 1940 = 33.5 us against 35.5 + 45.5 = 81: the CPU, whose lines drop the
 * GPU's fp16 (CPU autocast takes bf16 alone) and keep its bf16. At 1024
 * envs of 1000 stocks the device wins and gets the device's lines.
 */
static void test_pytorch_policy_device(void **state)
{
	(void)state;
	static rt_hints h;
	rt_fw_device_fits dev;
	test_fw_fits(&dev, "sim");
	const rt_hint_block *b = ppo_torch("sim", 2, RT_FP16, 16, 30, &dev, &h);
	assert_int_equal(b->n, 3);
	assert_string_equal(b->line[0], "os.environ['OPENBLAS_NUM_THREADS'] = '2'  # before "
					"importing torch");
	assert_string_equal(b->line[1], "torch.set_num_threads(1)");
	assert_string_equal(b->line[2], "device = torch.device('cpu')  # the policy and each batch "
					".to(device): 33.5 us an env-step here, 81 on cuda");
	assert_false(b->line_untested[2]);
	assert_false(names_device(b, "cuda"));
	assert_non_null(strstr(b->about, "; torch.device('cpu'): the policy runs once per vector "
					 "step, at 16 envs here (6 GEMMs with their launches and "
					 "copies): 0.0517 ms a step on the CPU against 0.569 on "
					 "'cuda', and 1.94 ms against 2.91 a minibatch of 256, so "
					 "33.5 us an env-step against 81 (from the crossover's fp32 "
					 "GEMM fits); the GPU does not win up to 65536 envs a step "
					 "here; a larger policy (wider observations, a CNN) or larger "
					 "minibatches move the balance to it; the point's fp16 is "
					 "the GPU's: the CPU takes fp32"));
	/* bf16 on the CPU: autocast there, and oneDNN's pool gets the threads (test_bf16_follows_onednn) */
	b = ppo_torch("sim", 2, RT_BF16, 16, 30, &dev, &h);
	assert_int_equal(b->n, 4);
	assert_string_equal(b->line[0], "os.environ['OPENBLAS_NUM_THREADS'] = '1'  # before "
					"importing torch");
	assert_string_equal(b->line[1], "torch.set_num_threads(2)");
	assert_string_equal(b->line[3], "with torch.autocast('cpu', dtype=torch.bfloat16): ...");
	assert_false(b->line_untested[3]);
	assert_null(strstr(b->about, "the CPU takes fp32"));
	b = ppo_torch("sim", 2, RT_TF32, 16, 30, &dev, &h);
	assert_int_equal(b->n, 3); /* TF32 is the GPU's matmul mode */
	assert_non_null(strstr(b->about, "; the point's tf32 is the GPU's: the CPU takes fp32"));

	b = ppo_torch("sim", 2, RT_FP16, 1024, 1000, &dev, &h);
	assert_int_equal(b->n, 4);
	assert_string_equal(b->line[2], "device = torch.device('cuda')  # the policy and each "
					"batch .to(device): 48.8 us an env-step here, 840 on the CPU");
	assert_string_equal(b->line[3], "with torch.autocast('cuda', dtype=torch.float16): ...  # "
					"and a torch.amp.GradScaler for the gradients");
	assert_true(b->line_untested[2] && b->line_untested[3]);
	assert_non_null(strstr(b->about, "; torch.device('cuda'): the policy runs once per vector "
					 "step, at 1024 envs here (6 GEMMs"));
	assert_null(strstr(b->about, "the CPU takes fp32"));

	/* nothing measured, or another device's fits: the documented default, said so */
	const char *unmeasured = "device = torch.device('cpu')  # the policy and each batch "
				 ".to(device): the CPU for an MLP policy, as SB3 advises; not "
				 "measured here";
	b = ppo_torch("sim", 2, RT_FP16, 16, 30, NULL, &h);
	assert_int_equal(b->n, 3);
	assert_string_equal(b->line[2], unmeasured);
	assert_non_null(strstr(b->about, "; torch.device('cpu'): not measured here (no crossover "
					 "was fitted: --no-crossover or too short a budget), so "
					 "SB3's own advice: PPO with an MlpPolicy runs faster on the "
					 "CPU, 'cuda' pays off with a CNN policy or large "
					 "minibatches; the point's fp16 is the GPU's"));
	test_fw_fits(&dev, "cuda");
	assert_string_equal(ppo_torch("sim", 2, RT_FP16, 16, 30, &dev, &h)->line[2], unmeasured);

	/* a CPU point names no device; a workload without a policy keeps its point's */
	b = ppo_torch("cpu", 2, RT_FP32, 16, 30, &dev, &h);
	assert_int_equal(b->n, 2);
	assert_null(strstr(b->about, "torch.device"));
	hints_of("transformer", "cuda", 0, RT_FP16, &h);
	b = &h.fw[RT_FW_PYTORCH];
	assert_int_equal(untested(b, "device = torch.device('cuda')  # the model and each batch "
				     ".to(device)"), 1);
	assert_int_equal(untested(b, "with torch.autocast('cuda', dtype=torch.float16): ...  # "
				     "and a torch.amp.GradScaler for the gradients"), 1);
	assert_null(strstr(b->about, "torch.device"));
}

/*
 * A point on a backend whose framework device is Apple's "mps" (a probe's
 * record of the Metal plugin, noted as rt_probe_accelerators does): PyTorch
 * gets the device and autocast on 'mps', untested here; JAX, whose Metal
 * plugin is unmaintained, runs on the CPU and says why, tested; a CUDA
 * point's JAX block has no such line.
 */
static void test_apple_mps(void **state)
{
	(void)state;
	rt_hints h;
	rt_backend_note_framework_device("metal", "mps");
	hints_of("transformer", "metal", 0, RT_BF16, &h);
	const rt_hint_block *b = &h.fw[RT_FW_PYTORCH];
	assert_int_equal(untested(b, "device = torch.device('mps')  # the model and each batch "
				     ".to(device)"), 1);
	assert_int_equal(untested(b, "with torch.autocast('mps', dtype=torch.bfloat16): ...  # "
				     "torch 2.6 or later, macOS 14 or later"), 1);
	assert_int_equal(untested(b, "DataLoader(batch_size=32, num_workers=0)"), 0);
	b = &h.fw[RT_FW_JAX];
	assert_false(b->untested);
	assert_int_equal(untested_from(b, "JAX_PLATFORMS=cpu  # jax-metal, JAX's Metal plugin, is "
					  "no longer maintained (JAX issue #26968)"), 0);
	assert_int_equal(untested_from(b, "jnp.dot(x.astype(jnp.bfloat16)"), 0); /* the CPU's bf16 */
	assert_int_equal(untested_from(b, "jax.config.update('jax_default_matmul_precision'"), -1);

	hints_of("transformer", "metal", 0, RT_FP16, &h);
	assert_int_equal(untested(&h.fw[RT_FW_PYTORCH], "with torch.autocast('mps', "
				  "dtype=torch.float16): ...  # torch 2.5 or later, and a "
				  "torch.amp.GradScaler('mps') for the gradients (torch 2.8 or later)"),
			 1);
	assert_int_equal(untested_from(&h.fw[RT_FW_JAX], "cast params and inputs to jnp.float16"),
			 -1); /* JAX's fp16 is an accelerator's, and JAX has none here */
	fitted_hints("metal", 1024, 1000, &h);
	assert_int_equal(untested_from(&h.fw[RT_FW_SB3], "model = PPO('MlpPolicy', env, n_steps=128, "
					  "batch_size=256, n_epochs=4, device='mps')  # "), 1);
	hints_of("transformer", "cuda", 0, RT_FP16, &h);
	assert_int_equal(untested_from(&h.fw[RT_FW_JAX], "JAX_PLATFORMS"), -1);
	assert_int_equal(untested_from(&h.fw[RT_FW_JAX], "cast params and inputs to jnp.float16"), 1);
	assert_int_equal(untested_from(&h.fw[RT_FW_PYTORCH], "device = torch.device('cuda')"), 1);
}

/* The JAX block of the transformer's hints at a point of threads, precision p and pin. */
static const rt_hint_block *jax_block(const rt_frameworks *f, int threads, rt_precision p,
				      rt_pin pin, rt_hints *h)
{
	hints_pinned(f, threads, p, (int)pin, h);
	return &h->fw[RT_FW_JAX];
}

/* Sets key to value in framework id of f (a probe's line). */
static void fake_key(rt_frameworks *f, rt_fw_id id, const char *key, const char *value)
{
	rt_framework *fw = &f->fw[id];
	for (int i = 0; i < fw->n; i++)
		if (!strcmp(fw->key[i], key)) {
			snprintf(fw->value[i], sizeof fw->value[i], "%s", value);
			return;
		}
	snprintf(fw->key[fw->n], sizeof fw->key[0], "%s", key);
	snprintf(fw->value[fw->n++], sizeof fw->value[0], "%s", value);
}

/*
 * PyPI's macOS torch: its BLAS is Accelerate, with a pool of its own that
 * VECLIB_MAXIMUM_THREADS sizes, and its intra-op pool runs on the libomp it
 * bundles: both get the threads (as Linux's pip build's shared pool does), not
 * set_num_threads(1) as a pthread-BLAS build gets, and the block is untested
 * (no Mac runs the tests).
 */
static void test_accelerate_blas(void **state)
{
	(void)state;
	rt_frameworks f;
	rt_hints h;
	fake_frameworks(&f, "accelerate");
	fake_key(&f, RT_FW_PYTORCH, "blas", "accelerate");
	hints_with(&f, 6, RT_FP32, &h);
	assert_string_equal(env_of(&h, "VECLIB_MAXIMUM_THREADS"), "6");
	assert_string_equal(env_of(&h, "OMP_NUM_THREADS"), "6");
	const rt_hint_block *b = &h.fw[RT_FW_PYTORCH];
	assert_true(b->untested);
	assert_int_equal(untested(b, "os.environ['VECLIB_MAXIMUM_THREADS'] = '6'  # before "
				     "importing torch"), 1);
	assert_int_equal(untested_from(b, "os.environ['OPENBLAS_NUM_THREADS']"), -1);
	assert_int_equal(untested_from(b, "torch.set_num_threads(6)"), 0);
	assert_int_equal(untested_from(b, "torch.set_num_threads(1)"), -1);
	assert_non_null(strstr(b->about, "libomp"));
	assert_non_null(strstr(b->about, "Accelerate sizes that pool from VECLIB_MAXIMUM_THREADS"));
	/* a CPU bf16 point too: no rule of a pthread BLAS takes it */
	hints_with(&f, 6, RT_BF16, &h);
	assert_int_equal(untested_from(&h.fw[RT_FW_PYTORCH], "torch.set_num_threads(6)"), 0);
	hints_at("pthreads", 2, RT_FP32, &h); /* OpenBLAS: its own variable, no Accelerate */
	assert_null(strstr(h.fw[RT_FW_PYTORCH].about, "Accelerate"));
	assert_int_equal(untested_from(&h.fw[RT_FW_PYTORCH], "torch.set_num_threads(1)"), 0);
}

/*
 * JAX where the probe's Python runs on macOS: no taskset and no exec that binds
 * (macOS binds no thread to a CPU); NPROC is the lever at every pin, and an E-cores
 * point runs in the background band (taskpolicy -b, untested: no Mac here). The same
 * frameworks said to be on Linux keep the affinity lines.
 */
static void test_jax_on_macos(void **state)
{
	(void)state;
	for (int pin = RT_PIN_NONE; pin < RT_NPIN; pin++) {
		rt_frameworks f;
		rt_hints h;
		fake_frameworks(&f, "accelerate");
		fake_key(&f, RT_FW_JAX, "os", "darwin");
		const rt_hint_block *b = jax_block(&f, 12, RT_FP32, (rt_pin)pin, &h);
		for (int i = 0; i < b->n; i++) {
			assert_null(strstr(b->line[i], "taskset"));
			assert_null(strstr(b->line[i], "rigtune exec"));
		}
		assert_int_equal(untested_from(b, "NPROC=12  # XLA's CPU client sizes its Eigen pool "
						  "from PJRT_NPROC, then NPROC: on macOS, which "
						  "binds no thread to a CPU, the one lever"), 0);
		assert_int_equal(untested_from(b, "taskpolicy -b python3 train.py"),
				 pin == RT_PIN_ECORES ? 1 : -1);
		fake_key(&f, RT_FW_JAX, "os", "linux");
		assert_int_equal(untested_from(jax_block(&f, 12, RT_FP32, (rt_pin)pin, &h), pin == RT_PIN_NONE ? "taskset -c 0-11"
							     : "rigtune exec --"), 0);
	}
}

/*
 * A CPU bf16 point on a build whose BLAS has a pthread pool of its own: the
 * matmuls run in oneDNN inside PyTorch's intra-op pool under autocast, so
 * that pool gets the threads and OpenBLAS 1; the same point on a GPU, or in
 * fp32, keeps the BLAS split.
 */
static void test_bf16_follows_onednn(void **state)
{
	(void)state;
	rt_hints h;
	hints_at("pthreads", 2, RT_BF16, &h);
	assert_string_equal(env_of(&h, "OMP_NUM_THREADS"), "2");
	assert_string_equal(env_of(&h, "MKL_NUM_THREADS"), "2");
	assert_string_equal(env_of(&h, "OPENBLAS_NUM_THREADS"), "1");
	const rt_hint_block *b = &h.fw[RT_FW_PYTORCH];
	assert_true(has_line(b, "os.environ['OPENBLAS_NUM_THREADS'] = '1'  # before importing torch"));
	assert_true(has_line(b, "torch.set_num_threads(2)"));
	assert_true(has_line(b, "with torch.autocast('cpu', dtype=torch.bfloat16): ..."));
	assert_non_null(strstr(b->about, "bf16 matmuls run in oneDNN"));

	hints_of("transformer", "cuda", 0, RT_BF16, &h); /* a GPU's bf16: the BLAS split */
	assert_string_equal(env_of(&h, "OMP_NUM_THREADS"), "1");
	hints_at("pthreads", 2, RT_FP32, &h);
	assert_string_equal(env_of(&h, "OMP_NUM_THREADS"), "1");
	assert_string_equal(env_of(&h, "OPENBLAS_NUM_THREADS"), "2");
}

/*
 * The JAX block: the levers measured to act on jaxlib (the affinity mask,
 * NPROC; bf16 dots), never the XLA flag that changed no thread there, and
 * tested where JAX was probed.
 */
static void test_jax_levers(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 4; threads++)
		for (int p = 0; p < RT_NPRECISION; p++)
			for (int pin = RT_PIN_NONE; pin <= RT_PIN_COMPACT; pin++) {
				rt_frameworks f;
				rt_hints h;
				fake_frameworks(&f, "pthreads");
				f.fw[RT_FW_JAX].installed = threads % 2; /* probed, or not there */
				const rt_hint_block *b =
				    jax_block(&f, threads, (rt_precision)p, (rt_pin)pin, &h);
				assert_int_equal(b->untested, !(threads % 2));
				for (int i = 0; i < b->n; i++) {
					assert_null(strstr(b->line[i], "XLA_FLAGS"));
					assert_null(strstr(b->line[i], "intra_op_parallelism"));
				}
				char want[96];
				snprintf(want, sizeof want, "NPROC=%d  #", threads);
				assert_true(!strncmp(b->line[1], want, strlen(want)));
				if (pin == RT_PIN_NONE)
					snprintf(want, sizeof want, "taskset -c 0-%d python3 train.py  #",
						 threads - 1);
				else
					snprintf(want, sizeof want, "rigtune exec -- python3 train.py  # "
						 "binds to the point's %d CPU%s", threads,
						 threads == 1 ? "" : "s");
				assert_true(!strncmp(b->line[0], want, strlen(want)));
				assert_int_equal(has_line(b, "jnp.dot(x.astype(jnp.bfloat16), "
							     "w.astype(jnp.bfloat16), "
							     "preferred_element_type=jnp.float32)  "
							     "# bf16 inputs, fp32 result"),
						 p == RT_BF16);
			}
}

/* Adds line to the set in f unless it is there. */
static void add_unique(char (*seen)[256], int *n, int cap, FILE *f, const char *kind,
		       const char *line)
{
	char rec[256];
	snprintf(rec, sizeof rec, "%s\t%s", kind, line);
	for (int i = 0; i < *n; i++)
		if (!strcmp(seen[i], rec))
			return;
	assert_true(*n < cap);
	snprintf(seen[(*n)++], sizeof seen[0], "%s", rec);
	fprintf(f, "%s\n", rec);
}

/*
 * Four environments where a workload has them, a costly env-step where the
 * point has workers (so that the asynchronous lines are written too): a
 * line's structure (the class, one process per env) is the same at 64, and 64
 * processes of SB3's forkserver take minutes on a busy 2-core machine
 * (bench/ measures what the number of envs does to the speed).
 */
static void few_envs(const rt_workload *w, rt_shape *sh, int costly)
{
	for (int k = 0; k < w->nkeys; k++) {
		if (!strcmp(w->keys[k].name, "num_envs"))
			sh->v[k] = 4;
		if (!strcmp(w->keys[k].name, "env_us") && costly)
			sh->v[k] = 1000; /* the envs get processes of their own */
	}
}

/*
 * The crossover fits a device point's RL lines are written for, d-th of 3:
 * none (SB3's advice), a device whose every step costs 100 times the
 * simulated H100's (fw_fits.h: the CPU wins), and one whose steps and copies
 * cost nothing fixed (it wins): every kind of line, each applied in the
 * real SB3 where it names the CPU.
 */
static const rt_fw_device_fits *devices(const char *backend, int d)
{
	static rt_fw_device_fits slow, fast;
	test_fw_fits(&slow, backend);
	fast = slow;
	slow.device.c *= 100;
	slow.device_xfer.c *= 100;
	fast.device.c = 0;
	fast.device_xfer = fast.device;
	return d == 0 ? NULL : d == 1 ? &slow : &fast;
}

/* The lines and env of one point's hints, each once, into f. */
static void write_hints(const rt_frameworks *fw, const rt_workload *w, const rt_point *pt,
			const rt_shape *sh, const rt_fw_device_fits *dev, char (*seen)[256], int *n,
			FILE *f)
{
	rt_hints h;
	rt_hints_for(fw, w, pt, sh, dev, &h);
	for (int id = 0; id < RT_NFW; id++) {
		const rt_hint_block *b = &h.fw[id];
		char kind[64];
		if (!fw->fw[id].installed)
			continue;
		assert_false(b->untested);
		for (int i = 0; i < b->n; i++) {
			snprintf(kind, sizeof kind, "%s%s",
				 b->line_untested[i] ? "untested:" : "", b->framework);
			add_unique(seen, n, 1024, f, kind, b->line[i]);
		}
	}
	char env[256] = "";
	for (int i = 0; i < h.nenv; i++) {
		char kv[64];
		snprintf(kv, sizeof kv, "%s=%s", h.env_name[i], h.env_value[i]);
		rt_list_append(env, sizeof env, " ", kv);
	}
	if (fw->fw[RT_FW_PYTORCH].installed)
		add_unique(seen, n, 1024, f, "env", env);
}

/*
 * Every line and env the hints emit for the frameworks fw probed, over the
 * workloads and the points this machine can run (threads + workers within its
 * cores), into path; a line the hints mark untested is written as such (the
 * only kind tests/framework_hints.py may skip, for want of a GPU). A block
 * whose framework this Python lacks says so and is untested: its lines are
 * left to the Python that has it. Returns how many records.
 */
static int write_all_hints(const rt_frameworks *fw, const char *path)
{
	static char seen[1024][256];
	int n = 0, count, cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	const rt_workload *const *all = rt_workload_list(&count);
	static const char *const backends[] = {"cpu", "cuda", "metal"}; /* metal: 'mps' */
	FILE *f = fopen(path, "w");
	rt_backend_note_framework_device("metal", "mps");
	assert_non_null(f);
	for (int wl = 0; wl < count; wl++)
		for (int p = 0; p < RT_NPRECISION * 2 * 2 * 3 * 2; p++) {
			rt_point pt;
			rt_shape sh;
			rt_point_default(&pt);
			pt.precision = (rt_precision)(p % RT_NPRECISION);
			pt.threads = 1 + p / RT_NPRECISION % 2;
			pt.workers = p / RT_NPRECISION / 2 % 2;
			pt.pin = p / RT_NPRECISION / 12 % 2 ? RT_PIN_COMPACT : RT_PIN_NONE;
			snprintf(pt.backend, sizeof pt.backend, "%s",
				 backends[p / RT_NPRECISION / 4 % 3]);
			if (pt.threads + pt.workers > cores)
				continue;
			rt_shape_default(all[wl], &sh);
			few_envs(all[wl], &sh, pt.workers > 0);
			for (int d = 0; d < 3; d++)
				write_hints(fw, all[wl], &pt, &sh, devices(pt.backend, d), seen, &n, f);
		}
	fclose(f);
	return n;
}

/* A line of tests/framework_hints.py's TAP output, passed on as this test's own evidence. */
static void tap_line(void *user, int is_err, const char *text)
{
	int *failed = user;
	if (!is_err && !strncmp(text, "not ok", 6))
		(*failed)++;
	if (!is_err && (!strncmp(text, "not ok", 6) || !strncmp(text, "#", 1) ||
			strstr(text, "# SKIP")))
		print_message("%s\n", text);
}

/*
 * Probes python for real, checks it has the frameworks this build is meant to
 * prove (each name in want), and applies every line its hints can emit in
 * real processes of it. Returns what the probe found.
 */
static const rt_frameworks *apply_in(const char *python, const char *const *want,
				     const char *blas)
{
	static rt_frameworks fw;
	char err[RT_ERRLEN] = "";
	if (rt_frameworks_probe(python, 120, RT_FW_TIME_SB3_STEP, &fw, err, sizeof err))
		fail_msg("%s: %s", python, err);
	for (const char *const *w = want; *w; w++) {
		int found = 0;
		for (int id = 0; id < RT_NFW; id++)
			if (!strcmp(fw.fw[id].name, *w)) {
				found = 1;
				if (!fw.fw[id].installed)
					fail_msg("%s has no %s (%s): scripts/install-deps.sh test, "
						 "scripts/venv.sh", python, *w, fw.fw[id].note);
			}
		assert_true(found);
	}
	assert_string_equal(rt_framework_get(&fw.fw[RT_FW_PYTORCH], "blas"), blas);
	char path[] = "/tmp/rt_hints_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	int n = write_all_hints(&fw, path);
	print_message("# %s: %d hint records (PyTorch's BLAS %s)\n", python, n, blas);
	assert_true(n >= 10);
	int failed = 0;
	char *argv[] = {(char *)python, "tests/framework_hints.py", path, NULL};
	rt_usercmd_exit x;
	rt_usercmd run = {.argv = argv, .timeout_s = 1800, .line = tap_line, .user = &failed};
	int rc = rt_usercmd_run(&run, &x, err, sizeof err);
	unlink(path);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(failed, 0);
	if (!WIFEXITED(x.status) || WEXITSTATUS(x.status))
		fail_msg("tests/framework_hints.py ended with status %d: %s", x.status, x.last_err);
	return &fw;
}

/* Debian's python3-torch: OpenBLAS with its own pthread pool. */
static void test_in_debian_torch(void **state)
{
	(void)state;
	static const char *const want[] = {"pytorch", NULL};
	apply_in(SYSTEM_PYTHON, want, "openblas");
}

/*
 * PyPI's torch (MKL in GNU OpenMP), jax, gymnasium and SB3: make test's
 * environment. SB3's vector step was timed: a policy's forward call and
 * Python's loop cost more than nothing, whatever the envs, and each env adds
 * its own work (tens of microseconds, not seconds).
 */
static void test_in_pypi_frameworks(void **state)
{
	(void)state;
	static const char *const want[] = {"pytorch", "jax", "gymnasium", "stable_baselines3",
					   NULL};
	const char *python = getenv("RIGTUNE_TEST_PYTHON");
	if (!python || !*python)
		fail_msg("RIGTUNE_TEST_PYTHON is not set: run through tests/run.sh (make test), or "
			 "set it to $(scripts/venv.sh --path)/bin/python");
	const rt_framework *sb3 = &apply_in(python, want, "mkl")->fw[RT_FW_SB3];
	const char *fixed = rt_framework_get(sb3, "step_fixed_us");
	const char *per_env = rt_framework_get(sb3, "step_per_env_us");
	double f = 0, e = 0;
	if (!fixed || !per_env || rt_parse_double(fixed, &f) || rt_parse_double(per_env, &e))
		fail_msg("SB3's step costs: step_fixed_us=%s step_per_env_us=%s",
			 fixed ? fixed : "(none)", per_env ? per_env : "(none)");
	print_message("# SB3's vector step here: %.0f us + %.1f us an env\n", f, e);
	assert_true(f > 10 && f < 1e5);
	assert_true(e > 0 && e < 1e4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_separate_pools),
		cmocka_unit_test(test_shared_pool),
		cmocka_unit_test(test_not_probed),
		cmocka_unit_test(test_bf16_follows_onednn),
		cmocka_unit_test(test_jax_levers),
		cmocka_unit_test(test_untested_lines),
		cmocka_unit_test(test_pytorch_policy_device),
		cmocka_unit_test(test_apple_mps),
		cmocka_unit_test(test_accelerate_blas),
		cmocka_unit_test(test_jax_on_macos),
		cmocka_unit_test(test_in_debian_torch),
		cmocka_unit_test(test_in_pypi_frameworks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
