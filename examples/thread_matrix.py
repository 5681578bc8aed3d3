#!/usr/bin/env python3
"""Times a training script under several thread settings, interleaved, and prints ratios.

Each setting is a set of environment variables (and extra arguments); every
round runs each setting once, in turn (A B C A B C ...), so that a machine
that gets busier or quieter moves them all alike. A run's samples are the
metric's matches after --warmup; a setting's figure is the median of all its
samples. The findings in examples/README.md come from:

    python3 examples/thread_matrix.py --rounds 4 --batch 32 \\
        -- /usr/bin/python3 examples/torch_transformer.py --steps 12

Settings are named T<intra-op>xB<blas>: OMP_NUM_THREADS and
OPENBLAS_NUM_THREADS (MKL_NUM_THREADS with them) set as named; `default`
sets nothing; `+passive` adds OMP_WAIT_POLICY=PASSIVE, `+wN` the arguments
`--workers N`. --settings picks them. The PPO figures come from:

    python3 examples/thread_matrix.py --rounds 4 --metric 'env-steps/s ([0-9.]+)' \
        --warmup 1 --settings default,T1xB1,T2xB2,T1xB1+w1,T2xB2+w1 \
        -- /usr/bin/python3 examples/torch_ppo.py --num-envs 16 --iters 4
"""
import argparse
import os
import re
import statistics
import subprocess
import sys


def setting(name):
    """The environment and extra arguments of a setting: default, T2xB1, T2xB2+passive+w1."""
    env, args = {}, []
    base, *extras = name.split("+")
    if base != "default":
        m = re.fullmatch(r"T(\d+)xB(\d+)", base)
        if not m:
            raise SystemExit(f"thread_matrix: bad setting '{name}' (default or T<n>xB<n>)")
        env = {"OMP_NUM_THREADS": m.group(1), "MKL_NUM_THREADS": m.group(1),
               "OPENBLAS_NUM_THREADS": m.group(2)}
    for extra in extras:
        if extra == "passive":
            env["OMP_WAIT_POLICY"] = "PASSIVE"
        elif re.fullmatch(r"w\d+", extra):
            args += ["--workers", extra[1:]]
        else:
            raise SystemExit(f"thread_matrix: bad modifier '+{extra}' (passive, wN)")
    return env, args


def run(cmd, setting_, metric, warmup):
    env, args = setting_
    out = subprocess.run(cmd + args, env={**os.environ, **env}, capture_output=True,
                         text=True, check=True).stdout
    return [float(v) for v in re.findall(metric, out)][warmup:]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--batch", type=int, action="append",
                   help="adds --batch N to the command (repeatable: one matrix each)")
    p.add_argument("--settings", default="default,T1xB1,T1xB2,T2xB1,T2xB2,T2xB2+passive")
    p.add_argument("--metric", default=r"samples/s ([0-9.]+)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        p.error("give the command after --")
    names = a.settings.split(",")
    for batch in a.batch or [None]:
        full = cmd + (["--batch", str(batch)] if batch else [])
        samples = {n: [] for n in names}
        for _ in range(a.rounds):
            for n in names:
                samples[n] += run(full, setting(n), a.metric, a.warmup)
        med = {n: statistics.median(s) for n, s in samples.items()}
        best = max(med.values())
        print(f"# {' '.join(full)}  ({a.rounds} rounds, {len(samples[names[0]])} samples each)")
        for n in names:
            q = statistics.quantiles(samples[n], n=4)
            print(f"{n:16s} median {med[n]:8.2f}  IQR [{q[0]:.2f}, {q[2]:.2f}]  "
                  f"ratio to best {med[n] / best:.3f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
