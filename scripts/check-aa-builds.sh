#!/usr/bin/env bash
# Two or more rigtune builds' checks against one baseline, in turn (issue 33): tunes
# gemm, transformer and ppo for 40 s with the first build (or reuses DIR/base.yaml), then
# ROUNDS rounds of one `check --baseline` per build, so that the host's drift falls on each
# build alike, and prints per check its exit status, seconds and verdicts. Every check's
# YAML and table stay in DIR (rN-LABEL.yaml, rN-LABEL.txt).
#
# Usage: scripts/check-aa-builds.sh DIR ROUNDS LABEL=RIGTUNE LABEL=RIGTUNE ...
# Exit status: 0 when every check ran (exit 0 or 1), 2 for bad arguments or a failed tune.
set -u
[ $# -ge 4 ] || { echo "usage: $0 DIR ROUNDS LABEL=RIGTUNE LABEL=RIGTUNE ..." >&2; exit 2; }
dir=$1 rounds=$2
shift 2
for lb in "$@"; do
  [ -x "${lb#*=}" ] && [ "${lb%%=*}" != "$lb" ] || { echo "$0: $lb: not LABEL=RIGTUNE" >&2; exit 2; }
done
mkdir -p "$dir" && cd "$dir" || exit 2
load() { cut -d' ' -f1 /proc/loadavg; }
echo "# $(date -u +%FT%TZ) load $(load) before; in $PWD"
[ -f base.yaml ] || "${1#*=}" tune --workload gemm,transformer,ppo --budget 40 --fresh --quiet \
  -o base.yaml || { echo "$0: the tune failed" >&2; exit 2; }
echo "round label exit seconds unchanged inconclusive regression improvement"
status=0
for r in $(seq 1 "$rounds"); do
  for lb in "$@"; do
    label=${lb%%=*} bin=${lb#*=}
    "$bin" check --baseline base.yaml --quiet -o "r$r-$label.yaml" >"r$r-$label.txt" 2>&1
    rc=$?
    [ "$rc" -le 1 ] || status=2
    awk -v r="$r" -v l="$label" -v rc="$rc" '
      /^settings:/ { s = $0; sub(/.*seconds: /, "", s); sub(/}.*/, "", s) }
      /^summary:/ { line = $0 }
      END { n = split(line, f, /[{:,} ]+/); for (i = 2; i < n; i += 2) v[f[i]] = f[i + 1]
            printf "%s %s %s %.1f %s %s %s %s\n", r, l, rc, s, v["unchanged"], v["inconclusive"],
              v["regression"], v["improvement"] }' "r$r-$label.yaml"
  done
done
echo "# $(date -u +%FT%TZ) load $(load) after"
exit "$status"
