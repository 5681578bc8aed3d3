#!/usr/bin/env bash
# The GPU checker on a machine without the GPU: a clean "unavailable" and
# exit 3, whether the plugin is missing or its runtime finds no device.
# On a machine with the GPU, the check itself runs (scripts/gpu-check.sh).
# beside: others (exit codes and messages without a device)
. "$(dirname "$0")/lib.sh"
CHECK="$BUILD_DIR/tests/gpu_check"

export RIGTUNE_BACKEND_PATH="$TMP"
expect_exit 3 "a missing plugin is unavailable (exit 3)" "$CHECK" cuda
expect_grep '^cuda: unavailable: librigtune_cuda\.so: not found in ' "$TMP/out" \
  "the missing plugin is named with the path searched"

export RIGTUNE_BACKEND_PATH="$BUILD_DIR/tests/plugins"
RIGTUNE_FAKE_DEVICES=0 expect_exit 3 "a backend without devices is unavailable (exit 3)" \
  "$CHECK" fake
expect_grep '^fake: unavailable: no fake device$' "$TMP/out" "init's reason is printed"

expect_exit 3 "a plugin of another ABI is unavailable (exit 3)" "$CHECK" badabi
expect_grep '^badabi: unavailable: librigtune_badabi\.so: ABI [0-9]+, expected [0-9]+$' \
  "$TMP/out" "the ABI mismatch is printed"

expect_exit 2 "an option instead of a backend is bad usage (exit 2)" "$CHECK" --help

# The CPU backend against itself must agree exactly: proves the checker's
# plumbing (upload, run, download, compare) on every operation.
expect_exit 0 "cpu against cpu passes" "$CHECK" cpu
expect_grep '^cpu: [0-9]+ passed, 0 failed$' "$TMP/out" "every cpu case passed"
expect_grep '^cpu gemm_batched2 +fp32 +17x17x16 4x3 NT +max abs 0\.000e\+00 .* PASS$' "$TMP/out" \
  "the two-level batch (attention's heads x sequences) is checked and agrees exactly"
expect_grep '^cpu: a case passes when max \|cpu - cpu\| / max \|cpu\| <= fp64 1e-10, fp32 0\.0001, ' \
  "$TMP/out" "the tolerances are stated"

# The real plugins, where this machine built them: a full pass on a machine
# with the device; without one the check cannot run, which is a TAP skip
# with the reason, never a pass.
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
export RIGTUNE_BACKEND_PATH="$BUILD_DIR"
for b in cuda hip; do
  "$CHECK" "$b" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ "$rc" -eq 3 ] && grep -qE "^$b: unavailable: .+" "$TMP/out"; then
    skip "$(head -n 1 "$TMP/out" | head -c 200)"
  elif [ "$rc" -eq 0 ] && grep -qE "^$b: [0-9]+ passed, 0 failed$" "$TMP/out"; then
    ok "$b: every operation matches the CPU backend"
  else
    not_ok "$b: gpu_check exit $rc" "$(grep -E 'FAIL|unavailable|setup' "$TMP/out" | head -20)"
  fi
done
