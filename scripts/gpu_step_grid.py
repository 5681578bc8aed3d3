#!/usr/bin/env python3
"""PyTorch eager's training step of issue 45's transformer on a GPU, over a batch x precision grid.

The model is examples/torch_transformer.py's (pre-LN encoder blocks, causal
attention, GELU, MSE loss, Adam); the batches are made on the device once,
so that the step alone is timed, as `rigtune bench transformer` times its
own. Each point runs --seconds after two warm-up steps; the grid is walked
--rounds times, the points interleaved, and each round prints one line per
point:

    torch round 1 batch 256 precision bf16 samples/s 17374.2

Precisions: fp32 (TF32 off), tf32 (TF32 matmuls), bf16 and fp16 (autocast;
fp16 with a gradient scaler).

    python3 scripts/gpu_step_grid.py --batches 64,256 --precisions fp32,bf16
"""
import argparse
import os
import sys
import time

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from torch_transformer import Model  # noqa: E402

PRECISIONS = ("fp32", "tf32", "bf16", "fp16")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--batches", default="64,256,512,1024")
    p.add_argument("--precisions", default=",".join(PRECISIONS))
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--d-model", type=int, default=512)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--d-ff", type=int, default=2048)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--device", default="cuda")
    a = p.parse_args(argv)
    a.dropout = 0.0
    a.batch_list = [int(b) for b in a.batches.split(",") if b]
    a.precision_list = [q for q in a.precisions.split(",") if q]
    bad = [q for q in a.precision_list if q not in PRECISIONS]
    if bad or not a.batch_list or min(a.batch_list) < 1 or a.rounds < 1:
        p.error(f"precisions among {', '.join(PRECISIONS)}, batches >= 1, rounds >= 1")
    return a


def samples_per_s(a, batch, precision):
    """One point: a fresh model, two warm-up steps, then steps for a.seconds."""
    torch.manual_seed(0)
    device = torch.device(a.device)
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    model = Model(a).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16")
    x = torch.randn(batch, a.seq_len, a.d_model, device=device)
    y = torch.tanh(x)

    def step():
        with torch.autocast(device.type, dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            loss = nn.functional.mse_loss(model(x).float(), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    for _ in range(2):
        step()
    sync()
    steps, start = 0, time.perf_counter()
    while True:
        step()
        steps += 1
        if steps % 5 == 0:
            sync()
            if time.perf_counter() - start >= a.seconds:
                break
    return steps * batch / (time.perf_counter() - start)


def main(argv):
    a = parse_args(argv)
    for r in range(1, a.rounds + 1):
        for batch in a.batch_list:
            for precision in a.precision_list:
                try:
                    v = f"{samples_per_s(a, batch, precision):.1f}"
                except torch.OutOfMemoryError:
                    v = "out-of-memory"
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                print(f"torch round {r} batch {batch} precision {precision} samples/s {v}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
