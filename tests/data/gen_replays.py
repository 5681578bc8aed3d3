#!/usr/bin/env python3
"""Writes the replay fixtures tests/data/replay_*.csv (run from anywhere).

Each good replay comes from synthetic curves t(n) = c + a*n^b with known
parameters, multiplicative log-normal noise (sigma 3%) and a seeded
generator, so the files are the same on every run. The true crossover is in
a comment line at the top. The bad replays each carry one defect at a known
line (tests/test_replay.c asserts that line number).
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
NOISE = 0.03
REPEATS = 3

# (c, a, b) per curve
CPU = (2e-6, 2e-11, 3.0)
GPU = (5e-4, 2e-13, 3.0)


def sizes(lo_exp, hi_exp):
    """Half-octave sizes from 2^lo_exp to 2^hi_exp."""
    return [round(2 ** (e / 2)) for e in range(2 * lo_exp, 2 * hi_exp + 1)]


def crossover(p, q):
    """n where c1 + a1 n^b = c2 + a2 n^b (same b)."""
    return ((q[0] - p[0]) / (p[1] - q[1])) ** (1 / p[2])


def rows(rng, curves, ns):
    out = []
    for n in ns:
        for _ in range(REPEATS):
            for (backend, precision), (c, a, b) in curves:
                t = (c + a * n ** b) * math.exp(rng.gauss(0, NOISE))
                out.append((backend, precision, n, t))
    return out


def fmt(r):
    backend, precision, n, t = r
    return (backend, precision, str(n), "%.6e" % t)


def good(name, comments, body):
    with open(os.path.join(HERE, name), "w") as f:
        for c in comments:
            f.write("# " + c + "\n")
        f.write("backend,precision,n,seconds\n")
        for r in body:
            f.write(",".join(fmt(r)) + "\n")


def main():
    cross_curves = [(("cpu", "fp32"), CPU), (("gpu", "fp32"), GPU)]
    ns = sizes(5, 12)  # 32 .. 4096
    nstar = crossover(CPU, GPU)
    clean = rows(random.Random(6), cross_curves, ns)
    good("replay_cross.csv",
         ["true n* = %.1f (cpu %g + %g n^3, gpu %g + %g n^3, 3%% noise)"
          % (nstar, CPU[0], CPU[1], GPU[0], GPU[1])], clean)

    # The same observations plus one warm-up sample of the GPU near n*,
    # ten times slower than the curve: the fit must flag it and not move.
    n_out = 256
    warm = ("gpu", "fp32", n_out, 10 * (GPU[0] + GPU[1] * n_out ** 3))
    good("replay_outlier.csv",
         ["true n* = %.1f; replay_cross.csv plus one outlier (gpu n=%d, 10x, last row)"
          % (nstar, n_out)], clean + [warm])

    # Same exponent, the GPU twice as fast at every size: no crossover.
    par_gpu = (CPU[0] / 2, CPU[1] / 2, 3.0)
    good("replay_parallel.csv",
         ["true n* = none: gpu (%g + %g n^3) is 2x faster than cpu everywhere"
          % par_gpu[:2]],
         rows(random.Random(7), [(("cpu", "fp32"), CPU), (("gpu", "fp32"), par_gpu)], ns))

    # A large fixed cost pushes n* beyond the measured 16..1024.
    far_gpu = (1e-1, 2e-13, 3.0)
    good("replay_extrap.csv",
         ["true n* = %.1f, beyond the measured n=16..1024 (gpu %g + %g n^3)"
          % (crossover(CPU, far_gpu), far_gpu[0], far_gpu[1])],
         rows(random.Random(8), [(("cpu", "fp32"), CPU), (("gpu", "fp32"), far_gpu)],
              sizes(4, 10)))

    small = rows(random.Random(9), cross_curves, [64, 128, 256])
    lines = [",".join(fmt(r)) for r in small]

    def bad(name, what, line_no, header, body):
        # line 1 is the comment, line 2 the header, body from line 3
        with open(os.path.join(HERE, name), "w") as f:
            f.write("# %s: expect an error at line %d\n" % (what, line_no))
            f.write(header + "\n")
            for ln in body:
                f.write(ln + "\n")

    bad("bad_missing_column.csv", "missing column seconds", 2,
        "backend,precision,n", [",".join(fmt(r)[:3]) for r in small])
    bad("bad_nonnumeric.csv", "non-numeric seconds", 7,
        "backend,precision,n,seconds", lines[:4] + ["gpu,fp32,128,fast"] + lines[4:])
    bad("bad_negative_time.csv", "negative seconds", 5,
        "backend,precision,n,seconds", lines[:2] + ["cpu,fp32,64,-1.5e-05"] + lines[2:])
    bad("bad_zero_time.csv", "zero seconds", 9,
        "backend,precision,n,seconds", lines[:6] + ["gpu,fp32,256,0"] + lines[6:])
    # one observation per curve: the error names the first curve, cpu/fp32
    bad("bad_single_point.csv", "a curve with a single point", 3,
        "backend,precision,n,seconds", lines[:2])


if __name__ == "__main__":
    main()
