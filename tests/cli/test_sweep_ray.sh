#!/usr/bin/env bash
# rigtune sweep --format ray run by Ray Tune itself (the test environment's ray[tune],
# tests/requirements.txt), locally and offline: 3 trials of tests/sweep_objective.py, the
# knee first, each in the sweep's space, with the recommendation's environment and CPU
# binding (the objective exits 3 otherwise), the best the least of them.
# tier: integration (Ray in the frameworks' venv)
# beside: others (Ray's trials and their values; no figure)
. "$(dirname "$0")/lib.sh"
need_test_python
R=$RIGTUNE
sweep_fixture "$PY"
expect_exit 0 "the Ray Tune script is written for 3 trials" $R sweep $S --format ray --trials 3 \
  --cmd "$CMD" --objective "$OBJ" -o ray_sweep.py
line=$(grep -n '^import ray' ray_sweep.py | cut -d: -f1)
envl=$(grep -n '^os.environ.update(ENV)' ray_sweep.py | cut -d: -f1)
[ -n "$line" ] && [ -n "$envl" ] && [ "$envl" -lt "$line" ] && ok "the environment is set before ray is imported" ||
  not_ok "the environment before the imports" "environ at line $envl, import ray at $line"

# Ray writes only here (its session, its token, the results), and reports nothing.
export HOME=$TMP/home RAY_TMPDIR=$TMP/ray RAY_USAGE_STATS_ENABLED=0
mkdir -p "$HOME" "$RAY_TMPDIR"
export SWEEP_TEST_PUS
SWEEP_TEST_PUS=$(sed -n 's/^PUS = \[\(.*\)\]$/\1/p' ray_sweep.py | tr -d ' ')
expect_exit 1 "a command that is not there stops the script before Ray starts" \
  "$PY" ray_sweep.py --cmd "nosuch-program {lr}"
expect_grep "cannot run nosuch-program: not found" "$TMP/err" "  and says so"
if env -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u OMP_PROC_BIND -u OMP_PLACES \
  "$PY" ray_sweep.py --storage-path "$TMP/results" >ray.log 2>&1; then
  ok "Ray Tune ran the search"
else not_ok "the Ray Tune run" "$(tail -8 ray.log)"; fi
if "$PY" "$HERE/sweep_check.py" ray-run "$TMP/results/rigtune-$(hostname)-transformer" ray.log \
  "$D/params.yaml" $FITS 3 >chk.log 2>&1; then
  ok "3 trials, the knee first, in the sweep's space, each bound to PUs $SWEEP_TEST_PUS with the environment; the best reported is their least"
else not_ok "the trials Ray Tune ran" "$(cat chk.log)"; fi

echo "1..$n"
