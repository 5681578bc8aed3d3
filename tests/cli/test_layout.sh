#!/usr/bin/env bash
# The house's walls (docs/internals.md, "Layering"): no include circle among
# rigtune's own files or modules, no circle of calls between files (read from
# the build's objects); search/, workloads/ and common/ include no
# tuner/ header; a tuner/ family folder is entered only through its doors; only
# the files that count a budget read the budget clock that tests fake; the
# include tower no taller than its limits. scripts/include-depth.py checks
# them all and prints the tower.
# beside: others (the sources' layout)
. "$(dirname "$0")/lib.sh"

python3 scripts/include-depth.py --objects "$BUILD_DIR" >"$TMP/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then ok "no include or call circle, no include past a wall, the tower within its limits ($(sed -n 's/^longest include chain (\(.*\)): \(.*\)/\1 \2/p' "$TMP/out" | paste -sd, - | sed 's/,/, /'))"
else not_ok "no include or call circle, no include past a wall, the tower within its limits" "$(grep -E '^(include circle|call circle|layering|tower)' "$TMP/out" | head -10)"; fi

# The checker finds what it checks for: a copy of the tree with one wall
# broken. caught DESC FILE LINE PATTERN: FILE gets LINE appended, and the
# checker must exit 1 naming PATTERN.
cp -r common search workloads tuner scripts "$TMP/"
caught() {
  local desc=$1 file=$2 line=$3 pattern=$4 rc
  cp "$file" "$TMP/$file.orig"
  printf '%s\n' "$line" >>"$TMP/$file"
  (cd "$TMP" && python3 scripts/include-depth.py >"$TMP/wall" 2>&1)
  rc=$?
  mv "$TMP/$file.orig" "$TMP/$file"
  if [ "$rc" -eq 1 ] && grep -qE "$pattern" "$TMP/wall"; then ok "$desc"
  else not_ok "$desc" "exit $rc: $(tail -3 "$TMP/wall")"; fi
}
caught "a search/ header that includes tuner/ is caught" search/space.h \
  '#include "../tuner/journal.h"' 'search/space.h includes tuner/journal.h'
caught "a family entered past its door is caught" tuner/apply.c '#include "page/pagedata.h"' \
  'tuner/apply.c includes tuner/page/pagedata.h: enter tuner/page/ through tuner/page/page.h'
caught "an include circle is caught and named" tuner/replay.h '#include "crossover.h"' \
  '^include circle \(files\):.*tuner/replay.h'
caught "check entered past its two doors is caught" tuner/apply.c '#include "check/check_run.h"' \
  'tuner/apply.c includes tuner/check/check_run.h: enter tuner/check/ through tuner/check/check.h or tuner/check/check_result.h'
caught "the Metal plugin including a GPU plugins' header is caught" workloads/metal/metal.c \
  '#include "../gpu/host_common.h"' 'workloads/metal/metal.c includes workloads/gpu/host_common.h'
caught "a measuring module that reads the budget clock (which tests fake) is caught" tuner/measure.c \
  '#include "../common/clock.h"' 'tuner/measure.c includes common/clock.h: the budget clock'
caught "a module circle is caught and named" tuner/cli.c '#include "cmd/commands.h"' \
  '^include circle \(modules\): tuner/cli <-> tuner/cmd/commands'
caught "a taller tower is caught (the page entering check through the run's door)" \
  tuner/page/pagedata.h '#include "../check/check.h"' \
  '^tower: the longest include chain \(modules\) is [0-9]+, above its limit'

# A circle of calls between files that share no include: two objects that use
# each other's functions.
mkdir -p "$TMP/objs/tuner"
printf 'int rt_b(int);\nint rt_a(int x) { return x ? rt_b(x - 1) : 0; }\n' >"$TMP/a.c"
printf 'int rt_a(int);\nint rt_b(int x) { return x ? rt_a(x - 1) : 1; }\n' >"$TMP/b.c"
cc -c "$TMP/a.c" -o "$TMP/objs/tuner/a.o" && cc -c "$TMP/b.c" -o "$TMP/objs/tuner/b.o"
python3 scripts/include-depth.py --objects "$TMP/objs" >"$TMP/wall" 2>&1
rc=$?
if [ "$rc" -eq 1 ] &&
  grep -q '^call circle: tuner/a.c <-> tuner/b.c (tuner/a.c uses rt_b of tuner/b.c; tuner/b.c uses rt_a of tuner/a.c)$' "$TMP/wall"
then ok "a circle of calls between two files is caught and named"
else not_ok "a circle of calls between two files is caught and named" "exit $rc: $(tail -3 "$TMP/wall")"; fi

# No backend is known by name outside workloads/ (scripts/backend-names.py): the
# tree passes, and a comparison, a quoted device or a device with its index in
# tuner/ is caught and named.
python3 scripts/backend-names.py >"$TMP/names" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then ok "no backend named outside workloads/ ($(tail -1 "$TMP/names"))"
else not_ok "no backend named outside workloads/" "$(head -5 "$TMP/names")"; fi
named() {
  local desc=$1 line=$2 rc
  cp "$TMP/tuner/apply.c" "$TMP/apply.orig"
  printf '%s\n' "$line" >>"$TMP/tuner/apply.c"
  (cd "$TMP" && python3 scripts/backend-names.py >"$TMP/names" 2>&1)
  rc=$?
  mv "$TMP/apply.orig" "$TMP/tuner/apply.c"
  if [ "$rc" -eq 1 ] && grep -qF "backend named outside workloads/: tuner/apply.c:" "$TMP/names"
  then ok "$desc"; else not_ok "$desc" "exit $rc: $(tail -2 "$TMP/names")"; fi
}
named "a comparison with the host backend's name is caught" \
  'static int host(const char *b) { return !strcmp(b, "cpu"); }'
named "a device quoted for a framework is caught" "static const char *l = \"x.to('hip')\";"
named "a device with its index is caught" 'static const char *d = "cuda:1";'

# The limits are the options: the tree as it is, one floor under its own figures.
files=$(sed -n 's/^longest include chain (files): //p' "$TMP/out")
mods=$(sed -n 's/^longest include chain (modules): //p' "$TMP/out")
(cd "$TMP" && python3 scripts/include-depth.py --max-files $((files - 1)) \
  --max-modules $((mods - 1)) >"$TMP/wall" 2>&1)
rc=$?
if [ "$rc" -eq 1 ] &&
  grep -q "^tower: the longest include chain (files) is $files, above its limit $((files - 1))$" "$TMP/wall" &&
  grep -q "^tower: the longest include chain (modules) is $mods, above its limit $((mods - 1))$" "$TMP/wall"
then ok "--max-files and --max-modules are the limits ($((files - 1)), $((mods - 1)): caught)"
else not_ok "--max-files and --max-modules are the limits" "exit $rc: $(tail -3 "$TMP/wall")"; fi

# A bare `make` builds the binary (the plugins' fragments come first in the
# Makefile: their rules must not become the default goal).
goal=$(cd "$(dirname "$0")/../.." && make -pq 2>/dev/null | sed -n 's/^\.DEFAULT_GOAL := //p')
[ "$goal" = all ] && ok "a bare make builds all (the binary and the plugins)" ||
  not_ok "a bare make builds all" "the default goal is '$goal'"
echo "1..$n"
