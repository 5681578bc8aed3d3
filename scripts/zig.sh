#!/usr/bin/env bash
# Zig's C compiler, which carries macOS's libc headers and libSystem and so
# cross-compiles and links Mach-O binaries here (make test's macOS build):
# PyPI's ziglang, pinned, in a small virtual environment of its own that
# make test makes on its first run and every clone shares after.
#
#   scripts/zig.sh          make it where it is missing or was left unfinished
#   scripts/zig.sh --path   print its folder (made or not); its bin/python -m ziglang cc is the compiler
#
# It lives in ${XDG_CACHE_HOME:-~/.cache}/rigtune/zig-VERSION (RIGTUNE_ZIG_VENV names another).
set -euo pipefail
VERSION=0.17.1
BASE=${RIGTUNE_VENV_PYTHON:-/usr/bin/python3}
dir=${RIGTUNE_ZIG_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rigtune/zig-$VERSION}
if [ "${1:-}" = --path ]; then echo "$dir"; exit 0; fi
[ $# = 0 ] || { echo "usage: scripts/zig.sh [--path]" >&2; exit 2; }

# .complete is written last: a folder without it was interrupted and is made again.
stamp=$dir/.complete
[ -f "$stamp" ] && exit 0
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9 # two test runs at once make it once
[ -f "$stamp" ] && exit 0
rm -rf "$dir"
echo "rigtune: making Zig's environment $dir (ziglang $VERSION, about 50 MB)" >&2
"$BASE" -m venv "$dir"
"$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "ziglang==$VERSION"
"$dir/bin/python" -m ziglang version >/dev/null
touch "$stamp"
