/*
 * settings.h: what the user's own settings do. The thread and precision
 * variables set in the environment rigtune runs in, and for each framework
 * probed (frameworks.h) whether that build reads the variable, and what for,
 * or ignores it (seed 001: OMP_NUM_THREADS, MKL_NUM_THREADS,
 * OPENBLAS_NUM_THREADS and XLA_CPU_MULTI_THREAD_EIGEN at 16 changed nothing
 * on JAX).
 *
 * The verdicts are one table (settings.c), by framework and, for PyTorch, by
 * its BLAS; tests/framework_env.py proves each row on the real installs (the
 * pools, the threads that run a matmul, the affinity and the dtypes a process
 * gets with the variable set, against without it).
 */
#ifndef RT_SETTINGS_H
#define RT_SETTINGS_H

#include <stdio.h>

#include "frameworks.h"
#include "yamlw.h"

/* Whether framework fw, as probed, reads var: 1 read, 0 ignored; *what says what it does. */
int rt_setting_read(const rt_frameworks *f, rt_fw_id fw, const char *var, const char **what);

/* The variables the table knows, NULL-terminated (the tests set each). */
const char *const *rt_setting_vars(void);

/*
 * your_settings: {VAR: {value, pytorch: "read: ...", jax: "ignored: ..."}}
 * for each known variable envp sets, judged for each framework f has
 * installed (PyTorch, JAX); a line saying none is set where none is.
 */
void rt_settings_emit(rt_yw *w, const rt_frameworks *f, char *const *envp);

/*
 * The same as shell comments to out, one line a variable envp sets, for the
 * frameworks of a configuration (`rigtune env`): names and verdicts only,
 * never a value (a comment line ends at a newline a value may hold).
 */
void rt_settings_comment(FILE *out, const rt_frameworks *f, char *const *envp);

#endif
