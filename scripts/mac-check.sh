#!/usr/bin/env bash
# The one command for a Mac owner (Apple Silicon, Homebrew) to run: what a Linux machine
# cannot show of rigtune on macOS. On a fresh Mac it installs what it needs through
# Homebrew (the build and test groups: scripts/install-deps.sh), builds rigtune natively
# (Accelerate as its BLAS) and, where Homebrew's OpenBLAS is there, a second build on it,
# runs the tests of the platform module and of QoS steering on the real system, and prints
# the figures to send back:
#   1. the sysctl topology (P and E cores, caches, memory) and what probe makes of it
#   2. each thread of a pool steered to the P-cores: its QoS class and the core kind it ran
#      on (test_steer), and the tests' own verdicts
#   3. the Metal plugin's every operation against the CPU backend (scripts/gpu-check.sh
#      metal: each case passes when max |metal - cpu| / max |cpu| is at most 1e-4 (fp32),
#      1e-10 (fp64) or 3e-2 (fp16); gpu_check prints the tolerances and every figure)
#   4. the GPU's busy time from IOReport beside the Metal backend's own timings
#   5. a short tune whose pin values steer by QoS class, and its hints
#   6. GEMM GFLOP/s on Accelerate and on OpenBLAS, at 1 thread, the P-cores and all cores
#   7. a tune --cmd past a memory cap (the watchdog on the command's whole tree), and watch
#      on a threaded command and, where PyTorch with MPS is installed, on a PyTorch MPS run
# Everything goes to mac-check-<host>.txt: send it back as it is.
#
# Usage: scripts/mac-check.sh        (MAC_CHECK_TUNE_S: the tune's budget, default 60)
# Exit: 0 if every check passed, 1 if any failed, 2 where this is not a Mac.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
RT="$BUILD/rigtune"
OPENBLAS_BUILD=build-openblas
OUT="mac-check-$(hostname -s 2>/dev/null || echo mac).txt"
[ "$(uname -s)" = Darwin ] || { echo "mac-check: run this on a Mac (this is $(uname -s))" >&2; exit 2; }

section() { printf '\n=== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@" 2>&1; }
TESTS="test_platform test_steer test_memwatch test_contention test_watch"

build() {
  section "install (Homebrew: the build group, and the test group: the tests link cmocka) and build"
  scripts/install-deps.sh --if-missing build test || return 1
  local targets=("$RT" "$BUILD/librigtune_metal.dylib" "$BUILD/tests/gpu_check") t
  for t in $TESTS; do targets+=("$BUILD/tests/$t"); done
  make -s CI=true "${targets[@]}" || return 1
  if brew list --formula openblas >/dev/null 2>&1; then
    make -s CI=true BLAS=openblas BUILD="$OPENBLAS_BUILD" "$OPENBLAS_BUILD/rigtune" || return 1
  fi
}

topology() {
  section "1. the system: sysctl's topology (what platform_darwin.c reads) and probe"
  run sw_vers
  run sysctl machdep.cpu.brand_string hw.ncpu hw.nperflevels hw.memsize hw.pagesize \
    hw.cachelinesize hw.optional.arm.FEAT_BF16 hw.optional.arm.FEAT_I8MM
  local level
  for level in 0 1; do
    run sysctl "hw.perflevel$level.name" "hw.perflevel$level.physicalcpu" \
      "hw.perflevel$level.logicalcpu" "hw.perflevel$level.l1dcachesize" \
      "hw.perflevel$level.l2cachesize" "hw.perflevel$level.cpusperl2"
  done
  run "$RT" --version
  run "$RT" probe
}

tests() {
  section "2. the platform module and QoS steering, on this system (test_steer prints each pool thread's class and core kind)"
  local t status=0
  for t in $TESTS; do
    CMOCKA_MESSAGE_OUTPUT=TAP BUILD_DIR="$PWD/$BUILD" "$BUILD/tests/$t" 2>&1 || status=1
  done
  return "$status"
}

metal() {
  section "3. Metal: every operation against the CPU backend (gpu_check states its tolerances), then what a tune would measure"
  scripts/gpu-check.sh metal
}

gpu_busy() {
  section "4. the GPU's busy time from IOReport beside the Metal backend's own timings"
  # One run gives both: device_busy from each command buffer's GPU start to end (metal.c's
  # device_time), device_busy_sampled from IOReport's GPU active residency (monitor: ioreport).
  run "$RT" bench gemm backend=metal m=2048 n=2048 k=2048 --seconds 5
  # and watch reads the same residency from outside the process
  run "$RT" watch -o "$BUILD/mac-check-gpu-watch.yaml" -- \
    "$RT" bench gemm backend=metal m=2048 n=2048 k=2048 --seconds 5
  grep -E '^ *(device|monitor)' "$BUILD/mac-check-gpu-watch.yaml"
}

tune() {
  section "5. a short tune (pin: pcores, ecores and none steer by QoS class here)"
  run "$RT" tune --workload gemm --budget "${MAC_CHECK_TUNE_S:-60}" -o "$BUILD/mac-check.yaml" ||
    return 1
  run "$RT" env --config "$BUILD/mac-check.yaml"
}

blas_gemm() {
  section "6. GEMM GFLOP/s: Accelerate (this build) and Homebrew's OpenBLAS ($OPENBLAS_BUILD)"
  local pcores all threads bin
  pcores=$(sysctl -n hw.perflevel0.physicalcpu 2>/dev/null || echo 1)
  all=$(sysctl -n hw.ncpu)
  for bin in "$RT" "$OPENBLAS_BUILD/rigtune"; do
    [ -x "$bin" ] || { echo "$bin: not built (brew install openblas for the second build)"; continue; }
    for threads in 1 "$pcores" "$all"; do
      run "$bin" bench gemm m=2048 n=2048 k=2048 threads="$threads" pin=none --seconds 5 |
        grep -E '^(\$|throughput|gflops)'
    done
  done
}

memcap_and_watch() {
  section "7. tune --cmd past a 640 MiB memory cap: the watchdog on the command's whole tree"
  local status=0
  printf 'workload: command\nparams:\n  mib: [30, 400]\n  procs: [1, 2]\n  threads: [1]\n' \
    >"$BUILD/mac-check-mem.yaml"
  run env RIGTUNE_MEMWATCH_MIB=640 "$RT" tune --cmd "python3 tests/eat_workers.py {mib} {procs}" \
    --metric 'rate ([0-9.]+)' --warmup 0 --space "$BUILD/mac-check-mem.yaml" --strategy grid \
    --timeout 30 --budget 60 --fresh -o "$BUILD/mac-check-mem-config.yaml" || status=1
  section "watch: a threaded command's threads and cores (libproc)"
  run "$RT" watch -- "$RT" bench gemm threads=4 --seconds 3 || status=1
  section "watch: PyTorch on MPS (examples/torch_transformer.py --device mps)"
  if python3 -c 'import sys, torch; sys.exit(0 if torch.backends.mps.is_available() else 1)' \
    2>/dev/null; then
    run "$RT" watch -- python3 examples/torch_transformer.py --device mps --seconds 20 || status=1
  else
    echo "no PyTorch with MPS for python3 here: skipped (pip install torch for it)"
  fi
  return "$status"
}

main() {
  local status=0
  build || { echo "mac-check: the build FAILED (above)"; return 1; }
  topology
  tests || status=1
  metal || status=1
  gpu_busy || status=1
  tune || status=1
  blas_gemm
  memcap_and_watch || status=1
  section "summary"
  if [ "$status" = 0 ]; then echo "every check passed"; else echo "some check FAILED (above)"; fi
  return "$status"
}

main 2>&1 | tee "$OUT"
rc=${PIPESTATUS[0]}
echo "mac-check: all of the above is in $OUT: send it back as it is" >&2
exit "$rc"
