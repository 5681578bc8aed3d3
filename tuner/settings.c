/* settings.c: which of the user's thread and precision variables each framework reads (settings.h). */
#include "settings.h"

#include <stdio.h>
#include <string.h>

#include "../common/rt.h"

/*
 * One row: framework fw reads var or not, and what it does there. For
 * PyTorch a row may be for one BLAS (frameworks.h: blas); the first row
 * that matches wins, and a known variable with no row is ignored. Measured
 * on Debian's torch 1.13 (OpenBLAS, pthreads), PyPI's torch 2.15 (MKL, GNU
 * OpenMP) and jaxlib 0.10.2 on 2 cores (tests/framework_env.py).
 */
typedef struct setting_rule {
	const char *var;
	rt_fw_id fw;
	const char *blas; /* PyTorch's BLAS the row is for; NULL: any */
	int read;
	const char *what;
} setting_rule;

static const setting_rule rules[] = {
	{"MKL_NUM_THREADS", RT_FW_PYTORCH, NULL, 1,
	 "sizes PyTorch's intra-op pool (read before OMP_NUM_THREADS)"},
	{"OMP_NUM_THREADS", RT_FW_PYTORCH, "openblas", 1,
	 "sizes PyTorch's intra-op pool where MKL_NUM_THREADS is unset, and OpenBLAS's own "
	 "pool where OPENBLAS_NUM_THREADS is unset"},
	{"OMP_NUM_THREADS", RT_FW_PYTORCH, NULL, 1,
	 "sizes PyTorch's intra-op OpenMP pool, where its BLAS runs too, where "
	 "MKL_NUM_THREADS is unset"},
	{"OPENBLAS_NUM_THREADS", RT_FW_PYTORCH, "openblas", 1,
	 "sizes OpenBLAS's own pthread pool, where this PyTorch's fp32 matmuls run"},
	{"OPENBLAS_NUM_THREADS", RT_FW_PYTORCH, NULL, 0, "this PyTorch's BLAS is not OpenBLAS"},
	{"VECLIB_MAXIMUM_THREADS", RT_FW_PYTORCH, "accelerate", 1,
	 "sizes Accelerate's pool, where this PyTorch's matmuls run"},
	{"VECLIB_MAXIMUM_THREADS", RT_FW_PYTORCH, NULL, 0, "this PyTorch's BLAS is not Accelerate"},
	{"OMP_PROC_BIND", RT_FW_PYTORCH, NULL, 1,
	 "binds PyTorch's OpenMP threads, the main thread with them to one CPU (a pthread "
	 "BLAS then sizes its pool to that CPU): bind the process instead (rigtune exec)"},
	{"OMP_PLACES", RT_FW_PYTORCH, NULL, 1,
	 "binds PyTorch's OpenMP threads, the main thread with them to one CPU: bind the "
	 "process instead (rigtune exec)"},
	{"OMP_WAIT_POLICY", RT_FW_PYTORCH, NULL, 1,
	 "how PyTorch's OpenMP threads wait between ops: spinning (unset, ACTIVE) is faster "
	 "on cores the training has to itself, PASSIVE where another busy process shares "
	 "them (2 threads spinning ran 0.45x of passive beside one)"},
	{"NPROC", RT_FW_JAX, NULL, 1,
	 "sizes the Eigen pool of XLA's CPU client where PJRT_NPROC is unset"},
	{"PJRT_NPROC", RT_FW_JAX, NULL, 1, "sizes the Eigen pool of XLA's CPU client"},
	{"XLA_FLAGS", RT_FW_JAX, NULL, 0,
	 "XLA reads its --flags here, but none sizes the CPU pools: "
	 "--xla_cpu_multi_thread_eigen=false left both of the pool's threads running a matmul "
	 "on jaxlib 0.10.2"},
	{"JAX_ENABLE_X64", RT_FW_JAX, NULL, 1, "jax_enable_x64: arrays are 64-bit by default"},
	{"JAX_DEFAULT_MATMUL_PRECISION", RT_FW_JAX, NULL, 1,
	 "jax_default_matmul_precision: the precision of matmuls' dot algorithms"},
};

/* Every variable a row names or that users set to no effect (XLA_CPU_MULTI_THREAD_EIGEN: none reads it). */
static const char *const known[] = {
	"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
	"NUMEXPR_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "NPROC", "PJRT_NPROC", "XLA_FLAGS",
	"XLA_CPU_MULTI_THREAD_EIGEN", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS",
	"JAX_ENABLE_X64", "JAX_DEFAULT_MATMUL_PRECISION", NULL,
};

/* The frameworks judged, with the words for "does not read it". */
static const struct {
	rt_fw_id id;
	const char *ignored;
} judged[] = {
	{RT_FW_PYTORCH, "PyTorch does not read it"},
	{RT_FW_JAX, "JAX does not read it: XLA's CPU pools take the affinity mask's size or NPROC"},
};

const char *const *rt_setting_vars(void)
{
	return known;
}

int rt_setting_read(const rt_frameworks *f, rt_fw_id fw, const char *var, const char **what)
{
	const char *blas = fw == RT_FW_PYTORCH ? rt_framework_get(&f->fw[fw], "blas") : NULL;
	for (size_t i = 0; i < RT_COUNT(rules); i++) {
		const setting_rule *r = &rules[i];
		if (r->fw == fw && !strcmp(r->var, var) &&
		    (!r->blas || (blas && !strcmp(blas, r->blas)))) {
			*what = r->what;
			return r->read;
		}
	}
	*what = NULL;
	for (size_t i = 0; i < RT_COUNT(judged); i++)
		if (judged[i].id == fw)
			*what = judged[i].ignored;
	return 0;
}

/* The value envp gives var, NULL where unset. */
static const char *env_value(char *const *envp, const char *var)
{
	size_t n = strlen(var);
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, var, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* "read: what" or "ignored: what". */
static void emit_verdict(rt_yw *w, const rt_frameworks *f, rt_fw_id fw, const char *var)
{
	const char *what;
	char text[400];
	int read = rt_setting_read(f, fw, var, &what);
	snprintf(text, sizeof text, "%s: %s", read ? "read" : "ignored", what);
	rt_yw_kstr(w, f->fw[fw].name, text);
}

void rt_settings_emit(rt_yw *w, const rt_frameworks *f, char *const *envp)
{
	int any = 0;
	rt_yw_str(w, "your_settings");
	for (const char *const *v = known; *v; v++) {
		const char *value = env_value(envp, *v);
		if (!value)
			continue;
		if (!any++)
			rt_yw_map(w, 0);
		char shown[120];
		snprintf(shown, sizeof shown, "%.119s", value); /* a value is the user's: bounded */
		rt_yw_str(w, *v);
		rt_yw_map(w, 0);
		rt_yw_kstr(w, "value", shown);
		for (size_t i = 0; i < RT_COUNT(judged); i++)
			if (f->probed && f->fw[judged[i].id].installed)
				emit_verdict(w, f, judged[i].id, *v);
		rt_yw_end_map(w);
	}
	if (any)
		rt_yw_end_map(w);
	else
		rt_yw_str(w, "none of the thread or precision variables rigtune judges is set");
}

/* A version from a file, fit for a shell comment: dots, digits, letters, +, - and _ only. */
static const char *plain_version(const char *v)
{
	if (!v || !*v || v[strspn(v, "0123456789.+-_abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ")] || strlen(v) > 40)
		return "";
	return v;
}

void rt_settings_comment(FILE *out, const rt_frameworks *f, char *const *envp)
{
	for (const char *const *v = known; *v; v++) {
		if (!env_value(envp, *v))
			continue;
		for (size_t i = 0; i < RT_COUNT(judged); i++) {
			const rt_framework *fw = &f->fw[judged[i].id];
			const char *what, *version = plain_version(rt_framework_get(fw, "version"));
			if (!f->probed || !fw->installed)
				continue;
			int read = rt_setting_read(f, judged[i].id, *v, &what);
			fprintf(out, "# your %s: %s %s %s it (%s)\n", *v, fw->name,
				version, read ? "reads" : "ignores", what);
		}
	}
}
