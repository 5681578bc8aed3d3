#!/usr/bin/env python3
"""A stock-trading gymnasium environment whose step costs what a FinRL-style one does.

TradingEnv(stocks=30, days=512): each step is one trading day. The
observation is the cash, the day's prices, the holdings and a few technical
indicators per stock (moving averages and a momentum, computed from a seeded
random-walk price history); the action, one value in [-1, 1] per stock,
buys or sells up to `max_shares` of it with a transaction cost, sells first
then buys as far as the cash goes; the reward is the change of the
portfolio's value, scaled. As in FinRL's StockTradingEnv, the step is
Python and numpy on small arrays: tens of microseconds (rigtune's ppo shape
calls that cost env_us; its default is 15 us, the low end), measured by

    python examples/trading_env.py          # prints us/step for 30 stocks

TRADING_ENV_SLOWDOWN=F (0 <= F < 0.9, in the environment) makes every step
take 1 / (1 - F) of its time, spinning by the wall clock after the step's
work: a slower environment step, for checking `rigtune check` (bench_check
--slow-env TRADING_ENV_SLOWDOWN=0.1). A process started from this one
(SubprocVecEnv's workers) inherits it.
"""
import os
import sys
import time

import gymnasium as gym
import numpy as np

WINDOWS = (5, 20)  # the moving averages among the indicators


def slowdown_from_env():
    """TRADING_ENV_SLOWDOWN as a fraction in [0, 0.9); a bad value is an error that names it."""
    text = os.environ.get("TRADING_ENV_SLOWDOWN", "0")
    try:
        f = float(text)
    except ValueError:
        f = -1.0
    if not 0 <= f < 0.9:
        print(f"trading_env: TRADING_ENV_SLOWDOWN={text!r}: want a number in [0, 0.9)",
              file=sys.stderr)
        sys.exit(2)
    return f


SLOWDOWN = slowdown_from_env()


class TradingEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, stocks=30, days=512, cash=1e6, max_shares=100, cost=1e-3, seed=0):
        super().__init__()
        self.stocks, self.days, self.cash0 = stocks, days, cash
        self.max_shares, self.cost = max_shares, cost
        rng = np.random.default_rng(seed)
        steps = rng.normal(0.0005, 0.02, size=(days + max(WINDOWS), stocks))
        self.prices = (50 * np.exp(np.cumsum(steps, axis=0))).astype(np.float32)
        n_obs = 1 + stocks * (2 + len(WINDOWS) + 1)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (n_obs,), np.float32)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (stocks,), np.float32)

    def _indicators(self):
        """The day's moving averages relative to its price and its 5-day momentum."""
        t = self.t + max(WINDOWS)
        p = self.prices[t]
        out = [self.prices[t - w:t].mean(axis=0) / p - 1 for w in WINDOWS]
        out.append(p / self.prices[t - 5] - 1)
        return out

    def _obs(self):
        p = self.prices[self.t + max(WINDOWS)]
        return np.concatenate([[self.cash / self.cash0], p / 100, self.holdings / self.max_shares,
                               *self._indicators()]).astype(np.float32)

    def _value(self):
        return self.cash + float(self.holdings @ self.prices[self.t + max(WINDOWS)])

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = int(self.np_random.integers(0, self.days // 2))
        self.cash = self.cash0
        self.holdings = np.zeros(self.stocks, np.float32)
        return self._obs(), {}

    def step(self, action):
        start = time.perf_counter()
        out = self._step(action)
        if SLOWDOWN:  # the step's own time, stretched to 1 / (1 - F) of it
            end = start + (time.perf_counter() - start) / (1 - SLOWDOWN)
            while time.perf_counter() < end:
                pass
        return out

    def _step(self, action):
        p = self.prices[self.t + max(WINDOWS)]
        before = self._value()
        shares = np.round(np.clip(action, -1, 1) * self.max_shares)
        sell = np.minimum(-np.minimum(shares, 0), self.holdings)
        self.holdings -= sell
        self.cash += float(sell @ p) * (1 - self.cost)
        buy = np.maximum(shares, 0)
        price = float(buy @ p) * (1 + self.cost)
        if price > self.cash:  # buy what the cash pays for, in proportion
            buy = np.floor(buy * self.cash / price)
            price = float(buy @ p) * (1 + self.cost)
        self.holdings += buy
        self.cash -= price
        self.t += 1
        reward = (self._value() - before) * 1e-4
        done = self.t >= self.days - 1
        return self._obs(), reward, done, False, {}


def main():
    env = TradingEnv()
    env.reset(seed=0)
    rng = np.random.default_rng(1)
    actions = rng.uniform(-1, 1, size=(20000, env.stocks)).astype(np.float32)
    start = time.perf_counter()
    for a in actions:
        if env.step(a)[2]:
            env.reset()
    print(f"TradingEnv(stocks={env.stocks}): "
          f"{(time.perf_counter() - start) / len(actions) * 1e6:.1f} us/step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
