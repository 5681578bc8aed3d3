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
	"with open('/proc/self/maps') as f:\n"
	"    libs = sorted({l.split()[-1] for l in f if '.so' in l and l.split()[-1][:1] == '/'})\n"
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
	"        blas, layer = 'accelerate', 'pthreads'\n"
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
	"out('cuda', str(gpu and torch.version.hip is None).lower())\n"
	"out('hip', str(gpu and torch.version.hip is not None).lower())\n"
	"out('gpus', torch.cuda.device_count() if gpu else 0)\n";

static const char probe_jax[] = "MODULE = 'jax'\n" PROBE_PRELUDE
				"import jax\n"
				"out('version', jax.__version__)\n"
				"out('platform', jax.default_backend())\n"
				"out('devices', len(jax.devices()))\n";

static const char probe_tensorflow[] =
	"MODULE = 'tensorflow'\n" PROBE_PRELUDE
	"os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')\n"
	"import tensorflow as tf\n"
	"out('version', tf.__version__)\n"
	"out('intra_op_threads', tf.config.threading.get_intra_op_parallelism_threads())\n"
	"out('interop_threads', tf.config.threading.get_inter_op_parallelism_threads())\n"
	"out('gpus', len(tf.config.list_physical_devices('GPU')))\n";

static const struct {
	const char *name;
	const char *script;
} probes[RT_NFW] = {
	[RT_FW_PYTORCH] = {"pytorch", probe_pytorch},
	[RT_FW_JAX] = {"jax", probe_jax},
	[RT_FW_TENSORFLOW] = {"tensorflow", probe_tensorflow},
};

#define DEFAULT_PYTHON "python3"
#define SYSTEM_PYTHON "/usr/bin/python3"

/* What one probe's lines are collected into. */
typedef struct probe_out {
	rt_framework *f;
	rt_frameworks *all;
	char executable[256];
	int absent; /* said installed=false */
} probe_out;

static void probe_line(void *user, int is_err, const char *text)
{
	probe_out *o = user;
	size_t k = strcspn(text, "=");
	if (is_err || !text[k] || k == 0 || k >= sizeof o->f->key[0])
		return;
	const char *v = text + k + 1;
	if (!strncmp(text, "python_version", k))
		snprintf(o->all->python_version, sizeof o->all->python_version, "%s", v);
	else if (!strncmp(text, "executable", k))
		snprintf(o->executable, sizeof o->executable, "%s", v);
	else if (!strncmp(text, "installed", k))
		o->absent = !strcmp(v, "false");
	else if (o->f->n < RT_FW_MAX_KV) {
		snprintf(o->f->key[o->f->n], sizeof o->f->key[0], "%.*s", (int)k, text);
		snprintf(o->f->value[o->f->n], sizeof o->f->value[0], "%.*s",
			 (int)sizeof o->f->value[0] - 1, v);
		o->f->n++;
	}
}

/* Less than this left of the probes' time: a framework is not probed. */
#define MIN_PROBE_S 0.05

/*
 * One framework's probe in a child, until `until` (rt_now's clock); RT_EINVAL
 * when python cannot be run at all.
 */
static int probe_one(const char *python, rt_fw_id id, double until, rt_frameworks *all,
		     char *executable, size_t exlen, char *err, size_t errlen)
{
	rt_framework *f = &all->fw[id];
	char *argv[] = {(char *)python, "-c", (char *)probes[id].script, NULL};
	double deadline_s = until - rt_now();
	probe_out o = {.f = f, .all = all};
	rt_usercmd c = {.argv = argv, .timeout_s = deadline_s, .line = probe_line, .user = &o};
	rt_usercmd_exit x;
	memset(f, 0, sizeof *f);
	f->name = probes[id].name;
	if (deadline_s < MIN_PROBE_S) {
		snprintf(f->note, sizeof f->note, "not probed: the probes' time was spent");
		return RT_OK;
	}
	int rc = rt_usercmd_run(&c, &x, err, errlen);
	if (rc)
		return rc;
	snprintf(executable, exlen, "%s", o.executable);
	int ok = WIFEXITED(x.status) && WEXITSTATUS(x.status) == 0;
	if (x.timed_out)
		snprintf(f->note, sizeof f->note, "the probe timed out after %.1f s", deadline_s);
	else if (ok && o.absent)
		snprintf(f->note, sizeof f->note, "not installed");
	else if (!ok)
		snprintf(f->note, sizeof f->note, "import failed: %.180s",
			 x.last_err[0] ? x.last_err : "no message");
	f->installed = ok && !o.absent && !x.timed_out;
	if (!f->installed)
		f->n = 0;
	return RT_OK;
}

/* Every framework of one python into out; RT_EINVAL when it cannot run. */
static int probe_python(const char *python, double until, rt_frameworks *out,
			char *executable, size_t exlen, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	snprintf(out->python, sizeof out->python, "%s", python);
	for (int id = 0; id < RT_NFW; id++) {
		int rc = probe_one(python, (rt_fw_id)id, until, out, executable, exlen, err, errlen);
		if (rc)
			return rc;
	}
	out->probed = 1;
	return RT_OK;
}

int rt_frameworks_probe(const char *python, double deadline_s, rt_frameworks *out, char *err,
			size_t errlen)
{
	char exe[256] = "", why[RT_ERRLEN];
	double until = rt_now() + deadline_s;
	if (python)
		return probe_python(python, until, out, exe, sizeof exe, err, errlen);
	int rc = probe_python(DEFAULT_PYTHON, until, out, exe, sizeof exe, why, sizeof why);
	if (rc == RT_OK && out->fw[RT_FW_PYTORCH].installed)
		return RT_OK;
	/* PATH's python3 (a pyenv build, say) lacks what the system's may have */
	char sys_exe[256] = "", *real = realpath(SYSTEM_PYTHON, NULL);
	int other = real && strcmp(real, exe);
	free(real);
	static rt_frameworks sys; /* large: not on the stack */
	if (other && probe_python(SYSTEM_PYTHON, until, &sys, sys_exe, sizeof sys_exe, NULL,
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
	char *argv[] = {(char *)python, "-c", "pass", NULL};
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
