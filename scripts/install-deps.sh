#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages rigtune needs, by group:
#   build  the compiler, pkg-config, OpenBLAS, oneDNN (CPU bf16), hwloc, NLopt, libyaml,
#          libpq (the results store), and gnuplot for the report that make run draws
#                                                                        (make, make run)
#   test   cmocka, clang's sanitizer and fuzzer runtimes, llvm-nm (the macOS cross-build's
#          symbols), the real clients the tests drive: PyTorch, Optuna (+ omegaconf, psycopg2), PostgreSQL,
#          Slurm and munge (the fleet's cluster), headless Chromium, OpenBLAS's
#          serial build beside the pthreads one (check's A/B), and python3-venv for
#          scripts/venv.sh (PyPI's frameworks)                            (make test)
#   hip    Debian's hipcc, to build the HIP plugin (where /dev/kfd shows an AMD GPU,
#          with `make HIP=1`, and always in CI)
#
#   scripts/install-deps.sh [--if-missing] GROUP...
#
# --if-missing installs nothing when every group given is there already (what stands
# for a group: its pkg-config modules, commands, Python modules and files). As root, or
# through `sudo -n`; otherwise prints the exact command to run and exits 1.
# On macOS the groups are Homebrew's formulas (brew_formulas), installed where missing.
set -euo pipefail

# macOS: what the Makefile's Darwin part builds with (build), cmocka for the tests (test).
brew_formulas() {
  case $1 in
    build) echo pkg-config hwloc nlopt libyaml openblas libpq onednn libomp gnuplot ;;
    test) echo cmocka ;;
    hip) ;;
    *) echo "install-deps.sh: unknown group '$1' (build, test)" >&2; exit 2 ;;
  esac
}
if [ "$(uname -s)" = Darwin ]; then
  [ "${1:-}" = "--if-missing" ] && shift # Homebrew is asked for what is missing anyway
  command -v brew >/dev/null 2>&1 ||
    { echo "rigtune needs Homebrew (https://brew.sh) to install its libraries" >&2; exit 1; }
  missing=()
  for g in "${@:-build}"; do
    for f in $(brew_formulas "$g"); do
      brew list --formula "$f" >/dev/null 2>&1 || missing+=("$f")
    done
  done
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "rigtune: brew install ${missing[*]}" >&2
  exec brew install "${missing[@]}"
fi

# Debian's Python packages belong to this interpreter, not to a pyenv one on PATH.
SYSTEM_PYTHON=/usr/bin/python3

packages() {
  case $1 in
    build) echo build-essential pkg-config libopenblas-dev libdnnl-dev libhwloc-dev hwloc libnlopt-dev libyaml-dev \
               libpq-dev gnuplot-nox ;;
    test) echo libcmocka-dev clang llvm libclang-rt-14-dev python3-torch python3-optuna python3-omegaconf \
               python3-psycopg2 python3-yaml python3-venv postgresql slurm-wlm munge chromium fonts-dejavu-core \
               libopenblas0-serial ;;
    hip) echo hipcc ;;
    *) echo "install-deps.sh: unknown group '$1' (build, test, hip)" >&2; exit 2 ;;
  esac
}

have_modules() { local m; for m in "$@"; do pkg-config --exists "$m" 2>/dev/null || return 1; done; }
have_commands() { local c; for c in "$@"; do command -v "$c" >/dev/null 2>&1 || return 1; done; }
# find_spec locates a module without importing it (importing torch takes seconds).
have_python() {
  [ -x "$SYSTEM_PYTHON" ] && "$SYSTEM_PYTHON" -c 'import importlib.util, sys
sys.exit(any(importlib.util.find_spec(m) is None for m in sys.argv[1:]))' "$@" 2>/dev/null
}

# Whether what stands for the group is all there.
present() {
  case $1 in
    build) have_commands cc make pkg-config gnuplot && have_modules hwloc nlopt yaml-0.1 openblas libpq &&
           [ -e /usr/include/oneapi/dnnl/dnnl.h ] ;;
    test) have_modules cmocka && have_commands clang llvm-nm chromium slurmctld slurmd munged sbatch &&
          have_python torch optuna omegaconf psycopg2 yaml ensurepip &&
          compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null &&
          compgen -G '/usr/lib/*/openblas-serial/libopenblas.so.0' >/dev/null &&
          compgen -G '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a' >/dev/null ;;
    hip) have_commands hipcc ;;
  esac
}

if_missing=0
if [ "${1:-}" = "--if-missing" ]; then if_missing=1; shift; fi
[ $# -gt 0 ] || set -- build

wanted=()
for g in "$@"; do
  pkgs=$(packages "$g")
  if [ "$if_missing" = 1 ] && present "$g"; then continue; fi
  wanted+=($pkgs)
done
[ ${#wanted[@]} -gt 0 ] || exit 0

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${wanted[*]}"
if [ "$(id -u)" = 0 ]; then
  echo "rigtune: installing ${wanted[*]}" >&2
  sh -c "$cmd"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  echo "rigtune: installing ${wanted[*]} (sudo -n)" >&2
  sudo -n sh -c "$cmd"
else
  echo "rigtune needs packages that are not installed. Run, as root:" >&2
  echo "  $cmd" >&2
  exit 1
fi
