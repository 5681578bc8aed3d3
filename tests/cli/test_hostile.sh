#!/usr/bin/env bash
# Files written to hurt their reader (issue 32), without a database: a
# terminal escape in a string a file gives, a FIFO where a file is expected,
# a store password badly percent-encoded, a YAML document of millions of
# values, a command that prints millions of metric lines and a host journal
# over the read limit, a replay of thousands of curves. Each is bounded: a
# clear message and exit 2 (or a warning and the run goes on), in little
# memory, never a hang, a secret or an escape on the terminal. The store's
# own (a held lock, a check result pushed with escapes) are in test_store.sh.
# beside: others (messages, exit codes and bounds far from any timing)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
SRC=$PWD
cd "$TMP" || exit 1
ESC=$(printf '\033')

# no_escape FILE DESC: no ESC or BEL byte in FILE
no_escape() {
  if grep -q "[$ESC$(printf '\007')]" "$2"; then not_ok "$1" "$(cat -v "$2" | head -c 400)"; else ok "$1"; fi
}

# ---- a terminal escape in a workload name a journal gives ----
sed '19s/.*/workload: "\\e]0;PWNED\\a\\e[2J"/' "$SRC/tests/data/report/tiny-20260102-100000.yaml" >evil.yaml
expect_exit 2 "report of a journal naming an unknown workload" $R report --journal evil.yaml -o page.html
no_escape "its message carries no escape (retitle, clear) to the terminal" "$TMP/err"
expect_grep "unknown workload '\?\]0;PWNED\?\?\[2J'" "$TMP/err" "  the name is shown with '?' for each control character"

# ---- a FIFO where a file is read ----
mkfifo fifo
expect_exit 2 "check --baseline FIFO: exit 2, no hang" timeout 20 $R check --baseline fifo
expect_grep "cannot read fifo: not a regular file" "$TMP/err" "  saying it is not a regular file"

# ---- a store password in an error message ----
# A URL libpq cannot read whole is refused before anything (issue 47.6: it passed the
# password check, and fleet tune --print wrote the password into the sbatch script).
expect_exit 2 "store push to a URL whose password is badly percent-encoded" \
  $R store push --store 'postgresql://rt:Hunter2%zzSecret@/rt?host=/nonexistent' evil.yaml
! grep -qE 'Hunter2|Secret' "$TMP/err" && ok "  the password is not in the message" ||
  not_ok "  the password in the message" "$(cat "$TMP/err")"
expect_grep 'libpq cannot read it \(invalid percent-encoded token\); nothing of it is shown' "$TMP/err" \
  "  libpq's reason is, without what it quotes"
expect_exit 2 "a password= parameter" \
  $R store push --store 'postgresql:///rt?host=/nonexistent&password=Hunter2%zz' evil.yaml
! grep -q 'Hunter2' "$TMP/err" && ok "  is not in the message either" || not_ok "  password= shown" "$(cat "$TMP/err")"
# scontrol and sinfo as Slurm's name the node n1, so that --print writes its script here
mkdir -p fakebin && for c in scontrol sinfo; do printf '#!/bin/sh\necho n1\n' >fakebin/$c; done
chmod +x fakebin/*
expect_exit 0 "fleet tune --print with a URL libpq reads (the set-up)" \
  env PATH="$TMP/fakebin:$PATH" $R fleet tune --nodes n1 --store 'postgresql:///rt?host=/nonexistent' --print
expect_grep "host=/nonexistent" "$TMP/out" "  writes the script, --store in it"
for url in 'postgresql://rt:Hunter2@/rt?host=/nonexistent&sslmod=require' \
  'postgresql:///rt?host=/nonexistent&pass%77ord=Hunter2&sslmod=require' \
  'postgresql://rt:Hunter2@/rt?host=/nonexistent&application_name=a%zz'; do
  expect_exit 2 "fleet tune --print --store ${url//Hunter2/PW}: refused" \
    env PATH="$TMP/fakebin:$PATH" $R fleet tune --nodes n1 --store "$url" --print
  ! grep -q 'Hunter2' "$TMP/out" "$TMP/err" && ok "  no password in the script or the message" ||
    not_ok "  the password written" "$(grep -h Hunter2 "$TMP/out" "$TMP/err" | head -3)"
done

# ---- a YAML document of millions of values ----
python3 -c "open('flow.yaml', 'w').write('[' + '1,' * (4 << 20) + '1]\n')"
expect_exit 2 "an 8 MiB flow sequence as a baseline" $R check --baseline flow.yaml
expect_grep "flow.yaml:1:[0-9]+: more than [0-9]+ values in one document" "$TMP/err" \
  "  is refused at the value past the limit, before it is loaded"

# ---- a replay of many curves ----
{ echo backend,precision,n,seconds; for i in $(seq 0 999); do echo "b$i,fp32,64,1e-3"; done; } >curves.csv
expect_exit 2 "a replay of 1000 distinct curves" $R crossover --replay curves.csv
expect_grep "curves.csv:258: a new curve b256/fp32: a replay has at most 256 curves" "$TMP/err" \
  "  is refused at the first curve too many, with its line"

# ---- a command that prints 20,000 metric lines; a host journal over the limit ----
printf 'workload: command\nparams:\n  threads: [1]\n' >space.yaml
echo 'i=0; while [ $i -lt 20000 ]; do echo "rate $i"; i=$((i+1)); done' >many.sh
expect_exit 0 "tune --cmd of a command printing 20,000 metric lines" \
  $R tune --cmd "sh $TMP/many.sh" --metric 'rate ([0-9.]+)' --space space.yaml --budget 8 --quiet -o many.yaml
journal=$(ls results/*-[0-9]*[0-9].yaml | head -1)
most=$(python3 -c "import re, sys
print(max(len(m.split(',')) for m in re.findall(r'^samples: \[([^]]*)', open(sys.argv[1]).read(), re.M)))" "$journal")
# 20,000 seen after the warm-up: kept every 8th, 2500 (at most 4096 ever)
[ "$most" = 2500 ] && ok "  a trial keeps 2500 samples of them, evenly thinned" ||
  not_ok "  samples kept" "$most in $(grep -c . "$journal") lines of $journal"
expect_grep "^samples: \[1, 9, 17, 25," "$journal" "  every 8th from the first after the warm-up"
big=${journal%.yaml}-9.yaml
cp "$journal" "$big" && truncate -s 65M "$big"
expect_exit 0 "a tune with a 65 MiB journal of this host beside the others" \
  $R tune --cmd "sh $TMP/many.sh" --metric 'rate ([0-9.]+)' --space space.yaml --budget 8 -o many2.yaml
expect_grep "warning: cannot read $big: [0-9]+ bytes; rigtune reads files of at most 64 MiB; its trials are not reused" \
  "$TMP/err" "  goes on, with a warning naming that journal"

# ---- issue 47.1: Python modules in the current directory where the probe runs ----
# A torch.py (tempfile.py, subprocess.py, ...) beside a plain `tune` or `probe --python`
# was run by the probe's interpreter (python3 -c puts the current directory on sys.path).
mkdir planted && for m in torch jax tempfile subprocess os importlib platform sitecustomize; do
  echo "open('$TMP/PWNED-$m', 'w')" >planted/$m.py; done
mkdir -p site/tensorflow && echo 'raise ImportError("seen through PYTHONPATH")' >site/tensorflow/__init__.py
cd planted || exit 1
PYTHONPATH=":$TMP/site" expect_exit 0 "probe --python python3 among planted modules" \
  $R probe --python python3 -o "$TMP/probe.yaml"
expect_grep "^  python_version: '3\." "$TMP/probe.yaml" "  the probe ran"
expect_grep "^  tensorflow: 'import failed: ImportError: seen through PYTHONPATH'" "$TMP/probe.yaml" \
  "  PYTHONPATH's absolute entries still count (its empty one, the current directory, not)"
expect_exit 0 "a plain tune among planted modules (it probes python3)" \
  $R tune --workload gemm --budget 4 --no-crossover --quiet -o "$TMP/planted.yaml"
cd "$TMP" || exit 1
pwned=$(ls PWNED-* 2>/dev/null)
[ -z "$pwned" ] && ok "  no planted module ran" || not_ok "  planted modules ran" "$pwned"

# ---- issue 47.3: a watch file whose times or values are out of any range ----
# timeline.t: [0.1, 1e300] made report --watch's axis loop for ever, its memory growing.
# hostile_watch NAME PYTHON: $SRC's two-tick copy of a recording, PYTHON changing d, as NAME
hostile_watch() {
  python3 -c "import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
d['timeline'] = {k: (v[:2] if k != 'classes' else v) for k, v in d['timeline'].items()}
$2
open(sys.argv[2], 'w').write(yaml.safe_dump(d, sort_keys=False))" \
    "$SRC/tests/data/watch-h100/w0b64.yaml" "$1"
}
hostile_watch t-huge.yaml "d['timeline']['t'] = [0.1, 1e300]"
hostile_watch t-inf.yaml "d['timeline']['t'] = [0.1, float('inf')]"
hostile_watch value-nan.yaml "d['metric']['value'][0] = float('nan')"
hostile_watch wall-huge.yaml "d['wall_s'] = 1e300"
hostile_watch cores-huge.yaml "d['timeline']['cores'] = [1, 1e300]"
expect_exit 2 "report --watch of timeline.t: [0.1, 1e300]: exit 2, no hang" \
  timeout 10 $R report --watch t-huge.yaml -o t-huge.html
expect_grep "t-huge.yaml:[0-9]+:[0-9]+: t: 1e\+300 is out of range \[0, 3.456e\+07\]" "$TMP/err" \
  "  naming the file, the line and the value"
for f in t-inf value-nan wall-huge cores-huge; do
  expect_exit 2 "report --watch $f.yaml: exit 2, no hang" timeout 10 $R report --watch $f.yaml -o $f.html
  expect_grep "$f.yaml:[0-9]+:[0-9]+: [a-z_]+: (nan|inf|1e\+300) is out of range" "$TMP/err" "  saying which value"
done

# ---- issue 47.4: a value that drives a drawing, out of any range ----
# A configuration, journal, check result or replay that travels between colleagues
# gave the report a throughput of 1e300 or .inf, a threshold of .inf: gnuplot failed
# on "undefined variable: inf" (exit 3, blaming gnuplot) or the page drew an infinite
# bar. Each is refused where it is read: exit 2, the file, line and value.
D=tests/data/report
J=$D/gpubox-20260101-120000.yaml
# mutate OUT IN SED: IN (under $SRC) edited by the sed script into $TMP/OUT
mutate() { sed -E "$3" "$SRC/$2" >"$TMP/$1"; }
# report_at_src ARGS...: report run where the fixtures' relative paths hold, with a limit
report_at_src() { (cd "$SRC" && timeout 20 $R report "$@"); }
mutate j-median.yaml $J '0,/median: 234.466/s//median: 1e300/'
mutate j-ci.yaml $J '0,/ci95: \[230.349, 235.992\]/s//ci95: [230.349, .inf]/'
mutate j-phase.yaml $J '0,/gemm: 0.7,/s//gemm: .inf,/'
mutate j-step.yaml $J '0,/step_seconds: 0.13648/s//step_seconds: 1e300/'
mutate c-median.yaml $D/gpubox.yaml '0,/median: 3742.9/s//median: 1e300/'
mutate k-threshold.yaml $D/check.yaml 's/threshold: 0.05/threshold: .inf/'
mutate k-ratio.yaml $D/check.yaml '0,/ratio: 0.923/s//ratio: 1e300/'
for c in "j-median median 1e+300" "j-ci ci95 inf" "j-phase gemm inf" "j-step step_seconds 1e+300"; do
  set -- $c
  expect_exit 2 "report --journal $1.yaml ($2: $3): exit 2, no page" \
    report_at_src --journal "$TMP/$1.yaml" -o "$TMP/$1.html"
  expect_grep "$1.yaml:[0-9]+:[0-9]+: $2: ${3/+/\\+} is out of range" "$TMP/err" \
    "  naming the file, the line and the value"
done
expect_exit 2 "report --config with a median of 1e300: exit 2" \
  report_at_src --config "$TMP/c-median.yaml" -o "$TMP/c-median.html"
expect_grep "c-median.yaml:[0-9]+:[0-9]+: median: 1e\+300 is out of range" "$TMP/err" "  naming the file, the line and the value"
for c in "k-threshold threshold inf" "k-ratio ratio 1e+300"; do
  set -- $c
  expect_exit 2 "report --check $1.yaml ($2: $3): exit 2" \
    report_at_src --config $D/gpubox.yaml --check "$TMP/$1.yaml" -o "$TMP/$1.html"
  expect_grep "$1.yaml:[0-9]+:[0-9]+: $2: ${3/+/\\+} is out of range" "$TMP/err" \
    "  naming the file, the line and the value"
done
sed 's/^cuda,fp32,32,9.901094e-05/cuda,fp32,1e300,9.901094e-05/' \
  "$SRC/$D/gpubox-20260101-120000-crossover.csv" >xo-huge.csv
expect_exit 2 "report --crossover of a replay with n = 1e300: exit 2" \
  report_at_src --config $D/single.yaml --crossover "$TMP/xo-huge.csv" -o "$TMP/xo.html"
expect_grep "xo-huge.csv:5: n must be > 0 and at most 1e\+12, found 1e\+300" "$TMP/err" "  naming the file, the line and the value"
# a configuration's crossover: a fit whose exponent overflows, a range from 0 (gnuplot: exit 3)
mutate x-exponent.yaml $D/gpubox.yaml '0,/a: 4.8104e-12, b: 3.0051/s//a: 1e18, b: 1e18/'
mutate x-range.yaml $D/gpubox.yaml '0,/range: \[32, 2048\]/s//range: [0, 2048]/'
for c in "x-exponent b 1e+18" "x-range range 0"; do
  set -- $c
  expect_exit 2 "report --config $1.yaml (crossover $2: $3): exit 2" \
    report_at_src --config "$TMP/$1.yaml" -o "$TMP/$1.html"
  expect_grep "$1.yaml:[0-9]+:[0-9]+: $2: ${3/+/\\+} is out of range" "$TMP/err" \
    "  naming the file, the line and the value"
done
# the machine's counts: the page leaves the machine out, saying why
mutate m-cores.yaml $D/gpubox.yaml '0,/cores: 16/s//cores: 2147483647/'
expect_exit 0 "report of a configuration whose machine has 2^31 cores: the rest of the page" \
  report_at_src --config "$TMP/m-cores.yaml" -o "$TMP/m-cores.html"
expect_grep "cores: expected a whole number from -1 to 16777216" "$TMP/m-cores.html" "  the machine refused, saying why"
! grep -q "2147483647 cores" "$TMP/m-cores.html" && ok "  and its count not shown" || not_ok "  2^31 cores shown"

# ---- a count rigtune binds by, from a configuration of a user's command ----
# threads: 2^63 - 1 under pin: compact made `exec` exit 2 with an empty message and `env`
# exit 3 ("cannot pick the compact PUs"): the knob is now refused where it is read.
sed -E '/^    (recommended|fastest):/,/point:/s/pin: none, precision: bf16, threads: 1,/pin: compact, precision: bf16, threads: 9223372036854775807,/' \
  "$SRC/tests/data/cmd/config.yaml" >cmd-threads.yaml
grep -q 'threads: 9223372036854775807' cmd-threads.yaml && ok "(the set-up) a command's point of 2^63 - 1 threads" ||
  not_ok "(the set-up) no point changed"
for c in exec env; do
  args=(--config cmd-threads.yaml --workload command)
  [ $c = exec ] && args+=(-- true)
  expect_exit 2 "$c of it: exit 2" timeout 20 $R $c "${args[@]}"
  expect_grep "cmd-threads.yaml:[0-9]+:[0-9]+: point: threads: 9223372036854775807 is out of range \[1, 4096\]" \
    "$TMP/err" "  naming the file, the line and the value"
done
echo "1..$n"
