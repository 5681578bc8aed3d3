#!/usr/bin/env bash
# rigtune tune: a short real tuning, reuse (by the kind of a failure), --fresh, resume
# after SIGKILL, SIGINT writes the best so far, atomic output, bad space files.
# Nothing here waits on the clock: the searches run small spaces to the end within
# generous budgets, and the signals are sent on progress lines, not after sleeps.
# tier: integration (PyTorch hints; tunes with real budgets)
# beside: others (spaces run whole; trial counts, reuse and files, no figure; no trial is
# measured again for contention)
. "$(dirname "$0")/lib.sh"
# The trial counts below must not depend on how busy the machine is: no trial
# counts as contended (and so none is measured twice for it) in this script.
export RIGTUNE_CONTENTION_LIMIT=1
R=$RIGTUNE
cd "$TMP" || exit 1   # results/ and configs/ land here
# Two points (fp32, fp64), searched by the default strategy until both are measured.
printf 'workload: gemm\nparams:\n  backend: [cpu]\n  precision: [fp32, fp64]\n  threads: [1]\n  pin: [compact]\n' >g2.space
T="--workload gemm --backend cpu --no-crossover --space g2.space --budget 120"

expect_exit 0 "tune gemm on the CPU" $R tune $T --quiet -o g.yaml
expect_grep "^rigtune: 1$" g.yaml "the config has its schema version"
expect_grep "^  fingerprint: '?[0-9a-f]{16}'?$" g.yaml "the config carries the fingerprint"
expect_grep "^    recommended:" g.yaml "gemm has a recommended point"
expect_grep "OPENBLAS_NUM_THREADS: '[0-9]+'" g.yaml "with the env vars to export"
expect_grep "torch.set_num_threads" g.yaml "and a PyTorch hint"
journal=$(ls results/*.yaml | head -1)
[ -n "$journal" ] && ok "a journal was written" || not_ok "a journal was written"
# the search's points (not those measured again for a check's baseline: role again)
search_points() { awk '/^\.\.\.$/ { again = 0 } /^role: again$/ { again = 1 } /^point:/ && !again' "$@"; }
ntrials=$(($(grep -c '^\.\.\.$' "$journal") - 1 - $(grep -c '^role: again$' "$journal")))
nnaive=$(grep -c '^role: naive$' "$journal")
[ "$ntrials" -eq 3 ] && [ "$nnaive" -eq 1 ] && ok "the journal holds both trials and the naive default's" \
  || not_ok "journal trials" "$ntrials trials, $nnaive naive"
# the naive default: the CPU, fp32, every usable core, no workers, no pinning, the default batch
cores=$(sed -n 's/^    usable_cores: //p' g.yaml)
grep -A3 '^role: naive$' "$journal" >naive.trial
expect_grep "^point: \{backend: cpu, precision: fp32, batch: 32, threads: $cores, workers: 0, pin: none\}$" \
  naive.trial "the naive trial is the untuned run on all $cores usable cores"
awk '/^role: naive$/ { on = 1 } on && /^phases: / { print; exit }' "$journal" >naive.phases
expect_grep "^phases: \{gemm: [0-9.e-]+" naive.phases "and is journaled with its phases"
expect_grep "^  trials: 2$" g.yaml "the configuration counts the search's trials alone"
grep -q "pin: none" g.yaml && not_ok "the naive default is neither recommended, fastest nor a runner-up" "$(grep -n 'pin: none' g.yaml)" \
  || ok "the naive default is neither recommended, fastest nor a runner-up"

expect_exit 0 "a second tune reuses the trials" $R tune $T --quiet -o g2.yaml
reused=$(sed -n 's/^    reused: //p' g2.yaml)
[ "${reused:-0}" -eq 2 ] && ok "both trials were reused" || not_ok "trials were reused" "reused: $reused"
[ "$(ls results/*.yaml | wc -l)" -eq 2 ] && [ "$(grep -c '^role: naive$' results/*.yaml | grep -c ':1$')" -eq 1 ] \
  && ok "and so was the naive default's: measured once in the two journals" \
  || not_ok "the naive default reused" "$(grep -c '^role: naive$' results/*.yaml)"
expect_exit 0 "--fresh measures again" $R tune $T --quiet --fresh -o g3.yaml
expect_grep "^    reused: 0$" g3.yaml "--fresh reuses nothing"

# Reuse goes by the kind of a failure, not its wording: a newer journal says fp32 ran
# out of memory in gemm's words "cannot allocate" (that stands: reused) and fp64
# crashed (the machine's mood: measured again).
fp=$(sed -n 's/^fingerprint: //p' "$journal" | head -1)
host=$(sed -n 's/^host: //p' "$journal" | head -1)
trial() { # precision reason cause
  printf -- "---\nfingerprint: %s\nworkload: gemm\n" "$fp"
  printf "point: {backend: cpu, precision: %s, batch: 32, threads: 1, workers: 0, pin: compact}\n" "$1"
  printf "shape: {m: 1024, n: 1024, k: 1024, transfer: 0}\ninfeasible: '%s'\ncause: %s\nseconds: 0.5\n...\n" "$2" "$3"
}
{ printf -- "---\nrigtune_journal: 1\nfingerprint: %s\nhost: %s\nstarted: 2999-12-31T23:59:59Z\ncommand: test\n...\n" "$fp" "$host"
  trial fp32 "cannot allocate 99.00 GiB" memory
  trial fp64 "crashed: Segmentation fault" crash; } >"results/$(echo "$host" | tr -d "'")-29991231-235959.yaml"
expect_exit 0 "a tune after a memory failure and a crash" $R tune $T --quiet -o g4.yaml
expect_grep "^    reused: 1$" g4.yaml "the out-of-memory point is reused, the crashed one is not"
expect_grep "^      point: \{backend: cpu, precision: fp64" g4.yaml "the crashed point was measured again and is recommended"
last=$(sed -n 's/^  journal: //p' g4.yaml)
grep -A4 "precision: fp64" "$last" >fp64.trial 2>/dev/null
expect_grep "^throughput: " fp64.trial "its new measurement is journaled ($last)"

# resume after SIGKILL: what finished is not measured again
rm -rf results
printf 'workload: transformer\nparams:\n  backend: [cpu]\n  precision: [fp32]\n  batch: [8, 16, 32]\n  threads: [1]\n  workers: [0]\n  pin: [compact]\n' >t3.space
# (a small model: on a busy machine a default-sized batch 32 can pass the 2 s a trial may take)
K="--workload transformer --backend cpu --no-crossover --space t3.space --shape d_model=64,d_ff=256 --strategy grid --budget 120"
start_logged kill.fifo $R tune $K -o k.yaml
wait_trials 2 kill.log && ok "the run reported two trials" || not_ok "two trials reported" "$(cat kill.log)"
kill -9 $PID; wait $PID 2>/dev/null; exec 3<&-
# the search's trials (the naive default's, measured first, is reused too but not counted)
before=$(($(grep -c '^\.\.\.$' results/*.yaml) - 1 - $(grep -c '^role: naive$' results/*.yaml)))
[ "$before" -ge 2 ] && ok "the killed run journaled $before trials" || not_ok "killed run journaled trials" "$before"
expect_exit 0 "--resume continues the killed run" $R tune $K --resume -o k.yaml
reused=$(sed -n 's/^    reused: //p' k.yaml)
[ "${reused:-0}" -eq "$before" ] && ok "resume reused all $before finished trials" || not_ok "resume reused the finished trials" "reused $reused of $before"
expect_grep "^    trials: 3$" k.yaml "and measured the rest of the grid"
[ "$(ls results/*.yaml | wc -l)" -eq 1 ] && ok "resume appended to the same journal" || not_ok "same journal" "$(ls results)"
dups=$(search_points results/*.yaml | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] && ok "no point was measured twice" || not_ok "no point measured twice" "$dups duplicates"

# The naive default is recommended only when the search measures it as a point of its own:
# a space of that one point gives it twice in the journal, as the naive default and as the
# search's trial, and the search's is the recommendation.
printf 'workload: gemm\nparams:\n  backend: [cpu]\n  precision: [fp32]\n  threads: [%s]\n  pin: [none]\n' "$cores" >n1.space
rm -rf results
expect_exit 0 "a space whose one point is the naive default" $R tune --workload gemm --backend cpu \
  --no-crossover --space n1.space --budget 60 --quiet -o n1.yaml
expect_grep "^      point: \{backend: cpu, precision: fp32, threads: $cores, pin: none\}$" \
  n1.yaml "the search's point is recommended"
expect_grep "^    trials: 1$" n1.yaml "as the search's one trial"
npin=$(search_points results/*.yaml | grep -c 'pin: none}$'); nnaive=$(grep -c '^role: naive$' results/*.yaml)
[ "$npin" -eq 2 ] && [ "$nnaive" -eq 1 ] && ok "the journal has the point twice, once as the naive default" \
  || not_ok "the point twice in the journal" "$npin times, $nnaive naive"

# No pinning on every usable core binds the PUs that compact binds there (where the cores are
# all the PUs): the search runs compact alone, and the naive default's point of the space is the
# point that runs, screened before the naive default is measured. It was the one with no
# pinning, never measured: no screening, and no recommendation when compact was within the naive
# default's noise.
printf 'workload: gemm\nparams:\n  backend: [cpu]\n  precision: [fp32]\n  threads: [%s]\n  pin: [compact, none]\n' "$cores" >pn.space
rm -rf results
expect_exit 0 "a space that lists no pinning after compact" $R tune --workload gemm --backend cpu \
  --no-crossover --space pn.space --strategy grid --budget 30 --quiet -o pn.yaml
expect_grep "^    recommended:" pn.yaml "has a recommendation"
first=$(grep -h -m1 -e '^point:' -e '^role: naive$' results/*.yaml)
case $first in
  point:*) ok "the naive default's point of the space is screened first ($first)" ;;
  *) not_ok "the naive default's point of the space is screened first" "the first trial: $first" ;;
esac

# SIGINT: best so far, exit 130
start_logged int.fifo $R tune --workload transformer --backend cpu --no-crossover --budget 60 --fresh -o i.yaml
wait_trials 1 int.log && ok "the run reported a trial" || not_ok "a trial reported" "$(cat int.log)"
kill -INT $PID; drain int.log; wait $PID; rc=$?; wait $DRAIN
[ "$rc" -eq 130 ] && ok "SIGINT exits 130" || not_ok "SIGINT exits 130" "exit $rc"
expect_grep "^partial: " i.yaml "the interrupted config says it is partial"
expect_grep "^    recommended:" i.yaml "and holds the best so far"

# bad input: exit 2, nothing overwritten
echo "keep me" >keep.yaml
printf 'workload: gemm\nparams:\n  threads: {min: 1, max: auto}\n  colour: [red]\n' >bad.yaml
expect_exit 2 "an unknown key in a space file" $R tune --workload gemm --space bad.yaml -o keep.yaml
expect_grep "bad.yaml:4:3: .*colour" "$TMP/err" "names file, line, column and key"
printf 'workload: gemm\nparams:\n  threads: {min: 4, max: 2}\n' >bad2.yaml
expect_exit 2 "an impossible range" $R tune --workload gemm --space bad2.yaml -o keep.yaml
expect_grep "bad2.yaml:3:" "$TMP/err" "names the line"
printf 'workload: gemm\nparams: [threads\n' >bad3.yaml
expect_exit 2 "malformed YAML" $R tune --workload gemm --space bad3.yaml -o keep.yaml
expect_exit 2 "a missing space file" $R tune --workload gemm --space none.yaml -o keep.yaml
expect_exit 2 "unknown strategy" $R tune --strategy magic -o keep.yaml
expect_exit 2 "unknown workload" $R tune --workload resnet -o keep.yaml
expect_exit 2 "a --shape key no workload has" $R tune --workload gemm --shape d_model=768 -o keep.yaml
expect_exit 2 "a workload given twice" $R tune --workload gemm,gemm -o keep.yaml
expect_exit 2 "a --shape the workload rejects" $R tune --workload transformer --shape d_model=768,heads=5 -o keep.yaml
expect_grep "not a multiple of heads" "$TMP/err" "with the workload's reason"
expect_exit 2 "an unknown backend" $R tune --backend tpu -o keep.yaml
long=$(printf 'd_model=768,%.0s' $(seq 50) | head -c 600)
expect_exit 2 "a --shape of 600 characters" $R tune --shape "$long" -o keep.yaml
expect_grep "^rigtune tune: --shape: longer than 512 characters \(600\)$" "$TMP/err" "is refused whole, naming --shape and its limit"
expect_exit 2 "an empty item of --workload" $R tune --workload gemm,,ppo -o keep.yaml
expect_grep "--workload: empty item 2 in 'gemm,,ppo'" "$TMP/err" "names --workload and the item"
printf 'workload: ppo\nparams:\n  batch: [8, 16]\n' >bad4.yaml
expect_exit 2 "a knob the workload does not read" $R tune --workload ppo --space bad4.yaml -o keep.yaml
expect_grep "bad4.yaml:3:3: params: ppo does not read 'batch'" "$TMP/err" "names the place and the knob"
printf 'workload: gemm\nparams:\n  backend: [cdua]\n' >bad5.yaml
expect_exit 2 "a misspelt backend in a space file" $R tune --workload gemm --space bad5.yaml -o keep.yaml
expect_grep "bad5.yaml:3:" "$TMP/err" "names the line"
RIGTUNE_BACKEND_PATH=$TMP expect_exit 3 "no available backend is a run-time failure" $R tune --backend cuda -o keep.yaml
expect_grep "^keep me$" keep.yaml "a failed tune leaves the existing config intact"
