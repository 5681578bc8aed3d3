#!/usr/bin/env bash
# One configuration per host, many tunes: as the README has a new user do it
# (a tune of the machine, then `tune --cmd` on their own training), the second
# tune adds its recommendation to configs/<host>.yaml and keeps the first's,
# each with its own time, fingerprint and journal; env and check see both; a
# kept entry of another fingerprint keeps it; --replace writes one tune alone;
# a file that cannot be merged is exit 2 before anything is measured.
# beside: others (merged files and their fields; no figure)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1
R=$RIGTUNE
SRC=$PWD
PY=/usr/bin/python3
if [ ! -x $PY ]; then echo "1..0 # SKIP no $PY for the fake training script"; exit 0; fi
cd "$TMP" || exit 1   # results/ and configs/ land here
CFG=configs/$(hostname).yaml

# entry FILE NAME: the lines of recommendations.NAME
entry() { awk -v e="  $2:" '$0 == e { on = 1; next } on && /^  [^ ]/ { exit } on' "$1"; }

printf 'workload: gemm\nparams:\n  backend: [cpu]\n  precision: [fp32]\n  threads: [1]\n  pin: [compact]\n' >g.space
GEMM="tune --workload gemm --backend cpu --no-crossover --space g.space --budget 6 --quiet"
printf 'workload: command\nparams:\n  batch: [8, 16]\n  threads: [1]\n  blas_threads: [1]\n' >c.space
CMD="tune --cmd '$PY $SRC/tests/fake_train.py --batch {batch} --steps 6' --metric 'rate ([0-9.]+)'"
CMD="$CMD --space c.space --budget 10 --quiet"

expect_exit 0 "a tune of the machine (gemm) writes $CFG" $R $GEMM
first_journal=$(ls results/*.yaml)
expect_exit 0 "then tune --cmd on the user's training" eval "$R $CMD"
expect_grep "^  gemm:$" "$CFG" "the configuration still holds gemm's recommendation"
expect_grep "^  command:$" "$CFG" "and the command's beside it"
entry "$CFG" gemm >gemm.entry
entry "$CFG" command >command.entry
fp=$(sed -n "s/^  fingerprint: '\{0,1\}\([0-9a-f]*\)'\{0,1\}$/\1/p" "$CFG" | head -1)
expect_grep "^    tuned: \{at: '?[0-9T:-]+Z'?, fingerprint: '?$fp'?, journal: $first_journal\}$" \
  gemm.entry "gemm keeps its own tune: time, fingerprint and journal"
second_journal=$(ls results/*.yaml | grep -v "^$first_journal$" | grep -v crossover | head -1)
expect_grep "journal: $second_journal\}$" command.entry "the command names its own journal"
expect_grep "^      point: \{backend: cpu, precision: fp32" gemm.entry \
  "gemm's recommended point is as the first tune wrote it"

expect_exit 0 "env --workload gemm" $R env --workload gemm
expect_grep "OPENBLAS_NUM_THREADS=" "$TMP/out" "env gives gemm's variables"
expect_exit 0 "env --workload command" $R env --workload command
expect_grep "OMP_NUM_THREADS=1" "$TMP/out" "and the command's"

$R check --baseline "$CFG" --budget 20 -o chk.yaml >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -le 1 ] && ok "check --baseline $CFG runs (exit $rc)" ||
  not_ok "check --baseline $CFG runs" "exit $rc" "$(head -c 400 "$TMP/err")"
expect_grep "^- workload: gemm$" chk.yaml "check measures gemm's points again"
expect_grep "^- workload: command$" chk.yaml "and the command's"

# a third tune of gemm replaces gemm's entry in its place and keeps the command's
expect_exit 0 "gemm tuned again" $R $GEMM
grep -n "^  [a-z]*:$" "$CFG" | sed -n '/gemm\|command/p' >order
expect_grep "^[0-9]+:  gemm:$" order "gemm is replaced in place"
[ "$(grep -c '^  gemm:$' "$CFG")" = 1 ] && ok "once" || not_ok "gemm once" "$(cat order)"
entry "$CFG" command >command2.entry
cmp -s command.entry command2.entry && ok "the command's entry is kept as it was" ||
  not_ok "the command's entry kept" "$(diff command.entry command2.entry | head -5)"

# an entry of another machine (a fingerprint from before an upgrade) keeps its fingerprint;
# an entry of an older configuration (no tuned:) gets the document's
sed -i "/^  command:$/,/^  [^ ]/ s/fingerprint: '\{0,1\}$fp'\{0,1\}/fingerprint: 00000000deadbeef/" "$CFG"
expect_exit 0 "gemm tuned again over a command tuned on another fingerprint" $R $GEMM
expect_grep "^    tuned: \{.*fingerprint: 00000000deadbeef" <(entry "$CFG" command) \
  "the command keeps its own fingerprint"
expect_grep "^    tuned: \{.*fingerprint: '?$fp'?," <(entry "$CFG" gemm) "gemm has this machine's"
expect_exit 2 "check of it: its trials are in no journal of that fingerprint" \
  $R check --baseline "$CFG" --budget 10 -o chk2.yaml
expect_grep "recommended point of command is in none of the journals" "$TMP/err" \
  "the message says which entry's trials are missing"

sed -i '/^    tuned: /d' "$CFG"
sed -i "s/^  fingerprint: '\{0,1\}$fp'\{0,1\}$/  fingerprint: 0123456789abcdef/" "$CFG"
expect_exit 0 "tune --cmd over a configuration whose entries have no tuned:" eval "$R $CMD"
expect_grep "^    tuned: \{.*fingerprint: '?0123456789abcdef'?" <(entry "$CFG" gemm) \
  "gemm takes the old document's fingerprint"
expect_grep "^    tuned: \{.*fingerprint: '?$fp'?," <(entry "$CFG" command) \
  "the command is this tune's"

expect_exit 0 "--replace writes this tune alone" $R $GEMM --replace
[ "$(grep -c '^  command:$' "$CFG")" = 0 ] && ok "the command's entry is gone" ||
  not_ok "--replace" "$(grep -n '^  [a-z]*:$' "$CFG")"

# bad input: exit 2 with file and line, before measuring, the file unchanged
cp "$CFG" good.yaml
printf 'rigtune: 1\nmachine: [\n' >"$CFG"
cp "$CFG" bad.yaml
nres=$(ls results | wc -l)
expect_exit 2 "a configuration that is not YAML" $R $GEMM
expect_grep "$CFG:[0-9]+:[0-9]+: .*--replace writes over it" "$TMP/err" \
  "the message names the file, line and column, and --replace"
cmp -s "$CFG" bad.yaml && ok "the file is left as it was" || not_ok "file unchanged"
[ "$(ls results | wc -l)" = "$nres" ] && ok "nothing was measured" || not_ok "no journal" "$(ls results)"
sed 's/^  hostname: .*/  hostname: another-host/' good.yaml >"$CFG"
expect_exit 2 "the configuration of another host" $R $GEMM
expect_grep "is the configuration of host another-host" "$TMP/err" "says whose it is"

expect_exit 0 "a tune to -o /dev/null: no configuration there to add to" $R $GEMM -o /dev/null
echo "1..$n"
