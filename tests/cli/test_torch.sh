#!/usr/bin/env bash
# The README's example on the real framework: rigtune tune --cmd tunes
# examples/torch_transformer.py (Debian's python3-torch) over threads x
# blas_threads x batch in about a minute, and its recommendation, applied with
# rigtune exec, is re-measured against PyTorch's own defaults, interleaved: it
# must not be slower beyond what a busy 2-core machine's noise can do (a ratio,
# never a raw timing). The PPO example runs with env worker processes.
# tier: integration (PyTorch)
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
CMD="$EX --batch {batch} --steps 100 --seconds 2"
expect_exit 0 "tune --cmd the PyTorch example (60 s)" $R tune \
  --cmd "$CMD" --metric 'samples/s ([0-9.]+)' \
  --space space.yaml --strategy grid --budget 60 --quiet -o t.yaml
grep -A2 '^    recommended:' t.yaml >rec
batch=$(sed -n 's/.*point: {batch: \([0-9]*\),.*/\1/p' rec)
[ -n "$batch" ] && ok "a recommendation at batch $batch: $(sed -n 2p rec)" ||
  not_ok "a recommendation" "$(cat t.yaml)"
expect_grep "^  pytorch:$" t.yaml "the config records the frameworks"

# rigtune check of that configuration, given the command again (--cmd): its
# points run again through the same command and metric. A/A first: nothing changed, so no regression (exit 0;
# on a busy machine a point may stay unknown, and the check said why), and
# the points are the configuration's (recommended, fastest where it is
# another, the runner-ups): the recommended one with its knobs. --budget is
# given: A/A ends once every point is decided unchanged.
knobs() { tr -d "' " | sed 's/^-\{0,1\}point://'; } # a point: line, as text
rec_knobs=$(sed -n '/^    recommended:/{n;p;}' t.yaml | knobs)
npoints=$(grep -E '^ {4}(  |- )point: ' t.yaml | knobs | sort -u | wc -l)
# the block of the point with the recommended role in a check's YAML
rec_block() { awk '/^- workload:/ {rec = 0} /^  roles: \[recommended/ {rec = 1} rec' "$1"; }
# A VM shared with other work has spells of running slower, minutes long, and a
# check inside one rightly finds the point slower (an A/A of this 60 s tune's
# baseline once read 11% in 2 trials over 17 s; a CI run, 2026-11-27, 8.6% and
# then 5.1% in two checks in a row): a later check, after the regression is
# shown and a pause, must not; one that always finds it still fails.
# The A/A runs with the user's contention limit (not this file's 1): a trial
# whose cores other work took is set aside and measured again, as for a user.
for attempt in 1 2 3; do
  env -u RIGTUNE_CONTENTION_LIMIT $R check --baseline t.yaml --cmd "$CMD" --budget 30 -o same.yaml \
    >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ "$rc" -ne 1 ] && break
  echo "# A/A attempt $attempt: exit 1: $(grep -m1 '^regression' "$TMP/err")"
  [ "$attempt" -lt 3 ] && sleep 20 # the host's slow spell may pass
done
# Under the sanitizers (make asan) this A/A read 11% and 19% slower, taken then
# for the sanitizers' doing; but a plain build's CI run read the same (10.4% and
# 8.8%, 2026-11-26), each with the canary's compute half about 6% slower: the
# host's drift between tune and check, which run the command alike (issue 33;
# rt_cmdknobs_limits). The verdict is asserted in the plain build and only
# shown here (issue 33 has the calibration).
sanitized=$(grep -qa __asan_init "$R" && echo 1)
if [ "$rc" -eq 1 ] && grep -q "^suggestion: other processes took up to" "$TMP/err"; then
  n=$((n + 1)); echo "ok $n # SKIP A/A check of the PyTorch configuration: a regression, but $(grep -m1 '^suggestion: other processes' "$TMP/err" | cut -c13-90)..."
elif [ "$rc" -eq 1 ] && [ -n "$sanitized" ]; then
  n=$((n + 1)); echo "ok $n # SKIP A/A check of the PyTorch configuration under the sanitizers (asserted in the plain build): $(grep -m1 '^regression' "$TMP/err" | cut -c1-150)"
else
  [ "$rc" -eq 0 ] && ok "check of the unchanged PyTorch configuration: no regression (exit 0)" ||
    not_ok "check of the unchanged PyTorch configuration: no regression (exit 0)" "exit $rc" \
      "$(grep -E '^(regression|inconclusive|machine):' "$TMP/err")"
fi
seen=$(grep -c '^- workload: command$' same.yaml)
[ "$seen" -eq "$npoints" ] && ok "its $seen points are the command's (the recommended and the runner-ups)" ||
  not_ok "the check's points are the command's" "$seen points, the configuration has $npoints"
same_knobs=$(rec_block same.yaml | grep '^  point: ' | knobs)
[ -n "$rec_knobs" ] && [ "$same_knobs" = "$rec_knobs" ] && ok "the recommended point's knobs: $same_knobs" ||
  not_ok "the recommended point's knobs" "check: '$same_knobs', configuration: '$rec_knobs'"
nrunner=$(grep -c '^  roles: \[.*runner_up\]$' same.yaml) want=$(grep -c '^    - point: ' t.yaml)
[ "$nrunner" -eq "$want" ] && ok "and its $nrunner runner-ups" ||
  not_ok "the configuration's runner-ups" "$nrunner of $want"

# A real slowdown after an "upgrade": bench's libslowblas preloaded into the
# check (its trials are its children) spins every GEMM PyTorch calls (sgemm_
# in fp32, oneDNN's primitives in bf16) to 1 / (1 - 0.5) of its time. GEMMs
# are about 90% of this model's step, so at one BLAS thread the training runs
# about 45% slower on an idle machine, more on a busy one (the spin follows
# the GEMM's wall-clock time: 88.9% on a 2-vCPU Xeon) and at two BLAS threads;
# the canary (no BLAS) does not move. Asserted: exit 1, the recommended point
# a regression, or a likely one (every sample past the threshold, when the
# budget ended before the change held over half of it: check_likely.h), 15%
# slower at least (a check that sees nothing fails) and 97% at most (a sanity
# bound). An inconclusive point is a failure: it is what issue 46 saw.
SLOWBLAS=$BUILD_DIR/bench/libslowblas.so
LD_PRELOAD=$SLOWBLAS SLOWBLAS_SLOWDOWN=0.5 $R check --baseline t.yaml --cmd "$CMD" --budget 40 -o slow.yaml \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
verdict=$(rec_block slow.yaml | sed -n 's/^  verdict: //p')
ratio=$(rec_block slow.yaml | sed -n 's/^  ratio: //p')
slower=$(awk -v r="$ratio" 'BEGIN { if (r != "" && r != "null") printf "%.1f", 100 * (1 - r) }')
if [ "$rc" -eq 1 ] && [[ $verdict =~ ^(likely_)?regression$ ]] &&
  awk -v s="$slower" 'BEGIN {exit !(s != "" && s >= 15 && s <= 97)}'; then
  ok "the BLAS 50% slower: the training is $slower% slower, $verdict (exit 1; load $(cut -d' ' -f1 /proc/loadavg))"
else
  not_ok "the BLAS 50% slower: the recommended point a regression, 15-97% slower (exit 1)" \
    "exit $rc, verdict '$verdict', '$slower%' slower" \
    "$(grep -E '^(regression|likely_regression|inconclusive|machine):' "$TMP/err")"
fi

# Interleaved: the defaults (no thread variables) and the recommendation, in turn.
# The share of the cores that other processes (and the VM's host: steal) took
# meanwhile is measured: /proc/stat's busy time less this shell's children's.
# Three rounds first; a ratio below the tolerance gets four more (the median of
# seven): one slow spell of a shared VM (a round's runs vary by 15% here) must
# not decide, while a recommendation that is slower stays slower.
clean=(env -u OMP_NUM_THREADS -u MKL_NUM_THREADS -u OPENBLAS_NUM_THREADS -u OMP_WAIT_POLICY)
machine_busy() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / {print ($2 + $3 + $4 + $7 + $8 + $9) / hz}' /proc/stat; }
# `times` in this shell (a $(...) subshell would count its own children): 2nd line.
children_cpu() { awk 'NR == 2 {t = 0; for (i = 1; i <= 2; i++) {split($i, a, /[ms]/); t += a[1] * 60 + a[2]} print t}' "$1"; }
median() { awk '{print $4}' "$1" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
rounds=0
interleave() { # rounds
  rounds=$((rounds + $1))
  for ((round = 0; round < $1; round++)); do
    "${clean[@]}" $EX --batch "$batch" --steps 100 --seconds 3 2>default.err | sed 1d >>default.txt
    "${clean[@]}" $R exec --config t.yaml -- $EX --batch "$batch" --steps 100 --seconds 3 \
      2>tuned.err | sed 1d >>tuned.txt
  done
  d=$(median default.txt) t=$(median tuned.txt)
  ratio=$(awk -v t="$t" -v d="$d" 'BEGIN {printf "%.3f", t / d}')
}
times >"$TMP/times0"
busy0=$(machine_busy) ours0=$(children_cpu "$TMP/times0") start=$(date +%s.%N)
interleave 3
awk -v r="$ratio" -v tol=$TOLERANCE 'BEGIN {exit !(r < tol)}' && interleave 4
times >"$TMP/times1"
others=$(awk -v b0="$busy0" -v b1="$(machine_busy)" -v o0="$ours0" -v o1="$(children_cpu "$TMP/times1")" \
  -v s="$start" -v e="$(date +%s.%N)" -v cpus="$(nproc)" \
  'BEGIN {x = (b1 - b0 - (o1 - o0)) / ((e - s) * cpus); printf "%.2f", x < 0 ? 0 : x}')
settings="defaults: $(grep -m1 '^threads:' default.err | cut -c10-); recommended: $(grep -m1 '^threads:' tuned.err | cut -c10-)"
if awk -v o="$others" 'BEGIN {exit !(o > 0.25)}'; then
  n=$((n + 1)); echo "ok $n # SKIP the recommendation against PyTorch's defaults (ratio $ratio): other processes took $others of the cores meanwhile, so a thread setting's speed is theirs to decide"
elif awk -v r="$ratio" -v tol=$TOLERANCE 'BEGIN {exit !(r >= tol)}'; then
  ok "the recommendation runs at $ratio of PyTorch's defaults ($t vs $d samples/s over $rounds rounds, >= $TOLERANCE; $settings; others took $others of the cores)"
else
  not_ok "the recommendation is not slower than PyTorch's defaults" \
    "ratio $ratio ($t vs $d samples/s over $rounds rounds; $settings; others took $others of the cores)" "$(cat rec)"
fi

expect_exit 0 "the PPO example with 2 env workers" $PY "$SRC/examples/torch_ppo.py" \
  --num-envs 8 --workers 2 --rollout 16 --iters 2
expect_grep "^iter 2 env-steps/s [0-9.]+ " "$TMP/out" "prints env-steps/s per iteration"
expect_grep "env workers 2" "$TMP/err" "with its worker processes"
echo "1..$n"
