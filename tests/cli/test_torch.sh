#!/usr/bin/env bash
# The README's example on the real framework: rigtune tune --cmd tunes
# examples/torch_transformer.py (Debian's python3-torch) over threads x
# blas_threads x batch in about a minute, and its recommendation, applied with
# rigtune exec, is re-measured against PyTorch's own defaults, interleaved: it
# must not be slower beyond what a busy 2-core machine's noise can do (a ratio,
# never a raw timing). The PPO example runs with env worker processes.
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1 # a shared machine: no re-measuring, the budget holds
R=$RIGTUNE
SRC=$PWD
PY=/usr/bin/python3
if ! $PY -c 'import torch' 2>/dev/null; then
  echo "1..0 # SKIP $PY has no torch (scripts/install-deps.sh test installs python3-torch)"
  exit 0
fi
cd "$TMP" || exit 1
EX="$PY $SRC/examples/torch_transformer.py"
TOLERANCE=0.8 # the recommendation may not fall below this share of the defaults

# Both thread pools at every batch, in the order grid takes them (the batches
# slowest): the thread settings at the first batch are measured first, however
# busy the machine and slow the runs.
printf 'workload: command\nparams:\n  batch: [16, 32]\n  threads: [1, 2]\n  blas_threads: [1, 2]\n' >space.yaml
expect_exit 0 "tune --cmd the PyTorch example (60 s)" $R tune \
  --cmd "$EX --batch {batch} --steps 100 --seconds 2" --metric 'samples/s ([0-9.]+)' \
  --space space.yaml --strategy grid --budget 60 --quiet -o t.yaml
grep -A2 '^    recommended:' t.yaml >rec
batch=$(sed -n 's/.*point: {batch: \([0-9]*\),.*/\1/p' rec)
[ -n "$batch" ] && ok "a recommendation at batch $batch: $(sed -n 2p rec)" ||
  not_ok "a recommendation" "$(cat t.yaml)"
expect_grep "^  pytorch:$" t.yaml "the config records the frameworks"

# Interleaved: the defaults (no thread variables) and the recommendation, in turn.
clean=(env -u OMP_NUM_THREADS -u MKL_NUM_THREADS -u OPENBLAS_NUM_THREADS)
for round in 1 2 3; do
  "${clean[@]}" $EX --batch "$batch" --steps 100 --seconds 3 | sed 1d >>default.txt
  "${clean[@]}" $R exec --config t.yaml -- $EX --batch "$batch" --steps 100 --seconds 3 |
    sed 1d >>tuned.txt
done
median() { awk '{print $4}' "$1" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
d=$(median default.txt) t=$(median tuned.txt)
ratio=$(awk -v t="$t" -v d="$d" 'BEGIN {printf "%.3f", t / d}')
if awk -v r="$ratio" -v tol=$TOLERANCE 'BEGIN {exit !(r >= tol)}'; then
  ok "the recommendation runs at $ratio of PyTorch's defaults ($t vs $d samples/s, >= $TOLERANCE)"
else
  not_ok "the recommendation is not slower than PyTorch's defaults" \
    "ratio $ratio ($t vs $d samples/s)" "$(cat rec)"
fi

expect_exit 0 "the PPO example with 2 env workers" $PY "$SRC/examples/torch_ppo.py" \
  --num-envs 8 --workers 2 --rollout 16 --iters 2
expect_grep "^iter 2 env-steps/s [0-9.]+ " "$TMP/out" "prints env-steps/s per iteration"
expect_grep "env workers 2" "$TMP/err" "with its worker processes"
echo "1..$n"
