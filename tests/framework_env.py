#!/usr/bin/env python3
"""Proves rigtune's verdicts on the user's thread and precision variables (TAP).

    PYTHON tests/framework_env.py RIGTUNE

Runs `RIGTUNE probe --python PYTHON` with every variable rigtune judges set, reads
its your_settings (for each variable and each framework PYTHON has: "read: ..." or
"ignored: ..."), then checks each verdict on the real install: a fresh process of the
framework with the variable set, against one with none of them set, and the variable
is read where anything it shows differs: the pools it sized (PyTorch's intra-op pool,
OpenBLAS's own, the Eigen pool of XLA's CPU client), whether a matmul ran on more than
one thread, whether a pool thread spun on a core while the main thread slept after an op,
the main thread's affinity, the default dtypes, JAX's matmul precision.
A verdict the process contradicts is a failure; so is a variable rigtune left out.
The processes run two per CPU at a time (what each observes is its own: see main).
"""
import concurrent.futures
import json
import os
import subprocess
import sys

import yaml

# The values a test sets: each differs from what this 2-core machine does unset
# (Debian's torch starts its intra-op pool at 1, PyPI's at the cores: so 1 and 2).
VALUES = {
    "OMP_NUM_THREADS": ["1", "2"], "MKL_NUM_THREADS": ["1", "2"],
    "OPENBLAS_NUM_THREADS": ["1", "2"], "VECLIB_MAXIMUM_THREADS": ["1"],
    "NUMEXPR_NUM_THREADS": ["1"], "OMP_PROC_BIND": ["true"], "OMP_PLACES": ["cores"],
    "OMP_WAIT_POLICY": ["ACTIVE"],
    "NPROC": ["1"], "PJRT_NPROC": ["1"], "XLA_FLAGS": ["--xla_cpu_multi_thread_eigen=false"],
    "XLA_CPU_MULTI_THREAD_EIGEN": ["false"], "TF_NUM_INTRAOP_THREADS": ["1"],
    "TF_NUM_INTEROP_THREADS": ["1"], "JAX_ENABLE_X64": ["1"],
    "JAX_DEFAULT_MATMUL_PRECISION": ["bfloat16"],
}

OBSERVE = r'''
import ctypes, json, os, sys, threading, time
def cpu_by_thread():
    d = {}
    for t in os.listdir('/proc/self/task'):
        try:
            with open(f'/proc/self/task/{t}/stat') as f:
                st = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        d[t] = int(st[11]) + int(st[12])
    return d
def parallel(run):
    """Whether run's work went to more than one thread (a second at >= 1/4 of the first)."""
    a = cpu_by_thread(); run(); b = cpu_by_thread()
    delta = sorted((b[t] - a.get(t, 0) for t in b), reverse=True)
    return len(delta) > 1 and delta[0] > 0 and delta[1] >= delta[0] / 4
def spun_once(op):
    """Whether a thread other than this one burnt CPU while this one slept after op (0.5 s).
    Only op's pool: a BLAS's own threads (OpenBLAS spins a while after a matmul) settle first."""
    me = str(threading.get_native_id())
    time.sleep(0.6)
    op(); a = cpu_by_thread(); time.sleep(0.5); b = cpu_by_thread()
    return max((b[t] - a.get(t, 0) for t in b if t != me), default=0) >= 3  # 30 ms of ticks
def spins(op):
    """Whether op's pool spins: seen twice in a row. A pool that spins does so after every op;
    a stray 30 ms of some thread, once, read as spinning in 1 of 3 full runs of the tests."""
    return all(spun_once(op) for _ in range(2))  # the second look only after a first that saw it
if sys.argv[1] == 'pytorch':
    import torch
    x = torch.randn(1024, 1024)
    (x @ x).sum()
    blas = None
    with open('/proc/self/maps') as maps:
        for p in sorted({l.split()[-1] for l in maps if 'openblas' in l}):
            lib = ctypes.CDLL(p)
            if hasattr(lib, 'openblas_get_num_threads'):
                blas = lib.openblas_get_num_threads()
    obs = dict(intra=torch.get_num_threads(), openblas=blas,
               parallel=parallel(lambda: [x @ x for _ in range(12)]),
               affinity=len(os.sched_getaffinity(0)), dtype=str(torch.get_default_dtype()),
               matmul_precision=torch.get_float32_matmul_precision())
    torch.set_num_threads(os.cpu_count())  # a pool to wait in (Debian's starts at 1)
    obs['spins'] = spins(lambda: torch.ones(1 << 22).mul_(2))
else:
    import jax, jax.numpy as jnp
    x = jnp.ones((1024, 1024), jnp.float32)
    f = jax.jit(lambda a: a @ a)
    f(x).block_until_ready()
    comm = [open(f'/proc/self/task/{t}/comm').read().strip() for t in os.listdir('/proc/self/task')]
    obs = dict(eigen=comm.count('tf_XLAEigen'),
               parallel=parallel(lambda: [f(x).block_until_ready() for _ in range(12)]),
               affinity=len(os.sched_getaffinity(0)), dtype=str(jnp.zeros(1).dtype),
               precision=str(jax.config.jax_default_matmul_precision))
print(json.dumps(obs))
'''

FRAMEWORK_MODULE = {"pytorch": "torch", "jax": "jax"}


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in VALUES}
    env.update(extra)
    return env


def observe(framework, env):
    r = subprocess.run([sys.executable, "-c", OBSERVE, framework], env=env, capture_output=True,
                       text=True, timeout=300)
    if r.returncode:
        raise RuntimeError(f"{framework}: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def verdicts(rigtune):
    """your_settings as rigtune's probe gives it with every variable set."""
    env = clean_env(**{k: v[0] for k, v in VALUES.items()})
    r = subprocess.run([rigtune, "probe", "--python", sys.executable], env=env,
                       capture_output=True, text=True, timeout=600)
    if r.returncode:
        sys.exit(f"Bail out! rigtune probe failed: {r.stderr.strip()[-300:]}")
    doc = yaml.safe_load(r.stdout)
    return doc["frameworks"], doc["your_settings"]


def main(rigtune):
    frameworks, settings = verdicts(rigtune)
    judged = [fw for fw in FRAMEWORK_MODULE if isinstance(frameworks.get(fw), dict)]
    if not judged:
        print(f"Bail out! {sys.executable} has neither PyTorch nor JAX")
        return 1
    tests, failed = [], 0
    for var in VALUES:
        for fw in judged:
            said = settings.get(var, {}).get(fw) if isinstance(settings, dict) else None
            tests.append((var, fw, said))
    # Every process observed, two per CPU at a time: what each reads is its own pools,
    # its threads' CPU time (the work, not the wall clock) and a spinning thread's tens
    # of milliseconds against a threshold of 30: another process beside it moves none.
    # Two, since a PyTorch process sleeps for most of its 3 s (spins' 2.2 s of watching),
    # which keeps about one computing per CPU.
    runs = [(fw, None, None) for fw in judged] + [
        (fw, var, value) for var, fw, said in tests if said for value in VALUES[var]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 1)) as pool:
        seen = dict(zip(runs, pool.map(
            lambda r: observe(r[0], clean_env(**({r[1]: r[2]} if r[1] else {}))), runs)))
    base = {fw: seen[(fw, None, None)] for fw in judged}
    print(f"1..{len(tests)}")
    for n, (var, fw, said) in enumerate(tests, 1):
        if not said:
            failed += 1
            print(f"not ok {n} - {fw} {var}\n#   rigtune gave no verdict on it")
            continue
        changed = []
        for value in VALUES[var]:
            got = seen[(fw, var, value)]
            changed += [f"{k} {base[fw][k]}->{got[k]} at {var}={value}"
                        for k in got if got[k] != base[fw][k]]
        read = bool(changed)
        what = "; ".join(changed) if changed else "nothing changed"
        if read == said.startswith("read:"):
            print(f"ok {n} - {fw} {var}: {said.split(':')[0]} ({what})")
        else:
            failed += 1
            print(f"not ok {n} - {fw} {var}: rigtune says '{said}'\n#   measured: {what}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
