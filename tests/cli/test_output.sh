#!/usr/bin/env bash
# Writes that never destroy: -o at a device, a symlink, a FIFO, a directory, an
# unwritable directory, a full disk; what was there survives every failure.
# beside: others (where and how files are written, refusals before any run; no figure)
. "$(dirname "$0")/lib.sh"

# A device: written in place, ENOSPC is a run-time failure, the node stays a device.
if [ -c /dev/full ] && [ "$(id -u)" = 0 ]; then
  expect_exit 3 "probe -o /dev/full fails (exit 3)" "$RIGTUNE" probe -o /dev/full
  expect_grep "No space left on device" "$TMP/err" "the failure names ENOSPC"
  if [ -c /dev/full ]; then ok "/dev/full is still a character device"; else
    not_ok "/dev/full is still a character device" "$(ls -l /dev/full)"; fi
else
  echo "ok $((n += 1)) # SKIP /dev/full as root: needs root and /dev/full"
fi

# A symlink: its target is replaced, the link stays.
echo old >"$TMP/target.yaml"
ln -s target.yaml "$TMP/link.yaml"
expect_exit 0 "probe -o at a symlink" "$RIGTUNE" probe -o "$TMP/link.yaml"
if [ -L "$TMP/link.yaml" ] && grep -q '^machine:' "$TMP/target.yaml"; then
  ok "the link is still a link and its target holds the YAML"
else
  not_ok "the link is still a link and its target holds the YAML" "$(ls -l "$TMP")"
fi

# A FIFO with a reader: written through it.
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/from-fifo" &
reader=$!
expect_exit 0 "probe -o at a FIFO" "$RIGTUNE" probe -o "$TMP/fifo"
wait "$reader"
expect_grep '^machine:' "$TMP/from-fifo" "the reader got the YAML"

# A directory: bad usage, nothing created inside it.
mkdir "$TMP/dir"
expect_exit 2 "probe -o at a directory (exit 2)" "$RIGTUNE" probe -o "$TMP/dir"
expect_grep "it is a directory" "$TMP/err" "the message says it is a directory"
if [ -z "$(ls -A "$TMP/dir")" ]; then ok "nothing was written into the directory"; else
  not_ok "nothing was written into the directory" "$(ls -A "$TMP/dir")"; fi

# stdout
expect_exit 0 "probe -o - writes to stdout" "$RIGTUNE" probe -o -
expect_grep '^machine:' "$TMP/out" "stdout holds the YAML"

# /dev/stdout is a link of /proc to the open stdout: written there, never replaced.
"$RIGTUNE" probe -o /dev/stdout 2>"$TMP/err" | cat >"$TMP/piped"
if [ "${PIPESTATUS[0]}" = 0 ] && grep -q '^machine:' "$TMP/piped"; then
  ok "probe -o /dev/stdout into a pipe"
else
  not_ok "probe -o /dev/stdout into a pipe" "exit ${PIPESTATUS[0]}" "$(cat "$TMP/err")"
fi
echo "first line" >"$TMP/log"
"$RIGTUNE" probe -o /dev/stdout >>"$TMP/log" 2>"$TMP/err"
if [ "$(head -1 "$TMP/log")" = "first line" ] && grep -q '^machine:' "$TMP/log"; then
  ok "probe -o /dev/stdout >>log appends to the log"
else
  not_ok "probe -o /dev/stdout >>log appends to the log" "$(head -3 "$TMP/log")" "$(cat "$TMP/err")"
fi

# A new file gets the umask's permissions.
(umask 077 && "$RIGTUNE" probe -o "$TMP/private.yaml" 2>"$TMP/err")
if [ "$(stat -c %a "$TMP/private.yaml" 2>/dev/null)" = 600 ]; then ok "a new file follows the umask (077: 600)"; else
  not_ok "a new file follows the umask (077: 600)" "$(ls -l "$TMP/private.yaml" 2>&1)"; fi

# denied_as_nobody WHAT DIR: probe -o DIR/out.yaml as nobody is exit 3 naming the
# permission, and DIR still holds only out.yaml, unchanged.
denied_as_nobody() {
  expect_exit 3 "$1 is a run-time failure (exit 3)" \
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$RIGTUNE" probe -o "$2/out.yaml"
  expect_grep "Permission denied" "$TMP/err" "$1: the message names the permission"
  if [ "$(cat "$2/out.yaml")" = keep ] && [ "$(ls -A "$2")" = out.yaml ]; then
    ok "$1: the old file is intact and no temporary file was left"
  else
    not_ok "$1: the old file is intact and no temporary file was left" "$(ls -A "$2")"
  fi
}

# An unwritable directory, and a read-only file in a directory the user may write
# (refused as `>` would refuse it), as an unprivileged user (root writes anywhere).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  shared=$(mktemp -d /tmp/rt-unwritable-XXXXXX)
  echo keep >"$shared/out.yaml"
  chmod 755 "$shared" && chmod 644 "$shared/out.yaml"
  denied_as_nobody "an unwritable directory" "$shared"
  chmod 777 "$shared" && chmod 444 "$shared/out.yaml"
  denied_as_nobody "a read-only file" "$shared"
  rm -rf "$shared"
else
  echo "ok $((n += 1)) # SKIP unwritable directory: needs root and setpriv to become nobody"
  echo "ok $((n += 1)) # SKIP read-only file: needs root and setpriv to become nobody"
fi

# A full disk: a tmpfs small enough to fill.
mnt="$TMP/small"
mkdir "$mnt"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
  echo keep >"$mnt/out.yaml"
  head -c 60000 /dev/zero >"$mnt/filler" 2>/dev/null
  expect_exit 3 "probe -o on a full disk fails (exit 3)" "$RIGTUNE" probe -o "$mnt/out.yaml"
  expect_grep "No space left on device" "$TMP/err" "the failure names ENOSPC"
  if [ "$(cat "$mnt/out.yaml")" = keep ] && [ "$(ls -A "$mnt" | sort | tr '\n' ' ')" = "filler out.yaml " ]; then
    ok "the old file is intact and no temporary file was left on the full disk"
  else
    not_ok "the old file is intact and no temporary file was left on the full disk" "$(ls -A "$mnt")"
  fi
  umount "$mnt"
else
  echo "ok $((n += 1)) # SKIP full disk: cannot mount a tmpfs here (needs root and mount rights)"
fi
# ---- one writer (issue 47, deliverable 3) ----
# Every file rigtune writes goes through tuner/output.c: outside it no source of rigtune
# (tests, benchmarks and fuzz harnesses aside) opens a file to write, create, truncate
# or append to it. One exception, by name: macOS's rt_plat_memfile, a nameless scratch
# file (mkstemp's O_EXCL, unlinked at once) that stands in for Linux's memfd.
SRC=$(cd "$(dirname "$0")/../.." && pwd)
writers=$(cd "$SRC" && git ls-files '*.c' '*.h' '*.cpp' '*.cu' '*.hip' '*.m' '*.mm' |
  grep -vE '^(tests|bench|fuzz)/|^tuner/output\.c$' | xargs grep -nE \
  'O_CREAT|O_TRUNC|O_APPEND|O_WRONLY|O_RDWR|fopen *\([^;]*, *"[^"]*[wa+][^"]*" *\)|\bcreat *\(|mkstemp|mkostemp|\bopenat *\(|freopen' |
  grep -vE '^[^:]+:[0-9]+:\s*(/\*|\*( |/|$)|//)' | grep -vE '^common/platform_darwin\.c:[0-9]+:\s*int fd = mkstemp\(path\);$')
[ -z "$writers" ] && ok "no file is opened for writing outside tuner/output.c" ||
  not_ok "files opened for writing outside tuner/output.c" "$writers"

# ---- an -o that cannot be written is refused before anything starts (issue 47.7) ----
# watch -o DIR/missing/w.yaml was found out only after the run: hours of watching lost.
mkdir -p "$TMP/early" && cd "$TMP/early" || exit 1
expect_exit 3 "watch -o into a missing directory fails at once" \
  "$RIGTUNE" watch -o missing/w.yaml -- sh -c "touch $TMP/early/ran"
expect_grep "cannot write missing/w.yaml: the directory missing: No such file or directory \(nothing was started\)" \
  "$TMP/err" "  naming the directory"
[ ! -e ran ] && ok "  and the command never ran" || not_ok "  the command ran" "$(ls)"
expect_exit 2 "watch -o at a directory: a usage error at once" "$RIGTUNE" watch -o . -- sh -c "touch $TMP/early/ran"
[ ! -e ran ] && ok "  and the command never ran" || not_ok "  the command ran" "$(ls)"
expect_exit 3 "tune -o into a missing directory fails at once" \
  "$RIGTUNE" tune --workload gemm --budget 4 --no-crossover --quiet -o missing/c.yaml
[ ! -e results ] && ok "  before any trial (no journal)" || not_ok "  trials ran" "$(ls -R results)"
expect_exit 3 "check -o into a missing directory fails at once" \
  "$RIGTUNE" check --baseline "$SRC/tests/data/report/tiny-20260102-100000.yaml" -o missing/r.yaml
expect_grep "check: cannot write missing/r.yaml: the directory missing" "$TMP/err" "  naming it"
expect_exit 3 "sweep -o into a missing directory fails at once" \
  "$RIGTUNE" sweep --from nonexistent.yaml --workload transformer --format optuna -o missing/s.py
expect_grep "sweep: cannot write missing/s.py: the directory missing" "$TMP/err" "  before reading --from"
cd "$TMP" || exit 1
