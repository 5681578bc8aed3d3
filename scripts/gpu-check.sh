#!/usr/bin/env bash
# The one command to run on a machine with a GPU: checks every operation of
# each GPU backend against the CPU backend (tests/gpu_check.c) on the
# vendor's GEMM and on the plugin's own tiled GEMM, then measures what
# rigtune would measure there (a large GEMM per precision, a transformer and
# a PPO run with the device's busy time from its events beside its monitor's
# samples, a short crossover) and prints it all, in sections, for pasting
# into an issue. A copy goes to gpu-check-<host>.txt.
#
# Usage: scripts/gpu-check.sh [BACKEND...]    (default: cuda hip; metal on a Mac: scripts/mac-check.sh)
#   GPU_CHECK_QUICK=1  the operation checks only
#   GPU_CHECK_PREBUILT=1  use the binaries in $BUILD as they are (carried from
#                      a machine that could build them), without calling make
#   PYTHON=...         the interpreter whose PyTorch runs the watched CUDA
#                      training (default python3; skipped where it has none)
# Exit: 0 if every available backend passed its checks, 1 if any failed,
# 3 if none was available.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT="gpu-check-$(hostname 2>/dev/null || echo host).txt"
RT="$BUILD/rigtune"
SO=so
[ "$(uname -s)" = Darwin ] && SO=dylib
export RIGTUNE_BACKEND_PATH="$PWD/$BUILD"

section() { printf '\n=== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@" 2>&1; }

# Builds what is missing; binaries carried over from another machine are
# used as they are when this one cannot build them.
build() {
  [ -n "${GPU_CHECK_PREBUILT:-}" ] || make -s BUILD="$BUILD" "$BUILD/rigtune" "$BUILD/tests/gpu_check" >&2 ||
    echo "gpu-check: make failed; using the binaries already in $BUILD" >&2
  for name in "$@"; do
    [ -n "${GPU_CHECK_PREBUILT:-}" ] || make -s BUILD="$BUILD" "$BUILD/librigtune_$name.$SO" >/dev/null 2>&1 || true
  done
  [ -x "$RT" ] && [ -x "$BUILD/tests/gpu_check" ] ||
    { echo "gpu-check: no $RT or $BUILD/tests/gpu_check" >&2; exit 3; }
}

versions() {
  section "machine"
  run uname -srm
  [ -r /etc/os-release ] && grep -E '^PRETTY_NAME=' /etc/os-release
  run "$RT" --version
  git rev-parse --short HEAD 2>/dev/null | sed 's/^/commit /'
  command -v nvidia-smi >/dev/null &&
    run nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  command -v rocm-smi >/dev/null && run rocm-smi --showproductname --showdriverversion
  for c in nvcc hipcc; do
    command -v "$c" >/dev/null && "$c" --version 2>/dev/null | tail -n 2 | sed "s/^/$c: /"
  done
  section "probe (accelerators: gemm_impl says what the GEMMs run on)"
  "$RT" probe 2>&1 | sed -n '/^ *accelerators:/,$p'
}

# gpu_check on the vendor's GEMM, then on the own kernel; sets status.
check() {
  local name=$1 rc
  section "$name: every operation against the CPU backend (vendor GEMM)"
  "$BUILD/tests/gpu_check" "$name"
  rc=$?
  if [ "$rc" -eq 3 ]; then return 3; fi
  [ "$rc" -ne 0 ] && status=1
  section "$name: the plugin's own tiled GEMM (RIGTUNE_GEMM=own)"
  RIGTUNE_GEMM=own "$BUILD/tests/gpu_check" "$name" | grep -E 'gemm|passed|device'
  [ "${PIPESTATUS[0]}" -ne 0 ] && status=1
  [ "$status" -eq 3 ] && status=0
  return 0
}

# What a tune would measure on this backend: the figures to send back.
workloads() {
  local b=$1 p
  section "$b: GEMM 4096^3 per precision (gemm_impl, GFLOP/s, device_busy)"
  for p in fp64 fp32 tf32 bf16 fp16; do
    "$RT" bench gemm backend="$b" precision="$p" m=4096 n=4096 k=4096 --seconds 2 2>&1 |
      grep -E '^(infeasible|cause|gemm_impl|gflops|device_busy|monitor)|median|unit' |
      sed "s/^/$p  /"
  done
  section "$b: transformer batch=64 (device_busy from events vs device_busy_sampled)"
  run "$RT" bench transformer backend="$b" batch=64 --seconds 5
  section "$b: transformer batch=64 on the own tiled GEMM"
  RIGTUNE_GEMM=own "$RT" bench transformer backend="$b" batch=64 --seconds 3 2>&1 |
    grep -E 'median|gemm_impl|device_busy|monitor'
  section "$b: ppo (device_busy from events vs the monitor; device_phases from host timers)"
  run "$RT" bench ppo backend="$b" --seconds 5
  section "$b: crossover against the CPU"
  run "$RT" crossover --backend "cpu,$b" --precision fp32 --max-n 4096 --seconds 0.5 --quiet
}

# A user's own run on this GPU, as rigtune watch sees it: the PyTorch example
# with its batches made on the main thread, then by worker processes.
watch_torch() {
  local py=${PYTHON:-python3} w
  if ! "$py" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
    section "cuda: watch skipped ($py has no PyTorch that sees a CUDA device)"
    return 0
  fi
  for w in 0 4; do
    section "cuda: rigtune watch on examples/torch_transformer.py --device cuda --workers $w"
    "$RT" watch --quiet --metric 'samples/s ([0-9.]+)' -o "watch-cuda-w$w.yaml" -- \
      "$py" examples/torch_transformer.py --device cuda --workers "$w" --batch 64 \
      --d-model 512 --heads 8 --d-ff 2048 --layers 4 --seq-len 128 --steps 100000 --seconds 15
    sed -n '/^binding:/,/^phases:/p' "watch-cuda-w$w.yaml"
  done
}

main() {
  local names="${*:-cuda hip}" name
  build $names
  versions
  status=3
  for name in $names; do
    if check "$name" && [ -z "${GPU_CHECK_QUICK:-}" ]; then
      workloads "$name"
      [ "$name" = cuda ] && watch_torch
    fi
  done
  section "summary"
  case $status in
    0) echo "every available GPU backend passed" ;;
    1) echo "some check FAILED (lines with FAIL above)" ;;
    *) echo "no GPU backend was available (the reasons are above)" ;;
  esac
  return "$status"
}

main "$@" 2>&1 | tee "$OUT"
rc=${PIPESTATUS[0]}
echo "gpu-check: all of the above is in $OUT: send it back as it is" >&2
exit "$rc"
