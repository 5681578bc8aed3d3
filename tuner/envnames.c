/* envnames.c: the variables a file may set, and rigtune's own (envnames.h). */
#include "envnames.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../common/rt.h"

/*
 * The variables rigtune's knobs set (hints.c, usercmd_knobs.c) and the
 * binding the OpenMP runtimes read: a new knob's variable is one line.
 */
static const char *const owned_env[] = {
	"OMP_NUM_THREADS",     "MKL_NUM_THREADS",      "OPENBLAS_NUM_THREADS",
	"VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "BLIS_NUM_THREADS",
	"OMP_PROC_BIND",       "OMP_PLACES",           "OMP_WAIT_POLICY",
	"CUDA_VISIBLE_DEVICES",
	"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
	"OPENBLAS_CORETYPE", /* the kernel set tune measured fastest (blas_cores.h) */
};

/*
 * Every RIGTUNE_ variable rigtune (and its plugins) reads as a setting: a new
 * getenv of one is a line here, or test_escaping.sh fails.
 */
static const char *const settings_env[] = {
	"RIGTUNE_BACKEND_PATH", "RIGTUNE_NVML",  "RIGTUNE_ROCM_SMI",        "RIGTUNE_ROCBLAS",
	"RIGTUNE_GEMM",         "RIGTUNE_DRILL", "RIGTUNE_CONTENTION_LIMIT", "RIGTUNE_LOCK_DIR",
	"RIGTUNE_BLAS_REEXEC",  "RIGTUNE_CPU_MASK", "RIGTUNE_MEMWATCH_MIB", "RIGTUNE_TEST_CLOCK",
	"RIGTUNE_IOREPORT",     "RIGTUNE_COREFOUNDATION", "RIGTUNE_CACHE_DIR",
};

static int listed(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return 1;
	return 0;
}

int rt_env_is_setting(const char *name)
{
	return listed(name, settings_env, RT_COUNT(settings_env));
}

int rt_env_owned(const char *name)
{
	if (listed(name, owned_env, RT_COUNT(owned_env)))
		return 1;
	return !strncmp(name, "RIGTUNE_", 8) && name[8] && !rt_env_is_setting(name);
}

void rt_env_knob_var(const char *knob, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "RIGTUNE_");
	for (size_t k = 0; knob[k] && n + 1 < len; k++)
		out[n++] = (char)toupper((unsigned char)knob[k]);
	if (n < len)
		out[n] = '\0';
}

int rt_env_knob_ok(const char *name)
{
	char var[256];
	rt_env_knob_var(name, var, sizeof var);
	return rt_env_owned(var);
}
