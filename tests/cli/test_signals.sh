#!/usr/bin/env bash
# Every process rigtune starts ends with it (issue 32): a tuned command that
# started a child in its group and one that left it (setsid) is gone, with its
# guard, after HUP, INT, TERM or QUIT to `rigtune tune` (which catches them)
# and after SIGKILL (which it cannot); and after TERM or KILL to `rigtune
# check` running the command again.
# tier: slow (signals to real tunes, about 30 s)
# beside: others (signals to tunes of a command that prints fixed rates; hang guards of 120 s and 30 s)
. "$(dirname "$0")/lib.sh"
export RIGTUNE_CONTENTION_LIMIT=1
R=$RIGTUNE
cd "$TMP" || exit 1

# tree.sh BATCH: prints a rate at once; where ./hang is, it first starts a
# tree (a sleep in its group, a sleep in a session of its own), writes their
# pids, says "ready" on ./ready.fifo and waits
cat >tree.sh <<'EOF'
if [ -e hang ]; then
  sleep 600 & echo $! >>pids
  setsid sleep 600 & echo $! >>pids
  echo $$ >>pids
  echo ready >ready.fifo
  wait
fi
echo "rate $1"; echo "rate $1"
EOF
printf 'workload: command\nparams:\n  batch: [1, 2]\n' >space.yaml
CMD="sh $TMP/tree.sh {batch}"

# A process is gone when /proc has no such pid, or only its zombie.
alive() { local s; s=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) && [ "$s" != Z ]; }
# wait_gone PID...: until none is alive, 30 s at most (the guard ends them at once)
wait_gone() {
  local deadline=$((SECONDS + 30)) p left
  while :; do
    left=
    for p in "$@"; do alive "$p" && left="$left $p"; done
    [ -z "$left" ] || [ "$SECONDS" -ge "$deadline" ] && break
    sleep 0.1
  done
  echo "$left"
}

# tree DIR SIGNAL WHAT CMD...: CMD in DIR until the tree is up, then SIGNAL to
# rigtune; every process of the tree (and the guard above it) must end
tree() {
  local dir=$1 sig=$2 what=$3; shift 3
  (
    cd "$dir" || exit 1
    touch hang && rm -f pids ready.fifo && mkfifo ready.fifo
    exec 4<>ready.fifo
    "$@" >/dev/null 2>run.err &
    local pid=$! line= i
    # the line, or rigtune's end without it (a second at a time, 120 s at most)
    for i in $(seq 120); do
      read -t 1 -r line <&4 && break
      kill -0 "$pid" 2>/dev/null || break
    done
    if [ "$line" != ready ]; then
      kill -KILL "$pid"; echo "not ok: the tree never came up: $(head -c 300 run.err)"; exit 0
    fi
    local sh guard
    sh=$(sed -n 3p pids)
    guard=$(cut -d' ' -f4 "/proc/$sh/stat")
    kill "-$sig" "$pid"
    wait "$pid"
    local left
    left=$(wait_gone $(cat pids) "$guard")
    rm -f hang
    if [ -z "$left" ]; then echo "ok"; else
      echo "not ok: still running after $what got $sig:$(for p in $left; do
        printf ' [%s]' "$(tr '\0' ' ' <"/proc/$p/cmdline")"; done)"
    fi
  ) >"$TMP/tree.out" 2>&1
  case $(tail -1 "$TMP/tree.out") in
    ok) ok "$what, SIG$sig: the command's tree and its guard are gone" ;;
    *) not_ok "$what, SIG$sig: the command's tree and its guard are gone" "$(cat "$TMP/tree.out")" ;;
  esac
}

for sig in HUP INT TERM QUIT KILL; do
  mkdir "tune-$sig"
  cp space.yaml "tune-$sig/"
  tree "tune-$sig" "$sig" "tune --cmd" \
    $R tune --cmd "$CMD" --metric 'rate ([0-9]+)' --space space.yaml --budget 60 --quiet -o c.yaml
done

# check --cmd, given the command again: a baseline first (no hang), then the tree
mkdir base && cp space.yaml base/
(cd base && $R tune --cmd "$CMD" --metric 'rate ([0-9]+)' --space space.yaml --budget 10 \
  --quiet -o cfg.yaml >/dev/null 2>tune.err)
[ -f base/cfg.yaml ] && ok "a baseline of the command" || not_ok "a baseline of the command" \
  "$(head -c 300 base/tune.err)"
for sig in TERM KILL; do
  tree base "$sig" "check --cmd" \
    $R check --baseline cfg.yaml --cmd "$CMD" --no-canary --budget 60 --quiet -o check.yaml
done

echo "1..$n"
