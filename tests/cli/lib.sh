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

# Event-driven waiting on a background rigtune (no sleeps that guess): start_logged
# FIFO CMD... runs CMD with its stderr into the named pipe FIFO and reads it on fd 3
# (PID is CMD's); wait_trials N FILE copies progress lines to FILE until N lines
# "rigtune: trial ..." have arrived (or CMD ended); drain FILE copies the rest in the
# background so that CMD never blocks on a full pipe.
start_logged() {
  local fifo=$1; shift
  rm -f "$fifo"; mkfifo "$fifo"
  "$@" 2>"$fifo" &
  PID=$!
  exec 3<"$fifo"
}
wait_trials() {
  local want=$1 file=$2 seen=0 line
  while [ "$seen" -lt "$want" ] && IFS= read -r line <&3; do
    printf '%s\n' "$line" >>"$file"
    case $line in "rigtune: trial "*) seen=$((seen + 1)) ;; esac
  done
  [ "$seen" -ge "$want" ]
}
drain() { cat <&3 >>"$1" & DRAIN=$!; exec 3<&-; }
