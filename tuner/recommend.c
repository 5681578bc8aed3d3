/*
 * recommend.c: the recommendation document of `rigtune tune`
 * (configs/<host>.yaml): per workload the recommended point (the knee), the
 * fastest point, runner-ups, what to export and what to tell the framework,
 * and why, in one sentence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "contention.h"
#include "report.h"
#include "tune.h"

#define RUNNER_UPS 3
#define RT_HINTS 4 /* lines a workload may add to its PyTorch hints */

/* The tune trial measured at the search trial's point. */
static const rt_tune_trial *trial_at(const rt_tune_workload *twl, const int *idx)
{
	int np = rt_space_nparams(twl->space);
	for (int i = 0; i < twl->ntrials; i++)
		if (!memcmp(twl->trials[i].idx, idx, sizeof(int) * (size_t)np))
			return &twl->trials[i];
	return NULL;
}

/* The parameter that saturates (batch, num_envs), or NULL. */
static const char *saturating_param(const rt_space *s)
{
	for (int p = 0; p < rt_space_nparams(s); p++)
		if (rt_space_role(s, p) == RT_ROLE_SATURATING)
			return rt_space_name(s, p);
	return NULL;
}

/* point: {...} and shape values the search varied (num_envs) are in `shape`. */
static void emit_config(rt_yw *w, const rt_tune_workload *twl, const rt_tune_trial *t)
{
	rt_yw_map(w, 0);
	rt_yw_str(w, "point");
	rt_emit_point(w, &t->pt, twl->w);
	rt_yw_str(w, "shape");
	rt_emit_shape(w, twl->w, &t->sh);
	rt_emit_throughput(w, twl->w->unit, t->median, t->ci_lo, t->ci_hi, t->cv, 0);
	rt_yw_end_map(w);
}

static void emit_env(rt_yw *w, const rt_point *pt)
{
	char v[16];
	snprintf(v, sizeof v, "%d", pt->threads);
	rt_yw_str(w, "env");
	rt_yw_map(w, 0);
	static const char *const vars[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
					   "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
					   "NUMEXPR_NUM_THREADS"};
	for (size_t i = 0; i < RT_COUNT(vars); i++)
		rt_yw_kstr(w, vars[i], v);
	/* the pin policy, as OpenMP runtimes (and OpenBLAS built with OpenMP) read it */
	static const char *const bind[RT_NPIN] = {
		[RT_PIN_NONE] = "false", [RT_PIN_COMPACT] = "close",
		[RT_PIN_SPREAD] = "spread", [RT_PIN_PCORES] = "close",
	};
	rt_yw_kstr(w, "OMP_PROC_BIND", bind[pt->pin]);
	if (pt->pin != RT_PIN_NONE)
		rt_yw_kstr(w, "OMP_PLACES", "cores");
	rt_yw_end_map(w);
}

/* What the framework needs to be told to match the point. */
static void emit_hints(rt_yw *w, const rt_tune_workload *twl, const rt_tune_trial *t)
{
	const rt_point *pt = &t->pt;
	char line[256];
	int gpu = strcmp(pt->backend, "cpu") != 0;
	rt_yw_str(w, "hints");
	rt_yw_map(w, 0);
	rt_yw_str(w, "pytorch");
	rt_yw_seq(w, 0);
	snprintf(line, sizeof line, "torch.set_num_threads(%d)", pt->threads);
	rt_yw_str(w, line);
	char own[RT_HINTS][RT_HINT_LEN];
	int n = twl->w->hints ? twl->w->hints(pt, &t->sh, own, RT_HINTS) : 0;
	for (int i = 0; i < n && i < RT_HINTS; i++)
		rt_yw_str(w, own[i]);
	if (pt->precision == RT_TF32)
		rt_yw_str(w, "torch.set_float32_matmul_precision('high')  # TF32 matmuls");
	if (pt->precision == RT_BF16)
		rt_yw_str(w, gpu ? "with torch.autocast('cuda', dtype=torch.bfloat16): ..."
				 : "with torch.autocast('cpu', dtype=torch.bfloat16): ...");
	if (pt->precision == RT_FP16)
		rt_yw_str(w, "torch.autocast('cuda', dtype=torch.float16) with a GradScaler");
	rt_yw_end_seq(w);
	rt_yw_str(w, "jax");
	rt_yw_seq(w, 0);
	snprintf(line, sizeof line,
		 "XLA_FLAGS='--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads=%d'",
		 pt->threads);
	rt_yw_str(w, line);
	static const char *const jax_prec[RT_NPRECISION] = {
		[RT_FP64] = "jax.config.update('jax_enable_x64', True)",
		[RT_FP32] = "jax.config.update('jax_default_matmul_precision', 'highest')",
		[RT_TF32] = "jax.config.update('jax_default_matmul_precision', 'tensorfloat32')",
		[RT_BF16] = "jax.config.update('jax_default_matmul_precision', 'bfloat16')",
		[RT_FP16] = "cast params and inputs to jnp.float16",
	};
	rt_yw_str(w, jax_prec[pt->precision]);
	rt_yw_end_seq(w);
	rt_yw_end_map(w);
}

/* The runner-ups: the fastest feasible trials after the best, excluding the knee. */
static void emit_runner_ups(rt_yw *w, const rt_tune_workload *twl, const rt_tune_trial *best,
			    const rt_tune_trial *knee)
{
	const rt_tune_trial *picked[RUNNER_UPS];
	int n = 0;
	rt_yw_str(w, "runner_ups");
	rt_yw_seq(w, 0);
	while (n < RUNNER_UPS) {
		const rt_tune_trial *next = NULL;
		for (int i = 0; i < twl->ntrials; i++) {
			const rt_tune_trial *t = &twl->trials[i];
			int taken = t == best || t == knee;
			for (int k = 0; k < n; k++)
				taken |= picked[k] == t;
			if (t->feasible && !taken && (!next || t->median > next->median))
				next = t;
		}
		if (!next)
			break;
		picked[n++] = next;
		emit_config(w, twl, next);
	}
	rt_yw_end_seq(w);
}

/*
 * The reason in one sentence: which point, why it rather than the fastest,
 * and what the machine showed (the workload's bottleneck sentence: a
 * rollout-bound PPO says so).
 */
static void reason(const rt_tune_workload *twl, const rt_tune_trial *best,
		   const rt_tune_trial *knee, const char *sat, int usable_cores, char *buf,
		   size_t len)
{
	const char *unit = twl->w->unit;
	size_t n = 0;
	if (knee != best && sat) {
		long kv = 0, bv = 0;
		rt_space_value_int(twl->space, knee->idx, sat, &kv);
		rt_space_value_int(twl->space, best->idx, sat, &bv);
		n = (size_t)snprintf(buf, len,
				     "%s=%ld is the knee: %.3g %s, within 5%% of the fastest "
				     "(%s=%ld, %.3g %s) at a smaller %s",
				     sat, kv, knee->median, unit, sat, bv, best->median, unit, sat);
	} else {
		n = (size_t)snprintf(buf, len, "the fastest point measured: %.3g %s on %s, %d thread%s",
				     best->median, unit, best->pt.backend, best->pt.threads,
				     best->pt.threads == 1 ? "" : "s");
	}
	rt_derived d[RT_MAX_DERIVED];
	char s[256];
	rt_derive(twl->w, &knee->pt, &knee->sh, knee->median, knee->phase_frac, knee->step_seconds,
		  usable_cores, d, s, sizeof s);
	if (s[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, "; %s", s);
	/* measured once more when contended: still so means the machine stayed busy */
	double busy = knee->contention > best->contention ? knee->contention : best->contention;
	if (busy > rt_contended_share() && n < len)
		snprintf(buf + n, len - n,
			 "; measured on a busy machine (other processes took %.0f%% of the trial's "
			 "CPUs): the figures are low, run tune again on a quiet machine",
			 100 * busy);
}

static void emit_workload(rt_yw *w, const rt_tune_run *run, const rt_tune_workload *twl)
{
	rt_yw_str(w, twl->w->name);
	rt_yw_map(w, 0);
	rt_yw_str(w, "shape");
	rt_emit_shape(w, twl->w, &twl->shape);
	const rt_tune_trial *best = NULL, *knee = NULL;
	const char *sat = saturating_param(twl->space);
	if (twl->status == RT_OK && twl->result && twl->result->best >= 0) {
		int k = twl->result->best;
		best = trial_at(twl, twl->result->trials[k].idx);
		if (sat && rt_knee(twl->space, twl->result, sat, RT_KNEE_WITHIN, &k, NULL, 0) == RT_OK)
			knee = trial_at(twl, twl->result->trials[k].idx);
		if (!knee)
			knee = best;
	}
	if (!best) {
		rt_yw_kstr(w, "none", twl->note[0] ? twl->note : "no trial finished");
	} else {
		char why[768];
		rt_yw_str(w, "recommended");
		emit_config(w, twl, knee);
		rt_yw_str(w, "fastest");
		emit_config(w, twl, best);
		reason(twl, best, knee, sat, run->usable_cores, why, sizeof why);
		rt_yw_kstr(w, "reason", why);
		emit_env(w, &knee->pt);
		emit_hints(w, twl, knee);
		emit_runner_ups(w, twl, best, knee);
	}
	rt_yw_kint(w, "trials", twl->ntrials);
	rt_yw_kint(w, "reused", twl->reused);
	rt_yw_end_map(w);
}

/* The crossover analysis of the sweep tune made, or null (not measured, or unusable). */
static void emit_crossover(rt_yw *w, const rt_xo_data *d)
{
	rt_xo_shape shape = {0};
	char note[8], err[RT_ERRLEN];
	rt_yw_str(w, "crossover");
	if (!d->square) {
		rt_yw_null(w);
		return;
	}
	/* the fits come first: when one fails, nothing has been emitted yet */
	if (rt_xo_analyze(w, d, &shape, NULL, note, sizeof note, err, sizeof err))
		rt_yw_null(w);
}

int rt_tune_emit(const rt_tune_run *run, const rt_tune_opts *o, char **text, size_t *len,
		 char *err, size_t errlen)
{
	rt_yw w;
	int rc = rt_yw_init(&w);
	if (rc)
		return rt_fail(err, errlen, rc, "cannot start the YAML emitter");
	char when[32];
	time_t now = time(NULL);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	rt_yw_map(&w, 0);
	rt_yw_kint(&w, "rigtune", RT_CONFIG_SCHEMA);
	rt_yw_kstr(&w, "generated", when);
	if (run->interrupted)
		rt_yw_kstr(&w, "partial", "interrupted: the best found before the signal");
	rt_yw_str(&w, "machine");
	rt_machine_emit(&w, &run->machine);
	if (run->unavailable[0])
		rt_yw_kstr(&w, "unavailable", run->unavailable);
	rt_yw_str(&w, "recommendations");
	rt_yw_map(&w, 0);
	for (int i = 0; i < run->nwl; i++)
		emit_workload(&w, run, &run->wl[i]);
	rt_yw_end_map(&w);
	emit_crossover(&w, &run->crossover);
	rt_yw_str(&w, "search");
	rt_yw_map(&w, 0);
	rt_yw_kstr(&w, "strategy", run->strategy);
	rt_yw_knum(&w, "budget_s", o->budget_s, 4);
	rt_yw_knum(&w, "seconds", run->seconds, 4);
	int trials = 0;
	for (int i = 0; i < run->nwl; i++)
		trials += run->wl[i].ntrials;
	rt_yw_kint(&w, "trials", trials);
	rt_yw_kstr(&w, "journal", run->journal_path);
	rt_yw_end_map(&w);
	rt_yw_end_map(&w);
	return rt_yw_finish(&w, text, len, err, errlen);
}
