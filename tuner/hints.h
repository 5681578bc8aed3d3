/*
 * hints.h: what to tell a framework so that it trains like a recommended
 * point of a built-in workload, following how that framework threads
 * (frameworks.h). Measured with Debian's PyTorch 1.13 (examples/README.md):
 *
 *   PyTorch runs its own ops in an OpenMP pool (torch.set_num_threads,
 *   sized from MKL_NUM_THREADS, else OMP_NUM_THREADS, else the cores). Its
 *   BLAS either runs in that pool (MKL and OpenBLAS built with OpenMP:
 *   set_num_threads sizes both) or has a pthread pool of its own (OpenBLAS
 *   built with pthreads, as Debian's, and Accelerate: OPENBLAS_NUM_THREADS,
 *   else OMP_NUM_THREADS, sizes it when the library loads). With two pools
 *   both at the core count, the OpenMP workers spinning after an op and the
 *   BLAS workers fight over the cores: such a build gets its intra-op pool
 *   at 1 and the BLAS's at the point's threads. OMP_PROC_BIND/OMP_PLACES are
 *   never exported: they bind the main thread to one core, and a
 *   pthread-BLAS then sizes its pool to that one core and DataLoader
 *   workers inherit it (bind the process instead: rigtune exec).
 *
 * The env variables follow PyTorch's model (the framework probed, or the
 * shared-pool model when none was). Every line of every block is one that
 * tests/framework_hints.py applies in a real process of the build it was
 * written for (Debian's python3-torch; PyPI's torch, jax, gymnasium and
 * stable-baselines3 in make test's environment), but for those that need a
 * GPU or a Mac (PyTorch's device and autocast on 'cuda' or 'mps', SB3's
 * device='cuda' or 'mps', JAX's fp16, Accelerate's VECLIB_MAXIMUM_THREADS): these are
 * marked untested one by one. A block whose framework was not probed for
 * the Python (or is TensorFlow, which the tests do not install) is untested
 * as a whole and says so.
 */
#ifndef RT_HINTS_H
#define RT_HINTS_H

#include "../workloads/workload.h"
#include "frameworks.h"
#include "fwdevice.h"
#include "yamlw.h"

#define RT_HINTS_MAX_LINES 8
#define RT_HINTS_MAX_ENV 8

typedef struct rt_hint_block {
	const char *framework; /* "pytorch", "jax", "tensorflow", "gymnasium", "stable_baselines3" */
	int untested;          /* the documented setting, not checked on this build */
	char about[1536];       /* the build the lines follow, and why */
	int n;
	char line[RT_HINTS_MAX_LINES][RT_HINT_LEN];
	char line_untested[RT_HINTS_MAX_LINES]; /* 1: the tests cannot run that line here */
} rt_hint_block;

typedef struct rt_hints {
	int nenv;
	char env_name[RT_HINTS_MAX_ENV][32];
	char env_value[RT_HINTS_MAX_ENV][16];
	rt_hint_block fw[RT_NFW];
} rt_hints;

/*
 * The hints for workload w at point pt and shape sh on frameworks f (f may
 * be NULL, or say nothing was probed: PyTorch's lines are then those of the
 * shared-pool model, marked untested, and say so). dev: the crossover's fits
 * of pt's device against the host, from which the lines of a framework that
 * runs the workload's policy per env step (SB3's line, and a hand-written
 * PyTorch loop's: PyTorch's device and precision lines) name the device
 * faster for that framework's own step (fwdevice.h); NULL where none were
 * measured: such lines at a device point name the CPU, as SB3 advises for
 * an MlpPolicy, and say it was not measured.
 */
void rt_hints_for(const rt_frameworks *f, const rt_workload *w, const rt_point *pt,
		  const rt_shape *sh, const rt_fw_device_fits *dev, rt_hints *out);

/*
 * env: {NAME: value, ...} and hints: {pytorch: {...}, jax: {...}, tensorflow:
 * {...}, and gymnasium and stable_baselines3 for a workload with environments},
 * each with untested: true when none of its lines is tested, and
 * untested_lines: [...] naming those of its lines that are not.
 */
void rt_hints_emit(rt_yw *w, const rt_hints *h);

#endif
