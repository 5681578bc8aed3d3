#!/usr/bin/env bash
# rigtune sweep --format wandb checked by W&B's own sweep-config validation, offline: its
# sweep engine (the sweeps package that wandb[sweeps] brings and `wandb sweep --controller`
# validates with; the test environment's, tests/requirements.txt) finds no violation, and
# its bayes search proposes runs in the sweep's space with the recommendation's knobs.
# (The wandb package alone validates nothing offline: `wandb sweep` sends the file to the
# W&B server, which checks it.)
# tier: integration (the frameworks' venv)
# beside: others (W&B's validation; no figure)
. "$(dirname "$0")/lib.sh"
need_test_python
R=$RIGTUNE
sweep_fixture "$PY"
for dir in minimize maximize; do
  expect_exit 0 "the W&B sweep is written ($dir)" $R sweep $S --format wandb --direction $dir --metric val_loss \
    --cmd "python3 train.py --epochs 3 --lr {lr} --batch={batch}" -o wandb.yaml
  if "$PY" "$HERE/sweep_check.py" wandb-engine wandb.yaml cfg.yaml "$D/params.yaml" $FITS \
    >chk.log 2>&1; then
    ok "  W&B's validation finds no violation (and finds a broken copy's); its search proposes 3 runs in the space with the knobs"
  else not_ok "  W&B's validation and search" "$(tail -5 chk.log)"; fi
done

echo "1..$n"
