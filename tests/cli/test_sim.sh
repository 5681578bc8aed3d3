#!/usr/bin/env bash
# The search on machines with an accelerator, simulated by the test plugin
# librigtune_sim.so (tests/plugins/sim.c: a timing model run in wall-clock time,
# profiles h100, a100, rx7900gre, igpu): a larger model is tuned onto the device;
# a device slower than the CPU is not recommended; PPO's tiny kernels on a fast
# device are launch-bound; a batch over the device's memory is infeasible
# (memory) and sweep never proposes it; device_busy comes from the device's time
# with the monitor's sampled figure beside it; SB3's line names the device faster
# for SB3's own step (the CPU for a small MLP at 16 envs, the device for a large
# policy at 1024); the crossover's n* is where the profile's model says. Budgets
# are short and shapes small: the suite stays fast.
# tier: slow (tunes the simulated devices with real budgets, about 100 s)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1 # trial counts must not depend on the machine's load
export RIGTUNE_BACKEND_PATH=$BUILD_DIR/tests/plugins
R=$RIGTUNE
PY=/usr/bin/python3
cd "$TMP" || exit 1

# section FILE KEY: the three lines under the first workload's KEY (recommended:, fastest:)
section() { grep -A3 "^    $2:" "$1" | tail -3; }
# reason FILE: the first workload's reason on one line (YAML folds a long one)
reason() {
  sed -n '/^recommendations:/,$p' "$1" |
    awk '/^    reason:/ {r = 1} r && /^    [a-z_]+:/ && !/^    reason:/ {exit} r' | tr -s '\n ' ' '
}
median() { sed -n 's/.*throughput: {median: \([0-9.e+]*\),.*/\1/p' | head -1; }

# ---- a larger model on an H100: the device, and the device's memory ----
TF="--workload transformer --backend cpu,sim --no-crossover"
SHAPE="--shape d_model=256,d_ff=1024,layers=2"
export RIGTUNE_SIM_PROFILE=h100 RIGTUNE_SIM_MEM_GIB=0.25 # batch 256 needs 0.88 GiB
expect_exit 0 "tune a larger transformer on cpu and a simulated H100" \
  $R tune $TF $SHAPE --budget 20 -o h100.yaml
cp "$TMP/err" h100.err
section h100.yaml recommended >rec
expect_grep "point: \{backend: sim," rec "the device is recommended"
expect_grep "backend=cpu precision=fp32 batch=8 threads=[0-9]+ workers=0 pin=[a-z]+: [0-9.e+]+ samples/s" \
  h100.err "the CPU was screened too"
# the device tries the precisions it offers of the space's (tf32 and fp16 too), and the
# configuration says which it tried and why not fp64
for q in tf32 fp16; do
  expect_grep "backend=sim precision=$q batch=8 threads=[0-9]+ workers=0 pin=[a-z]+: [0-9.e+]+ samples/s" \
    h100.err "the simulated H100's $q was measured"
done
sed -n '/^    precisions:/,/^    batch_grown:/p' h100.yaml | tr -s '\n ' ' ' >precisions
expect_grep "sim: \{offered: \[fp64, fp32, tf32, bf16, fp16\], tried: \[fp32, tf32, bf16, fp16\], not_tried: \{fp64: not in the space\}, vs_fp32: \{tf32: [0-9.e+]+, bf16: [0-9.e+]+, fp16: [0-9.e+]+\}\}" \
  precisions "the configuration says what the device offered, what was tried and each against fp32"
expect_grep "^    batch_grown: ." h100.yaml "the configuration says whether the batch grew"
naive=$(sed -n 's/.*the naive default (cpu fp32.*for comparison: \([0-9.e+]*\) samples.*/\1/p' h100.err)
rec=$(median <rec)
if [ -n "$naive" ] && [ -n "$rec" ] && awk -v r="$rec" -v n="$naive" 'BEGIN {exit !(r >= 5 * n)}'; then
  ok "the device's $rec samples/s beat the naive CPU default's $naive by 5x and more"
else
  not_ok "the device beats the naive default by 5x" "recommended $rec, naive $naive"
fi

# the naive default has its figure, and the reason says how many times faster the recommendation is
expect_grep "the naive default \(cpu fp32, [0-9]+ threads, pin none\), for comparison: [0-9.e+]+ samples/s" \
  h100.err "the naive default (no pinning, as an untuned run) is measured"
ratio_check() { # CONFIG MIN: the reason's "NNx the naive default (..: N samples/s)" against the medians
  local cfg=$1 min=$2 got
  got=$(reason "$cfg" | sed -n 's/.*; \([0-9.]*\)x the naive default (cpu fp32, [0-9]* threads, no pinning: \([0-9.e+]*\) samples\/s.*/\1 \2/p')
  set -- $got
  local rec
  rec=$(section "$cfg" recommended | median)
  if [ -n "$2" ] && [ -n "$rec" ] && awk -v x="$1" -v n="$2" -v r="$rec" -v m="$min" \
    'BEGIN {q = r / n; exit !(x >= m && x <= 1.06 * q && x >= 0.94 * q)}'; then
    ok "$cfg: the reason says ${1}x the naive default's $2 samples/s ($rec recommended; at least ${min}x)"
  else
    not_ok "$cfg: the reason's ratio to the naive default, at least ${min}x" "ratio '$1' naive '$2' recommended '$rec'" "$(reason "$cfg")"
  fi
}
ratio_check h100.yaml 5
expect_grep "transformer: recommended [0-9.e+]+ samples/s, [0-9.]+x the naive default's [0-9.e+]+" h100.err \
  "the progress gives the ratio too"
# the frameworks are probed first, charged to the budget: nothing runs after the measuring
first=$(grep -n -m1 "probing the ML frameworks" h100.err | cut -d: -f1)
trial=$(grep -n -m1 ": trial 1 " h100.err | cut -d: -f1)
[ -n "$first" ] && [ -n "$trial" ] && [ "$first" -lt "$trial" ] && ok "the frameworks are probed before the first trial" \
  || not_ok "the frameworks probed before the trials" "probe line '$first', trial line '$trial'"
secs=$(sed -n 's/^  seconds: //p' h100.yaml)
# budget + 10% is the target; 50% is far from any noise (the probe alone once took 11 s past it)
if [ -n "$secs" ] && awk -v s="$secs" 'BEGIN {exit !(s <= 30)}'; then ok "the 20 s tune took $secs s in all"; else
  not_ok "the 20 s tune ends within 30 s" "seconds: '$secs'"; fi

# the device's memory: batch 256 does not fit, so tune never ran it and sweep never proposes it
expect_exit 3 "a batch over the device's memory is infeasible" \
  $R bench transformer backend=sim batch=256 d_model=256 d_ff=1024 layers=2 --seconds 0.2
expect_grep "^cause: memory" "$TMP/out" "its cause is memory"
if grep -q "backend=sim .*batch=256" h100.err; then
  not_ok "tune never measured the device at batch 256" "$(grep 'backend=sim .*batch=256' h100.err)"
else
  ok "tune never measured the device at batch 256"
fi
expect_exit 0 "sweep from the recommendation" \
  $R sweep --from h100.yaml --workload transformer --format grid --quiet -o grid.jsonl
top=$(grep -o '"batch": *[0-9]*' grid.jsonl | grep -o '[0-9]*$' | sort -n | tail -1)
if [ -n "$top" ] && [ "$top" -lt 256 ]; then ok "sweep proposes batches up to $top, not 256"; else
  not_ok "sweep never proposes a batch over the memory" "largest batch '$top'"; fi
expect_exit 0 "the largest batch sweep proposes fits the device" \
  $R bench transformer backend=sim batch="$top" d_model=256 d_ff=1024 layers=2 --seconds 0.2
unset RIGTUNE_SIM_MEM_GIB

# ---- a model whose naive step takes seconds on the CPU: the device by far, the naive default in figures ----
# (one step of it, or its figure predicted from the CPU's screening when one step is over its cap)
expect_exit 0 "tune a larger transformer on cpu and a simulated H100" \
  $R tune $TF --shape d_model=512,d_ff=2048,layers=4 --budget 20 -o big.yaml
cp "$TMP/err" big.err
section big.yaml recommended >rec
expect_grep "point: \{backend: sim," rec "the device is recommended for the larger model"
expect_grep "the naive default \(cpu fp32, [0-9]+ threads, pin none\), for comparison: [0-9.e+]+ samples/s" \
  big.err "the naive default has its figure"
ratio_check big.yaml 20

# ---- PPO: a slow device is not picked; a fast one is launch-bound ----
PPO="--workload ppo --no-crossover --shape num_envs=16,rollout=16,minibatch=32,epochs=1"
export RIGTUNE_SIM_PROFILE=igpu
expect_exit 0 "tune PPO on cpu and a simulated integrated GPU" \
  $R tune $PPO --backend cpu,sim --budget 20 -o igpu.yaml
cp "$TMP/err" igpu.err
expect_grep "ppo backend=sim .*: [0-9.e+]+ [a-z/-]+$" igpu.err "the integrated GPU was measured"
section igpu.yaml recommended >rec
if grep -q "point: {backend: cpu," rec || grep -q "none: 'nothing measured beat the naive default" igpu.yaml; then
  ok "the CPU is recommended (or the naive default kept), not the slower device"
else
  not_ok "the slower device is not recommended" "$(cat rec)" "$(grep 'none:' igpu.yaml)"
fi

export RIGTUNE_SIM_PROFILE=h100
# environments that cost nothing and small kernels: the launches set the pace
# (16 of them: with more, the update's kernels grow, and how far the climb got in
# 8 s on a busy machine would decide the verdict)
printf 'workload: ppo\nparams:\n  backend: [sim]\n  precision: [fp32]\n  num_envs: [16]\n  threads: [1]\n  workers: [0]\n  pin: [compact]\n' >ppo.space
expect_exit 0 "tune PPO on a simulated H100" $R tune --workload ppo --no-crossover --backend sim \
  --space ppo.space --shape env_us=0 --budget 8 --quiet -o ppo.yaml
reason ppo.yaml >why
expect_grep "launch-bound: the device is busy [0-9]+%" why "the reason says launch-bound"

expect_exit 0 "bench PPO on the simulated H100" $R bench ppo backend=sim num_envs=16 --seconds 0.3
busy=$(sed -n 's/^device_busy: //p' "$TMP/out")
sampled=$(sed -n 's/^device_busy_sampled: //p' "$TMP/out")
if [ -n "$busy" ] && [ -n "$sampled" ] && awk -v b="$busy" -v s="$sampled" 'BEGIN {exit !(b > 0 && s < b)}'; then
  ok "device_busy $busy from the device's time, the monitor's $sampled beside it (it misses short kernels)"
else
  not_ok "device_busy and the sampled figure" "busy '$busy' sampled '$sampled'"
fi

# ---- SB3's device: the one faster for SB3's own step, from the crossover's fits ----
# SB3 runs the policy once per env step at the envs' batch: on the H100's profile a
# small MLP at 16 envs loses to the launches and copies (the CPU, whatever its speed:
# minibatches of 32 leave the update tiny), a policy of 7001 inputs at 1024 envs wins.
# The fits are a crossover's kept in the configuration (a tune's own sweep, budgeted
# by the tune, may not reach the device; the next tune keeps the last one's)
export RIGTUNE_SIM_PROFILE=h100
# sb3 FILE: the SB3 block of the first workload on one line (YAML folds long ones)
sb3() { sed -n '/^      stable_baselines3:/,/^    [a-z_]*:/p' "$1" | tr -s '\n ' ' '; }
# torch FILE: its PyTorch block, likewise: a hand-written PyTorch loop runs the same
# policy per env step, so its device line follows the same estimate (its own launches)
torch() { sed -n '/^      pytorch:/,/^      jax:/p' "$1" | tr -s '\n ' ' '; }
# no_cuda DESC FILE: the lines of FILE's PyTorch block (not its for:) name no 'cuda' device
no_cuda() {
  sed -n '/^      pytorch:/,/^      jax:/p' "$2" | sed -n '/^        lines:/,/^        [a-z_]*:/p' >"$2.lines"
  if grep -q "''cuda''" "$2.lines"; then not_ok "$1" "$(grep "''cuda''" "$2.lines" | head -3)"
  elif grep -q "torch.device(''cpu'')" "$2.lines"; then ok "$1"
  else not_ok "$1" "no PyTorch lines in $2: $(head -c 300 "$2.lines")"; fi
}
expect_exit 0 "crossover of the CPU and a simulated H100 (small sizes)" \
  $R crossover --backend cpu,sim --max-n 256 --seconds 0.05 --quiet -o sbxo.yaml
SB3="--workload ppo --no-crossover --backend sim --budget 8 --quiet -o sb3.yaml"
expect_exit 0 "tune PPO at 16 envs on the simulated H100" $R tune $SB3 --space ppo.space \
  --shape env_us=0,rollout=16,minibatch=32,epochs=1
sb3 sb3.yaml >sb3.none
expect_grep "'model = PPO\(''MlpPolicy'', env, n_steps=16, batch_size=32, n_epochs=1, device=''cpu''\) # SB3''s advice for an MlpPolicy; not measured here'" \
  sb3.none "without a crossover: SB3's advice for an MlpPolicy, the CPU"
torch sb3.yaml >torch.none
expect_grep "'device = torch.device\(''cpu''\) # the policy and each batch .to\(device\): the CPU for an MLP policy, as SB3 advises; not measured here'" \
  torch.none "and PyTorch's device line for the policy: the CPU, not measured"
{ sed '/^crossover: null$/,$d' sb3.yaml; sed -n '/^crossover:$/,$p' sbxo.yaml; sed '1,/^crossover: null$/d' sb3.yaml; } >sb3.new
mv sb3.new sb3.yaml
expect_exit 0 "tune PPO at 16 envs again, over the configuration with the crossover" \
  $R tune $SB3 --space ppo.space --shape env_us=0,rollout=16,minibatch=32,epochs=1
sb3 sb3.yaml >sb3.small
expect_grep "device=''cpu''\) # [0-9.e+]+ us an env-step here, [0-9.e+]+ on cuda'" sb3.small \
  "a small MLP at 16 envs: device='cpu', with both estimates"
expect_grep "device=''cpu'': the policy runs once per vector step, at 16 envs here \(6 GEMMs with their launches and copies\): [0-9.e+]+ ms a step on the CPU against [0-9.e+]+ on ''cuda''" \
  sb3.small "the block says why, from the step's GEMMs, launches and copies"
torch sb3.yaml >torch.small
expect_grep "'device = torch.device\(''cpu''\) # the policy and each batch .to\(device\): [0-9.e+]+ us an env-step here, [0-9.e+]+ on cuda'" \
  torch.small "PyTorch's block at 16 envs: torch.device('cpu'), with both estimates"
expect_grep "torch.device\(''cpu''\): the policy runs once per vector step, at 16 envs here \(6 GEMMs with their launches and copies\)" \
  torch.small "and says why in for:"
no_cuda "PyTorch's lines name no 'cuda' where the CPU runs the policy" sb3.yaml
printf 'workload: ppo\nparams:\n  backend: [sim]\n  precision: [fp32]\n  num_envs: [1024]\n  threads: [1]\n  workers: [0]\n  pin: [compact]\n' >big.space
if grep -Eq "faster_above: sim/fp32" sbxo.yaml; then
  expect_exit 0 "tune PPO with 1000 stocks at 1024 envs on the simulated H100" $R tune $SB3 \
    --space big.space --shape env_us=0,num_envs=1024,stocks=1000,rollout=8,minibatch=4096,epochs=1
  sb3 sb3.yaml >sb3.big
  expect_grep "device=''cuda''\) # [0-9.e+]+ us an env-step here, [0-9.e+]+ on the CPU'" sb3.big \
    "a policy of 7001 inputs at 1024 envs: device='cuda'"
  expect_grep "device=''cuda'': the policy runs once per vector step, at 1024 envs here" sb3.big \
    "and says why"
  torch sb3.yaml >torch.big
  expect_grep "'device = torch.device\(''cuda''\) # the policy and each batch .to\(device\): [0-9.e+]+ us an env-step here, [0-9.e+]+ on the CPU'" \
    torch.big "PyTorch's block for that policy: torch.device('cuda')"
else
  n=$((n + 1)); echo "ok $n # SKIP the crossover has the CPU faster than the simulated H100 throughout"
fi

# ---- the crossover's n* against the igpu profile's model ----
export RIGTUNE_SIM_PROFILE=igpu
expect_exit 0 "crossover of the CPU and a simulated integrated GPU" \
  $R crossover --backend cpu,sim --max-n 2048 --seconds 0.1 --save obs.csv --quiet -o xo.yaml
if [ -x $PY ]; then
  # the model of one GEMM step (sim.c, igpu): kernel 5 ms + sync 10 ms + the larger of
  # 2n^3 / 1.4e12 FLOP/s and 16 n^2 bytes / 100 GB/s; against the CPU's fitted curve
  # (the CPU is this machine's, measured with its noise: the model's side is exact)
  out=$($PY - xo.yaml <<'EOF'
import math, re, sys
yaml = open(sys.argv[1]).read()
m = re.search(r"between: \['(cpu:\d+t)/fp32', sim/fp32\]\n\s+kind: \w+\n\s+n_star: ([0-9.e+]+)", yaml)
if not m:
    print("no n* between the CPU and sim"); sys.exit(1)
cpu, nstar = m.group(1), float(m.group(2))
f = re.search(r"- backend: %s\n\s+precision: fp32\n\s+fit: \{a: ([-0-9.e+]+), b: ([-0-9.e+]+), c: ([-0-9.e+]+)" % re.escape(cpu), yaml)
a, b, c = (float(x) for x in f.groups())
cpu_t = lambda n: c + a * n**b
sim_t = lambda n: 5e-3 + 10e-3 + max(2 * n**3 / 1.4e12, 16 * n * n / 100e9)
lo, hi = 32.0, 2048.0
if cpu_t(lo) > sim_t(lo) or cpu_t(hi) < sim_t(hi):
    print("the model has no crossover in the measured range"); sys.exit(1)
for _ in range(60):
    mid = math.sqrt(lo * hi)
    if cpu_t(mid) < sim_t(mid): lo = mid
    else: hi = mid
print("%.1f %.1f" % (nstar, lo))
sys.exit(0 if abs(nstar / lo - 1) <= 0.10 else 1)
EOF
)
  if [ $? -eq 0 ]; then ok "n* (measured, analytic) = ($out): within 10%"; else
    not_ok "the crossover's n* within 10% of the profile's analytic n*" "$out"; fi
else
  n=$((n + 1)); echo "ok $n # SKIP no $PY for the analytic n*"
fi

# ---- only when asked for: without a profile the plugin has no device ----
unset RIGTUNE_SIM_PROFILE
$R probe >probe.yaml 2>/dev/null
expect_grep "reason: 'RIGTUNE_SIM_PROFILE is not set: h100, a100, rx7900gre or igpu'" probe.yaml \
  "without RIGTUNE_SIM_PROFILE the simulated device is unavailable, and says why"

echo "1..$n"
