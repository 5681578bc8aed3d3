#!/usr/bin/env bash
# rigtune report: pages from fixtures with known figures (tests/data/report, made by
# gen_report.py), pages with nothing to chart, bad input, a real tune's page, and the
# pages loaded in headless Chromium (screenshot not blank, every chart in the DOM).
# tier: integration (Chromium draws the page)
# beside: others (pages and their fields; its tune is asserted to have written one, not its figures)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
D=tests/data/report
PY=/usr/bin/python3

# ---- pages from the fixtures ----

expect_exit 0 "report --help" $R report --help
expect_grep "--check FILE" "$TMP/out" "the help names --check"

expect_exit 3 "without gnuplot: exit 3" env PATH=/nonexistent $R report --config $D/gpubox.yaml -o "$TMP/nognuplot.html"
expect_grep "gnuplot is not installed" "$TMP/err" "and it says gnuplot is missing"
[ ! -e "$TMP/nognuplot.html" ] && ok "and writes no page" || not_ok "no page without gnuplot"

G=$TMP/gpubox.html
expect_exit 0 "gpubox: configuration, two journals, a crossover, a check" \
  $R report --config $D/gpubox.yaml --check $D/check.yaml -o "$G"

well_formed() { # FILE DESC: parses as XML, every id once, nothing outside the file
  if $PY - "$1" <<'EOF'
import collections, re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ids = collections.Counter(e.get("id") for e in root.iter() if e.get("id"))
dup = [i for i, n in ids.items() if n > 1]
text = open(sys.argv[1]).read()
ext = re.findall(r"https?:|src=|url\([^#]|@import|xlink|href=\"[^#]", text)
sys.exit("duplicate ids %s; external references %s" % (dup[:5], ext[:5]) if dup or ext else 0)
EOF
  then ok "$2: well-formed XML, unique ids, no external reference"
  else not_ok "$2: well-formed XML, unique ids, no external reference"; fi
}
well_formed "$G" gpubox

charts_gpubox="gemm-throughput gemm-phases transformer-throughput transformer-phases ppo-throughput ppo-phases crossover threads check"
for c in $charts_gpubox; do
  expect_grep "<figure class=\"chart\" id=\"chart-$c\"" "$G" "gpubox: chart-$c is drawn"
done
n_svg=$(grep -c '<svg class="chart"' "$G")
[ "$n_svg" -eq 9 ] && ok "gpubox: 9 inline SVG charts" || not_ok "gpubox: 9 inline SVG charts" "$n_svg"
# the figures the fixtures were made with (gen_report.py)
expect_grep ">device busy 72%<" "$G" "transformer's knee reads 72% busy on the GPU"
expect_grep ">compute \+ update 94%<" "$G" "its naive default on the CPU: compute + update 94%"
expect_grep ">device busy 30%<" "$G" "ppo's knee, rollout-bound, reads 30% busy"
expect_grep ">data / env 62%<" "$G" "because 62% of each iteration steps environments"
expect_grep "GPU utilization monitor reads it <strong>30% busy</strong>" "$G" "and the words say so"
expect_grep ">n\* = 259 \(95% CI 257 to 261\)<" "$G" "n* and its CI are marked on the crossover"
expect_grep ">8 threads pay from n = 80<" "$G" "and the thread crossover"
expect_grep "<strong>memory</strong>: needs 26.1 GiB, 23.6 available" "$G" "the infeasible trial is listed with its cause and reason"
expect_grep "21 points measured; <span class=\"flag\">1 unstable</span>" "$G" "the unstable transformer trial is counted"
expect_grep ">knee \(recommended\)<" "$G" "the knee is marked"
expect_grep ">fastest<" "$G" "and the fastest point"
expect_grep ">naive default<" "$G" "the naive default has its bar"
n_legend=$(sed -n '/id="chart-transformer-throughput"/,/<\/figure>/p' "$G" | grep -o '<li><span class="g line"' | wc -l)
[ "$n_legend" -eq 4 ] && ok "transformer: one line per setting (4)" || not_ok "transformer: 4 lines" "$n_legend"
expect_grep "6 points measured\." "$G" "gemm's trials come from the older journal the run reused"
expect_grep "1 trial measured on another machine" "$G" "the trial of another fingerprint is left out, and said"
expect_grep "<span class=\"pill ok\">available</span></td><td>NVIDIA GeForce RTX 4090" "$G" "the GPU is listed as available"
expect_grep "no librigtune_hip.so beside the binary" "$G" "and HIP with why it is not"
expect_grep "<code>blas.core</code></td><td>Haswell</td><td>SkylakeX" "$G" "the check's machine diff"
expect_grep ">-7.7% \(-8.6 to -6.8\)<" "$G" "the check's change with its CI"
expect_grep ">did not run</span> \(memory\)<" "$G" "a point infeasible now, with its cause"
expect_grep ">regression</span> &#160; 1 unchanged &#160; 1 regression &#160; 1 improvement &#160; 1 infeasible &#160; 1 inconclusive &#160; 1 likely_regression<" "$G" "the check's result and its counts"

T=$TMP/tiny.html
expect_exit 0 "tiny: only infeasible trials, no GPU, no crossover" $R report --config $D/tiny.yaml -o "$T"
well_formed "$T" tiny
expect_grep "id=\"nochart-transformer-throughput\">No trial of transformer ran: every point" "$T" "a sentence where the throughput chart would be"
expect_grep "id=\"nochart-transformer-phases\"" "$T" "and where the phases would be"
for cause in memory crash timeout; do
  expect_grep "<strong>$cause</strong>: " "$T" "the $cause failure is listed"
done
expect_grep "no feasible point: every trial failed" "$T" "the configuration's 'none' is shown"
expect_grep "id=\"nochart-crossover\"" "$T" "no crossover: a sentence"
expect_grep "No GPU backend is available on this machine \(cuda: cudaGetDeviceCount" "$T" "no GPU: said, with why"
grep -q '<svg' "$T" && not_ok "tiny has no chart" || ok "tiny has no chart"

# a machine: section the machine's reader refuses: still a page, its problem where the machine is
sed '11s/^    cores: 2$/    cores: many/' $D/tiny.yaml >"$TMP/manycores.yaml"
M=$TMP/manycores.html
expect_exit 0 "a machine with cores: many still makes a page" $R report --config "$TMP/manycores.yaml" -o "$M"
well_formed "$M" manycores
expect_grep "The configuration's machine section cannot be read: <code>$TMP/manycores.yaml:11:12: machine: cores: expected a whole number from -1 to 16777216</code>" \
  "$M" "the machine's place says the section's problem, at its line and column"
expect_grep "no feasible point: every trial failed" "$M" "and the rest of the page is there"

S=$TMP/single.html
expect_exit 0 "single: one trial" $R report --config $D/single.yaml -o "$S"
well_formed "$S" single
expect_grep "id=\"chart-gemm-throughput\"" "$S" "one point still gets its chart"
expect_grep "id=\"chart-gemm-phases\"" "$S" "and its phase split"
expect_grep "1 point measured\." "$S" "1 point measured"
expect_grep "The naive default, an untuned run \(cpu fp32, 2 threads, pin none\), has no trial" "$S" "the naive default not measured is said"

X=$TMP/xo.html
expect_exit 0 "--crossover fits a CSV" $R report --config $D/single.yaml --crossover $D/gpubox-20260101-120000-crossover.csv -o "$X"
expect_grep "id=\"chart-crossover\"" "$X" "its crossover is drawn"
expect_grep ">n\* = 259 " "$X" "with the same n* as the configuration's analysis"
expect_grep "the observations in $D/gpubox-20260101-120000-crossover.csv, fitted here" "$X" "and says where the fits come from"

J=$TMP/journal.html
expect_exit 0 "a journal alone" $R report --journal $D/tiny-20260102-100000.yaml -o "$J"
expect_grep "No configuration was given" "$J" "it says there is no configuration"
expect_grep "<strong>crash</strong>" "$J" "and still lists the trials"

# ---- bad input: exit 2, the message names the file, -o is left alone ----

O=$TMP/keep.html
bad() { # DESC PATTERN ARGS...
  local desc=$1 pat=$2; shift 2
  echo KEEP >"$O"
  expect_exit 2 "$desc: exit 2" $R report "$@" -o "$O"
  expect_grep "$pat" "$TMP/err" "$desc: the message names it"
  [ "$(cat "$O")" = KEEP ] && ok "$desc: -o untouched" || not_ok "$desc: -o untouched"
}
printf 'rigtune: 1\nmachine: {hostname: x\n' >"$TMP/malformed.yaml"
sed 's/^  journal: .*/  journal: results\/nowhere-20200101-000000.yaml/' $D/single.yaml >"$TMP/lostjournal.yaml"
sed 's/^  verdict: improvement/  verdict: faster/' $D/check.yaml >"$TMP/badverdict.yaml"
bad "missing configuration" "$TMP/none.yaml: cannot read the configuration" --config "$TMP/none.yaml"
bad "malformed configuration" "malformed.yaml:[0-9]+:[0-9]+: malformed YAML" --config "$TMP/malformed.yaml"
bad "a journal given as the configuration" "tiny-20260102-100000.yaml: not a configuration but a results journal: give it with --journal" --config $D/tiny-20260102-100000.yaml
bad "a configuration given as a journal" "tiny.yaml:1:1: " --journal $D/tiny.yaml
bad "a configuration naming a missing journal" "lostjournal.yaml:[0-9]+:[0-9]+: search.journal: cannot read" --config "$TMP/lostjournal.yaml"
bad "a configuration given as the check" "gpubox.yaml:1:1: not a check result \(it is a configuration" --config $D/single.yaml --check $D/gpubox.yaml
bad "a check with an unknown verdict" "badverdict.yaml:[0-9]+:[0-9]+: verdict: 'faster' is none of" --config $D/single.yaml --check "$TMP/badverdict.yaml"
bad "a malformed crossover CSV" "bad_nonnumeric.csv:7: " --config $D/single.yaml --crossover tests/data/bad_nonnumeric.csv
bad "an unknown option" "unknown option '--colour'" --colour

# ---- a real tune, then the default report ----

E=$TMP/e2e
mkdir -p "$E"
printf 'workload: gemm\nparams:\n  backend: [cpu]\n  precision: [fp32]\n  threads: {min: 1, max: auto}\n  pin: [compact]\n' >"$E/g.space"
(cd "$E" && RIGTUNE_CONTENTION_LIMIT=1 $R tune --workload gemm --backend cpu \
  --space g.space --budget 20 --quiet >/dev/null 2>"$E/tune.err")
# the page lists the search's trials, not those the tune measured again for a check (role again)
ntr=$(($(cd "$E" && cat results/*.yaml | grep -c '^workload: gemm') - $(cd "$E" && cat results/*.yaml | grep -c '^role: again')))
cfg="$E/configs/$(uname -n).yaml"
journal=$(sed -n 's/^  journal: //p' "$cfg")
csv=$(sed -n 's/^  replay: //p' "$cfg")
[ -n "$csv" ] && [ "$csv" = "${journal%.yaml}-crossover.csv" ] && [ -f "$E/$csv" ] \
  && ok "the configuration's crossover.replay names the sweep saved beside the journal ($csv)" \
  || not_ok "crossover.replay beside the journal" "replay: '$csv', journal: '$journal'" "$(ls "$E/results")"
# every row parses: four fields, a curve label, n and seconds > 0; and rigtune reads it back
nrows=$($PY - "$E/$csv" <<'EOF'
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
assert lines[0] == "backend,precision,n,seconds", lines[0]
for l in lines[1:]:
    be, prec, n, sec = l.split(",")
    assert be.startswith("cpu:") and prec == "fp32" and float(n) > 0 and float(sec) > 0, l
print(len(lines) - 1)
EOF
)
[ "${nrows:-0}" -ge 6 ] && ok "its $nrows observations parse" || not_ok "the sweep's rows parse" "$nrows"
expect_exit 0 "and crossover --replay fits them" $R crossover --replay "$E/$csv"
naive=$(cd "$E" && grep -A2 '^role: naive$' "$journal" | sed -n 's/^point: //p')
cores=$(sed -n 's/^    usable_cores: //p' "$cfg")
[ "$naive" = "{backend: cpu, precision: fp32, batch: 32, threads: $cores, workers: 0, pin: none}" ] \
  && ok "the journal has the naive default's trial" || not_ok "the naive default's trial" "$naive"
grep -q "pin: none" "$cfg" && not_ok "the naive default is not in the recommendation" "$(grep -n 'pin: none' "$cfg")" \
  || ok "the naive default is not in the recommendation"
(cd "$E" && $R report -o report.html >"$E/out" 2>"$E/err")
rc=$?
[ $rc -eq 0 ] && ok "after tune, 'report -o FILE' reads the default configuration" || not_ok "report after tune" "exit $rc" "$(head -c 300 "$E/err")"
well_formed "$E/report.html" "the tuned page"
expect_grep "id=\"chart-gemm-throughput\"" "$E/report.html" "the tuned page draws gemm's chart"
expect_grep "$ntr points? measured" "$E/report.html" "with every trial of the journal ($ntr)"
expect_grep "report written to report.html" "$E/err" "and says where it wrote the page"
expect_grep "<p class=\"observations\">The dots are the sweep's $nrows observations, from $csv\.</p>" \
  "$E/report.html" "the crossover has the sweep's $nrows observations"
# each observation is a dot of the chart (gnuplot's point type 7: the symbol gpPt6)
ndots=$(sed -n '/id="chart-crossover"/,/<\/figure>/p' "$E/report.html" | grep -o "href='#c[0-9]*-gpPt6'" | wc -l)
[ "$ndots" -eq "$nrows" ] && ok "and draws a dot for each ($ndots)" || not_ok "a dot per observation" "$ndots dots, $nrows rows"
(cd "$E" && $R report --journal "$journal" -o journal.html >/dev/null 2>&1)
phases=$(sed -n '/id="chart-gemm-phases"/,/<\/figure>/p' "$E/journal.html")
grep -q ">naive default<" <<<"$phases" && grep -q ">fastest measured<" <<<"$phases" \
  && ok "a journal alone: its trial marked role: naive is the naive default's bar" \
  || not_ok "a journal alone: the marked naive trial" "$(grep -o 'The naive default[^<]*' "$E/journal.html")"
phases=$(sed -n '/id="chart-gemm-phases"/,/<\/figure>/p' "$E/report.html")
grep -q ">naive default<" <<<"$phases" && grep -q ">recommended<" <<<"$phases" \
  && ok "the phase chart has the naive default's bar beside the recommended one" \
  || not_ok "the naive default's bar" "$(head -c 300 <<<"$phases")"

# the real check's YAML, as `check` writes it today, is what report reads
(cd "$E" && $R check --baseline "configs/$(uname -n).yaml" --budget 4 --quiet -o check.yaml >/dev/null 2>&1)
crc=$?
[ $crc -le 1 ] && ok "check of the tuned configuration (exit $crc)" || not_ok "check of the tuned configuration" "exit $crc"
result=$(sed -n 's/^result: //p' "$E/check.yaml")
(cd "$E" && $R report --check check.yaml -o checked.html >/dev/null 2>"$E/err2")
rc=$?
[ $rc -eq 0 ] && ok "report --check reads check's own YAML" || not_ok "report --check reads check's own YAML" "exit $rc" "$(head -c 300 "$E/err2")"
expect_grep "<section class=\"card\" id=\"check\">" "$E/checked.html" "the page has the check's section"
expect_grep "class=\"verdict\" style=\"background:#[0-9a-f]{6}\">$result</span>" "$E/checked.html" "with the check's result ($result)"
expect_grep "id=\"(no)?chart-check\"" "$E/checked.html" "and its chart, or why there is none"

# a resumed run sweeps again: its observations get a new name, the first sweep's are kept
sum=$(md5sum <"$E/$csv")
(cd "$E" && RIGTUNE_CONTENTION_LIMIT=1 $R tune --workload gemm --backend cpu --space g.space \
  --budget 8 --resume --quiet -o resumed.yaml >/dev/null 2>"$E/resume.err")
csv2=$(sed -n 's/^  replay: //p' "$E/resumed.yaml")
[ "$csv2" = "${journal%.yaml}-crossover-2.csv" ] && [ -f "$E/$csv2" ] && [ "$(md5sum <"$E/$csv")" = "$sum" ] \
  && ok "a resumed tune saves its sweep as $csv2 and leaves $csv as it was" \
  || not_ok "the resumed sweep under a new name" "replay: '$csv2'" "$(ls "$E/results")" "$(head -c 300 "$E/resume.err")"

# ---- a tune of the user's command (tune --cmd): its card, no chart (issue 32: it crashed) ----
C=$TMP/cmd SRC=$PWD
mkdir -p "$C"
printf 'workload: command\nparams:\n  batch: [8, 16]\n' >"$C/space.yaml"
(cd "$C" && $R tune --cmd "$PY $SRC/tests/fake_train.py --batch {batch} --steps 4" \
  --metric 'rate ([0-9.]+)' --space space.yaml --name fake --budget 10 --quiet -o cfg.yaml \
  >/dev/null 2>"$C/tune.err")
cjournal=$(ls "$C"/results/*.yaml 2>/dev/null | head -1)
[ -f "$C/cfg.yaml" ] && [ -n "$cjournal" ] && ok "tune --cmd wrote a configuration and a journal" ||
  not_ok "tune --cmd wrote a configuration and a journal" "$(head -c 300 "$C/tune.err")"
expect_exit 0 "report of a tune --cmd configuration" $R report --config "$C/cfg.yaml" -o "$C/cfg.html"
expect_grep "fake is a command of yours, not a built-in workload" "$C/cfg.html" "  its card says what it is"
expect_grep "444\.4" "$C/cfg.html" "  with its recommendation's rate (batch 16: 444.4)"
expect_exit 0 "report of a tune --cmd journal alone" $R report --journal "$cjournal" -o "$C/journal.html"
expect_grep "No configuration was given" "$C/journal.html" "  a page without a configuration"

# ---- in a browser ----

if ! command -v chromium >/dev/null; then
  for what in "gpubox DOM" "gpubox screenshot" "tiny DOM" "tiny screenshot" "tuned DOM" \
              "tuned screenshot" "tuned observations and naive bar in the DOM"; do
    n=$((n + 1)); echo "ok $n # SKIP chromium is not installed ($what)"
  done
  exit 0
fi
chrome() { # MODE(--dump-dom|--screenshot=FILE) PAGE
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d -p "$TMP")" --window-size=1280,1600 "$1" "file://$2" 2>/dev/null
}
in_browser() { # NAME PAGE MIN_ORANGE IDS...
  local name=$1 page=$2 orange=$3; shift 3
  chrome --dump-dom "$page" >"$TMP/$name.dom"
  local missing=""
  for id in "$@"; do grep -q "id=\"$id\"" "$TMP/$name.dom" || missing="$missing $id"; done
  if [ -s "$TMP/$name.dom" ] && [ -z "$missing" ]; then ok "$name: every chart is in the browser's DOM ($#)"
  else not_ok "$name: every chart in the DOM" "missing:$missing"; fi
  chrome --screenshot="$TMP/$name.png" "$page" >/dev/null
  # width height colours non-white-per-mille pixels-near-the-series-orange
  read -r w h colours nonwhite near < <($PY tests/cli/png_stats.py "$TMP/$name.png" f28e2b)
  if [ "${colours:-0}" -gt 64 ] && [ "${nonwhite:-0}" -gt 100 ] && [ "${near:-0}" -ge "$orange" ]; then
    ok "$name: the screenshot is not blank ($colours colours, $nonwhite per mille not white, $near orange)"
  else not_ok "$name: the screenshot is not blank" "${w}x$h, $colours colours, $nonwhite per mille not white, $near orange"; fi
}
ids=""
for c in $charts_gpubox; do ids="$ids chart-$c"; done
in_browser gpubox "$G" 300 machine $ids
in_browser tiny "$T" 0 machine nochart-transformer-throughput nochart-crossover
in_browser tuned "$E/report.html" 0 machine chart-gemm-throughput chart-gemm-phases chart-crossover
grep -q "The dots are the sweep's $nrows observations" "$TMP/tuned.dom" && grep -q ">naive default<" "$TMP/tuned.dom" \
  && ok "tuned: the browser's DOM has the crossover's observations and the naive default's bar" \
  || not_ok "tuned: observations and the naive bar in the DOM" "$(grep -o 'The dots[^<]*' "$TMP/tuned.dom")"
