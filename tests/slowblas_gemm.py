#!/usr/bin/env python3
"""The Fortran GEMM entries through bench's libslowblas, as Debian's PyTorch
calls them: libblas.so.3 loaded RTLD_LOCAL (as Python loads an extension's
libraries, out of RTLD_NEXT's sight), sgemm_ and dgemm_ taken from the global
scope, where the preloaded interposer stands before them.

    LD_PRELOAD=build/bench/libslowblas.so python3 tests/slowblas_gemm.py

For each entry: C = A B is checked against a sum computed here (the
arguments reach the real GEMM), and blocks of calls with SLOWBLAS_SLOWDOWN
unset and at 0.75 alternate in this process (the variable is read at every
call), so the machine's load falls on both alike. Prints one line per entry:

    sgemm_ correct 1 slowed 3.98

(slowed: the median of the slowed blocks' times over the unslowed ones'; 4
expected). Exits 2 when the interposer is not preloaded.
"""
import ctypes
import os
import statistics
import sys
import time

N = 96
BLOCKS, CALLS = 5, 20
SLOWDOWN = "0.75"


def gemm_call(fn, ctype):
    """A call of fn (Fortran GEMM, every argument by pointer) with C = A B, N x N."""
    a = (ctype * (N * N))(*[(i % 7) * 0.25 for i in range(N * N)])
    b = (ctype * (N * N))(*[(i % 5) * 0.5 for i in range(N * N)])
    c = (ctype * (N * N))()
    n, one, zero = ctypes.c_int(N), ctype(1), ctype(0)
    trans = ctypes.c_char_p(b"N")
    args = (trans, trans, ctypes.byref(n), ctypes.byref(n), ctypes.byref(n), ctypes.byref(one),
            a, ctypes.byref(n), b, ctypes.byref(n), ctypes.byref(zero), c, ctypes.byref(n))
    return (lambda: fn(*args)), a, b, c


def correct(a, b, c):
    """C[i, j] (column-major) against the sum over k of A[i, k] B[k, j], at a few places."""
    for i, j in ((0, 0), (N - 1, 3), (17, N - 1)):
        want = sum(a[i + k * N] * b[k + j * N] for k in range(N))
        if abs(c[i + j * N] - want) > 1e-3 * max(1.0, abs(want)):
            return False
    return True


def block_time(call):
    t0 = time.perf_counter()
    for _ in range(CALLS):
        call()
    return time.perf_counter() - t0


def main():
    ctypes.CDLL("libblas.so.3")  # RTLD_LOCAL: not in the global scope
    everything = ctypes.CDLL(None)
    if not hasattr(everything, "cblas_sgemm"):
        print("slowblas_gemm.py: libslowblas is not preloaded (LD_PRELOAD)", file=sys.stderr)
        return 2
    for name, ctype in (("sgemm_", ctypes.c_float), ("dgemm_", ctypes.c_double)):
        call, a, b, c = gemm_call(getattr(everything, name), ctype)
        plain, slowed = [], []
        for _ in range(BLOCKS):
            os.environ.pop("SLOWBLAS_SLOWDOWN", None)
            plain.append(block_time(call))
            os.environ["SLOWBLAS_SLOWDOWN"] = SLOWDOWN
            slowed.append(block_time(call))
        os.environ.pop("SLOWBLAS_SLOWDOWN", None)
        ratio = statistics.median(slowed) / statistics.median(plain)
        print(f"{name} correct {int(correct(a, b, c))} slowed {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
