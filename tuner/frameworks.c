/*
 * frameworks.c: which ML frameworks a Python has and how they thread
 * (frameworks.h). One probe script per framework, each run in its own child.
 */
#include "frameworks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../common/rt.h"
#include "params.h"
#include "usercmd.h"

/* Prints key=value lines; `installed=false` when the module is not there at all. */
#define PROBE_PRELUDE                                                                     \
	"import importlib.util, os, platform, sys\n"                                      \
	"def out(k, v):\n"                                                                \
	"    print(f'{k}={v}', flush=True)\n"                                             \
	"out('python_version', platform.python_version())\n"                              \
	"out('os', sys.platform)\n"                                                        \
	"out('executable', os.path.realpath(sys.executable))\n"                           \
	"if importlib.util.find_spec(MODULE) is None:\n"                                  \
	"    out('installed', 'false')\n"                                                 \
	"    sys.exit(0)\n"

/*
 * PyTorch: its BLAS is found among the libraries the process has mapped
 * after a matmul (OpenBLAS says how it threads: openblas_get_parallel), else
 * MKL (statically linked into pip wheels; it threads in PyTorch's OpenMP
 * pool unless its sequential or TBB layer is loaded).
 */
static const char probe_pytorch[] =
	"MODULE = 'torch'\n" PROBE_PRELUDE
	"import ctypes, re, torch\n"
	"out('version', torch.__version__)\n"
	"cfg, par = torch.__config__.show(), torch.__config__.parallel_info()\n"
	"x = torch.randn(64, 64)\n"
	"(x @ x).sum()\n"
	"if sys.platform == 'darwin':\n" /* dyld lists the images it has loaded */
	"    dyld = ctypes.CDLL(None)\n"
	"    dyld._dyld_get_image_name.restype = ctypes.c_char_p\n"
	"    maps = [dyld._dyld_get_image_name(i).decode() for i in range(dyld._dyld_image_count())]\n"
	"else:\n"
	"    with open('/proc/self/maps') as f:\n" /* platform: Python's, in Linux's branch */
	"        maps = [l.split()[-1] for l in f if '.so' in l]\n"
	"libs = sorted({p for p in maps if p[:1] == '/'})\n"
	"m = re.search(r'BLAS_INFO=(\\w+)', cfg)\n"
	"blas, version, layer, threads = m.group(1) if m else 'unknown', '', 'unknown', ''\n"
	"for path in (p for p in libs if re.search('blas|torch|lapack', p)):\n"
	"    lib = ctypes.CDLL(path)\n"
	"    if hasattr(lib, 'openblas_get_parallel'):\n"
	"        lib.openblas_get_config.restype = ctypes.c_char_p\n"
	"        blas, version = 'openblas', lib.openblas_get_config().decode().split()[1]\n"
	"        layer = {0: 'serial', 1: 'pthreads', 2: 'openmp'}.get(lib.openblas_get_parallel(), "
	"'unknown')\n"
	"        threads = lib.openblas_get_num_threads()\n"
	"        break\n"
	"else:\n"
	"    if torch.backends.mkl.is_available():\n"
	"        names = ' '.join(libs)\n"
	"        blas = 'mkl'\n"
	"        layer = 'serial' if 'mkl_sequential' in names else 'tbb' if 'mkl_tbb' in names "
	"else 'openmp'\n"
	"        m = re.search(r'Math Kernel Library Version ([0-9.]+)', cfg + par)\n"
	"        version, threads = m.group(1) if m else '', torch.get_num_threads()\n"
	"    elif any('Accelerate' in p for p in libs):\n"
	"        blas, layer = 'accelerate', 'accelerate'\n"
	"out('blas', blas)\n"
	"out('blas_version', version)\n"
	"out('blas_threading', layer)\n"
	"out('blas_threads', threads)\n"
	"m = re.search(r'ATen parallel backend: ([^\\n]+)', par)\n"
	"out('parallel_backend', m.group(1).strip() if m else 'unknown')\n"
	"m = re.search(r'^(OpenMP [0-9]+)', par, re.M)\n"
	"out('openmp', m.group(1) if m else 'none')\n"
	"out('intra_op_threads', torch.get_num_threads())\n"
	"out('interop_threads', torch.get_num_interop_threads())\n"
	"out('mkldnn', str(torch.backends.mkldnn.is_available()).lower())\n"
	"gpu = torch.cuda.is_available()\n"
	/* PyTorch's build flavours, whatever rigtune's backends are called: not a backend */
	"out('cuda', str(gpu and torch.version.hip is None).lower())\n" /* not a backend */
	"out('hip', str(gpu and torch.version.hip is not None).lower())\n" /* not a backend */
	"out('gpus', torch.cuda.device_count() if gpu else 0)\n";

/* JAX: the CPU client's Eigen pool is named tf_XLAEigen; it starts with the first computation. */
static const char probe_jax[] =
	"MODULE = 'jax'\n" PROBE_PRELUDE
	"import jax, jaxlib, jax.numpy as jnp\n"
	"out('version', jax.__version__)\n"
	"out('jaxlib', jaxlib.__version__)\n"
	"out('platform', jax.default_backend())\n"
	"out('devices', len(jax.devices()))\n"
	"x = jnp.ones((256, 256))\n"
	"jax.jit(lambda a: a @ a)(x).block_until_ready()\n"
	/* Linux names each thread in /proc; macOS lets no Python see another thread's name: the
	 * lines marked "platform:" are Python's, in the branch only Linux takes */
	"d = '/proc/self/task'\n" /* platform: */
	"if os.path.isdir(d):\n"
	"    names = [open(f'{d}/{t}/comm').read().strip() for t in os.listdir(d)]\n"
	"    out('cpu_pool_threads', names.count('tf_XLAEigen'))\n";

static const char probe_tensorflow[] =
	"MODULE = 'tensorflow'\n" PROBE_PRELUDE
	"os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')\n"
	"import tensorflow as tf\n"
	"out('version', tf.__version__)\n"
	"out('intra_op_threads', tf.config.threading.get_intra_op_parallelism_threads())\n"
	"out('interop_threads', tf.config.threading.get_inter_op_parallelism_threads())\n"
	"out('gpus', len(tf.config.list_physical_devices('GPU')))\n";

/*
 * gymnasium: its version from the installed metadata, without importing it
 * (tests/framework_hints.py runs its lines for real).
 */
#define PROBE_METADATA(module, dist)                                                      \
	"MODULE = '" module "'\n" PROBE_PRELUDE "import importlib.metadata\n"               \
	"out('version', importlib.metadata.version('" dist "'))\n"
static const char probe_gymnasium[] = PROBE_METADATA("gymnasium", "gymnasium");

/*
 * SB3: its version, then what its vector step costs here (the PPO hints'
 * envs follow it): PPO's learn() on DummyVecEnvs of 1 and 16 environments
 * that cost nothing (the trading environment's observation and actions),
 * with the workload's default update (n_epochs 4, batch_size 256) and one
 * torch thread, as the advice runs it. Time per vector step = fixed + n x
 * per_env. Only where asked (bit 1 of sys.argv[2]: RT_FW_TIME_SB3_STEP), and
 * not when less than STEP_COST_S is left of the probes' time (the driver's
 * deadline is sys.argv[1]); a timing that fails says why in step_costs.
 */
_Static_assert(RT_FW_TIME_SB3_STEP == 1, "probe_sb3 reads bit 1");
#define STEP_COST_S "4"
static const char probe_sb3[] =
	PROBE_METADATA("stable_baselines3", "stable_baselines3")
	"import time\n"
	"if not int(sys.argv[2]) & 1 or time.monotonic() > float(sys.argv[1]) - " STEP_COST_S ":\n"
	"    sys.exit(0)\n"
	"def step_costs():\n"
	"    import gymnasium as gym, numpy as np, torch\n"
	"    from stable_baselines3 import PPO\n"
	"    from stable_baselines3.common.logger import Logger\n"
	"    from stable_baselines3.common.vec_env import DummyVecEnv\n"
	"    torch.set_num_threads(1)\n"
	"    class Still(gym.Env):\n"
	"        observation_space = gym.spaces.Box(-1.0, 1.0, (151,), np.float32)\n"
	"        action_space = gym.spaces.Box(-1.0, 1.0, (30,), np.float32)\n"
	"        def reset(self, *, seed=None, options=None):\n"
	"            return np.zeros(151, np.float32), {}\n"
	"        def step(self, action):\n"
	"            return np.zeros(151, np.float32), 0.0, False, False, {}\n"
	"    def per_vector_step(n, steps=256):\n"
	"        model = PPO('MlpPolicy', DummyVecEnv([Still] * n), n_steps=steps,\n"
	"                    batch_size=256, n_epochs=4, device='cpu')\n" /* not a backend: torch's */
	"        model.set_logger(Logger(None, []))\n"
	"        model.learn(steps * n)\n" /* the first iteration pays for the warm-up */
	"        t = time.perf_counter()\n"
	"        model.learn(2 * steps * n)\n"
	"        return (time.perf_counter() - t) / (2 * steps)\n"
	"    one, many = per_vector_step(1), per_vector_step(16)\n"
	"    per_env = max(0.0, (many - one) / 15)\n"
	"    return one - per_env, per_env\n"
	/* SB3 is there whatever the timing meets: its lines keep the point's envs then */
	"try:\n"
	"    fixed, per_env = step_costs()\n"
	"    out('step_fixed_us', round(1e6 * fixed, 1))\n"
	"    out('step_per_env_us', round(1e6 * per_env, 1))\n"
	"except Exception as e:\n"
	"    out('step_costs', f'not timed: {type(e).__name__}: {e}')\n";

static const struct {
	const char *name;
	const char *script;
} probes[RT_NFW] = {
	[RT_FW_PYTORCH] = {"pytorch", probe_pytorch},
	[RT_FW_JAX] = {"jax", probe_jax},
	[RT_FW_TENSORFLOW] = {"tensorflow", probe_tensorflow},
	[RT_FW_GYMNASIUM] = {"gymnasium", probe_gymnasium},
	[RT_FW_SB3] = {"stable_baselines3", probe_sb3},
};

#define DEFAULT_PYTHON "python3"
#define SYSTEM_PYTHON "/usr/bin/python3"
/*
 * Every interpreter the probe starts runs isolated (docs/security.md): with
 * -c, Python puts the current directory first on sys.path, so a torch.py
 * where rigtune runs (as root, often) would be run by it. -I (Python 3.4 and
 * later; 3.11's -P is part of it) also leaves out the user's site and the
 * PYTHON* variables; the driver hands its probes PYTHONPATH's absolute
 * entries back and runs them from a private directory of its own.
 */
#define PY_ISOLATED "-I"

/*
 * Runs every probe at once, each in its own interpreter (an import that
 * crashes or hangs costs only its own framework), and prints their lines as
 * NAME:LINE, then NAME:status=ok|timeout|exit N and NAME:error=the last line
 * of its stderr. Each import costs seconds (PyPI's torch 3-5 s on a busy
 * 2-core machine): one after another they would not fit a short tune's share.
 * argv: the deadline on CLOCK_MONOTONIC (rt_now's clock, and Python's
 * time.monotonic on Linux: the interpreter's own start is charged to it),
 * what to time (RT_FW_TIME_*), then NAME SCRIPT pairs; each script gets the
 * deadline and what to time as its sys.argv[1] and [2].
 * Output goes to files, so that no probe blocks on a full pipe while another
 * is read.
 */
static const char probe_driver[] =
	"import os, subprocess, sys, tempfile, time\n"
	"until, timed = float(sys.argv[1]), sys.argv[2]\n"
	"home = tempfile.TemporaryDirectory()\n"
	"os.chdir(home.name)\n"
	"path = [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if os.path.isabs(p)]\n"
	"head = f'import sys\\nsys.path[:0] = {path!r}\\n'\n"
	"runs = []\n"
	"for name, script in zip(sys.argv[3::2], sys.argv[4::2]):\n"
	"    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()\n"
	"    argv = [sys.executable, '" PY_ISOLATED "', '-c', head + script, str(until), timed]\n"
	"    p = subprocess.Popen(argv,\n"
	"                         stdin=subprocess.DEVNULL, stdout=out, stderr=err)\n"
	"    runs.append((name, p, out, err))\n"
	"for name, p, out, err in runs:\n"
	"    try:\n"
	"        p.wait(timeout=max(0.0, until - time.monotonic()))\n"
	"        status = 'ok' if p.returncode == 0 else f'exit {p.returncode}'\n"
	"    except subprocess.TimeoutExpired:\n"
	"        p.kill()\n"
	"        p.wait()\n"
	"        status = 'timeout'\n"
	"    for f, key in ((out, None), (err, 'error')):\n"
	"        f.seek(0)\n"
	"        lines = [l for l in f.read().decode(errors='replace').splitlines() if l.strip()]\n"
	"        for line in (lines if key is None else lines[-1:]):\n"
	"            print(f'{name}:{line}' if key is None else f'{name}:{key}={line.strip()}')\n"
	"    print(f'{name}:status={status}', flush=True)\n";

/* What the probes' lines are collected into. */
typedef struct probe_out {
	rt_frameworks *all;
	char executable[256];
	char status[RT_NFW][32];   /* ok, timeout, exit N; "" when it said nothing */
	char error[RT_NFW][200];   /* the last line of its stderr */
	int absent[RT_NFW];        /* said installed=false */
} probe_out;

/* A driver line, NAME:KEY=VALUE, into its framework's entry. */
static void probe_line(void *user, int is_err, const char *text)
{
	probe_out *o = user;
	size_t colon = strcspn(text, ":");
	int id = 0;
	while (id < RT_NFW && (strlen(probes[id].name) != colon ||
			       strncmp(text, probes[id].name, colon)))
		id++;
	if (is_err || id == RT_NFW)
		return;
	rt_framework *f = &o->all->fw[id];
	const char *kv = text + colon + 1;
	size_t k = strcspn(kv, "=");
	if (!kv[k] || k == 0 || k >= sizeof f->key[0])
		return;
	const char *v = kv + k + 1;
#define IS(key) (k == strlen(key) && !strncmp(kv, key, k))
	if (IS("python_version"))
		snprintf(o->all->python_version, sizeof o->all->python_version, "%s", v);
	else if (IS("executable"))
		snprintf(o->executable, sizeof o->executable, "%s", v);
	else if (IS("installed"))
		o->absent[id] = !strcmp(v, "false");
	else if (IS("status"))
		snprintf(o->status[id], sizeof o->status[id], "%s", v);
	else if (IS("error"))
		snprintf(o->error[id], sizeof o->error[id], "%s", v);
	else if (f->n < RT_FW_MAX_KV) {
		snprintf(f->key[f->n], sizeof f->key[0], "%.*s", (int)k, kv);
		snprintf(f->value[f->n], sizeof f->value[0], "%.*s", (int)sizeof f->value[0] - 1, v);
		f->n++;
	}
#undef IS
}

/* Less than this left of the probes' time: nothing is probed. */
#define MIN_PROBE_S 0.05
/* The driver's end (killing and reporting a probe that ran out of time), beyond the deadline. */
#define DRIVER_GRACE_S 0.5

/* What one framework's probe came to, from the driver's status line. */
static void settle(rt_framework *f, const probe_out *o, int id, double seconds)
{
	const char *status = o->status[id];
	if (!strcmp(status, "timeout"))
		snprintf(f->note, sizeof f->note, "the probe timed out after %.1f s", seconds);
	else if (!strcmp(status, "ok") && o->absent[id])
		snprintf(f->note, sizeof f->note, "not installed");
	else if (strcmp(status, "ok"))
		snprintf(f->note, sizeof f->note, "import failed: %.180s",
			 o->error[id][0] ? o->error[id] : status[0] ? status : "no message");
	f->installed = !strcmp(status, "ok") && !o->absent[id];
	if (!f->installed)
		f->n = 0;
}

/*
 * Every framework of one python into out, to end by `until` (rt_now's
 * clock); RT_EINVAL when python cannot be run at all.
 */
static int probe_python(const char *python, double until, unsigned timed, rt_frameworks *out,
			char *executable, size_t exlen, char *err, size_t errlen)
{
	static probe_out o; /* large: not on the stack */
	/* python -I -c driver deadline timed, a name and a script per framework, NULL */
	char deadline[32], what[16], *argv[7 + 2 * RT_NFW] = {
		(char *)python, PY_ISOLATED, "-c", (char *)probe_driver, deadline, what};
	double left = until - rt_now();
	memset(out, 0, sizeof *out);
	memset(&o, 0, sizeof o);
	o.all = out;
	snprintf(out->python, sizeof out->python, "%s", python);
	for (int id = 0; id < RT_NFW; id++) {
		out->fw[id].name = probes[id].name;
		snprintf(out->fw[id].note, sizeof out->fw[id].note,
			 "not probed: the probes' time was spent");
		argv[6 + 2 * id] = (char *)probes[id].name;
		argv[7 + 2 * id] = (char *)probes[id].script;
	}
	if (left < MIN_PROBE_S)
		return RT_OK;
	snprintf(deadline, sizeof deadline, "%.3f", until);
	snprintf(what, sizeof what, "%u", timed);
	rt_usercmd c = {.argv = argv, .timeout_s = left + DRIVER_GRACE_S, .line = probe_line,
			.user = &o};
	rt_usercmd_exit x;
	int rc = rt_usercmd_run(&c, &x, err, errlen);
	if (rc)
		return rc;
	for (int id = 0; id < RT_NFW; id++)
		if (o.status[id][0])
			settle(&out->fw[id], &o, id, left);
		else if (!x.timed_out) /* the driver itself failed (a Python 2, say) */
			snprintf(out->fw[id].note, sizeof out->fw[id].note,
				 "the probes did not run: %.170s", x.last_err[0] ? x.last_err : "no message");
	snprintf(executable, exlen, "%s", o.executable);
	out->probed = 1;
	return RT_OK;
}

int rt_frameworks_probe(const char *python, double deadline_s, unsigned timed, rt_frameworks *out,
			char *err, size_t errlen)
{
	char exe[256] = "", why[RT_ERRLEN];
	double until = rt_now() + deadline_s;
	if (python)
		return probe_python(python, until, timed, out, exe, sizeof exe, err, errlen);
	int rc = probe_python(DEFAULT_PYTHON, until, timed, out, exe, sizeof exe, why, sizeof why);
	if (rc == RT_OK && out->fw[RT_FW_PYTORCH].installed)
		return RT_OK;
	/* PATH's python3 (a pyenv build, say) lacks what the system's may have */
	char sys_exe[256] = "", *real = realpath(SYSTEM_PYTHON, NULL);
	int other = real && strcmp(real, exe);
	free(real);
	static rt_frameworks sys; /* large: not on the stack */
	if (other && probe_python(SYSTEM_PYTHON, until, timed, &sys, sys_exe, sizeof sys_exe, NULL,
				  0) == RT_OK &&
	    sys.fw[RT_FW_PYTORCH].installed) {
		*out = sys;
		snprintf(out->note, sizeof out->note,
			 "%s on PATH %s PyTorch: probed " SYSTEM_PYTHON " (--python names another)",
			 DEFAULT_PYTHON, rc == RT_OK ? "has no" : "cannot run, so no");
		return RT_OK;
	}
	if (rc) {
		memset(out, 0, sizeof *out);
		snprintf(out->python, sizeof out->python, DEFAULT_PYTHON);
		snprintf(out->note, sizeof out->note, "%.280s", why);
	}
	return RT_OK;
}

int rt_frameworks_check(const char *python, char *err, size_t errlen)
{
	char *argv[] = {(char *)python, PY_ISOLATED, "-c", "pass", NULL};
	rt_usercmd c = {.argv = argv, .timeout_s = RT_FRAMEWORK_DEADLINE_S};
	rt_usercmd_exit x;
	int rc = rt_usercmd_run(&c, &x, err, errlen);
	if (rc == RT_OK && (!WIFEXITED(x.status) || WEXITSTATUS(x.status)))
		rc = rt_fail(err, errlen, RT_EINVAL, "%s does not run Python: %.200s", python,
			     x.last_err[0] ? x.last_err : "no message");
	return rc;
}

const char *rt_framework_get(const rt_framework *f, const char *key)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->key[i], key))
			return f->value[i];
	return NULL;
}

/* A probed value: an integer or a boolean as such, anything else as text. */
static void emit_value(rt_yw *w, const char *v)
{
	long n;
	if (rt_parse_long(v, &n) == RT_OK)
		rt_yw_int(w, n);
	else if (!strcmp(v, "true") || !strcmp(v, "false"))
		rt_yw_bool(w, !strcmp(v, "true"));
	else
		rt_yw_str(w, v);
}

void rt_frameworks_emit(rt_yw *w, const rt_frameworks *f)
{
	rt_yw_map(w, 0);
	rt_yw_kstr(w, "python", f->python);
	if (f->python_version[0])
		rt_yw_kstr(w, "python_version", f->python_version);
	if (f->note[0])
		rt_yw_kstr(w, "note", f->note);
	for (int id = 0; f->probed && id < RT_NFW; id++) {
		const rt_framework *fw = &f->fw[id];
		rt_yw_str(w, fw->name);
		if (!fw->installed) {
			rt_yw_str(w, fw->note);
			continue;
		}
		rt_yw_map(w, 0);
		for (int i = 0; i < fw->n; i++) {
			rt_yw_str(w, fw->key[i]);
			emit_value(w, fw->value[i]);
		}
		rt_yw_end_map(w);
	}
	rt_yw_end_map(w);
}

/* One framework's mapping (or the note of one that is not installed) into fw. */
static void read_framework(const rt_yr *r, const rt_ynode *n, rt_framework *fw)
{
	if (n->type != YAML_MAPPING_NODE) {
		snprintf(fw->note, sizeof fw->note, "%s", rt_yr_scalar(n) ? rt_yr_scalar(n) : "");
		return;
	}
	fw->installed = 1;
	for (int i = 0; i < rt_yr_npairs(n) && fw->n < RT_FW_MAX_KV; i++) {
		const rt_ynode *k, *v;
		rt_yr_pair(r, n, i, &k, &v);
		if (!rt_yr_scalar(k) || !rt_yr_scalar(v))
			continue;
		snprintf(fw->key[fw->n], sizeof fw->key[0], "%s", rt_yr_scalar(k));
		snprintf(fw->value[fw->n], sizeof fw->value[0], "%s", rt_yr_scalar(v));
		fw->n++;
	}
}

void rt_frameworks_read(const rt_yr *r, const rt_ynode *map, rt_frameworks *out)
{
	memset(out, 0, sizeof *out);
	for (int id = 0; id < RT_NFW; id++)
		out->fw[id].name = probes[id].name;
	if (!map || map->type != YAML_MAPPING_NODE)
		return;
	const char *python = rt_yr_scalar(rt_yr_get(r, map, "python"));
	snprintf(out->python, sizeof out->python, "%s", python ? python : "");
	for (int id = 0; id < RT_NFW; id++) {
		const rt_ynode *n = rt_yr_get(r, map, probes[id].name);
		if (n) {
			out->probed = 1;
			read_framework(r, n, &out->fw[id]);
		}
	}
}
