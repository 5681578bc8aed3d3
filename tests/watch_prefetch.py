"""A run whose loader worker prefetches before the first step (tests/cli/test_watch.sh).

The worker process spins a whole core for PREFETCH seconds, then works 40% of
every 0.1 s; the main process waits for it, then runs 10 steps of 0.5 s at a
whole core, printing `samples/s N` after each. Over the steps the worker is at
40% of a core: `rigtune watch` must say it kept up. Its CPU time over the whole
run, spread over the steps, would read it at more than a whole core.
"""
import os
import time

PREFETCH = 3.0


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


worker = os.fork()
if worker == 0:
    spin(PREFETCH)
    while True:
        spin(0.04)
        time.sleep(0.06)
time.sleep(PREFETCH + 0.2)
for i in range(10):
    spin(0.5)
    print(f"samples/s {100 + i}", flush=True)
os.kill(worker, 9)
os.waitpid(worker, 0)
