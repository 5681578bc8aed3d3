#!/usr/bin/env bash
# The test environment of real frameworks: a virtual environment of PyPI's torch 2.x, jax,
# gymnasium, stable-baselines3, Hydra with its Optuna sweeper, Ray Tune, W&B's sweep engine
# (sweeps) and threadpoolctl,
# pinned by tests/requirements.txt, that `make test` makes on its first run and reuses after.
#
#   scripts/venv.sh          make it where it is missing or was left unfinished
#   scripts/venv.sh --path   print its folder (made or not)
#
# It lives outside the checkout, in ${XDG_CACHE_HOME:-~/.cache}/rigtune/venv-HASH (HASH:
# of the requirements and the base interpreter), so every clone and CI run of the same
# pins shares one; RIGTUNE_VENV names another folder. pip's own cache keeps the wheels
# (torch's brings CUDA libraries: ~3 GB on disk the first time, about two minutes).
# The base interpreter is Debian's /usr/bin/python3 (python3-venv), not a pyenv one on PATH:
# RIGTUNE_VENV_PYTHON names another. make run never makes it.
set -euo pipefail
cd "$(dirname "$0")/.."
REQ=tests/requirements.txt
BASE=${RIGTUNE_VENV_PYTHON:-/usr/bin/python3}
# (macOS has shasum where Linux has sha256sum, and no flock: there a lock is not taken)
sum256() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; }
hash=$({ cat "$REQ"; "$BASE" -c 'import sys; print(sys.version)'; } | sum256 | cut -c1-12)
dir=${RIGTUNE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rigtune/venv-$hash}
if [ "${1:-}" = --path ]; then echo "$dir"; exit 0; fi
[ $# = 0 ] || { echo "usage: scripts/venv.sh [--path]" >&2; exit 2; }

# .complete is written last: a folder without it was interrupted and is made again.
stamp=$dir/.complete
[ -f "$stamp" ] && exit 0
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
! command -v flock >/dev/null || flock 9 # two test runs at once make it once
[ -f "$stamp" ] && exit 0
rm -rf "$dir"
echo "rigtune: making the test environment $dir (pinned by $REQ; the first time takes minutes)" >&2
"$BASE" -m venv "$dir"
# --no-deps: the file pins every package, and one (sweeps) declares a numpy below the one
# torch and jax need, which pip's resolver would refuse although it runs on it
"$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --no-deps -r "$REQ"
# so the pins must be whole: pip check names what they miss (sweeps' numpy aside)
missing=$("$dir/bin/python" -m pip check --disable-pip-version-check |
  grep -v -e '^sweeps .* has requirement numpy' -e '^No broken requirements' || true)
[ -z "$missing" ] || { echo "rigtune: $REQ lacks what these need: $missing" >&2; exit 1; }
"$dir/bin/python" -c 'import torch, jax, gymnasium, stable_baselines3, hydra, optuna, ray.tune, sweeps'
touch "$stamp"
echo "rigtune: test environment ready: $dir" >&2
