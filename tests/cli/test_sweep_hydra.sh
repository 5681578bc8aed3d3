#!/usr/bin/env bash
# rigtune sweep --format hydra run by Hydra itself: hydra-core with hydra-optuna-sweeper
# (the test environment's, tests/requirements.txt) runs a real @hydra.main application
# (tests/sweep_hydra_app.py) with --multirun +experiment=rigtune, the generated file as
# the experiment, for 3 trials; each trial's values lie in the sweep's space, it sees the
# recommendation's knobs and environment, and the sweeper's best is the least of them.
# tier: integration (Hydra in the frameworks' venv)
# beside: others (Hydra's trials and their values; no figure)
. "$(dirname "$0")/lib.sh"
need_test_python
R=$RIGTUNE
sweep_fixture "$PY"
# The application's own config knows nothing of the sweep: the experiment brings it all.
mkdir -p conf/experiment
printf 'defaults:\n  - _self_\n' >conf/config.yaml
expect_exit 0 "the Hydra file is written for 3 trials" $R sweep $S --format hydra --trials 3 \
  -o conf/experiment/rigtune.yaml
expect_grep '^"batch": 32$' conf/experiment/rigtune.yaml \
  "it defines the swept keys (the knee without --multirun), which the sweeper overrides"

# The variables Hydra must set come from the file only, not from this shell.
if env -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u OMP_PROC_BIND -u OMP_PLACES \
  HYDRA_FULL_ERROR=1 "$PY" "$HERE/sweep_hydra_app.py" --config-dir conf --multirun \
  +experiment=rigtune "hydra.sweep.dir=$TMP/multirun" >hydra.log 2>&1; then
  ok "Hydra ran the multirun with the Optuna sweeper"
else not_ok "the Hydra multirun" "$(tail -8 hydra.log)"; fi
expect_grep "Sampler: TPESampler" hydra.log "  through hydra-optuna-sweeper's Optuna study"
if "$PY" "$HERE/sweep_check.py" hydra-run hydra.log multirun/optimization_results.yaml \
  cfg.yaml "$D/params.yaml" $FITS 3 >chk.log 2>&1; then
  ok "3 trials in the sweep's space, each with the recommendation's knobs (cfg.rigtune) and environment (env_set); the sweeper's best is their least"
else not_ok "the trials Hydra ran" "$(cat chk.log)"; fi

echo "1..$n"
