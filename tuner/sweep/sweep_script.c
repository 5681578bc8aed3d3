/*
 * sweep_script.c: the sweep as a Python script that runs a study with a real
 * engine: Optuna (Debian's python3-optuna 3.1 and later: create_study with
 * load_if_exists, enqueue_trial with skip_if_exists, optimize with catch) or
 * Ray Tune (as the tests run it, 2.60: Tuner, tune.RunConfig,
 * tune.get_context, BasicVariantGenerator with the knee as its first point,
 * a function trainable that returns its result).
 *
 * The script is a data block written from the plan (the environment and
 * the PUs, applied before anything else is imported; the fixed knobs; the
 * batch values with their time per trial; the user's parameters; the
 * objective), the trial (trial_body.py: the options, the command or the
 * function that gives the objective) and the engine's body.
 */
#include <string.h>

#include "../../common/platform.h"
#include "sweep_impl.h"

/* What runs a trial and each engine's study (embedded at build time); the
 * data block above them defines the upper-case names. */
RT_EMBED(rt_sweep_trial_body, "tuner/sweep/trial_body.py");
RT_EMBED(rt_sweep_optuna_body, "tuner/sweep/optuna_body.py");
RT_EMBED(rt_sweep_ray_body, "tuner/sweep/ray_body.py");
extern const char rt_sweep_trial_body[], rt_sweep_optuna_body[], rt_sweep_ray_body[];

static void put_env_and_binding(FILE *f, const rt_sweep_plan *plan)
{
	fputs("import os\nimport sys\n\nENV = ", f);
	rt_sweep_put_env(f, plan);
	fputs("\nPUS = ", f);
	rt_sweep_put_pus(f, plan);
	fputs("\n"
	      "# The recommendation's environment and binding, before any framework is\n"
	      "# imported: OpenBLAS, OpenMP runtimes and PyTorch read them as they load.\n"
	      "os.environ.update(ENV)\n"
	      "if PUS and \"--no-pin\" not in sys.argv[1:]:\n"
	      "    if not hasattr(os, \"sched_setaffinity\"):  # macOS binds no process\n"
	      "        print(\"rigtune sweep: this system binds no process to PUs: no binding\",\n"
	      "              file=sys.stderr)\n"
	      "    elif set(PUS) <= os.sched_getaffinity(0):\n" /* platform: Python's, Linux's branch */
	      "        os.sched_setaffinity(0, PUS)\n"              /* platform: as above */
	      "    else:\n"
	      "        print(\"rigtune sweep: PUs %s are not all offered here: no binding\" % PUS,\n"
	      "              file=sys.stderr)\n\n",
	      f);
}

static void put_sweep(FILE *f, const rt_sweep_plan *plan)
{
	fputs("WORKLOAD = ", f);
	rt_sweep_put_str(f, plan->w->name);
	fputs("\nBATCH_KEY = ", f);
	rt_sweep_put_str(f, plan->axis);
	fputs("\nFIXED = ", f);
	rt_sweep_put_fixed(f, plan);
	fprintf(f, "\nKNEE = %ld\nBATCH = [", plan->knee);
	for (int i = 0; i < plan->nbatch; i++)
		fprintf(f, "%s%ld", i ? ", " : "", plan->batch[i].value);
	fputs("]\n# seconds per trial at each batch value (the estimate above)\nSECONDS = {", f);
	for (int i = 0; i < plan->nbatch; i++)
		fprintf(f, "%s%ld: %.1f", i ? ", " : "", plan->batch[i].value,
			plan->batch[i].seconds);
	fprintf(f, "}\nTRIALS = %d\nSTUDY = ", plan->trials);
	char study[300];
	rt_sweep_study_name(plan, study, sizeof study);
	rt_sweep_put_str(f, study);
	fputc('\n', f);
}

/* PARAMS: (name, "choice", [values]) or (name, "int"|"float", low, high, log). */
static void put_params(FILE *f, const rt_sweep_params *params)
{
	fputs("PARAMS = [\n", f);
	for (int i = 0; i < params->n; i++) {
		const rt_sweep_param *p = &params->p[i];
		fputs("    (", f);
		rt_sweep_put_str(f, p->name);
		if (p->is_range && p->integer) {
			fprintf(f, ", \"int\", %.0f, %.0f, %s),\n", p->low, p->high,
				p->log ? "True" : "False");
			continue;
		}
		if (p->is_range) {
			fputs(", \"float\", ", f);
			rt_sweep_put_float(f, p->low);
			fputs(", ", f);
			rt_sweep_put_float(f, p->high);
			fprintf(f, ", %s),\n", p->log ? "True" : "False");
			continue;
		}
		fputs(", \"choice\", [", f);
		for (int v = 0; v < p->nvalues; v++) {
			fputs(v ? ", " : "", f);
			rt_sweep_put_value(f, &p->values[v], 1);
		}
		fputs("]),\n", f);
	}
	fputs("]\n", f);
}

static void put_objective(FILE *f, const rt_sweep_objective *obj)
{
	const char *names[] = {"COMMAND", "OBJECTIVE", "FUNCTION", "METRIC"};
	const char *values[] = {obj->cmd, obj->cmd ? obj->regex : NULL, obj->function,
				obj->metric ? obj->metric : "objective"};
	for (size_t i = 0; i < RT_COUNT(names); i++) {
		fprintf(f, "%s = ", names[i]);
		if (values[i])
			rt_sweep_put_str(f, values[i]);
		else
			fputs("None", f);
		fputc('\n', f);
	}
	fprintf(f, "DIRECTION = \"%s\"\n\n",
		obj->direction == RT_SWEEP_MAXIMIZE ? "maximize" : "minimize");
}

/* Both scripts read --cmd's output with --objective. */
static int script_check(const rt_sweep_objective *obj, char *err, size_t errlen)
{
	if (obj->cmd && !obj->regex)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--cmd needs --objective REGEX: what to read from its output");
	return RT_OK;
}

/* What an engine's script needs to run (its header says), and its body. */
typedef struct script_engine {
	const char *needs;
	const char *body;
} script_engine;

static const script_engine optuna_engine = {
	"python3 with Optuna 3.1 or later; --storage URL, --study-name NAME", rt_sweep_optuna_body};
static const script_engine ray_engine = {
	"python3 with Ray Tune, as 2.60: pip install 'ray[tune]'; --storage-path DIR", rt_sweep_ray_body};

/* The whole script: header, data block, the trial, then the engine's body. */
static int put_script(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		      const rt_sweep_objective *obj, const script_engine *engine)
{
	fputs("#!/usr/bin/env python3\n", f);
	rt_sweep_describe(f, plan, "# ");
	fprintf(f, "#\n# Run: python3 THIS [--n-trials N] [OPTIONS] (--help for them)\n# (%s)\n",
		engine->needs);
	put_env_and_binding(f, plan);
	put_sweep(f, plan);
	put_params(f, params);
	put_objective(f, obj);
	fputs(rt_sweep_trial_body, f);
	fputc('\n', f);
	fputs(engine->body, f);
	return RT_OK;
}

static int optuna_emit(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		       const rt_sweep_objective *obj, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return put_script(f, plan, params, obj, &optuna_engine);
}

static int ray_emit(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		    const rt_sweep_objective *obj, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return put_script(f, plan, params, obj, &ray_engine);
}

const rt_sweep_format rt_sweep_optuna = {
	"optuna", "a Python script that runs an Optuna study (SQLite, PostgreSQL for "
	"workers on several machines, in memory)",
	1, script_check, optuna_emit,
};

const rt_sweep_format rt_sweep_ray = {
	"ray", "a Python script that runs a Ray Tune search on this machine, one trial at a time",
	1, script_check, ray_emit,
};
