#!/usr/bin/env bash
# The test environment of real frameworks: a virtual environment of PyPI's torch 2.x, jax,
# gymnasium, stable-baselines3, Hydra with its Optuna sweeper, Ray Tune, W&B's sweep engine
# (sweeps) and threadpoolctl,
# pinned by tests/requirements.txt, that `make test` makes on its first run and reuses after
# (scripts/cached-venv.sh: made, pinned and reused as scripts/zig.sh's).
#
#   scripts/venv.sh          make it where it is missing or was left unfinished
#   scripts/venv.sh --path   print its folder (made or not)
#   scripts/venv.sh --background | --wait   (make test's set-up, tests/run.sh: cached-venv.sh)
#
# It lives outside the checkout, in ${XDG_CACHE_HOME:-~/.cache}/rigtune/venv-HASH (HASH:
# of the requirements and the base interpreter), so every clone and CI run of the same
# pins shares one; RIGTUNE_VENV names another folder. pip's own cache keeps the wheels
# (torch's brings CUDA libraries: ~3 GB on disk the first time, about two minutes).
# The base interpreter is Debian's /usr/bin/python3 (python3-venv), not a pyenv one on PATH:
# RIGTUNE_VENV_PYTHON names another. make run never makes it.
set -euo pipefail
. "$(dirname "$0")/cached-venv.sh"
cd "$(dirname "$0")/.."
REQ=tests/requirements.txt
# (macOS has shasum where Linux has sha256sum)
sum256() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; }
hash=$({ cat "$REQ"; "$VENV_BASE" -c 'import sys; print(sys.version)'; } | sum256 | cut -c1-12)
dir=${RIGTUNE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rigtune/venv-$hash}
cached_venv_args "$dir" "$@"

fill() {
  # --no-deps: the file pins every package, and one (sweeps) declares a numpy below the one
  # torch and jax need, which pip's resolver would refuse although it runs on it
  venv_pip "$1" --no-deps -r "$REQ"
  # so the pins must be whole: pip check names what they miss (sweeps' numpy aside)
  local missing
  missing=$("$1/bin/python" -m pip check --disable-pip-version-check |
    grep -v -e '^sweeps .* has requirement numpy' -e '^No broken requirements' || true)
  [ -z "$missing" ] || { echo "rigtune: $REQ lacks what these need: $missing" >&2; exit 1; }
  "$1/bin/python" -c 'import torch, jax, gymnasium, stable_baselines3, hydra, optuna, ray.tune, sweeps'
  echo "rigtune: test environment ready: $1" >&2
}
cached_venv "$dir" "the test environment $dir (pinned by $REQ; the first time takes minutes)" fill
