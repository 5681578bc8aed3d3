#!/usr/bin/env python3
"""A JAX training loop of rigtune's default transformer shape, as torch_transformer.py in PyTorch.

Pre-LN blocks (causal self-attention, GELU MLP), MSE loss on a synthetic
target, Adam written out (no optax), one jitted step. --precision bf16 runs
every dot with bf16 operands and an fp32 result
(preferred_element_type=jnp.float32), the CPU bf16 lever rigtune's JAX hints
name; fp32 keeps the default precision.

Every step prints one line, flushed at once:

    step 3 samples/s 118.4 loss 1.0312

Threads are what the process is given, which is what XLA's CPU client reads:
the affinity mask (taskset), NPROC, and
XLA_FLAGS=--xla_cpu_multi_thread_eigen=false for single-threaded Eigen calls.
The first line on stderr says what the process sees
(`threads: affinity N, NPROC X, XLA_FLAGS Y`). The first step (compilation) is
timed like the others: skip it as a warm-up.

    python examples/jax_transformer.py --batch 32 --steps 20
"""
import argparse
import math
import os
import sys
import time

import jax
import jax.numpy as jnp


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
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                   help="bf16: dots of bf16 operands with fp32 results")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    for name in ("batch", "steps", "d_model", "heads", "seq_len", "d_ff", "layers"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.d_model % a.heads:
        p.error("--d-model must be a multiple of --heads")
    return a


def make_dot(precision):
    """x @ w, in bf16 operands with an fp32 result where asked."""
    if precision == "bf16":
        return lambda x, w: jnp.matmul(x.astype(jnp.bfloat16), w.astype(jnp.bfloat16),
                                       preferred_element_type=jnp.float32)
    return jnp.matmul


def init_params(key, a):
    def dense(k, n_in, n_out):
        return {"w": jax.random.normal(k, (n_in, n_out)) / math.sqrt(n_in),
                "b": jnp.zeros(n_out)}

    def norm():
        return {"g": jnp.ones(a.d_model), "b": jnp.zeros(a.d_model)}

    keys = jax.random.split(key, 4 * a.layers + 1)
    layers = []
    for i in range(a.layers):
        k = keys[4 * i:4 * i + 4]
        layers.append({"ln1": norm(), "qkv": dense(k[0], a.d_model, 3 * a.d_model),
                       "proj": dense(k[1], a.d_model, a.d_model), "ln2": norm(),
                       "ff1": dense(k[2], a.d_model, a.d_ff),
                       "ff2": dense(k[3], a.d_ff, a.d_model)})
    return {"layers": layers, "ln": norm(), "out": dense(keys[-1], a.d_model, a.d_model)}


def layer_norm(p, x):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5) * p["g"] + p["b"]


def make_forward(a):
    dot = make_dot(a.precision)
    heads, dh = a.heads, a.d_model // a.heads
    causal = jnp.tril(jnp.ones((a.seq_len, a.seq_len), bool))

    def linear(p, x):
        return dot(x, p["w"]) + p["b"]

    def attention(p, x):
        b, t, _ = x.shape
        q, k, v = jnp.split(linear(p["qkv"], x), 3, axis=-1)
        q, k, v = (z.reshape(b, t, heads, dh).transpose(0, 2, 1, 3) for z in (q, k, v))
        s = dot(q, k.transpose(0, 1, 3, 2)) / math.sqrt(dh)
        s = jnp.where(causal, s, -jnp.inf)
        o = dot(jax.nn.softmax(s, axis=-1), v).transpose(0, 2, 1, 3).reshape(b, t, -1)
        return linear(p["proj"], o)

    def forward(params, x):
        for p in params["layers"]:
            x = x + attention(p, layer_norm(p["ln1"], x))
            x = x + linear(p["ff2"], jax.nn.gelu(linear(p["ff1"], layer_norm(p["ln2"], x))))
        return linear(params["out"], layer_norm(params["ln"], x))

    return forward


def make_step(a):
    forward = make_forward(a)
    b1, b2, eps = 0.9, 0.999, 1e-8

    def loss_fn(params, x, y):
        return jnp.mean((forward(params, x) - y) ** 2)

    @jax.jit
    def step(params, m, v, t, x, y):
        loss, g = jax.value_and_grad(loss_fn)(params, x, y)
        m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
        scale = a.lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps),
                                        params, m, v)
        return params, m, v, loss

    return step


def batches(a):
    """Seeded noise as input, a fixed random projection of it as target, batch by batch."""
    key = jax.random.PRNGKey(a.seed)
    proj = jax.random.normal(jax.random.fold_in(key, 1), (a.d_model, a.d_model))
    proj = proj / math.sqrt(a.d_model)
    for i in range(a.steps):
        x = jax.random.normal(jax.random.fold_in(key, 2 + i), (a.batch, a.seq_len, a.d_model))
        yield x, jnp.tanh(x @ proj)


def main(argv):
    a = parse_args(argv)
    print(f"threads: affinity {len(os.sched_getaffinity(0))}, NPROC "
          f"{os.environ.get('NPROC', '-')}, XLA_FLAGS {os.environ.get('XLA_FLAGS', '-')}",
          file=sys.stderr, flush=True)
    params = init_params(jax.random.PRNGKey(a.seed), a)
    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    step = make_step(a)
    start = last = time.perf_counter()
    for i, (x, y) in enumerate(batches(a), 1):
        x.block_until_ready()
        params, m, v, loss = step(params, m, v, float(i), x, y)
        loss = float(loss)  # waits for the step
        now = time.perf_counter()
        print(f"step {i} samples/s {a.batch / (now - last):.2f} loss {loss:.4f}", flush=True)
        last = now
        if a.seconds is not None and i >= 3 and now - start >= a.seconds:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
