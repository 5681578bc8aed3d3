#!/usr/bin/env python3
"""Applies rigtune's framework hints in real processes and checks what they do (TAP).

    PYTHON tests/framework_hints.py FILE

Run with the interpreter whose frameworks the hints were written for (test_hints
probes it and writes FILE from that probe). FILE has one hint per line:

    pytorch<TAB>torch.set_num_threads(2)
    jax<TAB>NPROC=2  # or this: ...
    gymnasium<TAB>envs = gymnasium.vector.SyncVectorEnv([make_env] * 64)  # ...
    stable_baselines3<TAB>model = PPO('MlpPolicy', env, n_steps=128, ...)
    untested:pytorch<TAB>with torch.autocast('cuda', dtype=torch.bfloat16): ...
    env<TAB>OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=2 ...

Each runs in a fresh interpreter (this one, running itself with --one; one per CPU
at a time, since no check reads a time), since
what a hint changes is process state: a line is executed where a script would
(os.environ lines before `import torch`, the rest after; an environment
assignment or a taskset prefix as the start of a process) and its effect read
back from the framework (the pools PyTorch, OpenBLAS and XLA sized, the dtype
autocast gives, the workers a DataLoader starts, the envs and processes a
vector env runs, the settings SB3's PPO took and one update it ran, ...); an
`env` record starts the interpreter with those variables and reads the pools
PyTorch and OpenBLAS sized from them (and the wait policy its OpenMP read). A line no
check knows is a failure: a
new kind of hint needs its check here. A line that needs what this machine
lacks (a GPU, Apple's MPS or Accelerate) is a TAP skip where the config marks it untested, and a
failure where it does not: the config may not present as tested what no test
runs. Otherwise an untested line is checked like any other.
"""
import concurrent.futures
import ctypes
import os
import re
import subprocess
import sys


def openblas_threads():
    """The pool size of the OpenBLAS this process loaded, or None."""
    with open("/proc/self/maps") as maps:
        paths = sorted({line.split()[-1] for line in maps if "openblas" in line})
    for path in paths:
        lib = ctypes.CDLL(path)
        if hasattr(lib, "openblas_get_num_threads"):
            return lib.openblas_get_num_threads()
    return None


def running(processes):
    """How many of a vector env's worker processes are alive."""
    return sum(1 for p in processes if p.is_alive())


def matmul(torch):
    x = torch.randn(128, 128)
    return (x @ x).sum()


# ---- PyTorch ----

def check_set_num_threads(line, m):
    import torch
    exec(line, {"torch": torch})
    matmul(torch)
    got = torch.get_num_threads()
    return "ok" if got == int(m[1]) else f"fail: torch.get_num_threads() is {got}"


def check_openblas_env_line(line, m):
    exec(line, {"os": os})  # before torch loads OpenBLAS, as the comment says
    import torch
    matmul(torch)
    got = openblas_threads()
    if got is None:
        return "fail: this PyTorch's BLAS is not OpenBLAS, and the line is for one"
    return "ok" if got == int(m[1]) else f"fail: OpenBLAS runs {got} threads"


def check_veclib_env_line(line, m):
    import torch
    if "Accelerate" not in torch.__config__.show():
        return "untestable: this PyTorch's BLAS is not Accelerate (macOS's)"
    return "untestable: Accelerate's pool cannot be counted from Python"


def device_missing(torch, device, what):
    """Why device cannot run here (untestable), or None where it can."""
    here = {"cpu": True, "cuda": torch.cuda.is_available(),
            "mps": torch.backends.mps.is_available()}
    if not here.get(device, False):
        return f"untestable: no {device} device for {what}"
    return None


def check_device(line, m):
    import torch
    why = device_missing(torch, m[1], f"torch.device('{m[1]}')")
    if why:
        return why
    scope = {}
    exec(line, {"torch": torch}, scope)
    x = torch.ones(2).to(scope["device"])
    return "ok" if x.device.type == m[1] else f"fail: the tensor went to {x.device}"


def check_dataloader(line, m):
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    batch, workers = int(m[1]), int(m[2])
    data = TensorDataset(torch.randn(4 * batch, 3))
    loader = eval(line.replace("DataLoader(", "DataLoader(data, ", 1),
                  {"DataLoader": DataLoader, "data": data})
    it = iter(loader)
    first = next(it)[0]
    started = len(getattr(it, "_workers", []))
    if first.shape[0] != batch:
        return f"fail: a batch of {first.shape[0]}"
    if started != workers:
        return f"fail: {started} worker processes"
    if workers and not all(w.is_alive() for w in it._workers):
        return "fail: a worker is not alive"
    if loader.persistent_workers != bool(m[3]):
        return "fail: persistent_workers differs"
    return "ok"


def check_autocast(line, m):
    import torch
    device, dtype = m[1], getattr(torch, m[2])
    why = device_missing(torch, device, f"torch.autocast('{device}')")
    if why:
        return why
    if device == "cpu" and not torch.backends.mkldnn.is_available():
        return "fail: this PyTorch has no oneDNN (mkldnn), which runs CPU bf16 matmuls"
    ctx = eval(line[len("with "):line.index("):") + 1], {"torch": torch})
    layer = torch.nn.Linear(8, 8).to(device)
    with ctx:
        y = layer(torch.randn(4, 8, device=device))
    return "ok" if y.dtype == dtype else f"fail: the layer gave {y.dtype}"


def check_matmul_precision(line, m):
    import torch
    exec(line, {"torch": torch})
    got = torch.get_float32_matmul_precision()
    return "ok" if got == m[1] else f"fail: the precision is {got}"


def check_default_dtype(line, m):
    import torch
    exec(line, {"torch": torch})
    ok = torch.get_default_dtype() == torch.float64 and torch.zeros(1).dtype == torch.float64
    return "ok" if ok else f"fail: the default dtype is {torch.get_default_dtype()}"


# ---- JAX: the CPU client's Eigen pool is its threads named tf_XLAEigen ----

EIGEN_POOL = """
import os, jax, jax.numpy as jnp
jax.jit(lambda a: a @ a)(jnp.ones((256, 256))).block_until_ready()
names = [open(f'/proc/self/task/{t}/comm').read().strip() for t in os.listdir('/proc/self/task')]
print(names.count('tf_XLAEigen'))
"""


def eigen_pool(prefix=(), env=None):
    """The Eigen pool's threads of a JAX process started as prefix + [python]."""
    r = subprocess.run([*prefix, sys.executable, "-c", EIGEN_POOL], capture_output=True,
                       text=True, timeout=120, env=env)
    if r.returncode:
        raise RuntimeError(r.stderr.strip().splitlines()[-1:])
    return int(r.stdout.split()[-1])


def check_jax_taskset(line, m):
    prefix = line.split(" python3 train.py")[0].split()
    want = int(m[1]) + 1
    got = eigen_pool(prefix)
    return "ok" if got == want else f"fail: {got} Eigen threads under {' '.join(prefix)}"


def check_jax_exec(line, m):
    # rigtune exec binds the process to the point's CPUs (tests/cli cover the binding);
    # what XLA makes of a bound process is checked here: a pool the mask's size.
    want = int(m[1])
    got = eigen_pool(["taskset", "-c", f"0-{want - 1}"])
    return "ok" if got == want else f"fail: {got} Eigen threads bound to {want} CPUs"


def check_jax_nproc(line, m):
    env = dict(os.environ, NPROC=m[1])
    env.pop("PJRT_NPROC", None)
    got = eigen_pool(env=env)
    return "ok" if got == int(m[1]) else f"fail: {got} Eigen threads with NPROC={m[1]}"


def check_jax_platforms(line, m):
    # the setting JAX read, and the platform its first device is on
    code = "import jax; print(jax.config.jax_platforms, jax.devices()[0].platform)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, JAX_PLATFORMS=m[1]))
    got = r.stdout.split()[-2:] if r.returncode == 0 else r.stderr.strip().splitlines()[-1:]
    return "ok" if got == [m[1], m[1]] else f"fail: JAX_PLATFORMS={m[1]} gave {got}"


def check_jax_bf16_dot(line, m):
    import jax
    import jax.numpy as jnp
    x, w = jnp.ones((8, 16)), jnp.ones((16, 4))
    expr = line.split("  #")[0]
    f = jax.jit(lambda x, w: eval(expr, {"jnp": jnp, "x": x, "w": w}))
    y = f(x, w)
    hlo = f.lower(x, w).as_text()
    if y.dtype != jnp.float32:
        return f"fail: the dot gave {y.dtype}"
    return "ok" if "bf16" in hlo else "fail: no bf16 operand in the compiled dot"


def check_jax_x64(line, m):
    import jax
    import jax.numpy as jnp
    exec(line, {"jax": jax})
    got = jnp.zeros(1).dtype
    return "ok" if got == jnp.float64 else f"fail: arrays are {got}"


def check_jax_precision(line, m):
    import jax
    exec(line, {"jax": jax})
    got = jax.config.jax_default_matmul_precision
    return "ok" if got == m[1] else f"fail: the precision is {got}"


def check_jax_fp16(line, m):
    import jax
    if jax.default_backend() == "cpu":
        return "untestable: fp16 is an accelerator's precision (no GPU here)"
    return "fail: no check for fp16 on an accelerator yet"


# ---- gymnasium and Stable-Baselines3, on CartPole (their step costs nothing: only
# the structure is checked here; bench/ measures the speed of a costly env) ----

def make_env():
    import gymnasium
    return gymnasium.make("CartPole-v1")


def check_vector_env(line, m):
    import gymnasium
    envs, asynchronous = int(m[2]), m[1] == "Async"
    vec = eval(line.split(" = ", 1)[1].split("  #")[0],
               {"gymnasium": gymnasium, "make_env": make_env})
    vec.reset(seed=0)
    vec.step(vec.action_space.sample())
    started = running(getattr(vec, "processes", []))
    got = vec.num_envs
    vec.close()
    if got != envs:
        return f"fail: {got} envs"
    if started != (envs if asynchronous else 0):
        return f"fail: {started} processes for {envs} {'async' if asynchronous else 'sync'} envs"
    return "ok"


def check_make_vec_env(line, m):
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    envs, cls = int(m[1]), m[2]
    env = eval(line.split(" = ", 1)[1], {"make_vec_env": make_vec_env, "make_env": make_env,
                                         "DummyVecEnv": DummyVecEnv,
                                         "SubprocVecEnv": SubprocVecEnv})
    env.reset()
    started = running(getattr(env, "processes", []))
    got, kind = env.num_envs, type(env).__name__
    env.close()
    if got != envs or kind != cls:
        return f"fail: {got} envs in a {kind}"
    if started != (envs if cls == "SubprocVecEnv" else 0):
        return f"fail: {started} processes for {envs} envs in a {cls}"
    return "ok"


def check_ppo(line, m):
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import Logger
    n_steps, batch, epochs, device = int(m[1]), int(m[2]), int(m[3]), m[4]
    why = device_missing(torch, device, f"SB3's device='{device}'")
    if why:
        return why
    env = make_vec_env(make_env, n_envs=2)
    model = eval(line.split(" = ", 1)[1], {"PPO": PPO, "env": env})
    got = (model.n_steps, model.batch_size, model.n_epochs, model.device.type)
    if got != (n_steps, batch, epochs, device):
        return f"fail: PPO took {got}"
    model.set_logger(Logger(None, []))  # SB3's default makes a folder in $TMPDIR per run
    model.learn(total_timesteps=n_steps * 2)  # one rollout and one update run
    return "ok" if model.num_timesteps >= n_steps * 2 else "fail: PPO did not run an update"


CHECKS = [
    (r"torch\.set_num_threads\((\d+)\)", check_set_num_threads),
    (r"os\.environ\['OPENBLAS_NUM_THREADS'\] = '(\d+)'  # before importing torch",
     check_openblas_env_line),
    (r"os\.environ\['VECLIB_MAXIMUM_THREADS'\] = '(\d+)'  # before importing torch",
     check_veclib_env_line),
    (r"device = torch\.device\('(cpu|cuda|mps)'\)  # .*", check_device),
    (r"DataLoader\(batch_size=(\d+), num_workers=(\d+)(, persistent_workers=True)?\)",
     check_dataloader),
    (r"with torch\.autocast\('(cpu|cuda|mps)', dtype=torch\.(bfloat16|float16)\): \.\.\.(  # .*)?",
     check_autocast),
    (r"torch\.set_float32_matmul_precision\('(high)'\)  # TF32 matmuls", check_matmul_precision),
    (r"torch\.set_default_dtype\(torch\.float64\)", check_default_dtype),
    (r"taskset -c 0-(\d+) python3 train\.py  # .*", check_jax_taskset),
    (r"rigtune exec -- python3 train\.py  # binds to the point's (\d+) CPUs?: .*", check_jax_exec),
    (r"NPROC=(\d+)  # .*", check_jax_nproc),
    (r"JAX_PLATFORMS=(cpu)  # .*", check_jax_platforms),
    (r"jnp\.dot\(x\.astype\(jnp\.bfloat16\), w\.astype\(jnp\.bfloat16\), "
     r"preferred_element_type=jnp\.float32\)  # .*", check_jax_bf16_dot),
    (r"jax\.config\.update\('jax_enable_x64', True\)", check_jax_x64),
    (r"jax\.config\.update\('jax_default_matmul_precision', '(\w+)'\)", check_jax_precision),
    (r"cast params and inputs to jnp\.float16", check_jax_fp16),
    (r"envs = gymnasium\.vector\.(Async|Sync)VectorEnv\(\[make_env\] \* (\d+)\)(  # .*)?",
     check_vector_env),
    (r"env = make_vec_env\(make_env, n_envs=(\d+), vec_env_cls=(DummyVecEnv|SubprocVecEnv)\)"
     r"(  # .*)?", check_make_vec_env),
    (r"model = PPO\('MlpPolicy', env, n_steps=(\d+), batch_size=(\d+), n_epochs=(\d+), "
     r"device='(cpu|cuda|mps)'\)(  # .*)?", check_ppo),
]


def check_env(record):
    """The pools PyTorch and OpenBLAS sized from the environment they started with."""
    import torch
    env = dict(kv.split("=", 1) for kv in record.split())
    matmul(torch)
    intra = int(env.get("MKL_NUM_THREADS", env.get("OMP_NUM_THREADS", 0)))
    if torch.get_num_threads() != intra:
        return f"fail: intra-op pool {torch.get_num_threads()}, not {intra}"
    blas = openblas_threads()
    if blas is not None and blas != int(env["OPENBLAS_NUM_THREADS"]):
        return f"fail: OpenBLAS runs {blas} threads"
    return "ok"


def one(kind, payload):
    if kind == "env":
        return check_env(payload)
    for pattern, check in CHECKS:
        m = re.fullmatch(pattern, payload)
        if m:
            verdict = check(payload, m)
            if not verdict.startswith("untestable: "):
                return verdict
            why = verdict[len("untestable: "):]
            return (f"skip: {why}" if kind.startswith("untested:") else
                    f"fail: {why}, and the config does not mark the line untested")
    return "fail: no check knows this line: add one to tests/framework_hints.py"


def verdict_of(record):
    """The verdict of one record, from a fresh interpreter (what a hint changes is process state)."""
    kind, payload = record
    env = dict(os.environ)
    if kind == "env":
        env.update(kv.split("=", 1) for kv in payload.split())
    r = subprocess.run([sys.executable, __file__, "--one", kind, payload], env=env,
                       capture_output=True, text=True, timeout=300)
    lines = r.stdout.strip().splitlines()
    return lines[-1] if lines and r.returncode == 0 else \
        "fail: " + (r.stderr.strip().splitlines() or ["no output"])[-1]


def main(argv):
    if argv[:1] == ["--one"]:
        print(one(argv[1], argv[2]))
        return 0
    with open(argv[0]) as f:
        records = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
    print(f"1..{len(records)}", flush=True)
    failed = 0
    # The records' interpreters run side by side, one per CPU: no check reads a time,
    # and most of each one's seconds go to importing its framework.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for n, ((kind, payload), verdict) in enumerate(
                zip(records, pool.map(verdict_of, records)), 1):
            if verdict == "ok":
                print(f"ok {n} - {kind}: {payload}")
            elif verdict.startswith("skip: "):
                print(f"ok {n} - {kind}: {payload} # SKIP {verdict[6:]}")
            else:
                failed += 1
                print(f"not ok {n} - {kind}: {payload}\n#   {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
