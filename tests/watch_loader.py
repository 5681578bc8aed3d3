"""A training step starved by its data loader, for tests/cli/test_watch.sh: a
torch DataLoader without workers whose dataset waits --wait-s per item (a
slow disk or network, as sleep), feeding a short update. Prints "mark 1" and
"mark 2" around the steps and then the split it measured itself by wall
clock: "split load=F step=F"."""
import argparse
import time

import torch
from torch.utils.data import DataLoader, Dataset

ap = argparse.ArgumentParser()
ap.add_argument("--wait-s", type=float, default=0.08)
ap.add_argument("--step-s", type=float, default=0.3)
ap.add_argument("--steps", type=int, default=24)
a = ap.parse_args()


class Slow(Dataset):
    def __len__(self):
        return 10**6

    def __getitem__(self, i):
        time.sleep(a.wait_s)
        return torch.randn(64)


torch.set_num_threads(1)
w = torch.randn(64, 64)
load = step = 0.0
batches = iter(DataLoader(Slow(), batch_size=8, num_workers=0))
print("mark 1", flush=True)
for _ in range(a.steps):
    t0 = time.monotonic()
    x = next(batches)
    t1 = time.monotonic()
    while time.monotonic() - t1 < a.step_s:
        x = torch.tanh(x @ w)
    load += t1 - t0
    step += time.monotonic() - t1
print("mark 2", flush=True)
print(f"split load={load / (load + step):.3f} step={step / (load + step):.3f}", flush=True)
