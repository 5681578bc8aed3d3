#!/usr/bin/env bash
# Does `rigtune check` say "unchanged" on an unchanged machine (issue 33)? Tunes WORKLOADS
# into a baseline, then runs CHECKS `rigtune check --baseline` in a row with the machine left
# as it is, and prints per check its exit status, seconds against its budget, verdicts and
# what its canary read (shown only: the compute half with its 95% CI, and the memory half),
# then the totals and the 1-minute load before and after: a busy machine
# is not an unchanged one. Every check's YAML stays in DIR (cN.yaml).
#
# Usage: scripts/check-aa.sh [-n CHECKS] [-w WORKLOADS] [-b TUNE_BUDGET] [-d DIR] [-r RIGTUNE]
#   defaults: 8 checks; gemm,transformer,ppo; 40 s; a new directory in /tmp; build/rigtune.
#   DIR/base.yaml is reused when it is there (check an earlier run's baseline again).
# Exit status: 0 when no check exited 1 and >= 90% of the verdicts are unchanged, 1 else,
# 2 for bad arguments or a tune or check that failed.
set -eu
checks=8 workloads=gemm,transformer,ppo budget=40 dir= rigtune=
while getopts n:w:b:d:r: opt; do
  case $opt in
  n) checks=$OPTARG ;;
  w) workloads=$OPTARG ;;
  b) budget=$OPTARG ;;
  d) dir=$OPTARG ;;
  r) rigtune=$OPTARG ;;
  *) echo "usage: $0 [-n CHECKS] [-w WORKLOADS] [-b TUNE_BUDGET] [-d DIR] [-r RIGTUNE]" >&2; exit 2 ;;
  esac
done
rigtune=$(realpath "${rigtune:-$(dirname "$0")/../build/rigtune}")
[ -x "$rigtune" ] || { echo "$0: $rigtune: no rigtune binary (make build-all)" >&2; exit 2; }
dir=${dir:-$(mktemp -d /tmp/check-aa-XXXXXX)}
mkdir -p "$dir" && cd "$dir"
load() { cut -d' ' -f1 /proc/loadavg; }

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(load) before; in $dir"
if [ ! -f base.yaml ]; then
  "$rigtune" tune --workload "$workloads" --budget "$budget" --fresh --quiet -o base.yaml ||
    { echo "$0: the tune failed" >&2; exit 2; }
fi

# One check's YAML as "status seconds budget unchanged inconclusive other canary-fields".
tally() {
  awk -v status="$1" '
    function num(s) { gsub(/[^0-9.eE+-]/, "", s); return s + 0 }
    /^canary:/ { c = 1; next }
    /^[a-z]/ { c = 0 }
    c && /^  baseline: \{compute/ { split($0, f, /[:,}]/); bm = num(f[5]) }
    c && /^  now: \{compute/ { split($0, f, /[:,}]/); nm = num(f[5]) }
    c && /^  ratio:/ { ratio = $2 }
    c && /^  ci95:/ { split($0, f, /[\[,\]]/); lo = num(f[2]); hi = num(f[3]) }
    /^settings:/ { split($0, f, /[:,}]/); budget = num(f[7]); secs = num(f[9]) }
    /^summary:/ { n = split($0, f, /[{:,}]/)   # key, value, ...: every verdict but two is "other"
      for (i = 4; i <= n; i += 2) {
        k = f[i - 1]; gsub(/ /, "", k)
        if (k == "unchanged") u = num(f[i]); else if (k == "inconclusive") inc = num(f[i]); else other += num(f[i])
      } }
    END {
      within = ratio == "null" ? "-" : (lo <= 1 && hi >= 1 ? "yes" : "no")
      mem = bm > 0 ? sprintf("%+.1f%%", 100 * (nm / bm - 1)) : "-"
      printf "%s %.1f %g %d %d %d %s %s %s %s\n", status, secs, budget, u, inc, other,
        ratio, lo "," hi, within, mem
    }' "$2"
}

printf '%-5s %-6s %-12s %-10s %-12s %-5s %-22s %-6s %s\n' check exit seconds unchanged \
  inconclusive other "canary compute [CI]" "in CI" memory
rows=()
for i in $(seq 1 "$checks"); do
  set +e
  "$rigtune" check --baseline base.yaml --quiet -o "c$i.yaml" >"c$i.txt" 2>&1
  status=$?
  set -e
  [ "$status" -le 1 ] && [ -f "c$i.yaml" ] ||
    { echo "$0: check $i failed (exit $status): $dir/c$i.txt" >&2; exit 2; }
  row=$(tally "$status" "c$i.yaml")
  rows+=("$row")
  read -r st secs bud u inc other ratio ci within mem <<<"$row"
  printf '%-5s %-6s %-12s %-10s %-12s %-5s %-22s %-6s %s\n' "$i" "$st" "$secs/$bud" "$u" \
    "$inc" "$other" "$ratio [$ci]" "$within" "$mem"
done

printf '%s\n' "${rows[@]}" | awk -v load="$(load)" '
  { n++; ones += $1 == 1; secs += $2; bud += $3; u += $4; inc += $5; other += $6
    within += $9 == "yes"; compared += $9 != "-" }
  END {
    total = u + inc + other
    printf "# %d checks: %d exited 1; verdicts %d of %d unchanged (%.0f%%), %d inconclusive, %d other\n",
      n, ones, u, total, total ? 100 * u / total : 0, inc, other
    printf "# %.1f s a check on average, of a %.0f s budget; canary compute within its CI of no change in %d of %d; load %s after\n",
      secs / n, bud / n, within, compared, load
    exit !(ones == 0 && total && u >= 0.9 * total)
  }'
