#!/usr/bin/env python3
"""Checks of rigtune sweep's outputs with the real readers (Debian's python3):

  sweep_check.py wandb FILE                 W&B's documented sweep schema
  sweep_check.py wandb-selftest             the validator rejects broken configs
  sweep_check.py hydra FILE PARAMS BATCHES  omegaconf reads it; Hydra's Optuna-sweeper keys
  sweep_check.py grid FILE N BATCHES        N JSON lines, batch among BATCHES, first the knee
  sweep_check.py study URL NAME N KNEE WORKERS ENQUEUED
                                            N complete trials, trial 0 at the knee, the
                                            values the objective's formula gives, WORKERS ids,
                                            at most ENQUEUED trials enqueued (the knee)
  sweep_check.py wandb-engine FILE CONFIG PARAMS BATCHES
                                            W&B's own validation (its sweep engine, the
                                            sweeps package of wandb[sweeps]) finds nothing
                                            wrong, and does find a broken copy; its bayes
                                            search proposes runs in the space, with CONFIG's
                                            knobs
  sweep_check.py hydra-run LOG RESULTS CONFIG PARAMS BATCHES N
                                            N trials of tests/sweep_hydra_app.py in LOG, each
                                            in the sweep's space with CONFIG's knobs and
                                            environment; RESULTS (optimization_results.yaml)
                                            names the least of them
  sweep_check.py ray-run DIR LOG PARAMS BATCHES N
                                            N trials in Ray Tune's DIR, the first at the knee,
                                            each in the space with the formula's value; LOG's
                                            best is the least of them

BATCHES is a comma-separated list: what fits, knee first. Exit 1 with the
reason on the first failed check.
"""
import json
import math
import os
import re
import sys


def val_loss(a):
    """The objective of tests/sweep_objective.py."""
    return ((math.log10(float(a["lr"])) + 2.0) ** 2 + int(a["batch"]) / 1000.0
            + 0.01 * int(a["layers"]) + (0.1 if a["optimizer"] == "sgd" else 0.0))


def fail(msg):
    sys.exit("sweep_check: " + msg)


# ---- W&B: the sweep configuration schema as documented (docs.wandb.ai, "Define
# sweep configuration" and "Sweep configuration options") ----

TOP_KEYS = {"program", "method", "parameters", "name", "description", "metric",
            "early_terminate", "command", "project", "entity", "run_cap"}
MACROS = {"${env}", "${interpreter}", "${program}", "${args}", "${args_no_boolean_flags}",
          "${args_no_hyphens}", "${args_json}", "${args_json_file}"}
NUM = (int, float)


def is_num(v):
    return isinstance(v, NUM) and not isinstance(v, bool)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# distribution -> (required keys, optional keys, check of the values)
DISTRIBUTIONS = {
    "constant": ({"value"}, set(), lambda p: None),
    "categorical": ({"values"}, {"probabilities"}, lambda p: None),
    "int_uniform": ({"min", "max"}, set(),
                    lambda p: None if is_int(p["min"]) and is_int(p["max"]) else "min/max not integers"),
    "uniform": ({"min", "max"}, set(),
                lambda p: None if is_num(p["min"]) and is_num(p["max"]) else "min/max not numbers"),
    "q_uniform": ({"min", "max"}, {"q"}, lambda p: None),
    "log_uniform": ({"min", "max"}, set(), lambda p: None),
    "log_uniform_values": ({"min", "max"}, set(),
                           lambda p: None if is_num(p["min"]) and p["min"] > 0 else "min must be > 0"),
    "q_log_uniform": ({"min", "max"}, {"q"}, lambda p: None),
    "q_log_uniform_values": ({"min", "max"}, {"q"},
                             lambda p: None if is_num(p["min"]) and p["min"] > 0 else "min must be > 0"),
    "inv_log_uniform": ({"min", "max"}, set(), lambda p: None),
    "inv_log_uniform_values": ({"min", "max"}, set(), lambda p: None),
    "normal": (set(), {"mu", "sigma"}, lambda p: None),
    "q_normal": (set(), {"mu", "sigma", "q"}, lambda p: None),
    "log_normal": (set(), {"mu", "sigma"}, lambda p: None),
    "q_log_normal": (set(), {"mu", "sigma", "q"}, lambda p: None),
}


def wandb_param_errors(name, p):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", name):
        return "parameter name %r" % name
    if not isinstance(p, dict) or not p:
        return "%s: not a mapping" % name
    if "parameters" in p:
        return "%s: nested parameters not expected here" % name
    if "distribution" in p:
        dist = p["distribution"]
    elif "values" in p:
        dist = "categorical"
    elif "value" in p:
        dist = "constant"
    elif "min" in p and "max" in p:
        dist = "int_uniform" if is_int(p["min"]) and is_int(p["max"]) else "uniform"
    else:
        return "%s: needs values, value, or min and max" % name
    if dist not in DISTRIBUTIONS:
        return "%s: unknown distribution %r" % (name, dist)
    req, opt, check = DISTRIBUTIONS[dist]
    keys = set(p) - {"distribution"}
    if not req <= keys or not keys <= req | opt:
        return "%s: %s takes %s (optional %s), got %s" % (name, dist, sorted(req), sorted(opt),
                                                           sorted(keys))
    if "values" in p and (not isinstance(p["values"], list) or not p["values"]):
        return "%s: values must be a non-empty list" % name
    if "min" in p and "max" in p and not (is_num(p["min"]) and is_num(p["max"])
                                          and p["min"] < p["max"]):
        return "%s: min %r, max %r" % (name, p["min"], p["max"])
    return check(p) and "%s: %s" % (name, check(p))


def wandb_errors(cfg):
    if not isinstance(cfg, dict):
        return "not a mapping"
    unknown = set(cfg) - TOP_KEYS
    if unknown:
        return "unknown top-level keys %s" % sorted(unknown)
    for key in ("program", "method", "parameters"):
        if key not in cfg:
            return "missing %s" % key
    if cfg["method"] not in ("grid", "random", "bayes"):
        return "method %r" % cfg["method"]
    metric = cfg.get("metric")
    if cfg["method"] == "bayes" and metric is None:
        return "bayes needs a metric"
    if metric is not None:
        if not isinstance(metric, dict) or "name" not in metric or set(metric) - {"name", "goal", "target"}:
            return "metric %r" % metric
        if metric.get("goal", "minimize") not in ("minimize", "maximize"):
            return "metric goal %r" % metric["goal"]
    if "run_cap" in cfg and not (is_int(cfg["run_cap"]) and cfg["run_cap"] > 0):
        return "run_cap %r" % cfg["run_cap"]
    for key in ("program", "name", "description"):
        if key in cfg and not isinstance(cfg[key], str):
            return "%s is not a string" % key
    if not isinstance(cfg["parameters"], dict) or not cfg["parameters"]:
        return "parameters must be a non-empty mapping"
    for name, p in cfg["parameters"].items():
        err = wandb_param_errors(name, p)
        if err:
            return err
    cmd = cfg.get("command", [])
    if not isinstance(cmd, list) or not all(isinstance(w, str) for w in cmd):
        return "command must be a list of strings"
    for w in cmd:
        for macro in re.findall(r"\$\{[^}]*\}", w):
            if macro not in MACROS:
                return "command: unknown macro %s" % macro
    return None


def load_yaml(path):
    import yaml
    with open(path) as f:
        return yaml.safe_load(f)


def check_wandb(path):
    cfg = load_yaml(path)
    err = wandb_errors(cfg)
    if err:
        fail("%s: %s" % (path, err))
    cmd = cfg.get("command", [])
    if "${program}" not in cmd or "${args}" not in cmd or cmd[0] != "${env}":
        fail("%s: command %r: expected ${env} ... ${program} ... ${args}" % (path, cmd))
    print("ok: %s follows W&B's sweep schema" % path)


def wandb_selftest():
    good = {"program": "t.py", "method": "bayes", "metric": {"name": "l", "goal": "minimize"},
            "parameters": {"lr": {"distribution": "log_uniform_values", "min": 1e-5, "max": 0.1}}}
    assert wandb_errors(good) is None, wandb_errors(good)
    broken = [
        ("min as a string", {"lr": {"distribution": "log_uniform_values", "min": "1e-05", "max": 0.1}}),
        ("unknown distribution", {"lr": {"distribution": "loguniform", "min": 1e-5, "max": 0.1}}),
        ("int_uniform of floats", {"n": {"distribution": "int_uniform", "min": 1.5, "max": 3}}),
        ("empty values", {"x": {"values": []}}),
        ("an unknown key", {"x": {"values": [1], "step": 2}}),
        ("min above max", {"x": {"min": 3, "max": 1}}),
    ]
    for what, params in broken:
        cfg = dict(good, parameters=params)
        if wandb_errors(cfg) is None:
            fail("the W&B validator accepts %s" % what)
    for what, cfg in [("no metric with bayes", {k: v for k, v in good.items() if k != "metric"}),
                      ("an unknown key", dict(good, sampler="tpe")),
                      ("an unknown macro", dict(good, command=["${env}", "${python}"])),
                      ("a bad goal", dict(good, metric={"name": "l", "goal": "min"}))]:
        if wandb_errors(cfg) is None:
            fail("the W&B validator accepts %s" % what)
    print("ok: the W&B validator rejects %d broken configurations" % (len(broken) + 4))


# ---- Hydra's Optuna sweeper (hydra.cc, "Optuna Sweeper plugin"): override grammar ----

NUMBER = r"[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+)"


def hydra_distribution(text):
    """(kind, args) of one hydra.sweeper.params value: ("choice", values) or
    ("int"|"float", [low, high, log]) for [tag(log, ][int(]interval(low, high)[)][)]."""
    m = re.fullmatch(r"choice\((.*)\)", text)
    if m:
        items = [x.strip() for x in m.group(1).split(",")]
        return "choice", [x[1:-1] if x[:1] == "'" else json.loads(x) for x in items]
    log = integer = False
    m = re.fullmatch(r"tag\(log, (.*)\)", text)
    if m:
        log, text = True, m.group(1)
    m = re.fullmatch(r"int\((.*)\)", text)
    if m:
        integer, text = True, m.group(1)
    m = re.fullmatch(r"interval\((%s), (%s)\)" % (NUMBER, NUMBER), text)
    if not m:
        fail("not a choice() or interval() of Hydra's Optuna sweeper: %r" % text)
    return "int" if integer else "float", [float(m.group(1)), float(m.group(2)), log]


def check_hydra(path, params_path, batches):
    from omegaconf import OmegaConf
    cfg = OmegaConf.to_container(OmegaConf.load(path))
    if cfg.get("defaults") != [{"override /hydra/sweeper": "optuna"}]:
        fail("defaults: %r" % cfg.get("defaults"))
    sweeper = cfg["hydra"]["sweeper"]
    allowed = {"sampler", "direction", "storage", "study_name", "n_trials", "n_jobs",
               "max_failure_rate", "params", "search_space", "custom_search_space"}
    if set(sweeper) - allowed:
        fail("hydra.sweeper: unknown keys %s" % sorted(set(sweeper) - allowed))
    if sweeper["direction"] not in ("minimize", "maximize"):
        fail("direction %r" % sweeper["direction"])
    params = sweeper["params"]
    expect = load_yaml(params_path)
    batch_key = next(iter(params))
    kind, values = hydra_distribution(params[batch_key])
    if kind != "choice" or values != batches:
        fail("%s: %s %r, expected choice of %r" % (batch_key, kind, values, batches))
    if set(params) != {batch_key} | set(expect):
        fail("params %s, expected %s and %s" % (sorted(params), batch_key, sorted(expect)))
    for name, spec in expect.items():
        kind, args = hydra_distribution(params[name])
        if "values" in spec:
            if kind != "choice" or args != spec["values"]:
                fail("%s: %r for values %r" % (name, params[name], spec["values"]))
            continue
        want = ("int" if spec.get("type") == "int" else "float",
                [float(spec["low"]), float(spec["high"]), spec.get("scale") == "log"])
        if (kind, args) != want:
            fail("%s: %r is %r, expected %r" % (name, params[name], (kind, args), want))
    env = cfg["hydra"]["job"]["env_set"]
    if not all(isinstance(v, str) for v in env.values()) or "OMP_NUM_THREADS" not in env:
        fail("hydra.job.env_set %r" % env)
    print("ok: %s is a Hydra Optuna-sweeper config (%d params)" % (path, len(params)))


def check_grid(path, n, batches):
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    if len(lines) != n:
        fail("%d lines, expected %d" % (len(lines), n))
    keys = {"trial", "params", "fixed", "env", "pus", "estimated_seconds"}
    for i, t in enumerate(lines):
        batch = next(iter(t["params"].values()))
        if set(t) != keys or t["trial"] != i or batch not in batches or t["estimated_seconds"] <= 0:
            fail("line %d: %r" % (i + 1, t))
    if next(iter(lines[0]["params"].values())) != batches[0]:
        fail("the first trial is not at the knee %d: %r" % (batches[0], lines[0]))
    print("ok: %d JSON lines, the knee first, batch among %r" % (n, batches))


def check_study(url, name, n, knee, workers, enqueued):
    import optuna
    study = optuna.load_study(study_name=name, storage=url)
    trials = study.get_trials(deepcopy=False)
    done = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
    if len(trials) != n or len(done) != n:
        fail("%d trials, %d complete, expected %d" % (len(trials), len(done), n))
    first = min(trials, key=lambda t: t.number)
    batch_key = [k for k in first.params if k not in ("lr", "layers", "optimizer", "weight_decay")][0]
    if first.params[batch_key] != knee:
        fail("trial 0 has %s=%r, the knee is %d" % (batch_key, first.params[batch_key], knee))
    for t in done:
        values = dict(t.params, threads=t.user_attrs["fixed"]["threads"])
        if abs(t.value - val_loss(values)) > 1e-9:
            fail("trial %d: value %r, the objective gives %r" % (t.number, t.value, val_loss(values)))
    queued = [t.number for t in trials if "fixed_params" in t.system_attrs]
    if not 1 <= len(queued) <= enqueued or 0 not in queued:
        fail("enqueued trials %s: expected trial 0 and at most %d" % (queued, enqueued))
    seen = {t.user_attrs["worker"] for t in trials}
    if len(seen) != workers:
        fail("workers %s, expected %d" % (sorted(seen), workers))
    print("ok: %d complete trials, trial 0 at %s=%d, %d workers" % (n, batch_key, knee, workers))


# ---- runs by the engines: what the trials got and gave ----

BATCH_KEY = "batch"


def space_error(values, spec, batches):
    """Why one trial's values lie outside the sweep's space ('' when inside): the batch
    among BATCHES, every parameter of the --params file SPEC among its values or in its
    range (an int one a whole number)."""
    if set(values) != {BATCH_KEY} | set(spec):
        return "keys %s, expected %s and %s" % (sorted(values), BATCH_KEY, sorted(spec))
    if values[BATCH_KEY] not in batches:
        return "%s=%r not among %r" % (BATCH_KEY, values[BATCH_KEY], batches)
    for name, s in spec.items():
        v = values[name]
        if "values" in s:
            if v not in s["values"]:
                return "%s=%r not among %r" % (name, v, s["values"])
            continue
        if s.get("type") == "int" and not is_int(v):
            return "%s=%r is not a whole number" % (name, v)
        if not (is_num(v) and float(s["low"]) <= v <= float(s["high"])):
            return "%s=%r outside [%s, %s]" % (name, v, s["low"], s["high"])
    return ""


def check_trial(what, values, value, spec, batches):
    err = space_error(values, spec, batches)
    if err:
        fail("%s: %s" % (what, err))
    if abs(value - val_loss(values)) > 1e-9:
        fail("%s: value %r, the objective gives %r" % (what, value, val_loss(values)))


def check_wandb_engine(path, config, params, batches):
    import sweeps
    cfg, spec = load_yaml(path), load_yaml(params)
    violations = sweeps.schema_violations_from_proposed_config(cfg)
    if violations:
        fail("%s: W&B's validation: %s" % (path, "; ".join(violations)))
    # the validator is live: a bound written as YAML 1.1 reads "1e-05" (a string) is refused
    broken = dict(cfg, parameters=dict(cfg["parameters"], lr=dict(cfg["parameters"]["lr"],
                                                                     min="1e-05")))
    if not sweeps.schema_violations_from_proposed_config(broken):
        fail("W&B's validation accepts a bound that is a string")
    point = load_yaml(config)["recommendations"]["transformer"]["recommended"]["point"]
    knobs = {k: v for k, v in point.items() if k != BATCH_KEY}
    runs = sweeps.next_runs(sweeps.SweepConfig(cfg), [], validate=True, n=3)
    for i, run in enumerate(runs):
        got = {k: v["value"].item() if hasattr(v["value"], "item") else v["value"]
               for k, v in run.config.items()}
        err = space_error({k: v for k, v in got.items() if k not in knobs}, spec, batches)
        if err or {k: got[k] for k in knobs} != knobs:
            fail("W&B's run %d: %r: %s" % (i, got, err or "knobs differ from %r" % knobs))
    print("ok: W&B's validation passes %s; its search proposes %d runs in the space" % (
        path, len(runs)))


def check_hydra_run(log, results, config, params, batches, n):
    spec, rec = load_yaml(params), load_yaml(config)["recommendations"]["transformer"]
    knobs = {k: v for k, v in rec["recommended"]["point"].items() if k != BATCH_KEY}
    with open(log) as f:
        trials = [json.loads(line.split(" ", 1)[1]) for line in f
                  if line.startswith("rigtune-hydra-trial ")]
    if len(trials) != n:
        fail("%d trials in %s, expected %d" % (len(trials), log, n))
    for i, t in enumerate(trials):
        check_trial("trial %d" % i, t["params"], t["value"], spec, batches)
        if t["fixed"] != knobs:
            fail("trial %d: knobs %r, the recommendation's are %r" % (i, t["fixed"], knobs))
        if t["env"] != rec["env"]:
            fail("trial %d: environment %r, the recommendation's is %r" % (i, t["env"], rec["env"]))
    best = min(trials, key=lambda t: t["value"])
    got = load_yaml(results)
    if got.get("best_value") != best["value"] or got.get("best_params") != best["params"]:
        fail("%s: %r, the least trial is %r" % (results, got, best))
    print("ok: %d trials in the space, with the knobs and environment; best %r" % (
        n, best["value"]))


def check_ray_run(where, log, params, batches, n):
    import glob
    spec = load_yaml(params)
    trials = {}
    for path in glob.glob(os.path.join(where, "*", "result.json")):
        with open(path) as f:
            r = json.loads(f.readline())
        trials[r["trial_id"]] = r
    if len(trials) != n:
        fail("%d trials in %s, expected %d" % (len(trials), where, n))
    for tid, r in sorted(trials.items()):
        check_trial("trial %s" % tid, r["config"], r["val_loss"], spec, batches)
    first = trials[min(trials)]
    if first["config"][BATCH_KEY] != batches[0]:
        fail("the first trial %s has %s=%r, the knee is %r" % (
            first["trial_id"], BATCH_KEY, first["config"][BATCH_KEY], batches[0]))
    least = min(r["val_loss"] for r in trials.values())
    with open(log) as f:
        m = re.search(r"best of (\d+) complete trials: val_loss = (\S+) at", f.read())
    if not m or int(m.group(1)) != n or float(m.group(2)) != least:
        fail("%s: best %r, the least of the %d trials is %r" % (
            log, m and m.group(0), n, least))
    print("ok: %d Ray Tune trials in the space, the knee first; best %r" % (n, least))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "wandb":
        check_wandb(argv[2])
    elif cmd == "wandb-selftest":
        wandb_selftest()
    elif cmd == "hydra":
        check_hydra(argv[2], argv[3], [int(x) for x in argv[4].split(",")])
    elif cmd == "grid":
        check_grid(argv[2], int(argv[3]), [int(x) for x in argv[4].split(",")])
    elif cmd == "study":
        check_study(argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]), int(argv[7]))
    elif cmd == "wandb-engine":
        check_wandb_engine(argv[2], argv[3], argv[4], [int(x) for x in argv[5].split(",")])
    elif cmd == "hydra-run":
        check_hydra_run(argv[2], argv[3], argv[4], argv[5],
                        [int(x) for x in argv[6].split(",")], int(argv[7]))
    elif cmd == "ray-run":
        check_ray_run(argv[2], argv[3], argv[4], [int(x) for x in argv[5].split(",")],
                      int(argv[6]))
    else:
        fail("usage: see the docstring")


if __name__ == "__main__":
    main(sys.argv)
