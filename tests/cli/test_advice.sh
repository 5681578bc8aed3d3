#!/usr/bin/env bash
# What a recommendation advises beyond the fastest point: the knee along the resources
# (the fewest workers within 5% of the fastest, on tests/fake_train.py whose speed is
# known exactly), and the device's verdict in the reason (launch-bound or device-bound
# from the measured device_busy), from journaled PPO trials on the fake plugin's device
# that tune reuses instead of measuring (the fake's kernels decline).
# tier: slow (real tunes, about 30 s)
# beside: others (tests/fake_train.py computes its rates, its 16-point space fits the budget
# many times over, and the device's verdicts come from journaled trials)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1 # trial counts must not depend on the machine's load
R=$RIGTUNE
SRC=$PWD
PY=/usr/bin/python3
cd "$TMP" || exit 1

# reason FILE: the first workload's reason on one line (YAML folds a long one)
reason() {
  sed -n '/^recommendations:/,$p' "$1" |
    awk '/^    reason:/ {r = 1} r && /^    [a-z_]+:/ && !/^    reason:/ {exit} r' | tr -s '\n ' ' '
}

# ---- the resource knee ----
if [ -x $PY ]; then
  FAKE="$PY $SRC/tests/fake_train.py"
  printf 'workload: command\nparams:\n  workers: {min: 1, max: 16}\n  threads: [1]\n  blas_threads: [1]\n' >sw.yaml
  for curve in flat linear; do
    expect_exit 0 "tune workers on a $curve curve" $R tune --cmd "$FAKE --workers {workers} --scaling $curve" \
      --metric 'rate ([0-9.]+)' --space sw.yaml --budget 120 --quiet -o "w-$curve.yaml"
    grep -A1 '^    fastest:' "w-$curve.yaml" >"fastest-$curve"
    expect_grep "point: \{workers: 16," "fastest-$curve" "$curve: the fastest has the most workers"
  done
  grep -A1 '^    recommended:' w-flat.yaml >knee-flat
  expect_grep "point: \{workers: 2," knee-flat \
    "flat above 2 workers: 2 are recommended (96% of 16's)"
  reason w-flat.yaml >why-flat
  expect_grep "workers=2 is the knee: 800 rate, within 5% of the fastest \(workers=16, 834 rate\) with fewer workers" \
    why-flat "the reason says why"
  grep -A1 '^    recommended:' w-linear.yaml >knee-linear
  expect_grep "point: \{workers: 16," knee-linear "workers that scale: the most are recommended"
  reason w-linear.yaml >why-linear
  expect_grep "the fastest point measured: 800 rate at workers=16 " why-linear \
    "and the reason says it is the fastest"
else
  n=$((n + 1)); echo "ok $n # SKIP no $PY for the fake training script"
fi

# ---- the device's verdict ----
export RIGTUNE_BACKEND_PATH=$BUILD_DIR/tests/plugins
$R probe >probe.yaml 2>/dev/null
fp=$(sed -n 's/^  fingerprint: //p' probe.yaml | tr -d "'")
host=$(sed -n 's/^  hostname: //p' probe.yaml | tr -d "'")
printf 'workload: ppo\nparams:\n  backend: [fake]\n  precision: [fp32]\n  num_envs: [4]\n  threads: [1]\n  workers: [0]\n  pin: [compact]\n' >ppo.space
P="--workload ppo --backend fake --no-crossover --space ../ppo.space --budget 30 --quiet"
P="$P --shape num_envs=4,stocks=2,rollout=8,minibatch=16,epochs=1,env_us=0"
# journal BUSY: a journal of this machine with the one point of ppo.space measured
# update-heavy (82% update) with the device busy BUSY of each iteration
journal() {
  mkdir -p results
  { printf -- "---\nrigtune_journal: 1\nfingerprint: %s\nhost: %s\nstarted: 2999-12-31T23:59:59Z\ncommand: test\n...\n" "$fp" "$host"
    printf -- "---\nfingerprint: %s\nworkload: ppo\n" "$fp"
    printf "point: {backend: fake, precision: fp32, batch: 32, threads: 1, workers: 0, pin: compact}\n"
    printf "shape: {num_envs: 4, stocks: 2, rollout: 8, minibatch: 16, epochs: 1, env_us: 0}\n"
    printf "throughput: {median: 1000, ci95: [990, 1010], unit: env-steps/s, cv: 0.01, unstable: false}\n"
    printf "gflops: 1\nstep_seconds: 0.032\nphases: {env: 0.1, policy: 0.05, transfer: 0.03, update: 0.82}\n"
    printf "device_busy: %s\nseconds: 1\ncontention: 0\nsamples: [1000, 1000, 1000, 1000, 1000]\n...\n" "$1"
  } >"results/$host-29991231-235959.yaml"
}
mkdir low high
cd low && journal 0.056
expect_exit 0 "tune reuses a launch-bound ppo trial" $R tune $P -o p.yaml
cd ..
grep -q '^    reused: 1$' low/p.yaml && ok "the journaled trial was reused, not measured" ||
  not_ok "the journaled trial was reused" "$(grep reused low/p.yaml)"
reason low/p.yaml >why-low
expect_grep "update-bound: 82% of each iteration is the network update, which more workers do not shorten; launch-bound: the device is busy 6% of its phases \(policy, transfer, update: 90% of each step\)" \
  why-low "device_busy 0.056 of an update-bound split: launch-bound, the device busy 6% of its phases"
expect_grep "CUDA/HIP graphs help, and a faster device would not" why-low "and a faster device is not the advice"
grep -q "a faster device or" why-low && not_ok "no faster device advised" "$(cat why-low)" ||
  ok "no faster device advised"
cd high && journal 0.8
expect_exit 0 "tune reuses a device-bound ppo trial" $R tune $P -o p.yaml
cd ..
reason high/p.yaml >why-high
expect_grep "; device-bound: the device is busy 89% of its phases \(policy, transfer, update: 90% of each step\); a faster device or a lower precision helps" \
  why-high "device_busy 0.8: device-bound, a faster device helps"
grep -q "launch-bound" why-high && not_ok "not launch-bound" "$(cat why-high)" || ok "not launch-bound"
echo "1..$n"
