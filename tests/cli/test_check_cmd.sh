#!/usr/bin/env bash
# rigtune check of a configuration of the user's own command (tune --cmd, issue
# 32): its points run again through the command given again (--cmd), never the
# command in the file; a knob that would set one of rigtune's variables is
# refused; a slower command is a regression, one a tenth as fast with one trial
# a point a likely one; A/B of two commands and of two environments; the memory
# cap as tune --cmd holds it. Then bench_check's rounds on a tune --cmd
# baseline (issue 33's calibration). (check of rigtune's own workloads, whose
# verdicts rest on real timings: test_check.sh.)
# tier: slow (checks with real budgets, about 50 s)
# beside: others (tests/fake_train.py computes its rates, every trial is kept, and bench_check's verdicts are compared with its YAMLs, not asserted)
. "$(dirname "$0")/lib.sh"
# every trial counts, however busy the machine: none is set aside and measured again
export RIGTUNE_CONTENTION_LIMIT=1
R=$RIGTUNE
SRC=$PWD
cd "$TMP" || exit 1

# A configuration of the user's own command (tune --cmd): given the command
# again (--cmd), its recommended point and runner-ups run again through it
# and the same metric; the command in the file is never run (issue 32).
mkdir cmd && cd cmd || exit 1
FAKE="/usr/bin/python3 $SRC/tests/fake_train.py"
printf 'workload: command\nparams:\n  batch: [8, 16, 32]\n  opt: [sgd, adam]\n' >space.yaml
CMD="$FAKE --batch {batch} --opt {opt} --steps 6"
expect_exit 0 "a tune of the user's command makes the baseline" \
  $R tune --budget 20 --cmd "$CMD" --metric 'rate ([0-9.]+)' \
  --space space.yaml --name fake --quiet -o cfg.yaml
# a colleague's edit: another command in the file, told to run in a shell
sed "s#^    command: .*#    command: touch $PWD/PWNED; $CMD#; /^    hash: /i\\    shell: true" \
  cfg.yaml >evil.yaml
grep -q "^    command: touch" evil.yaml && ok "the edited configuration names another command" ||
  not_ok "the edited configuration names another command" "$(grep command: evil.yaml)"
expect_exit 0 "check without --cmd: the command's points are not run (exit 0)" \
  $R check --baseline evil.yaml --no-canary --budget 10 -o notrun.yaml
[ ! -e PWNED ] && ok "  and the file's command never ran" || not_ok "  and the file's command never ran"
nnot=$(grep -c "^  verdict: not_run$" notrun.yaml)
[ "$nnot" -ge 2 ] && [ "$nnot" -eq "$(grep -c '^  verdict: ' notrun.yaml)" ] &&
  ok "  every point is not_run ($nnot)" || not_ok "  every point is not_run" "$(grep verdict: notrun.yaml)"
expect_grep "not run \(no --cmd\)" "$TMP/err" "  the table says why"
expect_exit 0 "given the command, its points run: the user's, not the file's" \
  $R check --baseline evil.yaml --cmd "$CMD" --no-canary --budget 10 -o given.yaml
[ ! -e PWNED ] && ok "  the file's command still never ran" || not_ok "  the file's command still never ran"
expect_grep "^  verdict: unchanged$" given.yaml "  its points are compared"
expect_exit 2 "another command than tune's (its hash differs) is exit 2" \
  $R check --baseline cfg.yaml --cmd "$CMD --lr 4" --no-canary --budget 10 -o keep.yaml
expect_grep "--cmd is not the command cfg.yaml was tuned with" "$TMP/err" "  saying so"
[ ! -e keep.yaml ] && ok "  and writes nothing" || not_ok "  and writes nothing"
expect_exit 2 "tune's command in a shell is another command" \
  $R check --baseline cfg.yaml --cmd "$CMD" --shell --no-canary --budget 10 -o keep.yaml
[ ! -e PWNED ] && ok "no check ran the file's command" || not_ok "no check ran the file's command"
# a point's knob becomes RIGTUNE_<KNOB> in the command's environment: not one of rigtune's settings
sed 's/point: {batch: /point: {backend_path: /' cfg.yaml >knob.yaml
kline=$(grep -n "point: {backend_path: " knob.yaml | head -1 | cut -d: -f1)
expect_exit 2 "a point whose knob would set RIGTUNE_BACKEND_PATH is exit 2" \
  $R check --baseline knob.yaml --cmd "$CMD" --no-canary --budget 10 -o keep.yaml
expect_grep "knob.yaml:$kline:[0-9]+: point: backend_path cannot name a knob" "$TMP/err" \
  "  naming the file, the line and the knob"
# fake_train's rate is computed, not timed: the canary's view of the machine
# does not apply to it, so these compare as measured
expect_exit 0 "the command's configuration, unchanged: no regression" \
  $R check --baseline cfg.yaml --cmd "$CMD" --no-canary --budget 10 -o same.yaml
expect_grep "^- workload: fake$" same.yaml "its points are the command's"
expect_grep "^  roles: \[recommended, fastest\]$" same.yaml "the recommended point"
expect_grep "^  roles: \[runner_up\]$" same.yaml "and the runner-ups"
expect_grep "^  point: \{batch: '?32'?, opt: adam\}$" same.yaml "with its knobs (as the configuration's text)"
nsame=$(grep -c "^  verdict: unchanged$" same.yaml)
[ "$nsame" -ge 2 ] && ok "every point unchanged ($nsame)" || not_ok "every point unchanged" "$nsame"
expect_grep "^canary: none \(--no-canary\)" "$TMP/err" "--no-canary is said"
FAKE_TRAIN_SPEED=0.88 $R check --baseline cfg.yaml --cmd "$CMD" --no-canary --budget 10 -o slower.yaml \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] && ok "after the upgrade, the training is 12% slower: a regression (exit 1)" \
  || not_ok "after the upgrade, the training is 12% slower: a regression (exit 1)" "exit $rc"
expect_grep "^regression: fake batch=32 opt=adam \(rec\+fast\): 12\.0% slower" "$TMP/err" \
  "the table says by how much"
# 10 times slower, with a budget that gives each point one trial only (a
# point's first trial runs whatever the budget; 1 ms fits no second one, where
# 0.1 s did on a fast machine, which then called the recommended point a
# regression): no change can hold over time, so none is decided; every sample
# past the threshold below the baseline's median, enough of them: a likely
# regression (check_likely.h), exit 1
FAKE_TRAIN_SPEED=0.1 $R check --baseline cfg.yaml --cmd "$CMD" --no-canary --budget 0.001 -o likely.yaml \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
nlikely=$(grep -c "^  verdict: likely_regression$" likely.yaml)
[ "$rc" -eq 1 ] && [ "$nlikely" -ge 1 ] && ok "10x slower, one trial each: a likely regression (exit 1, $nlikely points)" \
  || not_ok "10x slower, one trial each: a likely regression (exit 1)" "exit $rc" "$(grep -E '^(likely|inconclusive|regression)' "$TMP/err")"
expect_grep "^likely_regression: fake batch=32 opt=adam \(rec\+fast\): every one of the [0-9]+ samples now \(1 trial\) is more than 5% slower than the baseline's median \(of [0-9]+\), too many to fall so by chance \(p <= [0-9.e-]+\); not decided: 90\.0% slower" \
  "$TMP/err" "  the table says what every sample showed and why it was not decided"
expect_grep "^result: regression$" likely.yaml "  the result is a regression"
# A/B of two commands (another learning rate: 10% slower) and two environments
$R check --baseline cfg.yaml --cmd "$CMD" --a current --b "cmd:$FAKE --batch {batch} --opt {opt} --steps 6 --lr 4" \
  --budget 10 -o abcmd.yaml >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "^  ratio: 0\.9$" abcmd.yaml && ok "A/B of two commands: B is 10% slower (exit 1)" \
  || not_ok "A/B of two commands: B is 10% slower (exit 1)" "exit $rc: $(grep ratio abcmd.yaml)"
$R check --baseline cfg.yaml --cmd "$CMD" --a env:FAKE_TRAIN_SPEED=1.06 --b current --budget 10 -o abenv.yaml \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "^  verdict: regression$" abenv.yaml \
  && ok "A/B of two environments: B 6% slower than A is a regression (exit 1)" \
  || not_ok "A/B of two environments: B 6% slower than A is a regression" "exit $rc: $(grep -E 'ratio|verdict' abenv.yaml)"
# check --cmd caps a trial's memory as tune --cmd does (one function: usercmd_knobs.c's
# rt_cmdknobs_mem_cap): two workers of 400 MiB each (tests/eat_workers.py), which ran in the
# uncapped tune, are over a 640 MiB cap together on the watchdog's path (RIGTUNE_MEMWATCH_MIB,
# a test hook; each alone is within it, as RLIMIT_AS would see them): ended as memory, said
# as tune says it.
EAT="/usr/bin/python3 $SRC/tests/eat_workers.py {mib} {procs}"
printf 'workload: command\nparams:\n  mib: [400]\n  procs: [2]\n' >smem.yaml
expect_exit 0 "a tune of a command whose two workers hold 400 MiB each, uncapped" \
  $R tune --cmd "$EAT" --metric 'rate ([0-9.]+)' --warmup 0 --space smem.yaml --strategy grid \
  --timeout 30 --budget 30 --quiet -o mem.yaml
RIGTUNE_MEMWATCH_MIB=640 $R check --baseline mem.yaml --cmd "$EAT" --no-canary --budget 10 \
  -o memcheck.yaml >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] && ok "check --cmd under a 640 MiB cap: the point no longer runs (exit 1)" ||
  not_ok "check --cmd under a 640 MiB cap: the point no longer runs (exit 1)" "exit $rc: $(head -c 300 "$TMP/err")"
expect_grep "^  cause: memory$" memcheck.yaml "  its cause is memory"
expect_grep "needs more than the 0\.6 GiB cap \((0\.[6-9]|1\.0) GiB when the watchdog ended it\)" \
  "$TMP/err" "  with the cap and the figure seen, as tune --cmd says them"
cd "$TMP" || exit 1

# bench_check with a `tune --cmd` baseline (issue 33's calibration of a real
# script): the baseline is the command's configuration (rigtune tune --cmd
# with the space given), the slowed check's environment reaches the
# command's processes (libslowblas preloaded into the check: the stand-in
# reads LD_PRELOAD and reports half its rate; --slow-env: the variable given,
# 30% slower), and the verdicts it tallies are the checks' YAMLs'. The rates
# are computed, so the ratios as measured are exact; a verdict may move with
# the canary, so it is compared with the YAML, not asserted.
mkdir "$TMP/bench" && cd "$TMP/bench" || exit 1
cat >train.sh <<'SH'
rate=$((100 * $1))
case "$LD_PRELOAD" in *libslowblas.so*) rate=$((rate / 2)) ;; esac
[ -n "$FAKE_SLOW" ] && rate=$((rate * 7 / 10))
for i in 1 2 3 4 5 6 7 8 9 10; do echo "step $i rate $rate.$((RANDOM % 3))"; sleep 0.02; done
SH
printf 'workload: command\nparams:\n  batch: [1, 2]\n' >space.yaml
BCMD="/bin/bash $PWD/train.sh {batch}"
bench_check() { # ARGS...: one round, its directory in $bdir
  "$BUILD_DIR/bench/bench_check" --cmd "$BCMD" --metric 'rate ([0-9.]+)' --space "$PWD/space.yaml" \
    --tune-seconds 4 --budget 8 --rounds 1 --minutes 0 "$@" >"$TMP/out" 2>"$TMP/err"
  brc=$? bdir=$(sed -n 's/.*every check.s YAML is in \([^ ]*\) .*/\1/p' "$TMP/out")
}
# the tally's "verdicts: NAME COUNT ..." line (the Nth) against the YAML's verdicts
same_counts() { # N FILE
  sed -n 's/^  verdicts: \(.*\) (unchanged.*/\1/p' "$TMP/out" | sed -n "$1p" |
    xargs -n2 | while read -r v k; do
      [ "$(grep -c "^  verdict: $v$" "$2")" -eq "$k" ] || echo "$v: $k, the YAML has $(grep -c "^  verdict: $v$" "$2")"
    done
}
bench_check
[ "$brc" -eq 0 ] && [ -d "$bdir" ] && ok "bench_check --cmd: a round (exit 0)" ||
  not_ok "bench_check --cmd: a round (exit 0)" "exit $brc" "$(tail -3 "$TMP/err")"
expect_grep "^    command: /bin/bash $PWD/train\.sh \{batch\}$" "$bdir/baseline.yaml" \
  "its baseline is the command's tune --cmd configuration"
expect_grep "^  round  1 .*A/A [a-zA-Z]+ +now/base (0\.99[89]|1\.00[0-2]) .*\| slowed [a-zA-Z]+ +0\.(49[89]|50[0-2]) " \
  "$TMP/out" "the check's preload reaches the command's processes: slowed 0.50, A/A 1.00"
bad="$(same_counts 1 "$bdir/r01-aa.yaml")$(same_counts 2 "$bdir/r01-slowed.yaml")"
[ -z "$bad" ] && grep -q "^  verdicts: " "$TMP/out" && ok "the verdicts it counts are the checks' YAMLs'" ||
  not_ok "the verdicts it counts are the checks' YAMLs'" "$bad"
# its line per workload (the command's points are one): "A U S R", the A/A
# check with a regression among them (0 or 1), their unchanged percent, the
# slowed check with one, their regression percent (likely ones and points no
# longer running count: verdict.h), as the YAMLs give them;
# and the slowdown its points saw, half the rate: 50% slower
group_want() { # AA_YAML SLOWED_YAML
  awk 'FNR == 1 { f++ } /^  verdict: / { n[f]++; u[f] += $2 == "unchanged"
         r[f] += $2 == "regression" || $2 == "likely_regression" || $2 == "infeasible" }
       END { printf "%d %.0f %d %.0f\n", (r[1] > 0), n[1] ? 100 * u[1] / n[1] : 0, (r[2] > 0),
               n[2] ? 100 * r[2] / n[2] : 0 }' "$1" "$2"
}
got=$(sed -En 's/^  command +A\/A +([0-9]+) of +1 .*, unchanged +([0-9]+)% \| slowed +([0-9]+) of +1 .*, regression +([0-9]+)%, seen (49\.[89]|50\.[0-2])% slower$/\1 \2 \3 \4/p' "$TMP/out")
want=$(group_want "$bdir/r01-aa.yaml" "$bdir/r01-slowed.yaml")
[ -n "$got" ] && [ "$got" = "$want" ] && ok "its line per workload counts the YAMLs' verdicts ($got)" ||
  not_ok "its line per workload counts the YAMLs' verdicts" "the line: '$got', the YAMLs: '$want'" \
    "$(grep -A3 '^by workload' "$TMP/out")"
rm -rf "$bdir"
bench_check --slow-env FAKE_SLOW=1
expect_grep "^  round  1 .*\| slowed [a-zA-Z]+ +0\.(69[89]|70[0-2]) " "$TMP/out" \
  "--slow-env: the slowed check's environment reaches the command (0.70)"
expect_grep "^  slowed: the environment FAKE_SLOW=1, " "$TMP/out" "and is named"
rm -rf "$bdir"
# --space without --cmd: the tune's space for the workload it names, so that a
# baseline can hold the transformer in fp32, which a tune of the default space
# leaves for bf16 on a CPU that has it
cp "$SRC/bench/space-transformer-fp32.yaml" fp32.yaml # relative: bench_check runs elsewhere
"$BUILD_DIR/bench/bench_check" --workloads transformer --space fp32.yaml \
  --tune-seconds 6 --budget 6 --rounds 1 --minutes 0 --no-ab >"$TMP/out" 2>"$TMP/err"
brc=$? bdir=$(sed -n 's/.*every check.s YAML is in \([^ ]*\) .*/\1/p' "$TMP/out")
precs=$(sed -n 's/^  point: {backend: [a-z]*, precision: \([a-z0-9]*\),.*/\1/p' "$bdir/r01-aa.yaml" | sort -u)
[ "$brc" -eq 0 ] && [ "$precs" = fp32 ] && ok "bench_check --space: the workload's baseline is in the space (fp32 alone)" ||
  not_ok "bench_check --space: the workload's baseline is in the space (fp32 alone)" "exit $brc, precisions '$precs'" \
    "$(tail -3 "$TMP/err")"
expect_grep "^  transformer fp32 +A/A +[01] of +1 " "$TMP/out" "  and its line per workload is transformer fp32"
rm -rf "$bdir"
expect_exit 2 "bench_check: --space with two workloads (a space is one workload's)" \
  "$BUILD_DIR/bench/bench_check" --workloads gemm,transformer --space fp32.yaml
expect_exit 2 "bench_check: --space that is not there" "$BUILD_DIR/bench/bench_check" \
  --workloads transformer --space missing.yaml
expect_grep "^bench_check: --space missing\.yaml: No such file or directory$" "$TMP/err" "  naming the file and why"
expect_exit 2 "bench_check: --cmd without --metric" "$BUILD_DIR/bench/bench_check" --cmd "$BCMD"
echo "1..$n"
