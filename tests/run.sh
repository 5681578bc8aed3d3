#!/usr/bin/env bash
# Runs the tests: the cmocka binaries (TAP output) and the CLI scripts in
# tests/cli (which print TAP too), then prints one line "N passed, N failed".
#
#   tests/run.sh                   every test (make test)
#   tests/run.sh --tier TIER       the tests of one tier (make check-fast: fast)
#   tests/run.sh NAME...           those tests alone (make check T=NAME): NAME is
#                                  test_x or x, the binary of tests/test_x.c and/or
#                                  the script tests/cli/test_x.sh
#
# A test's tier is the line "tier: TIER (why)" in its opening comment; none is
# fast. fast: no real engine, no real-time budget beyond a few seconds (the
# simulated device, fake targets, and budgets on the fake budget clock where
# the trials are simulated: common/clock.h; the binary takes it from
# RIGTUNE_TEST_CLOCK, a file that tests/fake_train.py moves on instead of
# sleeping); slow: hermetic but spends real seconds of tuning budget;
# integration: a real engine (PyTorch, JAX, SB3, Hydra, Ray, PostgreSQL,
# Slurm, Chromium). The output names each test's tier and its seconds, so
# that a test that grows slow is seen.
#
# A test whose opening comment has the line "beside: others (why)" asserts no
# figure another process could move (no timing, no CPU share, no trial count
# of a real budget): those run first, $RIGTUNE_TEST_JOBS at a time (the
# CPUs, at most 4; 1 runs every test one by one), each reported as it ends;
# the rest run after them, one by one, alone. rigtune's measuring lock and
# cache are the run's own (below). The tests that run beside others assert
# none of their figures: each has a lock of its own, so that their tunes
# measure at once rather than wait for one another with the CPUs idle, and
# they share a cache of their own, so that what they measured on a busy
# machine (a tune with RIGTUNE_CONTENTION_LIMIT=1 keeps it) never reaches a
# test that runs alone.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export RIGTUNE="$PWD/$BUILD/rigtune" BUILD_DIR="$PWD/$BUILD"
# The interpreter of PyPI's frameworks (scripts/venv.sh, made by make test's set-up):
# tests that need it fail, not skip, when it is missing.
export RIGTUNE_TEST_PYTHON=${RIGTUNE_TEST_PYTHON:-$(scripts/venv.sh --path)/bin/python}
# On a first run, make test's set-up leaves it (and Zig, oneDNN 3) downloading in the
# background (scripts/cached-venv.sh --background). The tests that run its frameworks (they
# read RIGTUNE_TEST_PYTHON) queue after the others that run beside them, and wait for it;
# the tests that run alone wait for all three, since pip beside them would take their cores.
# needs_venv SOURCE: whether the test runs the environment's frameworks.
needs_venv() { grep -qE 'RIGTUNE_TEST_PYTHON|need_test_python' "$1"; }
# await_fetched SCRIPT...: waits for what each is making in the background, if anything
# (a test that needs what is still missing after it says so).
await_fetched() { local s; for s in "$@"; do scripts/$s.sh --wait || true; done; }
export CMOCKA_MESSAGE_OUTPUT=TAP
# The measuring lock of this run: suites running at once in two checkouts do
# not wait for each other (tests assert no timings), while inside a run the
# lock works as on a user's machine.
export RIGTUNE_LOCK_DIR=$(mktemp -d /tmp/rt-lock-XXXXXX)
# What tune keeps between runs (the OpenBLAS kernel sets' figures): the run's
# own, shared by its tests as by a user's tunes, never the user's ~/.cache.
export RIGTUNE_CACHE_DIR=$(mktemp -d /tmp/rt-cache-XXXXXX)
passed=0 failed=0 skipped=0
logs=$(mktemp -d)
trap 'rm -rf "$logs" "$RIGTUNE_LOCK_DIR" "$RIGTUNE_CACHE_DIR"' EXIT
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
JOBS=${RIGTUNE_TEST_JOBS:-$((cpus < 4 ? cpus : 4))}

# tier_of SOURCE: the tier its opening comment names, fast if none.
tier_of() {
  local t
  t=$(head -20 "$1" | sed -n 's/^[#/* ]*tier: \([a-z]*\).*/\1/p' | head -1)
  echo "${t:-fast}"
}
# beside SOURCE: whether its opening comment lets it run beside other tests.
beside() { head -20 "$1" | grep -qE '^[#/* ]*beside: others'; }

# exec_one NAME COMMAND...: runs it, its output into $logs/NAME.log, then
# "EXIT SECONDS" into $logs/NAME.rc.
exec_one() {
  local name=$1 t0=$SECONDS; shift
  "$@" >"$logs/$name.log" 2>&1
  echo "$? $((SECONDS - t0))" >"$logs/$name.rc"
}

# report NAME TIER: counts and prints what exec_one left.
report() {
  local name=$1 tier=$2 log=$logs/$1.log rc took ok nok skip
  read -r rc took <"$logs/$name.rc"
  # a skip is neither passed nor failed: TAP "ok N # SKIP why" (cmocka writes "not ok")
  local skips='^(not )?ok [0-9]+.*# SKIP'
  skip=$(grep -cE "$skips" "$log")
  ok=$(grep -vE "$skips" "$log" | grep -c '^ok ')
  nok=$(grep -vE "$skips" "$log" | grep -c '^not ok ')
  if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then nok=1; fi # crashed or exited early
  passed=$((passed + ok)); failed=$((failed + nok)); skipped=$((skipped + skip))
  if [ "$nok" -ne 0 ]; then
    echo "FAIL $name ($ok passed, $nok failed; $tier, ${took}s)"; sed 's/^/    /' "$log"
  else
    echo "ok   $name ($ok; $tier, ${took}s)"
  fi
  if [ "$skip" -ne 0 ]; then
    echo "     $name skipped $skip:"; grep -E "$skips" "$log" | sed 's/^/    /'
  fi
  rm -f "$logs/$name.rc"
}

# run_one NAME TIER SOURCE COMMAND...: queues the test, as "NAME TIER
# COMMAND...", in $beside where SOURCE lets it run beside others, else in
# $alone (run_all runs both).
beside=() beside_venv=() alone=()
run_one() {
  local name=$1 tier=$2 src=$3; shift 3
  if [ "$JOBS" -le 1 ] || ! beside "$src"; then alone+=("$name $tier $*")
  elif needs_venv "$src"; then beside_venv+=("$name $tier $*")
  else beside+=("$name $tier $*"); fi
}

# The tests: those that may run beside others JOBS at a time, each reported
# as it ends, then the others one by one.
declare -A queued_tier=()
report_ended() {
  local f name
  for f in "$logs"/*.rc; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .rc)
    [ -n "${queued_tier[$name]:-}" ] || continue
    report "$name" "${queued_tier[$name]}"
    unset "queued_tier[$name]"
  done
}
run_all() {
  local running=0 entry name tier cmd
  for entry in "${beside[@]}" - "${beside_venv[@]}"; do
    [ "$entry" = - ] && { [ ${#beside_venv[@]} = 0 ] || await_fetched venv; continue; }
    read -r name tier cmd <<<"$entry"
    while [ "$running" -ge "$JOBS" ]; do
      wait -n
      running=$((running - 1))
      report_ended
    done
    queued_tier[$name]=$tier
    mkdir "$logs/$name.lock"
    # shellcheck disable=SC2086 # a path and its arguments, none with a space
    RIGTUNE_LOCK_DIR=$logs/$name.lock RIGTUNE_CACHE_DIR=$logs/beside-cache exec_one "$name" $cmd &
    running=$((running + 1))
  done
  wait
  report_ended
  [ ${#alone[@]} = 0 ] || await_fetched venv zig onednn3
  for entry in "${alone[@]}"; do
    read -r name tier cmd <<<"$entry"
    # shellcheck disable=SC2086
    exec_one "$name" $cmd
    report "$name" "$tier"
  done
}

# run_unit NAME / run_cli NAME: one test of each kind, when TIER is its tier or empty.
TIER=
run_unit() {
  local tier; tier=$(tier_of "tests/$1.c")
  [ -z "$TIER" ] || [ "$TIER" = "$tier" ] || return 0
  if [ -x "$BUILD/tests/$1" ]; then run_one "$1" "$tier" "tests/$1.c" "$BUILD/tests/$1"
  else echo "FAIL $1 (not built: make $BUILD/tests/$1)"; failed=$((failed + 1)); fi
}
run_cli() {
  local tier; tier=$(tier_of "tests/cli/$1.sh")
  [ -z "$TIER" ] || [ "$TIER" = "$tier" ] || return 0
  run_one "$1.sh" "$tier" "tests/cli/$1.sh" bash "tests/cli/$1.sh"
}

if [ "${1:-}" = --tier ]; then
  TIER=${2:-}
  case "$TIER" in fast | slow | integration) ;; *)
    echo "run.sh: --tier takes fast, slow or integration, not '$TIER'" >&2; exit 2 ;; esac
  shift 2
fi
if [ $# -eq 0 ]; then
  for t in tests/test_*.c; do run_unit "$(basename "$t" .c)"; done
  for t in tests/cli/*.sh; do
    case "$(basename "$t")" in lib*.sh) continue ;; esac # sourced by the tests
    run_cli "$(basename "$t" .sh)"
  done
fi
for arg in "$@"; do
  name=$(basename "$arg"); name=${name%.c}; name=${name%.sh}
  [ -f "tests/cli/$name.sh" ] || name=test_${name#test_}
  found=0
  case "$name" in test_*) [ -f "tests/$name.c" ] && { run_unit "$name"; found=1; } ;; esac
  [ -f "tests/cli/$name.sh" ] && { run_cli "$name"; found=1; }
  if [ "$found" -eq 0 ]; then
    echo "run.sh: no test '$arg' (neither tests/$name.c nor tests/cli/$name.sh)" >&2; exit 2
  fi
done
run_all
[ "$skipped" -eq 0 ] || echo "$skipped skipped (their reasons are above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
