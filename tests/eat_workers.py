#!/usr/bin/env python3
"""A training script's memory in worker processes, for the memory watchdog's tests.

    eat_workers.py MIB PROCS

Starts PROCS worker processes (as a DataLoader's) that each hold MIB MiB, written so
that it is resident, then prints `rate R` three times (R = MIB * PROCS) and exits; the
workers would hold their memory for a minute more. Its main process holds little: only
the sum over the tree passes a cap that each worker alone stays within.
"""
import multiprocessing as mp
import sys
import time


def eat(mib, ready):
    held = b"x" * (mib << 20)
    ready.put(len(held))
    time.sleep(60)


def main(argv):
    mib, procs = int(argv[0]), int(argv[1])
    ready = mp.Queue()
    workers = [mp.Process(target=eat, args=(mib, ready), daemon=True) for _ in range(procs)]
    for w in workers:
        w.start()
    for _ in workers:
        ready.get()
    for _ in range(3):
        print("rate", mib * procs, flush=True)
        time.sleep(0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
