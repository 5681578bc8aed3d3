#!/usr/bin/env bash
# rigtune tune --cmd on a fake training script whose speed is known exactly
# (tests/fake_train.py): the search finds its optimum and knee, failures are
# infeasible with their cause and the run goes on, a memory cap held by the watchdog
# (macOS's path), --minimize, --shell, reuse,
# bad input is exit 2 with the reason; then rigtune exec and rigtune env on the
# configuration it wrote, and probe --python.
# tier: integration (probes PyTorch and JAX; tunes with real budgets)
# beside: others (fake_train's exact rates decide every pick; spaces fit their budgets many
# times over; a 5 s timeout for a Python start of 50 ms)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1 # trial counts must not depend on the machine's load
R=$RIGTUNE
SRC=$PWD
PY=/usr/bin/python3
if [ ! -x $PY ]; then echo "1..0 # SKIP no $PY for the fake training script"; exit 0; fi
FAKE="$PY $SRC/tests/fake_train.py"
cd "$TMP" || exit 1

# y FILE KEY: the value of "KEY:" under the command's entry, first match
y() { sed -n "s/^ *$2: //p" "$1" | head -1; }

cat >s1.yaml <<'EOF'
workload: command
params:
  batch: [8, 16, 32, 64]
  opt: [sgd, adam, rmsprop]
  lr: [1, 2, 3, 4, 5]
  threads: [1]
  blas_threads: [1]
EOF
CMD="$FAKE --batch {batch} --opt {opt} --lr {lr}"
expect_exit 0 "tune --cmd on the fake" $R tune --cmd "$CMD" --metric 'rate ([0-9.]+)' \
  --space s1.yaml --budget 120 --quiet -o c1.yaml
expect_grep "^  command:$" c1.yaml "the recommendation is under recommendations.command"
grep -A2 '^    fastest:' c1.yaml >fastest
expect_grep "point: \{batch: 64, opt: adam, lr: 3, threads: 1, blas_threads: 1\}" fastest \
  "the search finds the known optimum (batch 64, adam, lr 3)"
expect_grep "median: 969.697" fastest "at its known rate, so the env was applied (OMP=1)"
grep -A2 '^    recommended:' c1.yaml >knee
expect_grep "point: \{batch: 32, opt: adam" knee "the knee is batch 32 (within 5% of 64)"
expect_grep "unit: samples/s|unit: rate" c1.yaml "the metric's unit is named"
expect_grep "^      RIGTUNE_OPT: adam$" c1.yaml "env has RIGTUNE_<KNOB>"
expect_grep "^      OMP_NUM_THREADS: '1'$" c1.yaml "env has the threads"
expect_grep "^    run: .*fake_train.py --batch 32 --opt adam --lr 3$" c1.yaml \
  "the command line at the knee is written"
# a run takes a fraction of a second: the 60 points fit the budget many times over, so the
# default strategy may not stop before each was measured (its economy: tests/test_search.c)
trials=$(y c1.yaml trials)
[ "$trials" = 60 ] && ok "a space that fits the budget is measured whole" ||
  not_ok "the whole space" "trials: $trials of 60"

expect_exit 0 "the same tune again" $R tune --cmd "$CMD" --metric 'rate ([0-9.]+)' \
  --space s1.yaml --budget 120 --quiet -o c1b.yaml
[ "$(y c1b.yaml reused)" = "$trials" ] && ok "reuses every trial from the journal" ||
  not_ok "reuse" "reused $(y c1b.yaml reused) of $trials"
expect_exit 0 "another metric is another command" $R tune --cmd "$CMD" \
  --metric 'step [0-9]+ rate ([0-9.]+)' --space s1.yaml --budget 120 --quiet -o c1c.yaml
[ "$(y c1c.yaml reused)" = 0 ] && ok "nothing reused when the metric differs" ||
  not_ok "no reuse across metrics" "reused $(y c1c.yaml reused)"

expect_exit 0 "--name and --resume" $R tune --cmd "$CMD" --metric 'rate ([0-9.]+)' \
  --space s1.yaml --budget 120 --quiet --resume --name mine -o c1d.yaml
expect_grep "^  mine:$" c1d.yaml "the recommendation is under recommendations.mine"
[ "$(y c1d.yaml reused)" = "$trials" ] && ok "--resume reuses the journal's trials" ||
  not_ok "resume reuse" "reused $(y c1d.yaml reused) of $trials"

# failures: each point infeasible with its cause; the run goes on
cat >s2.yaml <<'EOF'
workload: command
params:
  fail: [crash, hang, oom, silent, none]
  threads: [1]
  blas_threads: [1]
EOF
rm -rf results
expect_exit 0 "a command that crashes, hangs, runs out of memory or prints nothing" \
  $R tune --cmd "$FAKE --fail {fail}" --metric 'rate ([0-9.]+)' --space s2.yaml \
  --strategy grid --timeout 5 --budget 120 --quiet -o c2.yaml
expect_grep "^      point: \{fail: none" c2.yaml "the point that ran is recommended"
j=$(ls results/*.yaml)
for c in crash timeout memory bad_output; do
  expect_grep "^cause: $c$" "$j" "the journal records cause $c"
done
expect_grep "infeasible: 'exit status 1: RuntimeError: the fake crashed'" "$j" \
  "a crash's reason is its last stderr line"
expect_grep "infeasible: 'out of memory: MemoryError: the fake ran out of memory'" "$j" \
  "a MemoryError is memory"

# --minimize: the lowest time per step wins, reported in the user's unit
printf 'workload: command\nparams:\n  batch: [8, 64]\n  threads: [1]\n  blas_threads: [1]\n' >s3.yaml
expect_exit 0 "tune --minimize" $R tune --cmd "$FAKE --batch {batch} --time" \
  --metric 'time ([0-9.]+) ms' --minimize --unit ms --space s3.yaml --strategy grid \
  --budget 60 --quiet -o c3.yaml
grep -A2 '^    fastest:' c3.yaml >fastest3
expect_grep "point: \{batch: 64" fastest3 "the fastest is the lowest time"
expect_grep "median: 1.03125, ci95: \[1.03125, 1.03125\], unit: ms" fastest3 \
  "in the user's unit (ms)"
expect_grep "minimize: true" c3.yaml "the config says lower is better"

# --shell: a pipeline
expect_exit 0 "tune --shell" $R tune --shell --cmd "$FAKE --batch {batch} | grep -v step.1" \
  --metric 'rate ([0-9.]+)' --warmup 0 --space s3.yaml --strategy grid --budget 60 --quiet \
  -o c4.yaml
# the run line, as YAML reads it (a long line is folded): the knob's value quoted for sh
$PY -c "import yaml; print(yaml.safe_load(open('c4.yaml'))['recommendations']['command']['run'])" >run.txt
expect_grep "^/bin/sh -c '.* --batch '\\\\''(8|64)'\\\\'' \| grep -v step.1'$" run.txt "the shell ran it, the value quoted"

M=(--metric 'rate ([0-9.]+)')
# A space small enough to measure whole is measured whole (issue 22): precision x threads x
# blas_threads, fast only at one corner (bf16, 2 threads, 1 BLAS thread: 1.8x the rest). The
# default strategy alone settles at 1 thread and recommends bf16 with 1 thread at 0.55 of it.
if [ "$(nproc)" -ge 2 ]; then
  printf 'workload: command\nparams:\n  precision: [fp32, bf16]\n  threads: [1, 2]\n  blas_threads: [1, 2]\n' >s6.yaml
  CORNER='case {precision}-$OMP_NUM_THREADS-$OPENBLAS_NUM_THREADS in
    bf16-2-1) r=399 ;; bf16-1-2) r=220 ;; bf16-1-1) r=218.8 ;; bf16-2-2) r=150 ;;
    fp32-1-2) r=178.7 ;; fp32-1-1) r=175 ;; fp32-2-1) r=170 ;; *) r=120 ;;
  esac; for i in 1 2 3; do echo "rate $r"; done'
  expect_exit 0 "tune --cmd on an 8-point space with a fast corner" $R tune --shell \
    --cmd "$CORNER" "${M[@]}" --space s6.yaml --budget 10 --quiet -o c6.yaml
  grep -A2 '^    recommended:' c6.yaml >corner
  expect_grep "point: \{precision: bf16, threads: 2, blas_threads: 1\}" corner \
    "the corner is recommended"
  expect_grep "median: 399," corner "at its rate"
  [ "$(y c6.yaml trials)" = 8 ] && ok "every point measured once" ||
    not_ok "the whole space" "trials: $(y c6.yaml trials) of 8"
else
  n=$((n + 1)); echo "ok $n # SKIP one usable core: no 2-thread points"
fi

# Where RLIMIT_AS does not hold (macOS), a watchdog holds the memory cap on the command's
# whole tree; RIGTUNE_MEMWATCH_MIB (a test hook) takes that path here, a 640 MiB cap.
# Workers of MIB MiB each (tests/eat_workers.py, as a DataLoader's): one of 400 runs, two of
# 400 are over the cap together though each is within it alone (as RLIMIT_AS, which is per
# process, would see them).
printf 'workload: command\nparams:\n  mib: [30, 400]\n  procs: [1, 2]\n  threads: [1]\n  blas_threads: [1]\n' >smem.yaml
rm -rf results
expect_exit 0 "tune --cmd whose workers pass the cap together, on the watchdog's path" \
  env RIGTUNE_MEMWATCH_MIB=640 $R tune --cmd "$PY $SRC/tests/eat_workers.py {mib} {procs}" \
  "${M[@]}" --warmup 0 --space smem.yaml --strategy grid --timeout 30 --budget 120 --quiet \
  -o cmem.yaml
# each run of the journal: its knobs and how it ended
$PY - results/*.yaml >mem.txt <<'EOF2'
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and "knobs" in d:
        print(d["knobs"]["mib"], d["knobs"]["procs"], d.get("cause", "ran"), d.get("infeasible", ""))
EOF2
expect_grep "^400 2 memory needs more than the 0\.6 GiB cap \((0\.[6-9]|1\.0) GiB when the watchdog ended it\)$" \
  mem.txt "two workers of 400 MiB: ended as memory, the cap and the figure seen said as a built-in trial's"
[ "$(grep -c ' ran $' mem.txt)" -ge 3 ] && ! grep -v -e '^400 2 memory ' -e ' ran $' mem.txt >/dev/null &&
  ok "the runs under the cap (one worker of 400, 30s) are untouched" ||
  not_ok "the runs under the cap are untouched" "$(cat mem.txt)"
expect_grep "^      point: \{mib: 400, procs: 1" cmem.yaml "the largest that fits is recommended"

# bad input: exit 2 with the reason, nothing written (--replace: keep.yaml is no
# configuration a tune could add to, which would be the reason otherwise)
echo "keep me" >keep.yaml
bad() { # description, expected message, arguments...
  local desc=$1 want=$2; shift 2
  expect_exit 2 "$desc: exit 2" $R tune "$@" --budget 30 --quiet --replace -o keep.yaml
  expect_grep "$want" "$TMP/err" "$desc: says why"
}
bad "a command that does not exist" "cannot run '/nonexistent/train': No such file" \
  --cmd "/nonexistent/train --batch {batch}" "${M[@]}" --space s3.yaml
bad "a regex that never matches" "--metric matched nothing the command printed" \
  --cmd "$FAKE --batch {batch}" --metric 'loss ([0-9.]+)' --space s3.yaml
bad "a regex without a capture group" "has 0 capture groups: it needs exactly one" \
  --cmd "$FAKE" --metric 'rate [0-9.]+'
bad "a placeholder with no knob" "placeholder \{opt\} has no knob in s3.yaml" \
  --cmd "$FAKE --opt {opt}" "${M[@]}" --space s3.yaml
bad "a pipe without --shell" "'\|' outside quotes" --cmd "$FAKE | cat" "${M[@]}"
bad "--cmd without --metric" "--cmd needs --metric" --cmd "$FAKE"
bad "a workload's space" "tune --cmd takes a space with workload: command" \
  --cmd "$FAKE" "${M[@]}" --space "$SRC/configs/space-gemm.yaml"
expect_grep "^keep me$" keep.yaml "nothing was overwritten"

# rigtune env and rigtune exec on the recommendation
expect_exit 0 "rigtune env" $R env --config c1.yaml
expect_grep "^export OMP_NUM_THREADS=1$" "$TMP/out" "env prints export lines"
expect_grep "^export RIGTUNE_OPT=adam$" "$TMP/out" "with the knobs"
expect_exit 0 "rigtune exec" $R exec --config c1.yaml -- env
expect_grep "^RIGTUNE_BATCH=32$" "$TMP/out" "exec runs the command with the recommended env"
expect_grep "^OPENBLAS_NUM_THREADS=1$" "$TMP/out" "and the BLAS threads"
expect_exit 7 "exec's exit status is the command's" $R exec --config c1.yaml -- sh -c 'exit 7'
printf 'workload: command\nparams:\n  threads: [1]\n  blas_threads: [1]\n  pin: [compact]\n' >s5.yaml
expect_exit 0 "tune a pinned command" $R tune --cmd "$FAKE" "${M[@]}" --space s5.yaml \
  --budget 60 --quiet -o c5.yaml
expect_exit 0 "exec binds it" $R exec --config c5.yaml -- grep Cpus_allowed_list /proc/self/status
expect_grep "^Cpus_allowed_list:[[:space:]]+[0-9]+$" "$TMP/out" "to one CPU (pin compact, 1 thread)"
expect_exit 0 "env names the CPUs as a comment" $R env --config c5.yaml
expect_grep "^# pin compact: bind to CPUs [0-9]+ " "$TMP/out" "env says which CPUs"
expect_exit 2 "exec without a config" $R exec --config nothing.yaml -- true
expect_grep "cannot read nothing.yaml" "$TMP/err" "names the missing file"
expect_exit 2 "exec with a workload the config lacks" $R exec --config c1.yaml --workload ppo -- true
expect_grep "has no recommendation for 'ppo' \(it has: command\)" "$TMP/err" "lists what it has"
printf 'rigtune: 1\nmachine: {hostname: x, fingerprint: y}\nrecommendations:\n  command: [1\n' >bad.yaml
expect_exit 2 "env with a malformed config" $R env --config bad.yaml
expect_grep "bad.yaml:[0-9]+:[0-9]+: " "$TMP/err" "names the file and line"
expect_exit 2 "exec of a command that does not exist" $R exec --config c1.yaml -- /nonexistent/x
expect_grep "cannot run '/nonexistent/x'" "$TMP/err" "says so"

# probe --python
expect_exit 2 "probe --python with a Python that is not there" $R probe --python /nonexistent/py
expect_grep "cannot run '/nonexistent/py'" "$TMP/err" "says so"
if $PY -c 'import torch' 2>/dev/null; then
  expect_exit 0 "probe --python $PY" $R probe --python $PY
  expect_grep "^  pytorch:$" "$TMP/out" "finds PyTorch"
  expect_grep "^    blas_threading: (pthreads|openmp|serial)$" "$TMP/out" "and its BLAS threading"
  expect_grep "^    intra_op_threads: [0-9]+$" "$TMP/out" "and its intra-op pool"
  expect_grep "^  jax: not installed$|^  jax:$" "$TMP/out" "and says whether JAX is there"
else
  n=$((n + 1)); echo "ok $n # SKIP $PY has no torch (scripts/install-deps.sh test)"
fi
# The device knob's variable comes from the backend's plugin table: the test
# plugin "fake" (tests/plugins/fake.c) names FAKE_VISIBLE_DEVICES, and no line
# of rigtune names it. The command succeeds only when it sees device 1 alone.
printf 'workload: command\nparams:\n  device: [fake:1]\n  threads: [1]\n' >sdev.yaml
expect_exit 0 "device fake:1 sets the fake plugin's own visible-devices variable" \
  env RIGTUNE_BACKEND_PATH="$BUILD_DIR/tests/plugins" $R tune --budget 20 --quiet --shell \
  --cmd 'test "$FAKE_VISIBLE_DEVICES" = 1 && test -z "$CUDA_VISIBLE_DEVICES" && echo "rate 5" && echo "rate 5"' \
  --metric 'rate ([0-9.]+)' --space sdev.yaml -o cdev.yaml
expect_grep "^      FAKE_VISIBLE_DEVICES: '1'$" cdev.yaml "the configuration's env has it, as the run had it"
echo "1..$n"
