/*
 * envnames.h: which environment variables what a file says may set. A
 * configuration's env: (exec, env), a space file's knob names and a
 * configuration's point (each knob becomes RIGTUNE_<KNOB> in a tuned
 * command's environment) are data from anyone; every one of them is checked
 * here, against one table of rigtune's own settings.
 */
#ifndef RT_ENVNAMES_H
#define RT_ENVNAMES_H

#include <stddef.h>

/*
 * Whether name is one of the RIGTUNE_ variables rigtune reads as its own
 * settings (RIGTUNE_BACKEND_PATH, RIGTUNE_NVML, RIGTUNE_CPU_MASK, ...):
 * several name a library it loads, so a file that could set one would run
 * code in the next rigtune. Every getenv("RIGTUNE_...") of the sources is in
 * the table (tests/cli/test_escaping.sh checks it).
 */
int rt_env_is_setting(const char *name);

/*
 * Whether name is a variable rigtune's knobs own, the only ones a
 * configuration may set without the user's leave: the thread counts
 * (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS, ...), the
 * visible-device variables, the OpenMP binding (OMP_PROC_BIND, OMP_PLACES)
 * and RIGTUNE_<KNOB>, but not rigtune's own settings (rt_env_is_setting).
 * PATH, LD_PRELOAD or PROMPT_COMMAND in a configuration would run code.
 */
int rt_env_owned(const char *name);

/*
 * The variable a user's knob sets in its command's environment,
 * RIGTUNE_<KNOB> (upper case), into out (len bytes, truncated).
 */
void rt_env_knob_var(const char *knob, char *out, size_t len);

/*
 * Whether a knob may be called name: its variable (rt_env_knob_var) is one
 * rigtune's knobs own, not one of its settings. Syntax is the caller's.
 */
int rt_env_knob_ok(const char *name);

#endif
