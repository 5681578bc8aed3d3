#!/usr/bin/env bash
# tune --cmd tells its leaders apart before it picks: on a fake training script
# whose speed curve is known (tests/fake_train.py: batch 8/16/32/64 at 800, 889,
# 941, 970 a second) and whose runs are noisy (each run's luck, each step's: a
# seeded sequence), the points that may be the fastest or the knee are measured
# again, interleaved, until told apart; the knee (batch 32, within 5% of 64) is
# recommended, and the configuration says how many rounds it took. A run's fixed
# cost (two seconds before its first step, as an import of PyTorch) is predicted
# and the budget holds. The budgets are on the test clock (common/clock.h): the
# runs' fixed costs (--startup) are simulated, fake_train.py moves
# RIGTUNE_TEST_CLOCK's file on by them instead of sleeping, so each costs the
# budget its seconds and the test none, and where a budget stops is the same on
# any machine.
# beside: others (budgets on the test clock: the same on any machine, however busy)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1
R=$RIGTUNE
SRC=$PWD
PY=/usr/bin/python3
if [ ! -x $PY ]; then echo "1..0 # SKIP no $PY for the fake training script"; exit 0; fi
cd "$TMP" || exit 1
export RIGTUNE_TEST_CLOCK=$TMP/clock

printf 'workload: command\nparams:\n  batch: [8, 16, 32, 64]\n  threads: [1]\n  blas_threads: [1]\n' >s.yaml
# each run starts in 0.3 s (an interpreter's start), on the test clock
FAKE="$PY $SRC/tests/fake_train.py --batch {batch} --steps 10 --noise 0.06 --runs $TMP/runs"
FAKE="$FAKE --startup 0.3"
expect_exit 0 "tune --cmd on a noisy fake" $R tune --cmd "$FAKE" --metric 'rate ([0-9.]+)' \
  --space s.yaml --budget 60 -o c.yaml
cp "$TMP/err" progress
expect_grep "^      point: \{batch: 32," <(grep -A1 '^    recommended:' c.yaml) \
  "the knee, batch 32, is recommended"
expect_grep "^      point: \{batch: 64," <(grep -A1 '^    fastest:' c.yaml) "64 is the fastest"
leaders=$(sed -n 's/^    leaders: //p' c.yaml)
rounds=$(echo "$leaders" | sed -n 's/.*rounds: \([0-9]*\).*/\1/p')
[ "${rounds:-0}" -ge 2 ] && ok "the leaders were measured again ($leaders)" ||
  not_ok "leaders measured again" "leaders: $leaders"
expect_grep "separated: true" <(echo "$leaders") "and told apart"
expect_grep "reason: .*its [0-9]+ leaders measured again in $rounds interleaved rounds \([0-9]+ runs\): told apart" \
  <(tr -d '\n' <c.yaml | sed 's/  */ /g') "the reason says how many rounds and that they were told apart"
expect_grep "measuring its leaders again, interleaved" progress "the progress says so"
# interleaved: after the search's one run of each point, no point runs twice in a row
awk '/\(again\)$/ { sub(/.*command /, ""); sub(/:.*/, ""); print }' progress >again
uniq -d again >twice
[ -s again ] && [ ! -s twice ] && ok "the runs again are interleaved ($(wc -l <again) runs)" ||
  not_ok "interleaved" "$(head -5 twice)"
[ "$(grep -c 'batch=8 ' again)" = 0 ] && ok "batch 8, far below, never runs again" ||
  not_ok "batch 8 not again" "$(grep -c 'batch=8 ' again) runs"
[ "$(sed -n 's/^  trials: //p' c.yaml)" = 4 ] && ok "the runs again pool into the 4 trials" ||
  not_ok "4 trials" "$(sed -n 's/^  trials: //p' c.yaml)"

# a run that costs two seconds before its first step (an import of PyTorch): the
# fixed cost is measured from the first runs and counted in each run's predicted
# cost, and a run predicted past the budget is not started ("infeasible:
# predicted 2.1 s a run, 1.1 s left in the budget": the walk to the knee would
# have started it). The time asserted is the budget's own, on the test clock:
# the runs' two seconds, not the machine's speed, are what would overrun it.
rm -rf results runs clock
printf 'workload: command\nparams:\n  batch: [8, 16, 32, 64, 128, 256]\n  lr: [1, 2, 3, 4, 5]\n' >s2.yaml
printf '  threads: [1]\n  blas_threads: [1]\n' >>s2.yaml
SLOW="$PY $SRC/tests/fake_train.py --batch {batch} --lr {lr} --steps 4 --startup 2"
expect_exit 0 "tune --cmd whose runs take two seconds to start, 14 s budget" $R tune --cmd "$SLOW" \
  --metric 'rate ([0-9.]+)' --space s2.yaml --budget 14 -o slow.yaml
secs=$(sed -n 's/^  seconds: //p' slow.yaml)
awk -v s="$secs" 'BEGIN { exit !(s <= 14) }' && ok "the budget holds ($secs s of 14)" ||
  not_ok "budget" "$secs s of 14"
expect_grep "^    reason: " slow.yaml "and the configuration has a recommendation"
echo "1..$n"
