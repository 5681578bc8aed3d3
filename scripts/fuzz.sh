#!/usr/bin/env bash
# Runs each libFuzzer harness for SECONDS on its seeds and prints one line per
# harness: seconds, executions, executions per second, crashes. A crash input is
# kept in build-fuzz/crashes/NAME/ (make it a regression test); exit 1 if any.
#   scripts/fuzz.sh SECONDS HARNESS...
set -u
seconds=$1; shift
root="$(cd "$(dirname "$0")/.." && pwd)"
status=0
printf '%-18s %8s %12s %10s %8s\n' harness seconds execs execs/s crashes
for bin in "$@"; do
  name=$(basename "$bin"); name=${name#fuzz_}
  corpus="$root/build-fuzz/corpus/$name" crashes="$root/build-fuzz/crashes/$name"
  mkdir -p "$corpus" "$crashes"
  log="$root/build-fuzz/$name.log"
  # the seeds are read, never written: new inputs go to the working corpus
  "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" "$corpus" "$root/fuzz/seeds/$name" >"$log" 2>&1
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  found=$(find "$crashes" -type f | wc -l)
  printf '%-18s %8s %12s %10s %8s\n' "$name" "$seconds" "${execs:-?}" "${rate:-?}" "$found"
  if [ "$found" -ne 0 ] || [ -z "$execs" ]; then
    status=1
    tail -n 30 "$log" | sed 's/^/    /'
  fi
done
exit "$status"
