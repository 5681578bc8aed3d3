/*
 * frameworks.h: the ML frameworks a Python interpreter has, and how each
 * threads its work: what the hints (hints.h) must follow.
 *
 * Each framework is probed by a short script in its own child process
 * (usercmd.h) with a deadline, so that a framework that hangs or crashes on
 * import costs that deadline and nothing else. The script prints key=value
 * lines; what they say is kept as text, in the order printed. Every one
 * says os (Python's sys.platform: linux, darwin), then:
 *
 *   pytorch     version, blas (openblas, mkl, accelerate, generic),
 *               blas_version, blas_threading (pthreads: its own pool;
 *               openmp: PyTorch's OpenMP pool; serial; accelerate:
 *               Accelerate's own pool, beside the libomp that PyPI's macOS
 *               wheels bundle for the intra-op pool), blas_threads,
 *               parallel_backend (OpenMP, native thread pool), openmp,
 *               intra_op_threads, interop_threads (its defaults in that
 *               environment), mkldnn, cuda, hip (true/false), gpus
 *   jax         version, jaxlib, platform (cpu, gpu, tpu), devices,
 *               cpu_pool_threads (the threads of the CPU client's Eigen
 *               pool, counted after a jitted matmul)
 *   tensorflow  version, intra_op_threads, interop_threads, gpus
 *   gymnasium   version (from the installed metadata: no import)
 *   stable_baselines3  version; step_fixed_us, step_per_env_us (what its
 *               PPO costs a vector step of n envs, as fixed + n x per_env,
 *               timed on an environment that costs nothing, where asked:
 *               RT_FW_TIME_SB3_STEP; left out when the probes' time is short;
 *               step_costs says why where the timing failed)
 *
 * A framework that is not there is "not installed"; one that fails to
 * import says how in its note.
 */
#ifndef RT_FRAMEWORKS_H
#define RT_FRAMEWORKS_H

#include "yamlr.h"
#include "yamlw.h"

typedef enum rt_fw_id {
	RT_FW_PYTORCH,
	RT_FW_JAX,
	RT_FW_TENSORFLOW,
	RT_FW_GYMNASIUM,
	RT_FW_SB3,
	RT_NFW
} rt_fw_id;

#define RT_FW_MAX_KV 20
/* Seconds the probes may take together (importing TensorFlow is slow). */
#define RT_FRAMEWORK_DEADLINE_S 60

typedef struct rt_framework {
	const char *name;   /* "pytorch" */
	int installed;      /* it imported */
	char note[200];     /* why not: "not installed", "import failed: ...", "timeout ..." */
	int n;
	char key[RT_FW_MAX_KV][32];
	char value[RT_FW_MAX_KV][96];
} rt_framework;

typedef struct rt_frameworks {
	int probed;               /* a Python ran */
	char python[256];         /* the interpreter probed */
	char python_version[32];
	char note[300];           /* why nothing was probed, or which other Python was used */
	rt_framework fw[RT_NFW];
} rt_frameworks;

/* What a probe times beyond what the frameworks say of themselves. */
enum {
	RT_FW_TIME_SB3_STEP = 1 /* SB3's vector step: step_fixed_us, step_per_env_us (seconds) */
};

/*
 * Probes the interpreter python, every framework within deadline_s seconds
 * in all (one that cannot start in time is noted "not probed"), and times
 * what `timed` asks (RT_FW_TIME_*, or 0).
 * With python NULL: `python3` on PATH, and where that has no PyTorch,
 * /usr/bin/python3 (the system's, where a distribution's packages go) when
 * that is another interpreter and has it. A default Python that is not there
 * is a note, not an error. RT_EINVAL "cannot run PYTHON: why" for a python
 * the user named that cannot run.
 */
int rt_frameworks_probe(const char *python, double deadline_s, unsigned timed, rt_frameworks *out,
			char *err, size_t errlen);

/* Whether python runs at all (`python -c pass`, a few seconds at most): RT_EINVAL with why not. */
int rt_frameworks_check(const char *python, char *err, size_t errlen);

/* What the probe said for key, NULL if it said nothing (or the framework is not there). */
const char *rt_framework_get(const rt_framework *f, const char *key);

/* The frameworks as a YAML mapping (the value of a `frameworks:` key). */
void rt_frameworks_emit(rt_yw *w, const rt_frameworks *f);

/*
 * The frameworks back from that mapping (a configuration's), into out:
 * what each said, a text value for a framework that is not installed; a
 * map that is NULL or not a mapping leaves out->probed 0. Values longer
 * than the probe's are cut, keys past RT_FW_MAX_KV left out.
 */
void rt_frameworks_read(const rt_yr *r, const rt_ynode *map, rt_frameworks *out);

#endif
