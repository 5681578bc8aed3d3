#!/usr/bin/env bash
# Runs every test: the cmocka binaries (TAP output) and the CLI scripts in
# tests/cli (which print TAP too), then prints one line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export RIGTUNE="$PWD/$BUILD/rigtune" BUILD_DIR="$PWD/$BUILD"
# The interpreter of PyPI's frameworks (scripts/venv.sh, made by make test's set-up):
# tests that need it fail, not skip, when it is missing.
export RIGTUNE_TEST_PYTHON=${RIGTUNE_TEST_PYTHON:-$(scripts/venv.sh --path)/bin/python}
export CMOCKA_MESSAGE_OUTPUT=TAP
# The measuring lock of this run: suites running at once in two checkouts do
# not wait for each other (tests assert no timings), while inside a run the
# lock works as on a user's machine.
export RIGTUNE_LOCK_DIR=$(mktemp -d /tmp/rt-lock-XXXXXX)
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -rf "$log" "$RIGTUNE_LOCK_DIR"' EXIT

run_one() { # name, command...
  local name=$1; shift
  "$@" >"$log" 2>&1
  local rc=$?
  local ok nok skip
  # a skip is neither passed nor failed: TAP "ok N # SKIP why" (cmocka writes "not ok")
  local skips='^(not )?ok [0-9]+.*# SKIP'
  skip=$(grep -cE "$skips" "$log")
  ok=$(grep -vE "$skips" "$log" | grep -c '^ok ')
  nok=$(grep -vE "$skips" "$log" | grep -c '^not ok ')
  if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then nok=1; fi # crashed or exited early
  passed=$((passed + ok)); failed=$((failed + nok)); skipped=$((skipped + skip))
  if [ "$nok" -ne 0 ]; then
    echo "FAIL $name ($ok passed, $nok failed)"; sed 's/^/    /' "$log"
  else
    echo "ok   $name ($ok)"
  fi
  if [ "$skip" -ne 0 ]; then
    echo "     $name skipped $skip:"; grep -E "$skips" "$log" | sed 's/^/    /'
  fi
}

for t in "$BUILD"/tests/test_*; do
  case "$t" in *.o|*.d) continue ;; esac
  [ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
for t in tests/cli/*.sh; do
  case "$(basename "$t")" in lib*.sh) continue ;; esac # sourced by the tests
  [ -f "$t" ] && run_one "$(basename "$t")" bash "$t"
done
[ "$skipped" -eq 0 ] || echo "$skipped skipped (their reasons are above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
