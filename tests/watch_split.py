"""Reads the YAML of `rigtune watch` (tests/cli/test_watch.sh) and prints each
class's share of the time between the metric's first and last samples (the
"mark 1" and "mark 2" lines a test script prints around its known part), from
watch's own time line (each tick by its class): "one_thread=0.612 ...", then
the threads watch named in the one_thread phases there: "one_thread_names=python3"."""
import sys

import yaml

doc = yaml.safe_load(open(sys.argv[1]))
t = doc["metric"]["t"]
lo, hi = t[0], t[-1]
line = doc["timeline"]
names = line["classes"]
shares = {c: 0.0 for c in names}
prev = 0.0
for end, cls in zip(line["t"], line["class"]):
    o = min(hi, end) - max(lo, prev)
    if o > 0:
        shares[names[cls]] += o / (hi - lo)
    prev = end
threads = {p["thread"] for p in doc["phases"]
           if p["class"] == "one_thread" and "thread" in p and p["end_s"] > lo and p["start_s"] < hi}
print(" ".join(f"{c}={v:.3f}" for c, v in shares.items()))
print("one_thread_names=" + ",".join(sorted(threads)))
