# Sourced by scripts/venv.sh, scripts/zig.sh and scripts/onednn3.sh: what they do with the
# virtual environment each keeps in a cache folder outside the checkout, made once (by make
# test's first run) and reused after by every clone and run.
#
#   VENV_BASE                  the interpreter a venv is made from: Debian's /usr/bin/python3
#                              (python3-venv), not a pyenv one on PATH; RIGTUNE_VENV_PYTHON names another
#   cached_venv_args DIR "$@"  the scripts' arguments (below); none goes on to make DIR,
#                              anything else is usage and exit 2
#   cached_venv DIR WHAT FILL  makes DIR where it is missing or was left unfinished: says
#                              "rigtune: making WHAT", makes a venv of VENV_BASE there and has
#                              the function FILL (given DIR) install into it
#   venv_pip DIR ARGS...       pip install ARGS into the venv DIR, quietly, without questions
#
# The scripts' arguments:
#   (none)        make it where it is missing or was left unfinished
#   --path        print its folder (made or not)
#   --background  make it in the background where it is missing, and return at once: the
#                 download goes on while make builds (its output: DIR.log)
#   --wait        wait for a making in progress (never start one); exit 0 once it is
#                 complete, 1 when it is not
#
# DIR/.complete is written last: a folder without it was interrupted and is made again. Two
# runs at once make it once (flock; macOS has none: there no lock is taken, and --background
# makes it before returning, since a second run could not wait for it).
VENV_BASE=${RIGTUNE_VENV_PYTHON:-/usr/bin/python3}

# The script that sourced this file, as a path that holds after it changes directory.
CACHED_VENV_SCRIPT=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

cached_venv_args() {
  local dir=$1
  shift
  [ $# -le 1 ] || cached_venv_usage
  case "${1:-}" in
    "") ;;
    --path) echo "$dir"; exit 0 ;;
    --background) [ -f "$dir/.complete" ] && exit 0
      command -v flock >/dev/null || return 0 # no lock to wait on: made now, in the foreground
      mkdir -p "$(dirname "$dir")"
      # The lock is taken here, and handed to the making, so that a --wait right after this
      # returns waits for it; where another run holds it, that one is making it already.
      exec 9>"$dir.lock"
      flock -n 9 || exit 0
      echo "rigtune: making $dir in the background while the build runs (its output: $dir.log)" >&2
      # a subshell, not the plain command: a background command ignores Ctrl-C, a subshell does not
      (CACHED_VENV_LOCKED=1 "$CACHED_VENV_SCRIPT" >"$dir.log" 2>&1 </dev/null) &
      exit 0 ;;
    --wait) if command -v flock >/dev/null && [ -e "$dir.lock" ] && ! flock -n "$dir.lock" true; then
        echo "rigtune: waiting for $dir, in the making (its output: $dir.log)" >&2
        flock "$dir.lock" true
      fi
      [ -f "$dir/.complete" ]; exit ;;
    *) cached_venv_usage ;;
  esac
}
cached_venv_usage() {
  echo "usage: scripts/$(basename "$0") [--path | --background | --wait]" >&2
  exit 2
}

cached_venv() {
  local dir=$1 what=$2 fill=$3 stamp=$1/.complete
  [ -f "$stamp" ] && return 0
  mkdir -p "$(dirname "$dir")"
  if [ -z "${CACHED_VENV_LOCKED:-}" ]; then # else --background took it, on fd 9
    exec 9>"$dir.lock"
    ! command -v flock >/dev/null || flock 9
  fi
  unset CACHED_VENV_LOCKED
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
