#!/usr/bin/env python3
"""A training stand-in for the sweep tests (tests/cli/test_sweep.sh).

Prints a val_loss computed from its arguments (tests/sweep_check.py has the
same formula to check what the study recorded), after a decoy line: the
last match of the objective counts. Fails (exit 3) when the recommendation's
environment or CPU binding did not reach it: OMP_NUM_THREADS must equal
--threads, and the affinity must be $SWEEP_TEST_PUS when that is set.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_check import val_loss  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, required=True)
p.add_argument("--batch", type=int, required=True)
p.add_argument("--layers", type=int, required=True)
p.add_argument("--optimizer", required=True)
p.add_argument("--threads", required=True)
a = p.parse_args()

if os.environ.get("OMP_NUM_THREADS") != a.threads:
    sys.exit("OMP_NUM_THREADS is %r, the recommendation says %s" % (
        os.environ.get("OMP_NUM_THREADS"), a.threads))
want = os.environ.get("SWEEP_TEST_PUS")
if want is not None:
    have = sorted(os.sched_getaffinity(0))
    if have != [int(x) for x in want.split(",") if x]:
        sys.exit("bound to PUs %s, expected %s" % (have, want))
print("epoch 1 val_loss 99.0")
print("epoch 2 val_loss %.12f" % val_loss(vars(a)))
