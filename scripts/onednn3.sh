#!/usr/bin/env bash
# oneDNN 3.x, to build and run workloads/cpu_dnnl.c against it as well as against
# Debian 12's 2.x (make test's test_cpu_dnnl3: Homebrew, Debian 13 and Ubuntu 24.04
# ship 3.x, whose API dropped the operation descriptors and output scales that 2.x
# has): PyPI's onednn-devel-cpu-gomp, pinned, headers and library (oneDNN 3.2
# built for the CPU with GNU OpenMP, as Debian builds it; plain onednn-devel is
# the SYCL build, 2 GB with its runtime), in a small virtual
# environment of its own that make test makes on its first run and every clone
# shares after (scripts/cached-venv.sh, as scripts/zig.sh).
#
#   scripts/onednn3.sh          make it where it is missing or was left unfinished
#   scripts/onednn3.sh --path   print its folder (made or not): include/ and lib/ hold oneDNN
#   scripts/onednn3.sh --background | --wait   (scripts/cached-venv.sh)
#
# It lives in ${XDG_CACHE_HOME:-~/.cache}/rigtune/onednn-VERSION (RIGTUNE_ONEDNN3 names another).
set -euo pipefail
. "$(dirname "$0")/cached-venv.sh"
VERSION=2023.2.0
dir=${RIGTUNE_ONEDNN3:-${XDG_CACHE_HOME:-$HOME/.cache}/rigtune/onednn-$VERSION}
cached_venv_args "$dir" "$@"

fill() {
  venv_pip "$1" "onednn-devel-cpu-gomp==$VERSION"
  test -f "$1/include/oneapi/dnnl/dnnl.h"
}
cached_venv "$dir" "oneDNN 3's environment $dir (onednn-devel-cpu-gomp $VERSION, about 180 MB)" fill
