#!/usr/bin/env python3
"""A Hydra application for the sweep tests (tests/cli/test_sweep_hydra.sh), as a user
writes one: run with --multirun +experiment=rigtune, where the experiment is the file
`rigtune sweep --format hydra` wrote, it takes the swept values (cfg.batch, cfg.lr, ...)
and the fixed hardware knobs (cfg.rigtune.*) from its config and returns the objective
(tests/sweep_check.py's formula) to hydra-optuna-sweeper. Each trial also prints one line
"rigtune-hydra-trial JSON" with what it saw (its values, knobs and the variables of
hydra.job.env_set as the process has them) for tests/sweep_check.py to check.
"""
import json
import os
import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import OmegaConf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_check import val_loss  # noqa: E402


@hydra.main(version_base=None, config_path=None, config_name="config")
def main(cfg):
    seen = OmegaConf.to_container(cfg)
    knobs = seen.pop("rigtune")
    env = {k: os.environ.get(k) for k in HydraConfig.get().job.env_set}
    value = val_loss(seen)
    print("rigtune-hydra-trial " + json.dumps({"params": seen, "fixed": knobs, "env": env,
                                               "value": value}), flush=True)
    return value


if __name__ == "__main__":
    main()
