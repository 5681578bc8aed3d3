#!/usr/bin/env bash
# bench_wait_policy.sh: what GNU OpenMP's wait policy does to a PyTorch step,
# alone and beside another busy process (the trade behind the advice setting
# no OMP_WAIT_POLICY: docs/benchmarks.md). Interleaved rounds of
# examples/torch_transformer.py (batch 16, 2 threads, bf16) under the default
# (spinning), OMP_WAIT_POLICY=PASSIVE and GOMP_SPINCOUNT=10000 / 1000; each
# line: the condition, the round, the setting, the run's median samples/s.
#
#   bench/bench_wait_policy.sh PYTHON [ROUNDS] [alone|niced|busy]
#
# niced: a `nice -n 19` busy loop runs beside it; busy: one at normal priority.
# Run from the source tree with a Python that has torch (scripts/venv.sh --path).
set -u
py=${1:?usage: bench/bench_wait_policy.sh PYTHON [ROUNDS] [alone|niced|busy]}
rounds=${2:-3} beside=${3:-alone}
case $beside in
  alone) ;;
  niced) nice -n 19 sh -c 'while :; do :; done' & loop=$! ;;
  busy) sh -c 'while :; do :; done' & loop=$! ;;
  *) echo "bench_wait_policy.sh: beside is alone, niced or busy, not '$beside'" >&2; exit 2 ;;
esac
trap '[ -n "${loop:-}" ] && kill "$loop"' EXIT
median_rate() { # samples/s lines of one run: their median
  awk '$3 == "samples/s" {print $4}' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
for ((r = 1; r <= rounds; r++)); do
  for setting in spinning PASSIVE SPIN10000 SPIN1000; do
    case $setting in
      spinning) extra=() ;;
      PASSIVE) extra=(OMP_WAIT_POLICY=PASSIVE) ;;
      SPIN*) extra=(GOMP_SPINCOUNT=${setting#SPIN}) ;;
    esac
    rate=$(env OMP_NUM_THREADS=2 "${extra[@]}" "$py" examples/torch_transformer.py --batch 16 \
      --threads 2 --precision bf16 --steps 100 --seconds 3 2>/dev/null | median_rate)
    echo "$beside $r $setting $rate"
  done
done
