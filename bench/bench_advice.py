#!/usr/bin/env python3
"""bench_advice: does rigtune's advice hold on the frameworks users install? (issue 31, item 4)

For each build it finds, this re-measures, in one run, interleaved (every
round runs every setting once, in a rotating order; no setting keeps a place
or runs in a block), the advice of a configuration against a grid of the
settings that build offers, and prints the advice's ratio to the grid's best
(per round, against the same round's run of the grid's best; the median over
rounds and the spread, lowest-highest):

  pip PyTorch     examples/torch_transformer.py with the venv's Python: the
                  transformer recommendation's env and hints.pytorch lines
                  (torch.set_num_threads(N), os.environ[...], autocast bf16)
                  against precision (fp32, bf16 autocast) x threads
                  (OMP_NUM_THREADS=MKL_NUM_THREADS, the pool MKL shares)
  Debian PyTorch  the same client with /usr/bin/python3 (OpenBLAS with a
                  pthread pool of its own): precision x intra-op threads x
                  OPENBLAS_NUM_THREADS
  JAX             examples/jax_transformer.py with the venv's Python: the
                  env and hints.jax lines (the affinity mask of `taskset` or
                  `rigtune exec`, NPROC, XLA_FLAGS, the bf16 dot) against
                  precision x affinity CPUs x --xla_cpu_multi_thread_eigen
  SB3 PPO         examples/sb3_ppo.py (Stable-Baselines3's PPO on
                  examples/trading_env.py) with the venv's Python: the ppo
                  recommendation's (num_envs, workers, threads) mapped as
                  ppo_advice() says, against num_envs x vector class x
                  torch.set_num_threads (SB3's classes: the example's
                  chunked class, N processes stepping num_envs/N envs
                  each, is shown beside the grid, not in it: no SB3 line
                  can name it)

Targets: >= 0.95 for the transformers, >= 0.90 for PPO. The advice comes
from `rigtune tune --workload W --python PY` run here (--budget seconds each),
or from --config FILE (a configuration holding both recommendations, made
with the venv's Python) and --debian-config FILE (made with Debian's). A
build whose Python lacks the framework is skipped with a line that says so.
Prints figures; asserts nothing.

    python3 bench/bench_advice.py [--rounds N] [--budget S] [--config FILE] [--debian-config FILE]
        [--venv-python PATH] [--only pip,debian,jax,ppo] [--rigtune PATH]

--venv-python defaults to $(scripts/venv.sh --path)/bin/python where the
script is. Run from the source tree (the examples are read from there).
About 10 minutes at the defaults on 2 cores.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

TRANSFORMER = "examples/torch_transformer.py"
JAX_TRANSFORMER = "examples/jax_transformer.py"
PPO = "examples/sb3_ppo.py"
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_WAIT_POLICY",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "NPROC", "PJRT_NPROC",
               "XLA_FLAGS")
STEPS = 6    # transformer steps per run
WARMUP = 2   # steps of each run not counted: compilation, start-up
PPO_ITERS = 3  # iterations of each PPO run; the first is not counted
PPO_ROLLOUT = "128"  # rigtune's ppo shape's rollout (SB3's n_steps)
PASSIVE = {"OMP_WAIT_POLICY": "PASSIVE"}


class Setting:
    """One way to run a client: its build, label, argv and environment."""

    def __init__(self, build, name, argv, env=None, metric="samples/s ([0-9.]+)", grid=True,
                 warmup=WARMUP):
        self.build, self.name, self.argv, self.env = build, name, argv, env or {}
        self.metric, self.grid, self.warmup = re.compile(metric), grid, warmup
        self.rounds = {}  # round -> the median of its run's samples

    def run(self, rnd):
        env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
        env.update(self.env)
        try:
            out = subprocess.run(self.argv, env=env, capture_output=True, text=True,
                                 timeout=300).stdout
        except subprocess.TimeoutExpired:
            out = ""
        samples = [float(m.group(1)) for m in map(self.metric.search, out.splitlines()) if m]
        if len(samples) > self.warmup:
            self.rounds[rnd] = statistics.median(samples[self.warmup:])
        else:
            print(f"bench_advice: {self.build} {self.name}: no samples "
                  f"({' '.join(self.argv)})", file=sys.stderr)


def run_checked(argv, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if r.returncode:
        sys.exit(f"bench_advice: {' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def has_module(python, module):
    return os.access(python, os.X_OK) and subprocess.run(
        [python, "-c", f"import {module}"], capture_output=True).returncode == 0


def recommendation(a, workload, python, label):
    """The configuration's entry for workload: from --config/--debian-config, else a tune now."""
    path = a.config if label == "venv" else a.debian_config
    if not path:
        path = os.path.join(a.tmp, f"{workload}-{label}.yaml")
        run_checked([a.rigtune, "tune", "--workload", workload, "--backend", "cpu",
                     "--budget", str(a.budget), "--no-crossover", "--fresh", "--quiet",
                     "--python", python, "-o", path])
    with open(path) as f:
        rec = (yaml.safe_load(f).get("recommendations") or {}).get(workload)
    if not rec or "recommended" not in rec:
        sys.exit(f"bench_advice: {path}: no recommendation for {workload}")
    return path, rec


def advice_env(rec):
    return {k: str(v) for k, v in (rec.get("env") or {}).items() if not k.startswith("RIGTUNE_")}


def torch_advice(rec):
    """The env, --threads and --precision that the pytorch hints' lines say."""
    env, args = advice_env(rec), []
    point = rec["recommended"]["point"]
    precision = point.get("precision", "fp32")
    for line in rec["hints"]["pytorch"]["lines"]:
        if m := re.match(r"os\.environ\['(\w+)'\] = '(\w+)'", line):
            env[m.group(1)] = m.group(2)
        elif m := re.match(r"torch\.set_num_threads\((\d+)\)", line):
            args += ["--threads", m.group(1)]
        elif line.startswith("with torch.autocast('cpu', dtype=torch.bfloat16)"):
            precision = "bf16"
    return env, args + ["--precision", "bf16" if precision == "bf16" else "fp32"]


def point_cpus(a, config):
    """The CPUs the recommendation's pin binds, from `rigtune env`'s comment."""
    out = run_checked([a.rigtune, "env", "--config", config, "--workload", "transformer"])
    m = re.search(r"CPUs? ([0-9][0-9,-]*)", out)
    return m.group(1) if m else None


def jax_advice(a, rec, config):
    """The env, taskset prefix and --precision that the jax hints' lines say."""
    env, prefix, precision = advice_env(rec), [], "fp32"
    for line in rec["hints"]["jax"]["lines"]:
        if m := re.match(r"taskset -c (\S+) ", line):
            prefix = ["taskset", "-c", m.group(1)]
        elif line.startswith("rigtune exec") and (cpus := point_cpus(a, config)):
            prefix = ["taskset", "-c", cpus]
        elif m := re.match(r"(NPROC|PJRT_NPROC|XLA_FLAGS)=(\S+)", line):
            env[m.group(1)] = m.group(2)
        elif line.startswith("jnp.dot(x.astype(jnp.bfloat16)"):
            precision = "bf16"
    return env, prefix, ["--precision", precision]


def batch_of(rec):
    shape = rec["recommended"].get("shape") or {}
    return str(rec["recommended"]["point"].get("batch") or shape.get("batch") or 32)


def torch_settings(build, python, rec, with_blas):
    base = [python, TRANSFORMER, "--batch", batch_of(rec), "--steps", str(STEPS)]
    env, args = torch_advice(rec)
    out = [Setting(build, "advice", base + args, env, grid=False)]
    # (intra-op, BLAS, GNU OpenMP's wait policy passive): the BLAS's own only where it has one
    pools = ([(1, 1, 0), (1, 2, 0), (2, 1, 0), (2, 2, 0), (2, 1, 1)] if with_blas
             else [(1, None, 0), (2, None, 0), (2, None, 1)])
    for precision in ("fp32", "bf16"):
        for t, b, passive in pools:
            env = {"OMP_NUM_THREADS": str(t), "MKL_NUM_THREADS": str(t)}
            name = f"{precision} T{t}"
            if b:
                env["OPENBLAS_NUM_THREADS"] = str(b)
                name += f"xB{b}"
            if passive:
                env.update(PASSIVE)
                name += " passive"
            out.append(Setting(build, name, base + ["--precision", precision], env))
    return out


def jax_settings(a, python, rec, config):
    base = [python, JAX_TRANSFORMER, "--batch", batch_of(rec), "--steps", str(STEPS)]
    env, prefix, args = jax_advice(a, rec, config)
    out = [Setting("JAX", "advice", prefix + base + args, env, grid=False)]
    last = os.sched_getaffinity(0)
    for precision in ("fp32", "bf16"):
        for cpus, eigen in ((1, False), (len(last), True)):
            env = {} if eigen else {"XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}
            mask = ["taskset", "-c", "0" if cpus == 1 else f"0-{cpus - 1}"]
            name = f"{precision} cpus{cpus}" + ("" if eigen else " eigen-single")
            out.append(Setting("JAX", name, mask + base + ["--precision", precision], env))
    return out


def ppo_advice(rec):
    """
    The ppo recommendation as examples/sb3_ppo.py's arguments: the
    stable_baselines3 block's make_vec_env line (n_envs, DummyVecEnv or
    SubprocVecEnv) and the pytorch block's torch.set_num_threads; a
    configuration without the SB3 block maps the point itself (workers 0:
    DummyVecEnv; workers N: N processes stepping num_envs/N envs each).
    """
    point, shape = rec["recommended"]["point"], rec["recommended"]["shape"]
    hints = rec.get("hints") or {}
    threads = str(point["threads"])
    for line in (hints.get("pytorch") or {}).get("lines", []):
        if m := re.match(r"torch\.set_num_threads\((\d+)\)", line):
            threads = m.group(1)
    for line in (hints.get("stable_baselines3") or {}).get("lines", []):
        if m := re.search(r"n_envs=(\d+), vec_env_cls=(\w+)VecEnv", line):
            return ["--num-envs", m.group(1), "--vec", m.group(2).lower(), "--threads", threads]
    workers = int(point.get("workers", 0))
    vec = ["--vec", "chunked", "--workers", str(workers)] if workers else ["--vec", "dummy"]
    return ["--num-envs", str(shape["num_envs"]), "--threads", threads] + vec


def ppo_run(python, args):
    n = int(args[args.index("--num-envs") + 1])
    steps = PPO_ITERS * n * int(PPO_ROLLOUT)
    return [python, PPO, "--timesteps", str(steps), "--rollout", PPO_ROLLOUT] + args


PPO_GRID = (  # (num_envs, vec, workers, threads, passive)
    [(n, "dummy", 0, 1, 0) for n in (4, 16, 64, 128)] + [(16, "dummy", 0, 2, 0), (16, "dummy", 0, 2, 1)]
    + [(n, "subproc", 0, 1, 0) for n in (4, 16)]
    + [(16, "chunked", 2, 1, 0), (64, "chunked", 2, 1, 0)])


def ppo_settings(python, rec):
    metric = r"env-steps/s ([0-9.]+)"
    out = [Setting("SB3 PPO", "advice", ppo_run(python, ppo_advice(rec)), advice_env(rec),
                   metric=metric, grid=False, warmup=1)]
    for n, vec, workers, t, passive in PPO_GRID:
        args = ["--num-envs", str(n), "--vec", vec, "--threads", str(t)]
        name = f"{vec} n{n} T{t}"
        if vec == "chunked":
            args += ["--workers", str(workers)]
            name = f"chunked n{n} w{workers} T{t} (no SB3 class)"
        out.append(Setting("SB3 PPO", name + (" passive" if passive else ""),
                           ppo_run(python, args), PASSIVE if passive else None, metric=metric,
                           grid=vec != "chunked", warmup=1))
    return out


SHOWN_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_WAIT_POLICY", "NPROC", "XLA_FLAGS")


def describe(s):
    """The setting's thread variables and the client's arguments that differ between settings."""
    argv = s.argv[3:] if s.argv[0] == "taskset" else s.argv
    prefix = s.argv[:3] if s.argv[0] == "taskset" else []
    args, skip = [], False
    for x in argv[2:]:
        if not skip and x not in ("--steps", "--timesteps", "--rollout"):
            args.append(x)
        skip = not skip and x in ("--steps", "--timesteps", "--rollout")
    env = [f"{k}={v}" for k, v in s.env.items() if k in SHOWN_VARS]
    return " ".join(env + prefix + args)


def settings_for(a, only):
    """Every build's settings, and a line for each build skipped."""
    out, venv = [], a.venv_python
    if {"pip", "jax"} & only or "ppo" in only:
        if not venv or not has_module(venv, "torch"):
            print(f"bench_advice: skipped pip PyTorch, JAX, SB3 PPO: no venv Python with torch "
                  f"({venv or 'scripts/venv.sh is not here; --venv-python PATH'})")
            only = only - {"pip", "jax", "ppo"}
    if "pip" in only or "jax" in only:
        config, rec = recommendation(a, "transformer", venv, "venv")
        if "pip" in only:
            out += torch_settings("pip PyTorch", venv, rec, with_blas=False)
        if "jax" in only and has_module(venv, "jax"):
            out += jax_settings(a, venv, rec, config)
    if "debian" in only:
        if has_module("/usr/bin/python3", "torch"):
            _, rec = recommendation(a, "transformer", "/usr/bin/python3", "debian")
            out += torch_settings("Debian PyTorch", "/usr/bin/python3", rec, with_blas=True)
        else:
            print("bench_advice: skipped Debian PyTorch: /usr/bin/python3 has no torch")
    if "ppo" in only and has_module(venv, "stable_baselines3"):
        _, rec = recommendation(a, "ppo", venv, "venv")
        out += ppo_settings(venv, rec)
    return out


def ratios(advice, best, rounds):
    return [advice.rounds[r] / best.rounds[r] for r in range(rounds)
            if r in advice.rounds and r in best.rounds]


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "?"


def report(settings, rounds, verbose):
    print(f"bench_advice: {rounds} rounds interleaved on {cpu_model()} "
          f"({len(os.sched_getaffinity(0))} CPUs); ratio: the advice's run against the grid's "
          f"best's in the same round, median (lowest-highest) over rounds")
    print(f"{'build':<15} {'advice':<58} {'grid best':<24} {'ratio':>6} {'spread':>13} target")
    builds = dict.fromkeys(s.build for s in settings)
    for build in builds:
        mine = [s for s in settings if s.build == build]
        grid = [s for s in mine if s.grid and s.rounds]
        advice = next(s for s in mine if s.name == "advice")
        if not grid or not advice.rounds:
            print(f"{build:<15} no measurement")
            continue
        best = max(grid, key=lambda s: statistics.median(s.rounds.values()))
        r = ratios(advice, best, rounds)
        target = 0.90 if build == "SB3 PPO" else 0.95
        print(f"{build:<15} {describe(advice):<58} {best.name:<24} "
              f"{statistics.median(r):6.3f} {min(r):6.3f}-{max(r):.3f} >= {target:.2f}")
        unit = advice.metric.pattern.split()[0]  # samples/s, env-steps/s
        print(f"{'':<15} {statistics.median(advice.rounds.values()):<58.1f} "
              f"{statistics.median(best.rounds.values()):<24.1f} {unit}")
        if verbose:
            for s in mine:
                if s.rounds:
                    med = statistics.median(s.rounds.values())
                    print(f"    {s.name:<24} {describe(s):<70} {med:10.1f} "
                          f"{statistics.median(ratios(s, best, rounds) or [0]):6.3f}")


def venv_default():
    if not os.access("scripts/venv.sh", os.X_OK):
        return None
    r = subprocess.run(["scripts/venv.sh", "--path"], capture_output=True, text=True)
    return os.path.join(r.stdout.strip(), "bin", "python") if r.returncode == 0 else None


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--budget", type=int, default=40, help="seconds of each tune made here")
    p.add_argument("--config", help="take the venv builds' advice from this configuration "
                   "(made with --python the venv's Python) instead of tuning")
    p.add_argument("--debian-config", help="take Debian PyTorch's advice from this one "
                   "(made with --python /usr/bin/python3)")
    p.add_argument("--venv-python", default=None)
    p.add_argument("--only", default="pip,debian,jax,ppo")
    p.add_argument("--rigtune", default="build/rigtune")
    p.add_argument("--verbose", action="store_true", help="every setting's figures too")
    a = p.parse_args(argv)
    only = set(a.only.split(","))
    if a.rounds < 1 or only - {"pip", "debian", "jax", "ppo"}:
        p.error("--rounds must be at least 1; --only names pip, debian, jax, ppo")
    a.only = only
    a.venv_python = a.venv_python or venv_default()
    return a


def main(argv):
    a = parse_args(argv)
    if not os.access(TRANSFORMER, os.R_OK) or not os.access(a.rigtune, os.X_OK):
        print(f"bench_advice: skipped: run from the source tree after make ({TRANSFORMER}, "
              f"{a.rigtune})")
        return 0
    with tempfile.TemporaryDirectory(prefix="rigtune-bench-advice-") as a.tmp:
        settings = settings_for(a, a.only)
    start = time.monotonic()
    for r in range(a.rounds):  # forward and backward in turn, from a rotating start
        n = len(settings)
        for i in range(n):
            k = n - 1 - i if r % 2 else i
            s = settings[(k + r // 2 * 7) % n]
            print(f"bench_advice: round {r + 1}/{a.rounds}, {i + 1}/{n}: {s.build} {s.name}",
                  file=sys.stderr, flush=True)
            s.run(r)
    report(settings, a.rounds, a.verbose)
    print(f"bench_advice: measured in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
