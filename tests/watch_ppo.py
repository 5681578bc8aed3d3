"""An SB3 PPO run for tests/cli/test_watch.sh: CartPole with one environment
(DummyVecEnv) and a 512x512 MLP on the CPU. Its rollouts step the environment
and the policy one observation at a time in the Python thread, with torch held
to one thread; its updates (minibatches of 1024, forward and backward) run
through torch's pool of two threads. Prints "mark 1"/"mark 2" around learn()
and the split of its wall time between rollouts and updates as it measured it
(SB3's rollout callbacks): "split rollout=F update=F".

Torch is held to one thread in the rollouts because otherwise its pool's
threads spin (GNU OpenMP's active wait) after every one-observation forward
pass: a watch then rightly sees two cores wanted, and the split this script
knows would not be the one a sampler can see. The updates' matrices are large
enough that torch's GEMMs run on both threads (a 64-wide MLP's do not)."""
import time

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger

ROLLOUT_THREADS, UPDATE_THREADS = 1, 2


class Clock(BaseCallback):
    def __init__(self):
        super().__init__()
        self.rollout = 0.0
        self.t0 = 0.0

    def _on_rollout_start(self):
        torch.set_num_threads(ROLLOUT_THREADS)
        self.t0 = time.monotonic()

    def _on_rollout_end(self):
        self.rollout += time.monotonic() - self.t0
        torch.set_num_threads(UPDATE_THREADS)

    def _on_step(self):
        return True


model = PPO("MlpPolicy", "CartPole-v1", n_steps=1024, batch_size=1024, n_epochs=20, device="cpu",
            policy_kwargs={"net_arch": [512, 512]}, seed=0, verbose=0)
model.set_logger(Logger(None, []))  # SB3's default makes a folder in $TMPDIR per run
clock = Clock()
print("mark 1", flush=True)
t0 = time.monotonic()
# Four rollouts and four updates, about 5 s on 2 vCPUs. Half a second in which the host
# holds back one of the update's threads (its ticks then read one thread) moved the split of
# two of each, 3.5 s, by 14 points, once in an ASan run; the same spell moves twice as long
# a run half as far.
model.learn(total_timesteps=4096, callback=clock)
wall = time.monotonic() - t0
print("mark 2", flush=True)
print(f"split rollout={clock.rollout / wall:.3f} update={1 - clock.rollout / wall:.3f}", flush=True)
