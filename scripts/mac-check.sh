#!/usr/bin/env bash
# The one command for a Mac owner (Apple Silicon) to run: what a Linux machine cannot show
# of rigtune on macOS. It builds rigtune natively (make: Homebrew's libraries), runs the
# tests of the platform module and of QoS steering on the real system, says what the
# system reports (P and E cores, memory, Metal), checks the Metal plugin's every operation
# against the CPU backend and measures it (scripts/gpu-check.sh metal: GEMMs, transformer,
# PPO, the MPS/CPU crossover), then runs a short tune whose pin values steer by QoS class,
# a tune --cmd whose worker processes pass a memory cap together (the watchdog's),
# and a watch of a threaded command. Everything goes to mac-check-<host>.txt: send it back.
# The operations: each elementwise kernel (fp32 on the GPU, after Metal compiled
# workloads/metal/kernels.metal; fp64 on the CPU reference) on six shapes, and the GEMMs,
# each a case that passes when max |metal - cpu| / max |cpu| is at most 1e-4 (fp32), 1e-10
# (fp64) or 3e-2 (fp16); gpu_check prints the tolerances and every case's figures.
#
# Usage: scripts/mac-check.sh        (MAC_CHECK_TUNE_S: the tune's budget, default 60)
# Exit: 0 if every check passed, 1 if any failed.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RT="$BUILD/rigtune"
OUT="mac-check-$(hostname -s 2>/dev/null || echo mac).txt"
[ "$(uname -s)" = Darwin ] || { echo "mac-check: run this on a Mac (this is $(uname -s))" >&2; exit 2; }

section() { printf '\n=== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@" 2>&1; }

main() {
  local status=0 t
  section "build (make: Homebrew installs what is missing)"
  # the build group and the test group (cmocka: the test binaries link it)
  scripts/install-deps.sh --if-missing build test && make -s CI=true "$RT" "$BUILD/librigtune_metal.dylib" "$BUILD/tests/gpu_check" \
    "$BUILD/tests/test_platform" "$BUILD/tests/test_steer" "$BUILD/tests/test_memwatch" \
    "$BUILD/tests/test_contention" "$BUILD/tests/test_watch" || { echo "mac-check: the build FAILED (above)"; return 1; }
  section "system (what platform_darwin.c reads)"
  run sw_vers
  run sysctl machdep.cpu.brand_string hw.nperflevels hw.perflevel0.physicalcpu \
    hw.perflevel1.physicalcpu hw.memsize hw.optional.arm.FEAT_BF16 hw.optional.arm.FEAT_I8MM
  run "$RT" --version
  run "$RT" probe
  section "the platform module and QoS steering, on this system"
  for t in test_platform test_steer test_memwatch test_contention test_watch; do
    CMOCKA_MESSAGE_OUTPUT=TAP BUILD_DIR="$PWD/$BUILD" "$BUILD/tests/$t" || status=1
  done
  section "Metal: every operation against the CPU backend (gpu_check states its tolerances), then what a tune would measure"
  scripts/gpu-check.sh metal || status=1
  section "a short tune (pin: pcores, ecores and none steer by QoS class here)"
  run "$RT" tune --workload gemm --budget "${MAC_CHECK_TUNE_S:-60}" -o "$BUILD/mac-check.yaml" ||
    status=1
  run "$RT" env --config "$BUILD/mac-check.yaml"
  section "tune --cmd past a 640 MiB memory cap: the watchdog on the command's whole tree"
  printf 'workload: command\nparams:\n  mib: [30, 400]\n  procs: [1, 2]\n  threads: [1]\n' \
    >"$BUILD/mac-check-mem.yaml"
  run env RIGTUNE_MEMWATCH_MIB=640 "$RT" tune --cmd "python3 tests/eat_workers.py {mib} {procs}" \
    --metric 'rate ([0-9.]+)' --warmup 0 --space "$BUILD/mac-check-mem.yaml" --strategy grid \
    --timeout 30 --budget 60 --fresh -o "$BUILD/mac-check-mem-config.yaml" || status=1
  section "watch: a threaded command's threads and cores (libproc)"
  run "$RT" watch -- "$RT" bench gemm threads=4 --seconds 3 || status=1
  section "summary"
  [ "$status" = 0 ] && echo "every check passed" || echo "some check FAILED (above)"
  return "$status"
}

main 2>&1 | tee "$OUT"
rc=${PIPESTATUS[0]}
echo "mac-check: all of the above is in $OUT: send it back as it is" >&2
exit "$rc"
