# Sourced by the CLI tests: TAP helpers around $RIGTUNE.
# Each check prints "ok N - what" or "not ok N - what" with the evidence.
n=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }

# expect_exit CODE DESC CMD...: runs CMD, output in $TMP/out and $TMP/err.
expect_exit() {
  local want=$1 desc=$2; shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -eq "$want" ]; then ok "$desc"; else
    not_ok "$desc" "exit $rc, wanted $want" "stderr: $(head -c 400 "$TMP/err")"; fi
}
# expect_grep PATTERN FILE DESC
expect_grep() {
  if grep -qE -- "$1" "$2"; then ok "$3"; else not_ok "$3" "no /$1/ in: $(head -c 400 "$2")"; fi
}
