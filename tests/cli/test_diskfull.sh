#!/usr/bin/env bash
# Disk full, on a 64 KiB tmpfs filled to the last page: the journal's directory
# full when a tune starts, the journal filling up in the middle of a tune (then
# resumed once there is room), and the configuration's -o on a full disk. Each
# time: exit 3 naming ENOSPC, nothing that was there damaged, no temporary file,
# and no measured trial lost. (probe -o on a full disk is in test_output.sh.)
# tier: slow (real tunes on a full disk, about 50 s)
# beside: others (ENOSPC, exit codes and the trials kept; no figure)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1 # no trial measured twice for contention
cd "$TMP" || exit 1

mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT

# small_disk DIR: a 64 KiB tmpfs at DIR; fails where this user may not mount.
small_disk() {
  mkdir -p "$1" && [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$1" 2>/dev/null &&
    mounted+=("$1")
}
# fill DIR: takes every free page of DIR's file system.
fill() { head -c 1M /dev/zero >"$1/filler" 2>/dev/null; [ "$(df --output=avail "$1" | tail -1)" -eq 0 ]; }

# The search's trials of a journal as "precision threads m", one line each (complete
# documents; not the naive default's, role: naive, measured beside each search, nor
# those measured again for a check's baseline, role: again).
points() {
  /usr/bin/python3 - "$1" <<'EOF'
import sys, yaml
for t in list(yaml.safe_load_all(open(sys.argv[1])))[1:]:
    if t and t.get("role") not in ("naive", "again"):
        print(t["point"]["precision"], t["point"]["threads"], t["shape"]["m"])
EOF
}

if ! small_disk "$TMP/probe"; then
  for what in "journal directory full at the start" "journal filling up mid-tune" \
              "tune -o on a full disk"; do
    echo "ok $((n += 1)) # SKIP $what: cannot mount a tmpfs here (needs root and mount rights)"
  done
  exit 0
fi
umount "$TMP/probe" && mounted=()

printf 'workload: gemm\nparams:\n  backend: [cpu]\n  precision: [fp32, fp64]\n  threads: [1, 2]\n  pin: [compact]\n' >g4.space
TUNE=("$RIGTUNE" tune --workload gemm --backend cpu --no-crossover --space g4.space --budget 120
      --strategy grid --quiet --replace) # keep.yaml is no configuration to add to
echo "old: configuration" >keep.yaml

# 1. The journal's directory is full when the tune starts.
small_disk "$TMP/results" && fill "$TMP/results"
expect_exit 3 "tune with a full journal directory fails (exit 3)" "${TUNE[@]}" -o keep.yaml
expect_grep "No space left on device" "$TMP/err" "the failure names ENOSPC"
if [ "$(ls -A results)" = filler ] && [ "$(cat keep.yaml)" = "old: configuration" ]; then
  ok "no journal file was left and the configuration is untouched"
else
  not_ok "no journal file was left and the configuration is untouched" "$(ls -A results)"
fi

# 2. The journal fills up in the middle: a first tune has room, then the disk is
# filled and tunes of new shapes resume the journal until an append finds no room
# (the slack of the journal's last page holds at most one round of 4 trials).
rm -f results/filler
"${TUNE[@]}" --shape m=64 -o keep.yaml 2>"$TMP/err" || not_ok "a first tune with room" "$(cat "$TMP/err")"
echo "old: configuration" >keep.yaml
journal=$(ls results/*.yaml)
fill results
failed=""
for m in 96 128 160; do
  "${TUNE[@]}" --resume --shape m=$m -o keep.yaml 2>"$TMP/err"
  rc=$?
  if [ $rc -ne 0 ]; then failed=$m; break; fi
  echo "old: configuration" >keep.yaml
done
if [ "$rc" = 3 ] && grep -q "cannot append to .*No space left on device" "$TMP/err"; then
  ok "an append to a full journal fails the tune (exit 3, ENOSPC named)"
else
  not_ok "an append to a full journal fails the tune (exit 3, ENOSPC named)" "exit $rc" "$(cat "$TMP/err")"
fi
if [ "$(tail -1 "$journal")" = "..." ] && [ "$(cat keep.yaml)" = "old: configuration" ]; then
  ok "the journal ends with a complete trial (the failed append was cut off); config untouched"
else
  not_ok "the journal ends with a complete trial; config untouched" "$(tail -c 200 "$journal")"
fi
before=$(points "$journal" | sort)
rm -f results/filler
expect_exit 0 "with room again, --resume finishes the shape that failed" \
  "${TUNE[@]}" --resume --shape m=${failed:-0} -o keep.yaml
after=$(points "$journal" | sort)
lost=$(comm -23 <(echo "$before") <(echo "$after") | grep -c .)
dup=$(echo "$after" | uniq -d | grep -c .)
if [ -n "$failed" ] && [ "$lost" = 0 ] && [ "$dup" = 0 ] &&
   [ "$(echo "$after" | grep -c " $failed$")" = 4 ]; then
  ok "no trial lost or measured twice; the failed shape has its 4 trials"
else
  not_ok "no trial lost or measured twice" "lost $lost, duplicated $dup, shape m=$failed" "$after"
fi
expect_grep "^    recommended:" keep.yaml "and the configuration is written"

# 3. tune -o on a full disk: the measuring is done and journaled, the config cannot be.
# The journals of part 2 (and their canary files) go: part 3 needs room for its own.
rm -f results/*
small_disk "$TMP/cfgdisk"
echo "old: configuration" >cfgdisk/config.yaml
fill cfgdisk
expect_exit 3 "tune -o on a full disk fails (exit 3)" "${TUNE[@]}" --fresh --shape m=48 -o cfgdisk/config.yaml
expect_grep "cannot write cfgdisk/config.yaml: No space left on device" "$TMP/err" "the failure names the file and ENOSPC"
if [ "$(cat cfgdisk/config.yaml)" = "old: configuration" ] && [ "$(ls -A cfgdisk | sort | tr '\n' ' ')" = "config.yaml filler " ]; then
  ok "the old configuration is intact and no temporary file was left"
else
  not_ok "the old configuration is intact and no temporary file was left" "$(ls -A cfgdisk)"
fi
expect_exit 0 "a second tune to a writable file" "${TUNE[@]}" --shape m=48 -o new.yaml
expect_grep "^    reused: 4$" new.yaml "reuses the 4 trials the failed one measured"
