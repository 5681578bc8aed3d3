#!/usr/bin/env bash
# Zig's C compiler, which carries macOS's libc headers and libSystem and so
# cross-compiles and links Mach-O binaries here (make test's macOS build):
# PyPI's ziglang, pinned, in a small virtual environment of its own that
# make test makes on its first run and every clone shares after
# (scripts/cached-venv.sh: made, pinned and reused as scripts/venv.sh's).
#
#   scripts/zig.sh          make it where it is missing or was left unfinished
#   scripts/zig.sh --path   print its folder (made or not); its bin/python -m ziglang cc is the compiler
#   scripts/zig.sh --background | --wait   (scripts/cached-venv.sh)
#
# It lives in ${XDG_CACHE_HOME:-~/.cache}/rigtune/zig-VERSION (RIGTUNE_ZIG_VENV names another).
set -euo pipefail
. "$(dirname "$0")/cached-venv.sh"
VERSION=0.17.1
dir=${RIGTUNE_ZIG_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rigtune/zig-$VERSION}
cached_venv_args "$dir" "$@"

fill() {
  venv_pip "$1" "ziglang==$VERSION"
  "$1/bin/python" -m ziglang version >/dev/null
}
cached_venv "$dir" "Zig's environment $dir (ziglang $VERSION, about 50 MB)" fill
