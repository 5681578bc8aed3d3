/*
 * sweep_optuna.c: the sweep as an Optuna study script, run by Optuna itself
 * (Debian's python3-optuna 3.1 and later: create_study with load_if_exists,
 * enqueue_trial with skip_if_exists, optimize with catch).
 *
 * The script is a data block written from the plan (the environment and
 * the PUs, applied before anything else is imported; the fixed knobs; the
 * batch values with their time per trial; the user's parameters; the
 * objective) and a fixed body that runs the study.
 */
#include <string.h>

#include "sweep_impl.h"

/* What runs the study; the data block above it defines the upper-case names. */
static const char body[] =
	"import argparse\n"
	"import importlib\n"
	"import random\n"
	"import re\n"
	"import shlex\n"
	"import socket\n"
	"import subprocess\n"
	"import time\n"
	"\n"
	"import optuna\n"
	"\n"
	"WORKER = \"%s:%d\" % (socket.gethostname(), os.getpid())\n"
	"PLACEHOLDER = re.compile(r\"\\{\\{|\\}\\}|\\{([A-Za-z_][A-Za-z0-9_]*)\\}\")\n"
	"\n"
	"\n"
	"class TrialFailed(Exception):\n"
	"    \"\"\"The training gave no objective value: the trial is FAIL, the study goes on.\"\"\"\n"
	"\n"
	"\n"
	"class SweepError(Exception):\n"
	"    \"\"\"The sweep cannot run at all (the command is not there, a bad regex).\"\"\"\n"
	"\n"
	"\n"
	"def options():\n"
	"    p = argparse.ArgumentParser(\n"
	"        description=\"An Optuna study of %s written by rigtune sweep: the hardware \"\n"
	"        \"knobs fixed at the recommendation, %s from the knee up, your \"\n"
	"        \"parameters searched. Several workers (on several machines) share \"\n"
	"        \"one study through one --storage URL.\" % (WORKLOAD, BATCH_KEY))\n"
	"    p.add_argument(\"--n-trials\", type=int, default=TRIALS,\n"
	"                   help=\"trials this worker runs (default %(default)s)\")\n"
	"    p.add_argument(\"--storage\", default=\"sqlite:///%s.db\" % STUDY,\n"
	"                   help=\"an RDB URL (sqlite:///FILE, postgresql://USER:PASSWORD@HOST/DB), \"\n"
	"                   \"or 'memory' for a study that ends with the script \"\n"
	"                   \"(default %(default)s)\")\n"
	"    p.add_argument(\"--study-name\", default=STUDY, help=\"default %(default)s\")\n"
	"    p.add_argument(\"--no-pin\", action=\"store_true\",\n"
	"                   help=\"do not bind to the recommendation's PUs\")\n"
	"    p.add_argument(\"--cmd\", default=COMMAND,\n"
	"                   help=\"your training, {name} replaced by a parameter's value \"\n"
	"                   \"(default %(default)r)\")\n"
	"    p.add_argument(\"--objective\", default=OBJECTIVE,\n"
	"                   help=\"a regular expression with one group, the number in --cmd's output \"\n"
	"                   \"(default %(default)r)\")\n"
	"    p.add_argument(\"--function\", default=FUNCTION,\n"
	"                   help=\"or module:name of a function(params) -> float \"\n"
	"                   \"(default %(default)r)\")\n"
	"    args = p.parse_args()\n"
	"    if bool(args.cmd) == bool(args.function):\n"
	"        p.error(\"give the objective: --cmd 'COMMAND {param} ...' with --objective REGEX, \"\n"
	"                \"or --function module:name (one of them)\")\n"
	"    if args.cmd:\n"
	"        names = set(FIXED) | {BATCH_KEY} | {spec[0] for spec in PARAMS}\n"
	"        for m in PLACEHOLDER.finditer(args.cmd):\n"
	"            if m.group(1) and m.group(1) not in names:\n"
	"                p.error(\"--cmd: {%s} names no parameter (%s)\" % (\n"
	"                    m.group(1), \", \".join(sorted(names))))\n"
	"        try:\n"
	"            args.pattern = re.compile(args.objective or \"\")\n"
	"        except re.error as e:\n"
	"            p.error(\"--objective %r: %s\" % (args.objective, e))\n"
	"        if args.pattern.groups != 1:\n"
	"            p.error(\"--objective %r: expected one group, the number\" % args.objective)\n"
	"    return args\n"
	"\n"
	"\n"
	"def suggest(trial):\n"
	"    values = {BATCH_KEY: trial.suggest_categorical(BATCH_KEY, BATCH)}\n"
	"    for name, kind, *spec in PARAMS:\n"
	"        if kind == \"choice\":\n"
	"            values[name] = trial.suggest_categorical(name, spec[0])\n"
	"        elif kind == \"int\":\n"
	"            values[name] = trial.suggest_int(name, spec[0], spec[1], log=spec[2])\n"
	"        else:\n"
	"            values[name] = trial.suggest_float(name, spec[0], spec[1], log=spec[2])\n"
	"    return values\n"
	"\n"
	"\n"
	"def text_of(value):\n"
	"    if isinstance(value, bool):\n"
	"        return \"true\" if value else \"false\"\n"
	"    return str(value)\n"
	"\n"
	"\n"
	"def expand(word, values):\n"
	"    def one(m):\n"
	"        if m.group(0) in (\"{{\", \"}}\"):\n"
	"            return m.group(0)[0]\n"
	"        return text_of(values[m.group(1)])\n"
	"    return PLACEHOLDER.sub(one, word)\n"
	"\n"
	"\n"
	"def run_command(values, args):\n"
	"    argv = [expand(w, values) for w in shlex.split(args.cmd)]\n"
	"    try:\n"
	"        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, bufsize=1)\n"
	"    except OSError as e:\n"
	"        raise SweepError(\"cannot run %s: %s\" % (argv[0], e.strerror))\n"
	"    found = None\n"
	"    with proc.stdout:\n"
	"        for line in proc.stdout:\n"
	"            sys.stdout.write(line)\n"
	"            m = args.pattern.search(line)\n"
	"            if m:\n"
	"                found = m.group(1)\n"
	"    status = proc.wait()\n"
	"    if status != 0:\n"
	"        raise TrialFailed(\"%s exited with status %d\" % (argv[0], status))\n"
	"    if found is None:\n"
	"        raise TrialFailed(\"no line of its output matched %r\" % args.objective)\n"
	"    try:\n"
	"        return float(found)\n"
	"    except ValueError:\n"
	"        raise TrialFailed(\"%r (matched by %r) is not a number\" % (found, args.objective))\n"
	"\n"
	"\n"
	"def run_function(values, args):\n"
	"    module, _, name = args.function.partition(\":\")\n"
	"    if os.getcwd() not in sys.path:\n"
	"        sys.path.insert(0, os.getcwd())\n"
	"    try:\n"
	"        fn = getattr(importlib.import_module(module), name)\n"
	"    except (ImportError, AttributeError) as e:\n"
	"        raise SweepError(\"cannot load %s: %s\" % (args.function, e))\n"
	"    return float(fn(dict(values)))\n"
	"\n"
	"\n"
	"def objective(trial, args):\n"
	"    values = dict(FIXED)\n"
	"    values.update(suggest(trial))\n"
	"    trial.set_user_attr(\"worker\", WORKER)\n"
	"    trial.set_user_attr(\"fixed\", FIXED)\n"
	"    trial.set_user_attr(\"estimated_seconds\", SECONDS[values[BATCH_KEY]])\n"
	"    shown = \" \".join(\"%s=%s\" % (k, text_of(v)) for k, v in values.items())\n"
	"    print(\"rigtune sweep: trial %d on %s: %s (about %.0f s)\" % (\n"
	"        trial.number, WORKER, shown, SECONDS[values[BATCH_KEY]]), file=sys.stderr, flush=True)\n"
	"    return run_function(values, args) if args.function else run_command(values, args)\n"
	"\n"
	"\n"
	"def open_study(name, storage):\n"
	"    # workers that start at once race to create the tables and the study in\n"
	"    # an empty database: the loser tries again and finds them\n"
	"    for attempt in range(5):\n"
	"        try:\n"
	"            return optuna.create_study(study_name=name, storage=storage,\n"
	"                                       direction=DIRECTION, load_if_exists=True)\n"
	"        except Exception:\n"
	"            if attempt == 4 or storage is None:\n"
	"                raise\n"
	"            time.sleep(0.2 + random.random())\n"
	"\n"
	"\n"
	"def main():\n"
	"    args = options()\n"
	"    storage = None if args.storage == \"memory\" else args.storage\n"
	"    study = open_study(args.study_name, storage)\n"
	"    # the knee first: a worker that finds it already in the study does not add it again\n"
	"    study.enqueue_trial({BATCH_KEY: KNEE}, skip_if_exists=True)\n"
	"    mean = sum(SECONDS.values()) / len(SECONDS)\n"
	"    print(\"rigtune sweep: study %s in %s, worker %s: %d trials of about %.0f s each \"\n"
	"          \"(%.0f s in all)\" % (args.study_name, args.storage, WORKER, args.n_trials, mean,\n"
	"                                args.n_trials * mean), file=sys.stderr, flush=True)\n"
	"    study.optimize(lambda trial: objective(trial, args), n_trials=args.n_trials,\n"
	"                   catch=(TrialFailed,))\n"
	"    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]\n"
	"    if done:\n"
	"        print(\"rigtune sweep: best of %d complete trials: %s = %s at %s\" % (\n"
	"            len(done), METRIC, study.best_value, study.best_params), file=sys.stderr)\n"
	"\n"
	"\n"
	"if __name__ == \"__main__\":\n"
	"    try:\n"
	"        main()\n"
	"    except SweepError as e:\n"
	"        sys.exit(\"rigtune sweep: %s\" % e)\n";

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
	      "    if set(PUS) <= os.sched_getaffinity(0):\n"
	      "        os.sched_setaffinity(0, PUS)\n"
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

static int optuna_check(const rt_sweep_objective *obj, char *err, size_t errlen)
{
	if (obj->cmd && !obj->regex)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--cmd needs --objective REGEX: what to read from its output");
	return RT_OK;
}

static int optuna_emit(FILE *f, const rt_sweep_plan *plan, const rt_sweep_params *params,
		       const rt_sweep_objective *obj, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	fputs("#!/usr/bin/env python3\n", f);
	rt_sweep_describe(f, plan, "# ");
	fputs("#\n# Run: python3 THIS [--n-trials N] [--storage URL] [--study-name NAME]\n"
	      "# (python3 with Optuna 3.1 or later; --help for the options)\n",
	      f);
	put_env_and_binding(f, plan);
	put_sweep(f, plan);
	put_params(f, params);
	put_objective(f, obj);
	fputs(body, f);
	return RT_OK;
}

const rt_sweep_format rt_sweep_optuna = {
	"optuna", "a Python script that runs an Optuna study (SQLite, PostgreSQL, in memory)",
	1, optuna_check, optuna_emit,
};
