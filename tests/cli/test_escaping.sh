#!/usr/bin/env bash
# What rigtune writes for another program (a Python script, YAML, JSON, shell
# lines, an HTML page, a command for sh) reads back as written with that
# program, whatever the strings of its inputs hold, or is refused with exit 2;
# and a configuration sets only the environment rigtune's knobs own (issue 23).
# tier: integration (the Ray Tune script runs in the frameworks' venv)
# beside: others (what readers read back; no figure)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
HERE=$(cd "$(dirname "$0")/.." && pwd)
D=$HERE/data
cd "$TMP" || exit 1

# ---- the property checks, with the real readers (tests/escape_check.py prints TAP) ----
run_checks() { # the checks' TAP lines, renumbered into this script's
  local line
  while IFS= read -r line; do
    case $line in
      "ok "*) ok "${line#ok * - }" ;;
      "not ok "*) not_ok "${line#not ok * - }" ;;
      *) echo "$line" ;;
    esac
  done < <(/usr/bin/python3 "$HERE/escape_check.py" "$@" 2>&1 || echo "not ok 0 - escape_check.py $1 failed")
}
need_test_python # the Ray Tune script's --help runs in it
run_checks sweep "$R" "$D" "$PY"
run_checks env "$R" "$D"
run_checks page "$R" "$D"

# ---- the environment a configuration may set ----
cfg_with_env() { # NAME VALUE: the sweep fixture with one more variable
  awk -v k="$1" -v v="$2" '{ print } /^      OMP_PLACES: cores$/ { print "      " k ": \x27" v "\x27" }' \
    "$D/sweep/config.yaml" >env.yaml
}
cfg_with_env LD_PRELOAD /tmp/evil.so
line=$(grep -n "LD_PRELOAD" env.yaml | cut -d: -f1)
[ -n "$line" ] && ok "the fixture has the variable" || not_ok "the fixture has the variable"
expect_exit 2 "env refuses LD_PRELOAD in a configuration" $R env --config env.yaml --workload transformer
expect_grep "^rigtune env: env.yaml:$line:[0-9]+: env: LD_PRELOAD is not a variable rigtune's knobs set" \
  "$TMP/err" "  naming the file, the line and the variable"
expect_grep "pass --allow-env LD_PRELOAD" "$TMP/err" "  and the option that allows it"
[ ! -s "$TMP/out" ] && ok "  and prints no export line" || not_ok "  and prints no export line" "$(cat "$TMP/out")"
expect_exit 0 "env --allow-env LD_PRELOAD exports it" \
  $R env --config env.yaml --workload transformer --allow-env LD_PRELOAD
expect_grep "^export LD_PRELOAD=/tmp/evil.so$" "$TMP/out" "  as the configuration says"

# what docs/commands/tune.md tells a user on a shared machine to add: exec applies it
cfg_with_env OMP_WAIT_POLICY PASSIVE
expect_exit 0 "exec applies an OMP_WAIT_POLICY a user added to env:" \
  $R exec --config env.yaml --workload transformer -- sh -c 'echo "policy=$OMP_WAIT_POLICY"'
expect_grep "^policy=PASSIVE$" "$TMP/out" "  as the configuration says"

cfg_with_env PATH "$TMP/evil"
mkdir -p evil && printf '#!/bin/sh\ntouch %s/ran\n' "$TMP" >evil/true && chmod +x evil/true
expect_exit 2 "exec refuses a configuration that sets PATH" \
  $R exec --config env.yaml --workload transformer -- true
expect_grep "env: PATH is not a variable" "$TMP/err" "  saying why"
[ ! -e ran ] && ok "  and runs nothing" || not_ok "  and runs nothing" "the PATH program ran"
cfg_with_env PROMPT_COMMAND "touch $TMP/ran"
expect_exit 2 "env refuses PROMPT_COMMAND" $R env --config env.yaml --workload transformer
expect_grep "env.yaml:$line:[0-9]+: env: PROMPT_COMMAND" "$TMP/err" "  naming the line"
expect_exit 2 "the sweep refuses it too (its script exports the environment)" \
  $R sweep --from env.yaml --workload transformer --format grid
expect_grep "env.yaml:$line:[0-9]+: env: PROMPT_COMMAND" "$TMP/err" "  naming the line too"
cfg_with_env RIGTUNE_BACKEND_PATH /tmp/evil
expect_exit 2 "env refuses RIGTUNE_BACKEND_PATH (the next rigtune would load its plugins)" \
  $R env --config env.yaml --workload transformer
expect_grep "env: RIGTUNE_BACKEND_PATH is not a variable" "$TMP/err" "  naming it"
cfg_with_env RIGTUNE_CPU_MASK 0
expect_exit 2 "env refuses RIGTUNE_CPU_MASK (it masks the CPU features the next rigtune sees)" \
  $R env --config env.yaml --workload transformer
expect_grep "env: RIGTUNE_CPU_MASK is not a variable" "$TMP/err" "  naming it"
expect_exit 2 "exec refuses it too" $R exec --config env.yaml --workload transformer -- true
# every RIGTUNE_ variable the sources read is a setting of rigtune's, refused the same way
settings=$(cd "$HERE/.." && grep -rhoE '"RIGTUNE_[A-Z0-9_]+"' common tuner workloads search |
  tr -d '"' | sort -u)
[ "$(echo "$settings" | wc -l)" -ge 10 ] && ok "the sources read 10 settings or more" ||
  not_ok "the sources read 10 settings or more" "$settings"
for name in $settings; do
  cfg_with_env "$name" /tmp/evil
  expect_exit 2 "env refuses $name, a setting the sources read" \
    $R env --config env.yaml --workload transformer
done
# a space file's knob becomes RIGTUNE_<KNOB> in the tuned command's environment: not a setting
printf 'workload: command\nparams:\n  batch: [1]\n  backend_path: [%s/evil]\n' "$TMP" >knobs.yaml
expect_exit 2 "tune --cmd refuses a knob whose variable is RIGTUNE_BACKEND_PATH" \
  $R tune --cmd "sh -c 'touch $TMP/ran; echo rate 1; echo rate 1'" --metric 'rate ([0-9]+)' \
  --space knobs.yaml --budget 5 --quiet -o knobs-out.yaml
expect_grep "knobs.yaml:4:3: params: backend_path cannot name a knob: its variable RIGTUNE_<KNOB> is one of rigtune's own settings" \
  "$TMP/err" "  naming the file, the line and the knob"
[ ! -e ran ] && ok "  and runs nothing" || not_ok "  and runs nothing" "the command ran"
cfg_with_env RIGTUNE_NOTE hello
expect_exit 0 "RIGTUNE_* is rigtune's own" $R exec --config env.yaml --workload transformer -- \
  sh -c 'test "$RIGTUNE_NOTE" = hello'

echo "1..$n"
