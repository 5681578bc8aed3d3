# Sourced by scripts/venv.sh and scripts/zig.sh: what both do with the virtual environment
# each keeps in a cache folder outside the checkout, made once (by make test's first run) and
# reused after by every clone and run.
#
#   VENV_BASE                  the interpreter a venv is made from: Debian's /usr/bin/python3
#                              (python3-venv), not a pyenv one on PATH; RIGTUNE_VENV_PYTHON names another
#   cached_venv_args DIR "$@"  the scripts' arguments: --path prints DIR (made or not) and exits,
#                              none goes on, anything else is usage and exit 2
#   cached_venv DIR WHAT FILL  makes DIR where it is missing or was left unfinished: says
#                              "rigtune: making WHAT", makes a venv of VENV_BASE there and has
#                              the function FILL (given DIR) install into it
#   venv_pip DIR ARGS...       pip install ARGS into the venv DIR, quietly, without questions
#
# DIR/.complete is written last: a folder without it was interrupted and is made again. Two
# runs at once make it once (flock; macOS has none: there no lock is taken).
VENV_BASE=${RIGTUNE_VENV_PYTHON:-/usr/bin/python3}

cached_venv_args() {
  local dir=$1
  shift
  if [ "${1:-}" = --path ]; then echo "$dir"; exit 0; fi
  [ $# = 0 ] || { echo "usage: scripts/$(basename "$0") [--path]" >&2; exit 2; }
}

cached_venv() {
  local dir=$1 what=$2 fill=$3 stamp=$1/.complete
  [ -f "$stamp" ] && return 0
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  ! command -v flock >/dev/null || flock 9
  [ -f "$stamp" ] && return 0 # made meanwhile by the run that held the lock
  rm -rf "$dir"
  echo "rigtune: making $what" >&2
  "$VENV_BASE" -m venv "$dir"
  "$fill" "$dir"
  touch "$stamp"
}

venv_pip() {
  local dir=$1
  shift
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$@"
}
