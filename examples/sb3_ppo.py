#!/usr/bin/env python3
"""Stable-Baselines3's PPO on trading_env.TradingEnv, vectorized the ways a user can.

--vec says who steps the --num-envs environments:

    dummy     DummyVecEnv: the learner's process, one env after another
    subproc   SubprocVecEnv: one process per env
    chunked   --workers processes, each stepping num_envs/workers envs in a
              DummyVecEnv of its own (what rigtune's ppo `workers` model);
              ChunkedVecEnv below, since neither SB3 nor gymnasium has it

--threads calls torch.set_num_threads (default: PyTorch's own choice). The
PPO shape follows rigtune's ppo workload: --rollout steps per env per
iteration (SB3's n_steps), --minibatch (batch_size), --epochs (n_epochs).
Every iteration (rollout and update) prints one line, flushed at once:

    iter 3 env-steps/s 1843.2

and the end `total env-steps/s X` over --timesteps (after the first
iteration, which starts the processes and warms up).

    python examples/sb3_ppo.py --num-envs 16 --vec dummy --threads 1 --timesteps 20000
"""
import argparse
import functools
import multiprocessing as mp
import os
import sys
import time

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trading_env import TradingEnv  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--vec", choices=["dummy", "subproc", "chunked"], default="dummy")
    p.add_argument("--workers", type=int, default=1, help="processes of --vec chunked")
    p.add_argument("--threads", type=int, default=None, help="torch.set_num_threads(N)")
    p.add_argument("--timesteps", type=int, default=16384, help="env-steps to learn")
    p.add_argument("--rollout", type=int, default=128, help="steps per env per iteration")
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--stocks", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="where the policy runs: cpu, cuda, ...")
    a = p.parse_args(argv)
    for name in ("num_envs", "workers", "timesteps", "rollout", "minibatch", "epochs", "stocks"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.threads is not None and a.threads < 1:
        p.error("--threads must be at least 1")
    if a.vec == "chunked" and a.workers > a.num_envs:
        p.error("--workers must be at most --num-envs")
    return a


def _chunk_worker(pipe, env_fns):
    """Steps its chunk of envs in a DummyVecEnv (which resets finished ones) on request."""
    torch.set_num_threads(1)
    envs = DummyVecEnv(env_fns)
    while True:
        cmd, data = pipe.recv()
        if cmd == "step":
            pipe.send(envs.step(data))
        elif cmd == "reset":
            pipe.send(envs.reset())
        elif cmd == "seed":
            envs.seed(data)
            pipe.send(None)
        elif cmd == "call":
            name, args, kwargs = data
            pipe.send(envs.env_method(name, *args, **kwargs) if args is not None
                      else envs.get_attr(name))
        else:
            envs.close()
            pipe.send(None)
            return


class ChunkedVecEnv(VecEnv):
    """len(env_fns) envs stepped by `workers` processes, a contiguous chunk each."""

    def __init__(self, env_fns, workers):
        bounds = np.linspace(0, len(env_fns), workers + 1).astype(int)
        ctx = mp.get_context("forkserver")
        self.pipes, self.procs = [], []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_chunk_worker, args=(theirs, env_fns[lo:hi]), daemon=True)
            proc.start()
            theirs.close()
            self.pipes.append(mine)
            self.procs.append(proc)
        self.bounds = bounds
        probe = env_fns[0]()
        super().__init__(len(env_fns), probe.observation_space, probe.action_space)
        probe.close()

    def _gather(self):
        return [pipe.recv() for pipe in self.pipes]

    def step_async(self, actions):
        for pipe, lo, hi in zip(self.pipes, self.bounds[:-1], self.bounds[1:]):
            pipe.send(("step", actions[lo:hi]))

    def step_wait(self):
        parts = self._gather()
        obs = np.concatenate([p[0] for p in parts])
        return (obs, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]),
                [info for p in parts for info in p[3]])

    def reset(self):
        for pipe in self.pipes:
            pipe.send(("reset", None))
        return np.concatenate(self._gather())

    def close(self):
        for pipe in self.pipes:
            pipe.send(("close", None))
        self._gather()
        for proc in self.procs:
            proc.join()

    def _call(self, name, args, kwargs, indices):
        for pipe in self.pipes:
            pipe.send(("call", (name, args, kwargs)))
        values = [v for part in self._gather() for v in part]
        return [values[i] for i in self._get_indices(indices)]

    def get_attr(self, attr_name, indices=None):
        return self._call(attr_name, None, None, indices)

    def set_attr(self, attr_name, value, indices=None):
        raise NotImplementedError("ChunkedVecEnv does not set attributes")

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        return self._call(method_name, method_args, method_kwargs, indices)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._get_indices(indices))


class Throughput(BaseCallback):
    """Prints each iteration's env-steps/s, rollout and update together."""

    def __init__(self):
        super().__init__()
        self.iteration, self.last, self.first = 0, None, None

    def _on_rollout_start(self):
        self.tick()

    def tick(self):
        """An iteration ended (the next rollout starts, or learn returned)."""
        now = time.perf_counter()
        if self.last is not None:
            self.iteration += 1
            steps = self.model.n_steps * self.model.n_envs
            print(f"iter {self.iteration} env-steps/s {steps / (now - self.last):.1f}",
                  flush=True)
            if self.first is None:
                self.first = (now, self.model.num_timesteps)
        self.last = now

    def _on_step(self):
        return True


def make_vec(a):
    fns = [functools.partial(TradingEnv, stocks=a.stocks, seed=a.seed + i)
           for i in range(a.num_envs)]
    if a.vec == "dummy":
        return DummyVecEnv(fns)
    if a.vec == "subproc":
        return SubprocVecEnv(fns, start_method="forkserver")
    return ChunkedVecEnv(fns, a.workers)


def main(argv):
    a = parse_args(argv)
    if a.threads is not None:
        torch.set_num_threads(a.threads)
    env = make_vec(a)
    model = PPO("MlpPolicy", env, n_steps=a.rollout, batch_size=a.minibatch, n_epochs=a.epochs,
                seed=a.seed, device=a.device, verbose=0)
    model.set_logger(Logger(None, []))  # SB3's default makes a folder in $TMPDIR per run
    print(f"threads: intra-op {torch.get_num_threads()}, vec {a.vec}, envs {a.num_envs}, "
          f"workers {a.workers if a.vec == 'chunked' else '-'}", file=sys.stderr, flush=True)
    cb = Throughput()
    model.learn(total_timesteps=a.timesteps, callback=cb)
    now = time.perf_counter()
    cb.tick()  # the last iteration's line
    if cb.iteration > 1:  # the first iteration (warm-up) is not in the total
        print(f"total env-steps/s {(model.num_timesteps - cb.first[1]) / (now - cb.first[0]):.1f}",
              flush=True)
    env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
