#!/usr/bin/env bash
# Runs every test: the cmocka binaries (TAP output) and the CLI scripts in
# tests/cli (which print TAP too), then prints one line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export RIGTUNE="$PWD/$BUILD/rigtune" BUILD_DIR="$PWD/$BUILD"
export CMOCKA_MESSAGE_OUTPUT=TAP
passed=0 failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one() { # name, command...
  local name=$1; shift
  "$@" >"$log" 2>&1
  local rc=$?
  local ok nok
  ok=$(grep -c '^ok ' "$log")
  nok=$(grep -c '^not ok ' "$log")
  if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then nok=1; fi # crashed or exited early
  passed=$((passed + ok)); failed=$((failed + nok))
  if [ "$nok" -ne 0 ]; then
    echo "FAIL $name ($ok passed, $nok failed)"; sed 's/^/    /' "$log"
  else
    echo "ok   $name ($ok)"
  fi
}

for t in "$BUILD"/tests/test_*; do
  case "$t" in *.o|*.d) continue ;; esac
  [ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
for t in tests/cli/*.sh; do
  [ "$(basename "$t")" = lib.sh ] && continue
  [ -f "$t" ] && run_one "$(basename "$t")" bash "$t"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
