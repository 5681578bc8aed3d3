#!/usr/bin/env bash
# Issue 45's measurements on one CUDA GPU, sized for under 8 minutes of an
# H100/H200 with nvcc, PyTorch and (if there) Stable-Baselines3 installed and
# nothing installable: the binaries come built (GPU_CHECK_PREBUILT-style, from
# $BUILD). It prints, in sections, for pasting into the issue:
#   1. every kernel, fast and plain, timed (GB/s) and checked against the CPU;
#   2. the synthetic step (rigtune bench transformer) and PyTorch eager
#      (scripts/gpu_step_grid.py, examples/torch_transformer.py's model) at the
#      issue's grid: batch 64..1024 x fp32/tf32/bf16/fp16, d_model 512, 8 heads,
#      d_ff 2048, 4 layers, seq_len 128, the two interleaved round by round;
#      then per point the medians, rigtune/PyTorch, and the rank correlation;
#   3. the tune's advice for that model (tune --budget 60) applied to the
#      PyTorch loop: its samples/s over the best of the grid;
#   4. SB3 PPO on the CPU and on the GPU at the PPO advice's settings;
#   5. rigtune watch's phases of the PyTorch example on the GPU;
#   6. the phases of the synthetic step (from the device's events).
#
# Usage: scripts/gpu-step-check.sh
#   PYTHON=...              the interpreter with PyTorch (default python3)
#   GPU_STEP_ROUNDS=2       rounds of the grid;  GPU_STEP_SECONDS=1.5  per point
#   GPU_STEP_BATCHES='64 256 512 1024'   GPU_STEP_PRECISIONS='fp32 tf32 bf16 fp16'
#   GPU_STEP_DRY=1          print the commands instead of running them (no GPU)
# Exit: 0 when it ran to the end, 3 without the binaries or a CUDA device.
set -u
cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
RT="$BUILD/rigtune"
PY=${PYTHON:-python3}
ROUNDS=${GPU_STEP_ROUNDS:-2}
SECS=${GPU_STEP_SECONDS:-1.5}
BATCHES=${GPU_STEP_BATCHES:-64 256 512 1024}
PRECISIONS=${GPU_STEP_PRECISIONS:-fp32 tf32 bf16 fp16}
SHAPE=(d_model=512 heads=8 d_ff=2048 layers=4 seq_len=128)
SHAPE_FLAG="d_model=512,heads=8,d_ff=2048,layers=4,seq_len=128"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-step.XXXXXX")
OUT="gpu-step-$(hostname 2>/dev/null || echo host).txt"
export RIGTUNE_BACKEND_PATH="$PWD/$BUILD"
START=$(date +%s)

section() { printf '\n=== %s (at %ds)\n' "$*" "$(($(date +%s) - START))"; }
# Runs a command, or prints it under GPU_STEP_DRY.
x() {
  if [ -n "${GPU_STEP_DRY:-}" ]; then printf 'would run: %s\n' "$*"; else "$@"; fi
}

preflight() {
  local f
  for f in "$RT" "$BUILD/tests/gpu_check" "$BUILD/librigtune_cuda.so"; do
    [ -e "$f" ] || { echo "gpu-step-check: no $f (build it, or carry it here)" >&2; return 3; }
  done
  [ -n "${GPU_STEP_DRY:-}" ] && return 0
  "$PY" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null ||
    { echo "gpu-step-check: $PY has no PyTorch that sees a CUDA device" >&2; return 3; }
}

kernels() {
  section "kernels: fast vs plain, GB/s at the transformer's sizes (batch 256)"
  x "$BUILD/tests/gpu_check" cuda 0 --bench
  section "kernels: every operation, fast and plain, against the CPU backend"
  x "$BUILD/tests/gpu_check" cuda | grep -E 'device 0|plain kernels|FAIL|passed'
}

# One point of the synthetic step: "rigtune round R batch B precision P samples/s X".
rigtune_point() {
  local r=$1 b=$2 p=$3 v
  v=$(x "$RT" bench transformer backend=cuda precision="$p" batch="$b" "${SHAPE[@]}" \
    --seconds "$SECS" 2>"$WORK/bench.err" | tee "$WORK/bench-$b-$p.yaml" |
    sed -n 's/^throughput: {median: \([0-9.e+]*\),.*/\1/p')
  echo "rigtune round $r batch $b precision $p samples/s ${v:-failed}"
  [ -n "$v" ] || sed 's/^/  /' "$WORK/bench.err" | tail -n 3
}

grid() {
  local r b p
  section "grid: rigtune's synthetic step and PyTorch eager, interleaved ($ROUNDS rounds, ${SECS}s a point)"
  for r in $(seq 1 "$ROUNDS"); do
    for b in $BATCHES; do
      for p in $PRECISIONS; do rigtune_point "$r" "$b" "$p"; done
    done | tee -a "$WORK/grid.txt"
    x "$PY" scripts/gpu_step_grid.py --rounds 1 --seconds "$SECS" \
      --batches "$(echo "$BATCHES" | tr ' ' ',')" --precisions "$(echo "$PRECISIONS" | tr ' ' ',')" |
      sed "s/^torch round 1 /torch round $r /" | tee -a "$WORK/grid.txt"
  done
  section "grid: medians, rigtune / PyTorch, rank correlation (done when >= 0.7 everywhere, rho >= 0.9)"
  x "$PY" - "$WORK/grid.txt" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) == 9 and w[7] == "samples/s":
        try:
            runs.setdefault((w[0], int(w[4]), w[6]), []).append(float(w[8]))
        except ValueError:
            pass
points = sorted({(b, p) for _, b, p in runs})
med = {k: statistics.median(v) for k, v in runs.items()}
both = [(b, p) for b, p in points if ("rigtune", b, p) in med and ("torch", b, p) in med]
print(f"{'batch':>6} {'prec':>5} {'rigtune':>10} {'pytorch':>10} {'ratio':>6}")
for b, p in points:
    r, t = med.get(("rigtune", b, p)), med.get(("torch", b, p))
    ratio = f"{r / t:6.2f}" if r and t else "     -"
    print(f"{b:>6} {p:>5} {r or 0:>10.1f} {t or 0:>10.1f} {ratio}")

def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    out = [0.0] * len(v)
    for rank, i in enumerate(order):
        out[i] = rank
    return out

if len(both) >= 3:
    a = ranks([med[("rigtune",) + k] for k in both])
    b = ranks([med[("torch",) + k] for k in both])
    n = len(both)
    rho = 1 - 6 * sum((x - y) ** 2 for x, y in zip(a, b)) / (n * (n * n - 1))
    print(f"rank correlation (Spearman) over {n} points: {rho:.3f}")
    print(f"lowest rigtune / PyTorch: {min(med[('rigtune',) + k] / med[('torch',) + k] for k in both):.2f}")
EOF
}

# The recommended point of a configuration's workload: "backend precision batch" and the shape.
recommended() {
  sed -n "/^  $2:/,/^  [a-z]/p" "$1" | sed -n '/^    recommended:/,/^    [a-z]/p' |
    sed -n 's/^      point: {backend: \([a-z0-9_]*\), precision: \([a-z0-9]*\), batch: \([0-9]*\).*/\1 \2 \3/p' |
    head -n 1
}

advice() {
  local be p b best v
  section "advice: tune --workload transformer --budget 60 on this model, applied to PyTorch"
  x "$RT" tune --workload transformer --shape "$SHAPE_FLAG" --budget 60 --quiet \
    -o "$WORK/tune.yaml" 2>&1 | tail -n 3
  [ -n "${GPU_STEP_DRY:-}" ] && return 0
  read -r be p b <<<"$(recommended "$WORK/tune.yaml" transformer)"
  echo "recommended: backend ${be:-?}, precision ${p:-?}, batch ${b:-?}"
  [ "${be:-}" = cuda ] || { echo "the advice is not the GPU: no PyTorch CUDA point to compare"; return 0; }
  v=$("$PY" scripts/gpu_step_grid.py --rounds 1 --seconds "$SECS" --batches "$b" --precisions "$p" |
    awk '{print $NF}')
  best=$(awk '$1 == "torch" {print $NF, $5, $7}' "$WORK/grid.txt" | sort -g | tail -n 1)
  echo "PyTorch at the advice: ${v:-failed} samples/s; best of the grid: $best (samples/s batch precision)"
  awk -v v="${v:-0}" -v best="${best%% *}" \
    'BEGIN { if (best > 0) printf "advice / best of the grid: %.3f (done when >= 0.97)\n", v / best }'
}

ppo() {
  local be line n r m e dev
  section "ppo: tune --workload ppo --budget 30, then SB3 PPO (MlpPolicy) on the CPU and the GPU"
  x "$RT" tune --workload ppo --budget 30 --quiet -o "$WORK/ppo.yaml" 2>&1 | tail -n 3
  [ -n "${GPU_STEP_DRY:-}" ] && return 0
  be=$(recommended "$WORK/ppo.yaml" ppo | cut -d' ' -f1)
  line=$(sed -n '/^  ppo:/,/^  [a-z]/p' "$WORK/ppo.yaml" | sed -n '/^    recommended:/,/^    [a-z]/p' |
    sed -n 's/^      shape: {\(.*\)}/\1/p' | head -n 1)
  echo "the advice: backend ${be:-?}, shape {$line}"
  grep -E "PPO\(" "$WORK/ppo.yaml" | head -n 2 | sed 's/^ */sb3 line: /'
  if ! "$PY" -c 'import stable_baselines3' 2>/dev/null; then
    echo "Stable-Baselines3 is not installed for $PY: the SB3 runs are skipped"
    return 0
  fi
  n=$(echo "$line" | sed -n 's/.*num_envs: \([0-9]*\).*/\1/p')
  r=$(echo "$line" | sed -n 's/.*rollout: \([0-9]*\).*/\1/p')
  m=$(echo "$line" | sed -n 's/.*minibatch: \([0-9]*\).*/\1/p')
  e=$(echo "$line" | sed -n 's/.*epochs: \([0-9]*\).*/\1/p')
  for dev in cpu cuda; do
    printf 'sb3 %s: ' "$dev"
    timeout 120 "$PY" examples/sb3_ppo.py --device "$dev" --num-envs "${n:-16}" \
      --rollout "${r:-128}" --minibatch "${m:-256}" --epochs "${e:-4}" --timesteps 20000 \
      2>/dev/null | grep -E '^total' || echo "failed"
  done
}

watch_phases() {
  section "watch: examples/torch_transformer.py on the GPU, as rigtune watch sees it"
  x "$RT" watch --quiet --metric 'samples/s ([0-9.]+)' -o "$WORK/watch.yaml" -- \
    "$PY" examples/torch_transformer.py --device cuda --batch 256 --d-model 512 --heads 8 \
    --d-ff 2048 --layers 4 --seq-len 128 --steps 100000 --seconds 15 >/dev/null 2>&1
  [ -n "${GPU_STEP_DRY:-}" ] || sed -n '/^binding:/,/^phases:/p' "$WORK/watch.yaml"
}

step_phases() {
  local f
  section "the synthetic step's phases (device events) and busy share, last round"
  for f in "$WORK"/bench-*.yaml; do
    [ -e "$f" ] || continue
    printf '%s: ' "$(basename "$f" .yaml)"
    grep -E '^(phases|device_busy):' "$f" | tr '\n' ' '
    echo
  done
}

main() {
  preflight || return 3
  section "machine"
  x "$RT" --version
  command -v nvidia-smi >/dev/null && x nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  kernels
  grid
  step_phases
  advice
  ppo
  watch_phases
  section "done"
}

main 2>&1 | tee "$OUT"
rc=${PIPESTATUS[0]}
rm -rf "$WORK"
echo "gpu-step-check: all of the above is in $OUT" >&2
exit "$rc"
