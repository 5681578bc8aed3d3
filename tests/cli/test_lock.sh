#!/usr/bin/env bash
# One measuring rigtune per machine: a second one waits with a message, or with
# --no-wait exits 3 naming the holder; two tunes at once measure one after the
# other and write two journals. No sleeps: every wait is on a FIFO or a process.
# beside: others (its own measuring lock; exit codes, messages and journals, no figure)
. "$(dirname "$0")/lib.sh"

export RIGTUNE_LOCK_DIR="$TMP/locks"
mkdir -p "$RIGTUNE_LOCK_DIR"
LOCK="$RIGTUNE_LOCK_DIR/rigtune-$(hostname).lock"

# hold_lock: another process holds the lock until "$TMP/release" is written to.
hold_lock() {
  mkfifo "$TMP/release" "$TMP/held"
  flock -x "$LOCK" -c "echo 'pid 4242: rigtune tune (the test holder)' >'$LOCK';
                       echo held >'$TMP/held'; read -r _ <'$TMP/release'" &
  HOLDER=$!
  read -r _ <"$TMP/held"
}
release_lock() { echo go >"$TMP/release"; wait "$HOLDER"; rm -f "$TMP/release" "$TMP/held"; }

hold_lock
expect_exit 3 "bench --no-wait while another rigtune measures (exit 3)" \
  "$RIGTUNE" bench gemm m=64 n=64 k=64 --seconds 0.2 --no-wait
expect_grep "another rigtune is measuring on this machine \(pid 4242: rigtune tune \(the test holder\); lock .*rigtune-.*\.lock\)" \
  "$TMP/err" "the message names the holder and the lock file"
mkdir "$TMP/nw"
(cd "$TMP/nw" && "$RIGTUNE" tune --workload gemm --budget 5 --no-wait --quiet >"$TMP/out" 2>"$TMP/err")
rc=$?
if [ "$rc" = 3 ] && [ -z "$(ls -A "$TMP/nw")" ]; then
  ok "tune --no-wait exits 3 and writes nothing (no journal, no configuration)"
else
  not_ok "tune --no-wait exits 3 and writes nothing" "exit $rc" "$(ls -R "$TMP/nw")"
fi

# Without --no-wait: bench says it waits, then measures once the holder is gone.
mkfifo "$TMP/bench-err"
"$RIGTUNE" bench gemm m=64 n=64 k=64 --seconds 0.2 >"$TMP/bench-out" 2>"$TMP/bench-err" &
BENCH=$!
exec 4<"$TMP/bench-err"
waited=0
while IFS= read -r line <&4; do
  echo "$line" >>"$TMP/bench-log"
  case $line in *"waiting for pid 4242: rigtune tune (the test holder) to finish measuring"*)
    waited=1; break ;; esac
done
if [ "$waited" = 1 ]; then ok "bench says whom it waits for"; else
  not_ok "bench says whom it waits for" "$(cat "$TMP/bench-log")"; fi
release_lock
cat <&4 >>"$TMP/bench-log"
exec 4<&-
wait "$BENCH"
rc=$?
if [ "$rc" = 0 ] && grep -q '^throughput:' "$TMP/bench-out"; then
  ok "bench measured once the lock was free"
else
  not_ok "bench measured once the lock was free" "exit $rc" "$(cat "$TMP/bench-log")"
fi

# Two tunes started together in one directory: one measures, the other waits for it;
# each writes its own journal (the names are unique even within one second).
mkdir "$TMP/two" && cd "$TMP/two" || exit 1
for i in 1 2; do
  "$RIGTUNE" tune --workload gemm --budget 3 --no-crossover --quiet -o "cfg$i.yaml" \
    2>"err$i" &
  eval "T$i=\$!"
done
wait "$T1"; rc1=$?
wait "$T2"; rc2=$?
if [ "$rc1" = 0 ] && [ "$rc2" = 0 ]; then ok "both tunes finished"; else
  not_ok "both tunes finished" "exits $rc1 $rc2" "$(cat err1 err2)"; fi
journals=$(ls results/*.yaml | wc -l) # beside each, its canary (JOURNAL-canary.csv)
if [ "$journals" = 2 ]; then ok "two tunes wrote two journals"; else
  not_ok "two tunes wrote two journals" "$(ls results)"; fi
if [ "$(grep -h '^  journal:' cfg1.yaml cfg2.yaml | sort -u | wc -l)" = 2 ]; then
  ok "each configuration names its own journal"
else
  not_ok "each configuration names its own journal" "$(grep -h "^  journal:" cfg1.yaml cfg2.yaml)"
fi
