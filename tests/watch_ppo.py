"""An SB3 PPO run for tests/cli/test_watch.sh: CartPole with one environment
(DummyVecEnv) and a 64x64 MLP on the CPU, torch with two intra-op threads. Its
rollouts step the environment and the policy one observation at a time in the
Python thread; its updates (minibatches of 64, forward and backward) run
through torch's thread pool, whose threads spin between the small operations,
wanting both cores. Prints "mark 1"/"mark 2" around learn() and the split of
its wall time between rollouts and updates as it measured it (SB3's rollout
callbacks): "split rollout=F update=F"."""
import time

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback

torch.set_num_threads(2)


class Clock(BaseCallback):
    def __init__(self):
        super().__init__()
        self.rollout = 0.0
        self.t0 = 0.0

    def _on_rollout_start(self):
        self.t0 = time.monotonic()

    def _on_rollout_end(self):
        self.rollout += time.monotonic() - self.t0

    def _on_step(self):
        return True


model = PPO("MlpPolicy", "CartPole-v1", n_steps=256, batch_size=64, n_epochs=2, device="cpu",
            seed=0, verbose=0)
clock = Clock()
print("mark 1", flush=True)
t0 = time.monotonic()
model.learn(total_timesteps=1024, callback=clock)
wall = time.monotonic() - t0
print("mark 2", flush=True)
print(f"split rollout={clock.rollout / wall:.3f} update={1 - clock.rollout / wall:.3f}", flush=True)
