#!/usr/bin/env bash
# The frameworks users install, for real (issue 31): Debian's python3-torch and
# PyPI's torch, jax, gymnasium and stable-baselines3 in make test's environment
# ($RIGTUNE_TEST_PYTHON, scripts/venv.sh). Each verdict rigtune gives on the
# user's thread and precision variables is proven on both installs
# (tests/framework_env.py); a tune with --python names each framework's build,
# its hints are tested blocks (tests/framework_hints.py, run by test_hints,
# applies every line), and `env` says which of the user's variables the
# frameworks ignore.
# tier: integration (PyTorch, JAX and SB3 in the frameworks' venv)
# beside: others (each observation is a process's own pools, settings and threads' CPU
# time, a spinning thread's tens of ms against 30; the tune's figures are not asserted)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1 # a shared machine: the budget holds
R=$RIGTUNE
SRC=$PWD
need_test_python
VENV=$PY

# ---- what your settings do, proven on each install ----
for py in ${ONLY_PY:-/usr/bin/python3 "$VENV"}; do
  "$py" "$SRC/tests/framework_env.py" "$R" >"$TMP/env.tap" 2>"$TMP/env.err"
  rc=$?
  while IFS= read -r line; do
    case $line in
      "ok "*) ok "$py: ${line#ok * - }" ;;
      "not ok "*) not_ok "$py: ${line#not ok * - }" ;;
      "#"*|"Bail out!"*) echo "$line" ;;
    esac
  done <"$TMP/env.tap"
  [ "$rc" -eq 0 ] && ok "$py: every verdict holds" ||
    not_ok "$py: every verdict holds" "exit $rc" "$(tail -c 400 "$TMP/env.err")"
done

cd "$TMP" || exit 1
# ---- a tune with PyPI's frameworks: their builds named, their blocks tested ----
# XLA_CPU_MULTI_THREAD_EIGEN and MKL_NUM_THREADS as seed 001 set them (16 there);
# neither changes rigtune's own trials.
printf 'workload: ppo\nparams:\n  backend: [cpu]\n  precision: [fp32]\n  num_envs: [16]\n  threads: [1]\n  workers: [0, 1]\n  pin: [compact]\n' >ppo.yaml
XLA_CPU_MULTI_THREAD_EIGEN=true MKL_NUM_THREADS=1 expect_exit 0 "tune --python the venv (ppo, 80 s)" \
  $R tune --python "$VENV" --workload ppo --space ppo.yaml --budget 80 --no-crossover \
  --quiet -o t.yaml
# block NAME: the hints block NAME of the first recommendation, as text
block() { awk -v b="      $1:" '$0 == b {on = 1; next} on && /^      [a-z_]+:$/ {exit} on && /^    [a-z_]+:/ {exit} on' t.yaml; }
for fw in pytorch jax gymnasium stable_baselines3; do
  block $fw >"$fw.block"
  if [ ! -s "$fw.block" ]; then not_ok "a $fw block" "$(sed -n '/hints:/,/runner/p' t.yaml)"
  elif grep -q 'untested: true' "$fw.block"; then not_ok "the $fw block is tested" "$(cat "$fw.block")"
  else ok "the $fw block is tested"; fi
done
expect_grep "for: '?PyTorch 2\.[0-9.]+.* with mkl .*\(openmp\)" pytorch.block "PyTorch's block names the MKL build"
expect_grep "for: '?JAX 0\.[0-9.]+ \(jaxlib" jax.block "JAX's block names jaxlib"
# SB3's envs: from the point's 16, doubled while SB3's fixed cost per vector step, as
# the probe timed it in this Python, is over 5% of a step (its per-env cost + env_us 15)
sb3_cost() { awk -v k="$1:" '/^  stable_baselines3:/ {on = 1} on && $1 == k {gsub(/\047/, "", $2); print $2; exit}' t.yaml; }
fixed=$(sb3_cost step_fixed_us) per_env=$(sb3_cost step_per_env_us)
envs=$(awk -v f="$fixed" -v e="$per_env" 'BEGIN {n = 16; while (n * 2 <= 1024 && f > 0.05 * (f + n * (e + 15))) n *= 2; print n}')
if [ -z "$fixed" ] || [ -z "$per_env" ]; then not_ok "the probe timed SB3's vector step" "$(sed -n '/^frameworks:/,$p' t.yaml)"
else expect_grep "make_vec_env\(make_env, n_envs=$envs, vec_env_cls=DummyVecEnv\)" stable_baselines3.block \
  "SB3's envs: $envs from its timed step ($fixed us + $per_env us an env)"; fi
# a timing that fails (gymnasium broken in this Python): SB3 is still there, and says why
mkdir -p shadow/gymnasium && echo 'raise ImportError("broken on purpose")' >shadow/gymnasium/__init__.py
PYTHONPATH=$PWD/shadow expect_exit 0 "probe --python with a gymnasium that fails to import" \
  $R probe --python "$VENV" -o shadow.yaml
sed -n '/^  stable_baselines3:/,/^  [a-z_]*:$/p' shadow.yaml >shadow.sb3
expect_grep "version: '2\." shadow.sb3 "SB3 is installed whatever its timing met"
expect_grep "step_costs: 'not timed: ImportError: broken on purpose'" shadow.sb3 "and says why it was not timed"
expect_grep "untested: true" <(block tensorflow) "TensorFlow, not installed, stays untested"
sed -n '/^your_settings:/,/^[a-z]/p' t.yaml >settings
expect_grep "XLA_CPU_MULTI_THREAD_EIGEN:" settings "your_settings lists the variable set"
expect_grep "jax: 'ignored: JAX does not read it" settings "and JAX ignores it"
expect_grep "pytorch: 'read: sizes PyTorch''s intra-op pool" settings "MKL_NUM_THREADS: PyTorch reads it"

# ---- env: the user's variables, judged for the configuration's frameworks ----
OPENBLAS_NUM_THREADS=16 expect_exit 0 "env with OPENBLAS_NUM_THREADS set" $R env --config t.yaml
expect_grep "^# your OPENBLAS_NUM_THREADS: pytorch 2\.[0-9.+a-z]* ignores it \(this PyTorch's BLAS is not OpenBLAS\)" \
  "$TMP/out" "env says the MKL PyTorch ignores OPENBLAS_NUM_THREADS"
sh -n "$TMP/out" && ok "env's output is still a shell script" || not_ok "env's output parses" "$(cat "$TMP/out")"
# ---- the SB3 example's environment, slowed for bench_check (issue 33) ----
# TRADING_ENV_SLOWDOWN spins after each step and changes nothing else: the same
# 200 steps give the same rewards and observations; a bad value is exit 2.
steps='import sys; sys.path.insert(0, sys.argv[1]); import numpy as np, trading_env as t
e = t.TradingEnv(); e.reset(seed=0); a = np.random.default_rng(1).uniform(-1, 1, (200, e.stocks))
r = [e.step(x.astype(np.float32)) for x in a]
print(t.SLOWDOWN, sum(s[1] for s in r), float(sum(s[0].sum() for s in r)))'
plain=$("$VENV" -c "$steps" "$SRC/examples" 2>&1) slowed=$(TRADING_ENV_SLOWDOWN=0.25 "$VENV" -c "$steps" "$SRC/examples" 2>&1)
[ "${plain#0.0 }" = "${slowed#0.25 }" ] && [ "$plain" != "$slowed" ] &&
  ok "TRADING_ENV_SLOWDOWN=0.25 is read and the steps' results are the same" ||
  not_ok "TRADING_ENV_SLOWDOWN: read, results unchanged" "plain: $plain" "slowed: $slowed"
TRADING_ENV_SLOWDOWN=1.5 expect_exit 2 "TRADING_ENV_SLOWDOWN=1.5 is refused" "$VENV" "$SRC/examples/trading_env.py"
expect_grep "^trading_env: TRADING_ENV_SLOWDOWN='1\.5': want a number in \[0, 0\.9\)$" "$TMP/err" "naming it"
echo "1..$n"
