#!/usr/bin/env bash
# rigtune crossover: replays with known answers, bad CSVs, plots, a small live sweep.
# beside: others (replays of given curves; the live sweep must run and save, its figures are not asserted)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
D=tests/data

expect_exit 0 "crossover --help" $R crossover --help
expect_exit 0 "replay with a crossover at n=293" $R crossover --replay $D/replay_cross.csv
expect_grep "kind: in_range" "$TMP/out" "the crossover is in the measured range"
nstar=$(sed -n 's/^    n_star: //p' "$TMP/out")
if awk -v n="$nstar" 'BEGIN { exit !(n > 263.7 && n < 322.3) }'; then ok "n* = $nstar is within 10% of 293"; else not_ok "n* within 10% of 293" "got '$nstar'"; fi
expect_grep "faster_above: gpu/fp32" "$TMP/out" "the GPU takes over above n*"
expect_grep "ci95: \[[0-9.]+, [0-9.]+\]" "$TMP/out" "n* has a bootstrap CI"

expect_exit 0 "replay with an outlier" $R crossover --replay $D/replay_outlier.csv
expect_grep "outliers: \[\[256, " "$TMP/out" "the outlier at n=256 is flagged"
expect_exit 0 "parallel curves" $R crossover --replay $D/replay_parallel.csv
expect_grep "kind: none" "$TMP/out" "parallel curves do not cross"
expect_grep "no crossover in range: gpu/fp32 wins" "$TMP/out" "and the winner is named"
expect_exit 0 "crossover outside the measured range" $R crossover --replay $D/replay_extrap.csv
expect_grep "kind: extrapolated" "$TMP/out" "it is flagged as extrapolated"

expect_exit 0 "model translation from a replay" $R crossover --replay $D/replay_cross.csv --shape seq_len=60,d_model=768
expect_grep "min_batch: [0-9]+" "$TMP/out" "the smallest batch is given"

# Two threads that win only at small sizes (1t: 2e-5 + 4e-11 n^3, 2t: 1e-6 + 6e-11 n^3, equal
# at n = 98): said so, not "never beat".
awk 'BEGIN { print "backend,precision,n,seconds"
  for (e = 10; e <= 22; e++) { n = int(2 ^ (e / 2) + 0.5); for (r = -1; r <= 1; r++) {
    printf "cpu:1t,fp32,%d,%.6e\n", n, (2e-5 + 4e-11 * n ^ 3) * (1 + 0.01 * r)
    printf "cpu:2t,fp32,%d,%.6e\n", n, (1e-6 + 6e-11 * n ^ 3) * (1 + 0.01 * r) } } }' >"$TMP/small_threads.csv"
expect_exit 0 "threads that pay only at small sizes" $R crossover --replay "$TMP/small_threads.csv"
expect_grep "summary: 2 threads beat 1 thread only below n=(9[3-9]|10[0-3])$" "$TMP/out" "they are said to beat 1 thread only below n*"

for f in missing_column:2 negative_time:5 nonnumeric:7 single_point:3 zero_time:9; do
  name=${f%%:*} line=${f##*:}
  expect_exit 2 "bad replay ($name) exits 2" $R crossover --replay $D/bad_$name.csv
  expect_grep "bad_$name.csv:$line: " "$TMP/err" "bad replay ($name) names line $line"
done
expect_exit 2 "missing replay file" $R crossover --replay "$TMP/none.csv"
expect_exit 2 "--shape with an unknown key" $R crossover --shape seq_len=60,heads=x
expect_exit 2 "--precision unknown" $R crossover --precision fp7
expect_exit 2 "--backend unknown" $R crossover --backend tpu
# a list longer than rigtune takes is refused whole, never cut short (600 characters)
long=$(printf 'seq_len=60,%.0s' $(seq 60) | head -c 600)
expect_exit 2 "--shape of 600 characters" $R crossover --shape "$long"
expect_grep "^rigtune crossover: --shape: longer than 512 characters \(600\)$" "$TMP/err" "the message names --shape and its limit"
expect_exit 2 "an empty item of --backend" $R crossover --backend cpu,,cpu
expect_grep "--backend: empty item 2 in 'cpu,,cpu'" "$TMP/err" "the message names --backend and the item"
expect_exit 2 "an empty item of --precision" $R crossover --precision fp32,
expect_grep "--precision: empty item 2" "$TMP/err" "the message names --precision"

PATH=/usr/bin:/bin expect_exit 0 "plot" $R crossover --replay $D/replay_cross.csv --plot "$TMP/xo.svg" -o "$TMP/xo.yaml"
if command -v gnuplot >/dev/null; then
  [ -s "$TMP/xo.svg" ] && ok "the svg is drawn" || not_ok "the svg is drawn"
  [ ! -e "$TMP/xo.gp" ] && [ ! -e "$TMP/xo.dat" ] && ok "  and nothing beside it (the script ran from memory)" \
    || not_ok "  and nothing beside it (the script ran from memory)" "$(ls "$TMP")"
fi
PATH=/nonexistent expect_exit 0 "plot without gnuplot" $R crossover --replay $D/replay_cross.csv --plot "$TMP/xo2.svg" -o "$TMP/xo.yaml"
expect_grep "gnuplot not installed: wrote .*xo2.gp; run gnuplot" "$TMP/err" "without gnuplot it says what it wrote"
expect_grep "set logscale xy" "$TMP/xo2.gp" "the gnuplot script has log axes"
expect_grep '^\$d0 << EOD$' "$TMP/xo2.gp" "  and its data inline"
[ ! -e "$TMP/xo2.dat" ] && ok "  and no data file" || not_ok "  and no data file"
expect_grep "n_star" "$TMP/xo.yaml" "-o holds the result"

expect_exit 0 "a small live sweep" $R crossover --backend cpu --max-n 128 --seconds 0.05 --quiet --save "$TMP/s.csv"
expect_grep "backend: cpu:" "$TMP/out" "the CPU curve is fitted"
expect_grep "^backend,precision,n,seconds" "$TMP/s.csv" "--save writes a replay"
expect_exit 0 "the saved sweep replays" $R crossover --replay "$TMP/s.csv"
