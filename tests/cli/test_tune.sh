#!/usr/bin/env bash
# rigtune tune: a short real tuning, reuse, --fresh, resume after SIGKILL,
# SIGINT writes the best so far, atomic output, bad space files.
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
cd "$TMP" || exit 1   # results/ and configs/ land here
T="--workload gemm --backend cpu --no-crossover"

expect_exit 0 "tune gemm on the CPU" $R tune $T --budget 4 --quiet -o g.yaml
expect_grep "^rigtune: 1$" g.yaml "the config has its schema version"
expect_grep "^  fingerprint: [0-9a-f]{16}$" g.yaml "the config carries the fingerprint"
expect_grep "^    recommended:" g.yaml "gemm has a recommended point"
expect_grep "OPENBLAS_NUM_THREADS: [0-9]+" g.yaml "with the env vars to export"
expect_grep "torch.set_num_threads" g.yaml "and a PyTorch hint"
journal=$(ls results/*.yaml | head -1)
[ -n "$journal" ] && ok "a journal was written" || not_ok "a journal was written"
ntrials=$(grep -c '^\.\.\.$' "$journal")
[ "$ntrials" -ge 3 ] && ok "the journal holds every trial ($((ntrials - 1)))" || not_ok "journal trials" "$ntrials documents"

expect_exit 0 "a second tune reuses the trials" $R tune $T --budget 4 --quiet -o g2.yaml
reused=$(sed -n 's/^    reused: //p' g2.yaml)
[ "${reused:-0}" -ge 2 ] && ok "trials were reused ($reused)" || not_ok "trials were reused" "reused: $reused"
expect_exit 0 "--fresh measures again" $R tune $T --budget 3 --quiet --fresh -o g3.yaml
expect_grep "^    reused: 0$" g3.yaml "--fresh reuses nothing"

# resume after SIGKILL: what finished is not measured again
rm -rf results
$R tune --workload transformer --backend cpu --no-crossover --budget 40 -o k.yaml 2>kill.log &
pid=$!
for _ in $(seq 1 200); do
  [ "$(grep -c '^rigtune: trial' kill.log 2>/dev/null)" -ge 2 ] && break
  sleep 0.1
done
kill -9 $pid; wait $pid 2>/dev/null
before=$(($(grep -c '^\.\.\.$' results/*.yaml) - 1))
[ "$before" -ge 2 ] && ok "the killed run journaled $before trials" || not_ok "killed run journaled trials" "$before"
expect_exit 0 "--resume continues the killed run" $R tune --workload transformer --backend cpu --no-crossover --budget 6 --resume -o k.yaml
reused=$(sed -n 's/^    reused: //p' k.yaml)
[ "${reused:-0}" -ge "$before" ] && ok "resume reused all $before finished trials" || not_ok "resume reused the finished trials" "reused $reused of $before"
[ "$(ls results | wc -l)" -eq 1 ] && ok "resume appended to the same journal" || not_ok "same journal" "$(ls results)"
dups=$(grep '^point:' results/*.yaml | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] && ok "no point was measured twice" || not_ok "no point measured twice" "$dups duplicates"

# SIGINT: best so far, exit 130
$R tune --workload transformer --backend cpu --no-crossover --budget 60 --fresh -o i.yaml 2>int.log &
pid=$!
for _ in $(seq 1 200); do
  [ "$(grep -c '^rigtune: trial' int.log 2>/dev/null)" -ge 1 ] && break
  sleep 0.1
done
kill -INT $pid; wait $pid; rc=$?
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
expect_exit 3 "no available backend is a run-time failure" $R tune --backend cuda -o keep.yaml
expect_grep "^keep me$" keep.yaml "a failed tune leaves the existing config intact"
