#!/usr/bin/env bash
# What rigtune reads cannot hang it or leak a file (issue 23): YAML aliases,
# depth and size are bounded, a file that is no replay is never quoted, bad
# numbers are refused at their line, the lock file and -o are checked before
# use, relative plugin directories are ignored, a trial's whole process tree
# ends with it.
# beside: others (bounds and refusals; a hang guard of 30 s, far above the commands)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
D=$PWD/tests/data
# expect_within SECONDS CODE DESC CMD...: expect_exit, and 124 (a hang) is named as one.
expect_within() {
  local s=$1 want=$2 desc=$3; shift 3
  expect_exit "$want" "$desc" timeout "$s" "$@"
}

# ---- item 10: a config's crossover.replay names a secret: not one byte of it is shown
printf 'root:$6$s3cr3t:19000:0:99999:7:::\n' >"$TMP/secret"
sed "s|replay: .*|replay: $TMP/secret|" "$D/report/gpubox.yaml" >"$TMP/secret.yaml"
expect_exit 2 "report: a crossover.replay that is no replay is exit 2" \
  $R report --config "$TMP/secret.yaml" -o "$TMP/r.html"
expect_grep "secret:1: not a replay header" "$TMP/err" "report: the file and line are named"
if grep -q s3cr3t "$TMP/err"; then not_ok "report: the secret is not quoted" "$(cat "$TMP/err")"
else ok "report: the secret is not quoted"; fi

# ---- item 6: aliases and depth
{ sed -n '1,/^machine:/p' "$D/report/gpubox.yaml"; echo '  loop: &c [*c, *c]'; } >"$TMP/cyclic.yaml"
sed -n '/^machine:/,$p' "$D/report/gpubox.yaml" | sed '1s/^machine:/machine_was:/' >>"$TMP/cyclic.yaml"
expect_within 60 2 "check: a cyclic alias in the baseline is exit 2, not a hang" \
  $R check --baseline "$TMP/cyclic.yaml" --budget 1 -o "$TMP/c.yaml"
expect_grep "cyclic.yaml:[0-9]+:[0-9]+: an alias \(\*c\)" "$TMP/err" "check: the alias is named at its place"
python3 -c 'import sys; sys.stdout.write("rigtune: 1\nx: " + "[" * 200000 + "\n")' >"$TMP/deep.yaml"
expect_within 60 2 "env: a config 200,000 brackets deep is exit 2 at once" \
  $R env --config "$TMP/deep.yaml"
expect_grep "deep.yaml:2:67: nested deeper than 64 levels" "$TMP/err" "env: the depth is named at its place"

# ---- item 12: numbers a division or a plot would take
SW=$D/sweep
sed "s/hostname: fixture-host/hostname: $(hostname)/" "$SW/config.yaml" >"$TMP/cfg.yaml"
cp "$SW/journal.yaml" "$TMP/"
printf 'wd: {low: -1e308, high: 1e308}\n' >"$TMP/wide.yaml"
expect_exit 2 "sweep: a range of -1e308..1e308 is exit 2" \
  $R sweep --from "$TMP/cfg.yaml" --workload transformer --format grid --params "$TMP/wide.yaml"
expect_grep "wide.yaml:1:11: wd: the range from -1e\+308 to 1e\+308 is too wide" "$TMP/err" \
  "sweep: the range is named at its place"
if grep -q "inf" "$TMP/out"; then not_ok "sweep: no inf printed" "$(head -c 300 "$TMP/out")"
else ok "sweep: no inf printed"; fi
for bad in .nan 0 -5; do
  awk -v m="$bad" '!done && /median: [0-9]/ { sub(/median: [0-9.e+-]+/, "median: " m); done = 1 } 1' \
    "$TMP/cfg.yaml" >"$TMP/badmed.yaml"
  expect_exit 2 "sweep: a configuration with median $bad is exit 2" \
    $R sweep --from "$TMP/badmed.yaml" --workload transformer --format grid
  expect_grep "badmed.yaml:[0-9]+:[0-9]+: median: " "$TMP/err" "sweep: median $bad is named at its place"
done

# ---- item 9: the lock file is checked before fchmod and ftruncate; its line is made printable
L=$TMP/locks; mkdir -p "$L"
LOCK=$L/rigtune-$(hostname).lock
printf 'keep me\n' >"$TMP/precious"; chmod 600 "$TMP/precious"
ln "$TMP/precious" "$LOCK"
RIGTUNE_LOCK_DIR=$L expect_exit 3 "a lock file that is a hard link is refused" \
  $R bench gemm m=32 n=32 k=32 --seconds 0.1 --no-wait
expect_grep "the measuring lock .* is not a regular file with one link \(it is a hard link\)" "$TMP/err" \
  "the message says why and names the lock"
if [ "$(stat -c %a "$TMP/precious")" = 600 ] && [ "$(cat "$TMP/precious")" = "keep me" ]; then
  ok "the linked file keeps its mode and content"
else not_ok "the linked file keeps its mode and content" "$(stat -c %a "$TMP/precious")"; fi
rm -f "$LOCK"; mkfifo "$LOCK"
RIGTUNE_LOCK_DIR=$L expect_within 30 3 "a FIFO as the lock file is refused, not waited on" \
  $R bench gemm m=32 n=32 k=32 --seconds 0.1 --no-wait
expect_grep "it is not a file" "$TMP/err" "the FIFO is named as no file"
rm -f "$LOCK"
mkfifo "$TMP/held" "$TMP/release"
( printf 'pid 1: \033]0;owned\007\033[2J\n' >"$LOCK"
  flock -x "$LOCK" -c "echo held >'$TMP/held'; read -r _ <'$TMP/release'" ) &
HOLDER=$!
read -r _ <"$TMP/held"
RIGTUNE_LOCK_DIR=$L expect_exit 3 "bench --no-wait while the crafted holder holds it" \
  $R bench gemm m=32 n=32 k=32 --seconds 0.1 --no-wait
echo go >"$TMP/release"; wait "$HOLDER"
if grep -q $'\033' "$TMP/err"; then not_ok "the holder's line reaches the terminal without its escapes" "$(od -c "$TMP/err" | head -5)"
else ok "the holder's line reaches the terminal without its escapes"; fi
expect_grep "pid 1: \?\]0;owned\?\?\[2J" "$TMP/err" "the escapes are shown as '?'"

# ---- item 5: -o in a sticky shared directory never follows or replaces another user's link or file
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v setpriv >/dev/null; then
  OTHER=rtother$$
  if useradd --no-create-home --shell /usr/sbin/nologin "$OTHER" 2>"$TMP/useradd.err"; then
    trap 'userdel "$OTHER" 2>/dev/null; rm -rf "$TMP"' EXIT
    OUID=$(id -u "$OTHER")
    S=$TMP/shared; mkdir -m 1777 "$S"
    as_other() { setpriv --reuid="$OUID" --regid="$OUID" --clear-groups "$@"; }
    echo "root's own" >"$TMP/root-file"; chmod 644 "$TMP/root-file"; chmod 755 "$TMP"
    as_other ln -s "$TMP/root-file" "$S/out.yaml"
    expect_exit 2 "-o at another user's symlink in a sticky directory is exit 2" \
      $R probe -o "$S/out.yaml"
    expect_grep "it is a symbolic link of another user \(uid $OUID\) in the shared directory" \
      "$TMP/err" "the message names the link's owner and the directory"
    if [ "$(cat "$TMP/root-file")" = "root's own" ]; then ok "the link's target is untouched"
    else not_ok "the link's target is untouched" "$(head -c 200 "$TMP/root-file")"; fi
    as_other sh -c "echo theirs >'$S/theirs.yaml'"
    expect_exit 2 "-o at another user's file in a sticky directory is exit 2" \
      $R probe -o "$S/theirs.yaml"
    expect_grep "it is a file of another user" "$TMP/err" "the message says it is their file"
    if [ "$(cat "$S/theirs.yaml")" = theirs ] && [ "$(stat -c %u "$S/theirs.yaml")" = "$OUID" ]; then
      ok "their file is neither replaced nor written"
    else not_ok "their file is neither replaced nor written" "$(ls -ln "$S")"; fi
    ln -s "$TMP/root-file" "$S/mine.yaml"
    expect_exit 0 "-o at our own symlink in the sticky directory is followed" $R probe -o "$S/mine.yaml"
    expect_grep "^machine:" "$TMP/root-file" "our link's target holds the YAML"
    # a group's directory (2775, no sticky bit: a fleet's configs/) and a world-writable one
    # without it: any member can put a link in place of any name, so another's is never followed
    echo "root's own" >"$TMP/root-file"
    for mode in 2775 0777; do
      G=$TMP/group-$mode; mkdir "$G" && chgrp "$(id -g "$OTHER")" "$G" && chmod "$mode" "$G"
      as_other ln -s "$TMP/root-file" "$G/node07.yaml"
      expect_exit 2 "-o at another user's symlink in a $mode directory is exit 2" \
        $R probe -o "$G/node07.yaml"
      expect_grep "it is a symbolic link of another user \(uid $OUID\) in the shared directory $G" \
        "$TMP/err" "  naming the link's owner and the directory"
      if [ "$(cat "$TMP/root-file")" = "root's own" ] && [ -L "$G/node07.yaml" ]; then
        ok "  the link and its target are untouched"
      else not_ok "  the link and its target are untouched" "$(ls -l "$G")" "$(head -c 100 "$TMP/root-file")"; fi
      ln -s "$TMP/root-file" "$G/mine.yaml"
      expect_exit 0 "  our own symlink there is followed" $R probe -o "$G/mine.yaml"
      echo "root's own" >"$TMP/root-file"
    done
    userdel "$OTHER" 2>/dev/null
  else
    echo "ok $((n += 1)) # SKIP sticky-directory rules: useradd failed: $(head -c 200 "$TMP/useradd.err")"
  fi
else
  echo "ok $((n += 1)) # SKIP sticky-directory rules: need root, useradd and setpriv for a second user"
fi

# ---- item 8: a tuned command's whole process tree ends with its trial, setsid or not
mkdir -p "$TMP/cmd" && cd "$TMP/cmd" || exit 1
printf 'workload: command\nparams:\n  batch: [1, 2]\n  threads: [1]\n' >space.yaml
cat >train.sh <<'SH'
#!/bin/sh
# a daemon's double fork into its own session, and a plain background child of it
setsid sh -c 'sleep 300 & echo $! >>pids; echo $$ >>pids; exec sleep 300' </dev/null >/dev/null 2>&1 &
for i in 1 2 3 4 5 6; do echo "rate 100"; sleep 0.05; done
SH
chmod +x train.sh
RIGTUNE_CONTENTION_LIMIT=1 expect_within 120 0 "tune --cmd on a command that leaves setsid children" \
  $R tune --cmd "$PWD/train.sh --batch {batch}" --metric 'rate ([0-9.]+)' --space space.yaml \
  --budget 20 --quiet -o c.yaml
alive=
while read -r pid; do
  [ -e "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] && alive="$alive $pid"
done <pids
if [ -s pids ] && [ -z "$alive" ]; then ok "none of the $(wc -l <pids) escaped processes outlived its trial"
else not_ok "none of the escaped processes outlived its trial" "alive:$alive" "$(cat pids 2>/dev/null)"
  [ -n "$alive" ] && kill $alive; fi
cd - >/dev/null || exit 1

echo "1..$n"
