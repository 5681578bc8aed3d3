"""A run of known structure for tests/cli/test_watch.sh: an RL-like loop that
alternates a single-threaded Python "environment" step with a multi-threaded
PyTorch update (two intra-op threads), for --env-s and --update-s seconds per
cycle. It prints "mark 1" and "mark 2" around the cycles (watch reads them with
--metric, on its own clock) and at the end the split it measured itself by
wall clock: "split env=F update=F"."""
import argparse
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--env-s", type=float, default=1.2)
ap.add_argument("--update-s", type=float, default=0.8)
ap.add_argument("--cycles", type=int, default=5)
a = ap.parse_args()

torch.set_num_threads(2)
w = torch.randn(512, 512)
env = update = 0.0
print("mark 1", flush=True)
for _ in range(a.cycles):
    t0 = time.monotonic()
    x = 0
    while time.monotonic() - t0 < a.env_s:  # the environment: pure Python, one thread
        for i in range(2000):
            x += i * i
    t1 = time.monotonic()
    while time.monotonic() - t1 < a.update_s:  # the update: torch's thread pool
        w = torch.tanh(w @ w * 1e-3)
    t2 = time.monotonic()
    env += t1 - t0
    update += t2 - t1
print("mark 2", flush=True)
print(f"split env={env / (env + update):.3f} update={update / (env + update):.3f}", flush=True)
