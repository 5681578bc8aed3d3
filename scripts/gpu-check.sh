#!/usr/bin/env bash
# Builds the GPU plugins this machine can compile and the checker, then
# compares each GPU backend with the CPU backend (tests/gpu_check.c).
# Usage: scripts/gpu-check.sh [BACKEND...]   (default: cuda hip)
# Exit: 0 if every available backend passed, 1 if any failed, 3 if none was
# available.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
make -s BUILD="$BUILD" "$BUILD/tests/gpu_check" || exit 3
export RIGTUNE_BACKEND_PATH="$PWD/$BUILD"
status=3
for b in "${@:-cuda hip}"; do
  for name in $b; do
    # Without its compiler the plugin is not built; the check then says so.
    make -s BUILD="$BUILD" "$BUILD/librigtune_$name.so" >&2 || true
    "$BUILD/tests/gpu_check" "$name"
    rc=$?
    if [ "$rc" -eq 1 ]; then status=1
    elif [ "$rc" -eq 0 ] && [ "$status" -eq 3 ]; then status=0
    fi
  done
done
exit "$status"
