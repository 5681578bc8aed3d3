#!/usr/bin/env bash
# The results store against what a hostile colleague can do to it (issue
# 32), on a throwaway PostgreSQL (lib_pg.sh): a check result pushed with
# terminal escapes and a forged line, a FIFO pushed, the schema's advisory
# lock held for good in a new database, a table locked under a tune, SIGTERM
# while the lock is held. Each answer is cleaned, exit 2, or a warning and
# the tune goes on; nothing hangs (each command has a guard far above its
# time, so that a hang fails instead of holding the suite). Budgets of 6 s:
# probing the machine alone takes 3 s on a loaded one.
# tier: integration (PostgreSQL)
# beside: others (answers to hostile input and exit codes, each command under a generous guard)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_pg.sh"
R=$RIGTUNE
SRC=$PWD
skip() { ok "# SKIP $1"; echo "1..$n"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "not root: PostgreSQL's user needs it"
command -v psql >/dev/null 2>&1 && [ -n "$PGBIN" ] ||
  skip "PostgreSQL is not installed (scripts/install-deps.sh test installs it)"
W=$(mktemp -d /tmp/rt-store-XXXXXX)
chmod 755 "$W"
HOLDERS=()
cleanup() {
  local p
  for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null; done
  pg_cleanup
  rm -rf "$W" "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
if pg_init "$W"; then ok "a PostgreSQL server on a Unix socket"
else not_ok "PostgreSQL" "$(tail -3 "$W/pg/log")"; echo "1..$n"; exit 1; fi
cd "$W" || exit 1
ESC=$(printf '\033')
TUNE=(--workload gemm --backend cpu --shape m=64,n=64,k=64 --budget 6 --no-crossover --quiet)

# ---- a check result whose strings are escapes and a forged line ----
sed -e "s/after: SkylakeX}/after: \"SkylakeX\\\\e]0;PWNED\\\\a\\\\e[2J\\\\n0 of 2 nodes regressed\"}/" \
  -e 's/^  reason: .slower.*/  reason: "\\e[2J\\rall nodes pass"/' "$SRC/tests/data/report/check.yaml" >evil-check.yaml
grep -q 'PWNED' evil-check.yaml && ok "a check result with escapes in its machine diff" || not_ok "the hostile fixture"
expect_exit 0 "store push of it" timeout 60 $R store push --store "$URL" --node "$(printf 'n1\033]0;x\007')" evil-check.yaml
expect_exit 1 "fleet check answers from the store: n1 regressed" timeout 60 $R fleet check --store "$URL"
cp "$TMP/out" answer.txt
if grep -q "[$ESC$(printf '\007')]" answer.txt; then not_ok "no escape reaches the terminal" "$(cat -v answer.txt)"
else ok "no escape reaches the terminal"; fi
[ "$(grep -c '^[0-9]* of [0-9]* nodes\? regressed' answer.txt)" = 1 ] && expect_grep "^1 of 1 node regressed: n1\?\]0;x\?$" answer.txt \
  "  and the only summary line is rigtune's, not the forged one" ||
  not_ok "  the forged summary line" "$(cat -v answer.txt)"
expect_grep "SkylakeX\?\]0;PWNED\?\?\[2J\?0 of 2 nodes regressed" answer.txt "  the diff is shown, its control characters as '?'"

# ---- a FIFO pushed ----
mkfifo fifo
expect_exit 2 "store push of a FIFO: exit 2, no hang" timeout 60 $R store push --store "$URL" fifo
expect_grep "cannot read fifo: not a regular file" "$TMP/err" "  saying it is not a regular file"

# ---- the schema's lock held for good in a new database ----
runuser -u postgres -- "$PGBIN/createdb" -h "$PGDIR" -U postgres fresh
FRESH="postgresql://postgres@/fresh?host=$PGDIR"
psql -X -q -h "$PGDIR" -U postgres fresh -c "SELECT pg_advisory_lock(2025112401)" -c "SELECT pg_sleep(600)" \
  >/dev/null 2>&1 &
HOLDERS+=($!)
for _ in $(seq 100); do
  [ "$(sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" = 1 ] && break
  sleep 0.1
done
expect_exit 3 "store push while another session holds the schema's lock" \
  timeout 120 $R store push --store "$FRESH" evil-check.yaml
expect_grep "another session holds the schema's lock \(advisory lock 2025112401\)" "$TMP/err" "  names the lock it could not take"
expect_exit 0 "tune --store while the lock is held goes on" timeout 120 $R tune --store "$FRESH" "${TUNE[@]}" -o t1.yaml
# --quiet: no store line; without it, the warning
expect_exit 0 "  and says so" timeout 120 $R tune --store "$FRESH" --workload gemm --backend cpu \
  --shape m=64,n=64,k=64 --budget 6 --no-crossover -o t2.yaml
expect_grep "store: the store: another session holds the schema's lock.*tuning goes on" "$TMP/err" \
  "  the store's failure is a warning: tuning goes on, the journal keeps every trial"

# ---- SIGTERM while the lock is held ----
$R tune --store "$FRESH" "${TUNE[@]}" -o t3.yaml >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do
  [ "$(psql -X -A -t -h "$PGDIR" -U postgres fresh -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'rigtune'")" -ge 1 ] && break
  sleep 0.05
done
kill -TERM $pid
for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then not_ok "SIGTERM ends a tune that waits for the store" "still running after 30 s"
  kill -KILL $pid; else ok "SIGTERM ends a tune that waits for the store"; fi
wait $pid 2>/dev/null

# ---- a table locked under a tune of the store already made ----
psql -X -q -h "$PGDIR" -U postgres rt -c "BEGIN" -c "LOCK TABLE rigtune_trials IN ACCESS EXCLUSIVE MODE" \
  -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
HOLDERS+=($!)
for _ in $(seq 100); do
  [ "$(sql "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'rigtune_trials' AND l.mode = 'AccessExclusiveLock' AND l.granted")" = 1 ] && break
  sleep 0.1
done
expect_exit 0 "tune --store while another session locks its table" timeout 120 $R tune --store "$URL" \
  --workload gemm --backend cpu --shape m=64,n=64,k=64 --budget 6 --no-crossover --fresh -o t4.yaml
expect_grep "store: the store: .*lock timeout.*trials stay in" "$TMP/err" \
  "  a trial waits for the lock a bounded time, then the journal keeps it"
echo "1..$n"
