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
kill "${spinners[@]}"
expect_grep "of the trial's CPUs went to other processes; measuring it again" "$TMP/err" \
  "a contended trial is measured once more"
tr -s ' \n' ' ' <cfg.yaml >cfg.flat # a long reason is folded over lines
expect_grep "measured on a busy machine \(other processes took [0-9]+% of the trial'?'s CPUs\)" \
  cfg.flat "the reason says the figures were taken on a busy machine"
journal=$(ls results/*.yaml | head -1)
contended=$(grep -E '^contention: ' "$journal" | awk '$2 > 0.10' | wc -l)
if [ "$contended" -ge 2 ]; then ok "the journal records the contention of each trial ($contended above 10%)"; else
  not_ok "the journal records the contention of each trial" "$(grep -E '^contention' "$journal")"; fi
