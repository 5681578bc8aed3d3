#!/usr/bin/env bash
# Reliability drills: a tune killed with SIGKILL at many points (after the journal
# header, while a trial runs, half-way through appending a trial, between writing
# the configuration and renaming it into place), then resumed: no finished trial is
# lost or measured twice, and the configuration is the old one or the new one,
# never a partial one. A plugin that is not an ELF file and a plugin whose
# constructor aborts never take rigtune down. The kills come from the
# RIGTUNE_DRILL hook (common/rt.h), not from timers. (A journal cut at every byte
# of its last trial is test_torn_last_entry in tests/test_journal.c.)
# tier: slow (kills and resumes real tunes, about 70 s)
# beside: others (kills at RIGTUNE_DRILL's points and the trials kept; no figure)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1 # a trial measured twice for contention is not a duplicate
# --replace: the drill is of the write and its rename; the placeholder is no configuration to add to
TUNE=("$RIGTUNE" tune --workload gemm --budget 30 --no-crossover --quiet --replace -o cfg.yaml)

# The points of a journal's complete trial documents: "backend precision threads pin m n k"
# (the search's: a point measured again for a check's baseline, role again, repeats by design).
finished_points() {
  /usr/bin/python3 - "$1" <<'EOF'
import sys, yaml
text = open(sys.argv[1]).read()
docs = text.split("\n...\n")
for d in docs[1:-1] if not text.endswith("\n...\n") else docs[1:]:
    d = d.strip()
    if not d.startswith("---"):
        continue
    t = yaml.safe_load(d[3:])
    if not t or "infeasible" in t or t.get("role") == "again":
        continue
    p, s = t["point"], t["shape"]
    print(p["backend"], p["precision"], p["threads"], p["pin"], s["m"], s["n"], s["k"])
EOF
}

drill() { # POINT: kill there, resume, check
  local point=$1 dir="$TMP/$1"
  mkdir -p "$dir/configs" && cd "$dir" || return
  echo "old: configuration" >cfg.yaml
  RIGTUNE_DRILL=$point "${TUNE[@]}" 2>err & # in the background: bash says no "Killed"
  wait $! 2>/dev/null
  local rc=$?
  if [ "$rc" = 137 ]; then ok "$point: the tune was killed there"; else
    not_ok "$point: the tune was killed there" "exit $rc" "$(cat err)"; fi
  if [ "$(cat cfg.yaml)" = "old: configuration" ]; then ok "$point: the old configuration is intact"; else
    not_ok "$point: the old configuration is intact" "$(head -3 cfg.yaml)"; fi
  local journal before
  journal=$(ls results/*.yaml 2>/dev/null | head -1)
  before=$(finished_points "$journal" | sort)
  "${TUNE[@]}" --resume 2>err
  rc=$?
  if [ "$rc" = 0 ] && grep -q '^recommendations:' cfg.yaml; then
    ok "$point: --resume finished and wrote the new configuration"
  else
    not_ok "$point: --resume finished and wrote the new configuration" "exit $rc" "$(cat err)"
  fi
  local after lost dup
  after=$(finished_points "$journal" | sort)
  lost=$(comm -23 <(echo "$before") <(echo "$after") | grep -c .)
  dup=$(echo "$after" | uniq -d | grep -c .)
  if [ "$lost" = 0 ] && [ "$dup" = 0 ]; then
    ok "$point: $(echo "$before" | grep -c .) finished trials kept, none measured twice"
  else
    not_ok "$point: finished trials kept, none measured twice" "lost $lost, duplicated $dup" \
      "$(finished_points "$journal")"
  fi
  # (killed between writing and renaming, the temporary file stays: SIGKILL cannot be caught)
  if [ "$point" != output-rename ]; then
    if [ -z "$(ls -A | grep '\.tmp\.')" ]; then ok "$point: no temporary file left"; else
      not_ok "$point: no temporary file left" "$(ls -A)"; fi
  fi
  cd "$TMP" || return
}

drill journal-header
drill trial:2
drill journal-append:3 # the header is the first append
drill output-rename

# Plugins that cannot be loaded: not an ELF file; a constructor that aborts.
mkdir -p "$TMP/plugins"
head -c 4096 /dev/urandom >"$TMP/plugins/librigtune_garbage.so"
cat >"$TMP/ctor.c" <<'EOF'
#include <stdlib.h>
__attribute__((constructor)) static void die(void) { abort(); }
EOF
cc -shared -fPIC "$TMP/ctor.c" -o "$TMP/plugins/librigtune_ctorabort.so"
export RIGTUNE_BACKEND_PATH="$TMP/plugins"
expect_exit 0 "probe with a garbage and an aborting plugin beside it" "$RIGTUNE" probe
expect_grep "backend: garbage" "$TMP/out" "the garbage plugin is listed"
expect_grep "backend: ctorabort" "$TMP/out" "the aborting plugin is listed"
/usr/bin/python3 - "$TMP/out" >"$TMP/why" <<'EOF'
import sys, yaml
for a in yaml.safe_load(open(sys.argv[1]))["machine"]["accelerators"]:
    if a["backend"] in ("garbage", "ctorabort"):
        print(a["backend"], a["available"], a.get("reason", ""))
EOF
expect_grep "^garbage False .*(invalid ELF header|file too short)" "$TMP/why" \
  "the garbage plugin is unavailable, with the loader's reason"
expect_grep "^ctorabort False the device probe crashed: Aborted" "$TMP/why" \
  "the aborting plugin is unavailable: its probe crashed, and only its own"
expect_exit 3 "bench on the aborting plugin is infeasible, not a crash of rigtune" \
  "$RIGTUNE" bench gemm backend=ctorabort m=64 n=64 k=64 --seconds 0.2
expect_grep "infeasible" "$TMP/err" "the message says infeasible"
unset RIGTUNE_BACKEND_PATH
