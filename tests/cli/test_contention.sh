#!/usr/bin/env bash
# A tune on a busy machine: a process spinning on the cores the trials use makes
# every trial contended; tune measures each once more, and the recommendation
# says its figures were taken on a busy machine.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
spinners=()
for cpu in $(seq 0 $(($(nproc) - 1))); do
  taskset -c "$cpu" bash -c 'while :; do :; done' &
  spinners+=($!)
done
trap 'kill "${spinners[@]}" 2>/dev/null' EXIT

expect_exit 0 "tune on a busy machine still recommends" \
  "$RIGTUNE" tune --workload gemm --budget 4 --no-crossover -o cfg.yaml
# The OpenBLAS kernel sets' figures of a busy moment are not kept for later
# tunes (blas_cores.h). Prescott's kernels make them measured on any x86 CPU
# with wider ones; a cache directory of this test's own starts empty.
mkdir k && (cd k && OPENBLAS_CORETYPE=Prescott RIGTUNE_CACHE_DIR="$TMP/cache" "$RIGTUNE" tune \
  --workload gemm --budget 2 --no-crossover -o ../k.yaml >"$TMP/out" 2>"$TMP/err")
kill "${spinners[@]}"
if grep -q "kernel sets, 1-thread SGEMM" "$TMP/err"; then
  expect_grep "figures are not kept for the next tune: other processes took [0-9]+% of the cores" \
    "$TMP/err" "the kernel sets' figures of a busy moment are not kept"
  [ -z "$(ls "$TMP/cache" 2>/dev/null)" ] && ok "  and no file holds them" ||
    not_ok "  and no file holds them" "$(ls -la "$TMP/cache")"
else
  skip_one "the kernel sets' figures of a busy moment are not kept" \
    "OpenBLAS has no kernel set wider than Prescott's for this CPU ($(uname -m))"
  skip_one "  and no file holds them" "as above"
fi
expect_grep "of the trial's CPUs went to other processes; measuring it again" "$TMP/err" \
  "a contended trial is measured once more"
tr -s ' \n' ' ' <cfg.yaml >cfg.flat # a long reason is folded over lines
expect_grep "measured on a busy machine \(other processes took [0-9]+% of the trial'?'s CPUs\)" \
  cfg.flat "the reason says the figures were taken on a busy machine"
journal=$(ls results/*.yaml | head -1)
contended=$(grep -E '^contention: ' "$journal" | awk '$2 > 0.10' | wc -l)
if [ "$contended" -ge 2 ]; then ok "the journal records the contention of each trial ($contended above 10%)"; else
  not_ok "the journal records the contention of each trial" "$(grep -E '^contention' "$journal")"; fi
