#!/usr/bin/env python3
"""A PyTorch training loop of rigtune's default transformer shape, for `rigtune tune --cmd`.

Pre-LN transformer-encoder blocks (causal self-attention, GELU MLP), MSE loss
on a synthetic target, Adam: the step that `rigtune bench transformer` times
in C, here as a user would write it. Batches come from a seeded synthetic
dataset through a DataLoader (--workers processes, 0: inline).

Every step prints one line, flushed at once:

    step 3 samples/s 118.4 loss 1.0312

so that `--metric 'samples/s ([0-9.]+)'` reads a sample per step; --seconds
bounds a run's time, so that a search can afford many. Threads
are what the environment says (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, ...)
unless --threads calls torch.set_num_threads. The settings in effect go to
stderr first (`threads: intra-op N, inter-op N, blas N`).

    python3 examples/torch_transformer.py --batch 32 --steps 20
    python3 examples/torch_transformer.py --batch 32 --steps 100 --seconds 3
"""
import argparse
import ctypes
import sys
import time

import torch
from torch import nn


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--batch", type=int, default=32, help="sequences per step")
    p.add_argument("--steps", type=int, default=20, help="training steps (at most)")
    p.add_argument("--seconds", type=float, default=None,
                   help="stop after this many seconds of training (and 3 steps at least)")
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--d-ff", type=int, default=1024)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--threads", type=int, default=None,
                   help="torch.set_num_threads(N) (default: PyTorch's own choice)")
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                   help="bf16: autocast on the device")
    p.add_argument("--device", default="cpu",
                   help="where the model trains: cpu, cuda, cuda:N, mps (batches are made on "
                        "the CPU by the DataLoader, as a user's would be)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    for name in ("batch", "steps", "d_model", "heads", "seq_len", "d_ff", "layers"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.d_model % a.heads:
        p.error("--d-model must be a multiple of --heads")
    if a.threads is not None and a.threads < 1:
        p.error("--threads must be at least 1")
    if a.workers < 0:
        p.error("--workers must be at least 0")
    return a


class SyntheticSequences(torch.utils.data.Dataset):
    """Sequence i: seeded noise as input, a fixed random projection of it as target."""

    def __init__(self, n, seq_len, d_model, seed):
        self.n, self.seq_len, self.d_model, self.seed = n, seq_len, d_model, seed
        g = torch.Generator().manual_seed(seed)
        self.proj = torch.randn(d_model, d_model, generator=g) / d_model ** 0.5

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 1000003 + i)
        x = torch.randn(self.seq_len, self.d_model, generator=g)
        return x, torch.tanh(x @ self.proj)


class Model(nn.Module):
    def __init__(self, a):
        super().__init__()
        layer = nn.TransformerEncoderLayer(a.d_model, a.heads, a.d_ff, dropout=a.dropout,
                                           activation="gelu", batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, a.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(a.d_model)
        self.out = nn.Linear(a.d_model, a.d_model)
        mask = torch.triu(torch.full((a.seq_len, a.seq_len), float("-inf")), diagonal=1)
        self.register_buffer("causal", mask)

    def forward(self, x):
        return self.out(self.norm(self.blocks(x, mask=self.causal)))


def blas_threads():
    """The pool size of the OpenBLAS this process loaded (through PyTorch), else None."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "openblas" in line}
    for path in sorted(paths):
        lib = ctypes.CDLL(path)
        if hasattr(lib, "openblas_get_num_threads"):
            return lib.openblas_get_num_threads()
    return None


def main(argv):
    a = parse_args(argv)
    if a.threads is not None:
        torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    device = torch.device(a.device)
    model = Model(a).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, weight_decay=a.weight_decay)
    data = SyntheticSequences(a.batch * a.steps, a.seq_len, a.d_model, a.seed)
    loader = torch.utils.data.DataLoader(data, batch_size=a.batch, num_workers=a.workers,
                                         persistent_workers=a.workers > 0)
    print(f"threads: intra-op {torch.get_num_threads()}, inter-op "
          f"{torch.get_num_interop_threads()}, blas {blas_threads()}", file=sys.stderr,
          flush=True)
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=a.precision == "bf16")
    start = last = time.perf_counter()
    for step, (x, y) in enumerate(loader, 1):
        x, y = x.to(device), y.to(device)
        with autocast:
            loss = nn.functional.mse_loss(model(x).float(), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        value = loss.item()  # waits for the device, so that the clock reads a finished step
        now = time.perf_counter()
        print(f"step {step} samples/s {x.shape[0] / (now - last):.2f} loss {value:.4f}",
              flush=True)
        last = now
        if a.seconds is not None and step >= 3 and now - start >= a.seconds:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
