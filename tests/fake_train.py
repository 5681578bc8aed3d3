#!/usr/bin/env python3
"""A stand-in for a training script whose speed is known exactly, for tests of tune --cmd.

    fake_train.py --batch B --opt O --lr L [--fail KIND] [--time] [--steps N]
                  [--workers W --scaling flat|linear] [--noise F --runs FILE]
                  [--startup S]

Prints `step N rate R` (or with --time `step N time T ms`, T = 1000 / R) every
step, R = 1000 * B / (B + 2) * {sgd 0.8, adam 1, rmsprop 0.9}[O] *
(1 - 0.1 (L - 3)^2), halved unless OMP_NUM_THREADS=1 and OPENBLAS_NUM_THREADS
is set (so a figure says the environment was applied). --fail: crash (exit 1
with a message), hang (sleeps), oom (MemoryError), silent (prints no metric).
--workers scales R by W's curve: linear W / 16, or flat: half at W = 1,
then 1 + 0.003 (W - 2) from W = 2 (more is faster, each within 5% of 16's).
--noise F: each run's R is scaled by
1 + F/2 * (a draw of its own, the run's luck, within +-1.5) and each step's
by 1 + F * (another), from random.Random seeded with the run's number in
FILE (a counter this run increments), so a run's figures differ from the
last one's and the sequence is the same for the same order of runs.
--startup S sleeps S seconds before the first step (an import of PyTorch:
a run's fixed cost, which the rate leaves out); under rigtune's test clock
(RIGTUNE_TEST_CLOCK names a file of its seconds: common/clock.h) it moves
that clock on by S instead, so that the run costs the budget S seconds and
the test none. Its steps take no time on that clock. RIGTUNE_OPT, when set, must
equal --opt. FAKE_TRAIN_SPEED, when set, scales R
(0.88: "after the upgrade, the training is 12% slower").
"""
import argparse
import os
import random
import sys
import time

MULT = {"sgd": 0.8, "adam": 1.0, "rmsprop": 0.9}


def run_luck(noise, path):
    """The run's generator: seeded with its number in path (incremented here), or 0."""
    n = 0
    if noise and path:
        try:
            with open(path) as f:
                n = int(f.read() or 0)
        except FileNotFoundError:
            pass
        with open(path, "w") as f:
            f.write(str(n + 1))
    return random.Random(n)


def spend(seconds):
    """Takes seconds: asleep, or on rigtune's test clock when there is one (written whole)."""
    path = os.environ.get("RIGTUNE_TEST_CLOCK")
    if not path:
        time.sleep(seconds)
        return
    try:
        with open(path) as f:
            now = float(f.read() or 0)
    except FileNotFoundError:
        now = 0.0
    with open(path + ".tmp", "w") as f:
        f.write(repr(now + seconds))
    os.replace(path + ".tmp", path)


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--opt", default="adam")
    p.add_argument("--lr", type=int, default=3)
    p.add_argument("--fail", default="none")
    p.add_argument("--time", action="store_true")
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--scaling", choices=["flat", "linear"], default="flat")
    p.add_argument("--noise", type=float, default=0.0)
    p.add_argument("--runs", default=None)
    p.add_argument("--startup", type=float, default=0.0)
    a = p.parse_args(argv)
    if os.environ.get("RIGTUNE_OPT", a.opt) != a.opt:
        print("RIGTUNE_OPT differs from --opt", file=sys.stderr)
        return 3
    rate = 1000 * a.batch / (a.batch + 2) * MULT[a.opt] * (1 - 0.1 * (a.lr - 3) ** 2)
    if os.environ.get("OMP_NUM_THREADS") != "1" or "OPENBLAS_NUM_THREADS" not in os.environ:
        rate /= 2
    rate *= float(os.environ.get("FAKE_TRAIN_SPEED", "1"))
    if a.workers and a.scaling == "linear":
        rate *= a.workers / 16
    elif a.workers:
        rate *= 0.5 if a.workers == 1 else 1 + 0.003 * (a.workers - 2)
    luck = run_luck(a.noise, a.runs)
    rate *= 1 + a.noise / 2 * max(-1.5, min(1.5, luck.gauss(0, 1)))
    if a.fail == "crash":
        print("step 1 rate 1", flush=True)
        print("RuntimeError: the fake crashed", file=sys.stderr)
        return 1
    spend(a.startup)
    if a.fail == "hang":
        time.sleep(600)
    if a.fail == "oom":
        raise MemoryError("the fake ran out of memory")
    for step in range(1, a.steps + 1):
        if a.fail == "silent":
            print(f"step {step}", flush=True)
        elif a.time:
            print(f"step {step} time {1000 / rate:.6f} ms", flush=True)
        else:
            step_rate = rate * (1 + a.noise * max(-1.5, min(1.5, luck.gauss(0, 1))))
            print(f"step {step} rate {step_rate:.6f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
