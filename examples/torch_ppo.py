#!/usr/bin/env python3
"""A PPO training loop on a vectorized environment, for `rigtune tune --cmd`.

A stock-trading environment written the way Python RL environments are
(numpy per environment, tens of microseconds a step), `--num-envs` copies of
it stepped inline or by `--workers` worker processes (as
gymnasium.vector.AsyncVectorEnv does), an actor-critic MLP in PyTorch, GAE
and clipped-surrogate updates with Adam: the iteration that
`rigtune bench ppo` times in C, here as a user would write it.

Every iteration prints one line, flushed at once:

    iter 2 env-steps/s 3120.5 reward -0.0012

so that `--metric 'env-steps/s ([0-9.]+)'` reads a sample per iteration.

    python3 examples/torch_ppo.py --num-envs 16 --workers 1 --iters 5
"""
import argparse
import multiprocessing as mp
import sys
import time

import numpy as np


class TradingEnv:
    """Geometric Brownian prices of `stocks` assets; the action rebalances holdings."""

    COST = 1e-3

    def __init__(self, stocks, seed):
        self.rng = np.random.default_rng(seed)
        self.stocks = stocks
        self.mu = self.rng.normal(0.0002, 0.0001, stocks)
        self.sigma = self.rng.uniform(0.01, 0.03, stocks)
        self.reset()

    def reset(self):
        self.prices = np.ones(self.stocks)
        self.returns = np.zeros(self.stocks)
        self.holdings = np.zeros(self.stocks)
        self.t = 0
        return self.observe()

    def observe(self):
        return np.concatenate([self.returns * 10, self.holdings, [self.t / 256]]).astype(
            np.float32)

    def step(self, action):
        target = np.clip(action, -1.0, 1.0) / self.stocks
        cost = self.COST * np.abs(target - self.holdings).sum()
        self.holdings = target
        shock = self.rng.standard_normal(self.stocks)
        self.returns = self.mu + self.sigma * shock
        self.prices *= np.exp(self.returns)
        reward = float(self.holdings @ self.returns - cost)
        self.t += 1
        done = self.t >= 256
        obs = self.reset() if done else self.observe()
        return obs, reward, done


def step_all(envs, actions):
    out = [env.step(a) for env, a in zip(envs, actions)]
    obs = np.stack([o for o, _, _ in out])
    return obs, np.array([r for _, r, _ in out], np.float32), np.array([d for _, _, d in out])


def worker(conn, stocks, seeds):
    """An environment process: steps its share of the environments on request."""
    envs = [TradingEnv(stocks, s) for s in seeds]
    conn.send(np.stack([e.observe() for e in envs]))
    while True:
        actions = conn.recv()
        if actions is None:
            return
        conn.send(step_all(envs, actions))


class VectorEnv:
    """num_envs environments, inline (workers 0) or split over worker processes."""

    def __init__(self, num_envs, workers, stocks, seed):
        seeds = [seed * 7919 + i for i in range(num_envs)]
        self.procs, self.conns = [], []
        if workers == 0:
            self.envs = [TradingEnv(stocks, s) for s in seeds]
            self.first = np.stack([e.observe() for e in self.envs])
            return
        self.split = np.array_split(np.arange(num_envs), workers)
        ctx = mp.get_context("spawn")  # no fork of a process that runs OpenMP threads
        for part in self.split:
            parent, child = ctx.Pipe()
            p = ctx.Process(target=worker, args=(child, stocks, [seeds[i] for i in part]),
                            daemon=True)
            p.start()
            self.procs.append(p)
            self.conns.append(parent)
        self.first = np.concatenate([c.recv() for c in self.conns])

    def step(self, actions):
        if not self.procs:
            return step_all(self.envs, actions)
        for c, part in zip(self.conns, self.split):
            c.send(actions[part])
        parts = [c.recv() for c in self.conns]
        return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))

    def close(self):
        for c in self.conns:
            c.send(None)
        for p in self.procs:
            p.join()


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--workers", type=int, default=0, help="environment worker processes")
    p.add_argument("--stocks", type=int, default=30)
    p.add_argument("--rollout", type=int, default=64, help="steps per environment per iteration")
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--threads", type=int, default=None,
                   help="torch.set_num_threads(N) (default: PyTorch's own choice)")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    for name in ("num_envs", "stocks", "rollout", "iters", "epochs", "minibatch"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.workers < 0 or a.workers > a.num_envs:
        p.error("--workers must be from 0 to --num-envs")
    if a.threads is not None and a.threads < 1:
        p.error("--threads must be at least 1")
    return a


def main(argv):
    a = parse_args(argv)
    import torch  # here, not at the top: spawned environment workers never import it
    from torch import nn

    if a.threads is not None:
        torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    obs_dim, act_dim = 2 * a.stocks + 1, a.stocks
    actor = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                          nn.Linear(64, act_dim))
    critic = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 1))
    log_std = nn.Parameter(torch.full((act_dim,), -0.5))
    params = list(actor.parameters()) + list(critic.parameters()) + [log_std]
    opt = torch.optim.Adam(params, lr=a.lr)
    env = VectorEnv(a.num_envs, a.workers, a.stocks, a.seed)
    obs = torch.from_numpy(env.first)
    print(f"threads: intra-op {torch.get_num_threads()}, env workers {a.workers}",
          file=sys.stderr, flush=True)
    gamma, lam, clip = 0.99, 0.95, 0.2
    for it in range(1, a.iters + 1):
        start = time.perf_counter()
        buf_obs, buf_act, buf_logp, buf_rew, buf_done, buf_val = [], [], [], [], [], []
        with torch.no_grad():
            for _ in range(a.rollout):
                dist = torch.distributions.Normal(actor(obs), log_std.exp())
                act = dist.sample()
                buf_obs.append(obs)
                buf_act.append(act)
                buf_logp.append(dist.log_prob(act).sum(-1))
                buf_val.append(critic(obs).squeeze(-1))
                next_obs, rew, done = env.step(act.numpy())
                buf_rew.append(torch.from_numpy(rew))
                buf_done.append(torch.from_numpy(done.astype(np.float32)))
                obs = torch.from_numpy(next_obs)
            last_val = critic(obs).squeeze(-1)
        adv = torch.zeros(a.rollout, a.num_envs)
        gae = torch.zeros(a.num_envs)
        for t in reversed(range(a.rollout)):
            nxt = last_val if t == a.rollout - 1 else buf_val[t + 1]
            live = 1.0 - buf_done[t]
            delta = buf_rew[t] + gamma * nxt * live - buf_val[t]
            gae = delta + gamma * lam * live * gae
            adv[t] = gae
        ret = adv + torch.stack(buf_val)
        b_obs, b_act = torch.cat(buf_obs), torch.cat(buf_act)
        b_logp, b_adv, b_ret = torch.cat(buf_logp), adv.flatten(), ret.flatten()
        b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
        n = b_obs.shape[0]
        for _ in range(a.epochs):
            for mb in torch.randperm(n).split(a.minibatch):
                dist = torch.distributions.Normal(actor(b_obs[mb]), log_std.exp())
                ratio = (dist.log_prob(b_act[mb]).sum(-1) - b_logp[mb]).exp()
                surr = torch.min(ratio * b_adv[mb], ratio.clamp(1 - clip, 1 + clip) * b_adv[mb])
                v_loss = (critic(b_obs[mb]).squeeze(-1) - b_ret[mb]).pow(2).mean()
                loss = -surr.mean() + 0.5 * v_loss
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
        rate = a.num_envs * a.rollout / (time.perf_counter() - start)
        print(f"iter {it} env-steps/s {rate:.1f} reward {torch.stack(buf_rew).mean():.4f}",
              flush=True)
    env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
