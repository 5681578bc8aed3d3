#!/usr/bin/env bash
# scripts/venv.sh and scripts/zig.sh on a fresh machine, through the steps they share
# (scripts/cached-venv.sh): each makes its venv in the cache where it is missing, installs
# its pins, reuses a complete one, makes again one left unfinished (an install that failed),
# makes it in the background for make test's set-up (--background) and waits for that
# (--wait), and answers --path and bad usage. A stand-in interpreter (RIGTUNE_VENV_PYTHON)
# logs what pip would have done: nothing is downloaded.
# beside: others (the environment script)
. "$(dirname "$0")/lib.sh"
S=$PWD/scripts
cat >"$TMP/fakepy" <<'EOF2'
#!/usr/bin/env bash
# logs its arguments; -m venv DIR makes DIR/bin/python (itself); pip install fails on FAKE_PIP_FAIL
echo "$*" >>"$FAKE_LOG"
case "$1 ${2:-} ${3:-}" in
  "-m venv "*) mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
  "-m pip install") [ -z "${FAKE_PIP_FAIL:-}" ] || exit 1
    # held until the test opens the gate, where it names one (30 s at most: a test that
    # failed before opening it leaves nothing behind)
    for ((i = 0; i < 600; i++)); do [ -z "${FAKE_PIP_GATE:-}" ] || [ -e "$FAKE_PIP_GATE" ] && break; sleep 0.05; done ;;
  "-c import sys; print(sys.version) ") echo "3.11.2 (fake)" ;;
esac
exit 0
EOF2
chmod +x "$TMP/fakepy"
export RIGTUNE_VENV_PYTHON=$TMP/fakepy FAKE_LOG=$TMP/log XDG_CACHE_HOME=$TMP/cache
unset RIGTUNE_VENV RIGTUNE_ZIG_VENV
log() { cat "$TMP/log" 2>/dev/null; }

expect_exit 0 "zig.sh --path" "$S/zig.sh" --path
expect_grep "^$TMP/cache/rigtune/zig-[0-9.]+$" "$TMP/out" "  names its folder in the cache"
zig=$(cat "$TMP/out")
expect_exit 0 "zig.sh on a fresh machine" "$S/zig.sh"
expect_grep "^rigtune: making Zig's environment $zig " "$TMP/err" "  makes its environment, and says so"
expect_grep "^-m venv $zig$" "$TMP/log" "  a venv of the base interpreter"
expect_grep "^-m pip install --quiet --disable-pip-version-check --no-input ziglang==[0-9.]+$" \
  "$TMP/log" "  with the pinned ziglang"
expect_grep "^-m ziglang version$" "$TMP/log" "  which runs"
[ -f "$zig/.complete" ] && ok "  marked complete" || not_ok "  marked complete" "$(ls -a "$zig")"
rm "$TMP/log"
expect_exit 0 "zig.sh again" "$S/zig.sh"
[ -z "$(log)" ] && ok "  reuses it: nothing runs" || not_ok "  reuses it" "$(log)"
rm "$zig/.complete"
expect_exit 0 "zig.sh where it was left unfinished" "$S/zig.sh"
expect_grep "ziglang==" "$TMP/log" "  makes it again"
expect_exit 2 "zig.sh with another argument" "$S/zig.sh" --bogus
expect_grep "^usage: scripts/zig.sh \[--path \| --background \| --wait\]$" "$TMP/err" "  is usage"
expect_exit 2 "zig.sh with two arguments" "$S/zig.sh" --path --wait

expect_exit 0 "venv.sh --path" "$S/venv.sh" --path
expect_grep "^$TMP/cache/rigtune/venv-[0-9a-f]{12}$" "$TMP/out" \
  "  names its folder by the hash of the pins and the interpreter"
venv=$(cat "$TMP/out")
rm -f "$TMP/log"
expect_exit 1 "venv.sh whose install fails" env FAKE_PIP_FAIL=1 "$S/venv.sh"
[ -d "$venv" ] && [ ! -f "$venv/.complete" ] && ok "  leaves it unfinished" ||
  not_ok "  leaves it unfinished" "$(ls -a "$venv" 2>&1)"
rm "$TMP/log"
expect_exit 0 "venv.sh after it" "$S/venv.sh"
expect_grep "^rigtune: making the test environment $venv " "$TMP/err" "  makes it again"
expect_grep "^-m pip install --quiet --disable-pip-version-check --no-input --no-deps -r tests/requirements.txt$" \
  "$TMP/log" "  with the pins, --no-deps"
expect_grep "^-m pip check" "$TMP/log" "  checks that the pins are whole"
expect_grep "^-c import torch, jax" "$TMP/log" "  and that the frameworks import"
expect_grep "^rigtune: test environment ready: $venv$" "$TMP/err" "  and says it is ready"
[ -f "$venv/.complete" ] && ok "  marked complete" || not_ok "  marked complete" "$(ls -a "$venv")"
rm "$TMP/log"
expect_exit 0 "venv.sh again" "$S/venv.sh"
! grep -q -e "-m venv" -e "-m pip" "$TMP/log" && ok "  reuses it: no venv, no pip" ||
  not_ok "  reuses it" "$(log)"
expect_exit 2 "venv.sh with another argument" "$S/venv.sh" --bogus
expect_grep "^usage: scripts/venv.sh \[--path \| --background \| --wait\]$" "$TMP/err" "  is usage"

# ---- make test's set-up: made in the background while make builds ----
rm -rf "$venv" "$TMP/log"
expect_exit 1 "venv.sh --wait with nothing made or in the making" "$S/venv.sh" --wait
[ ! -e "$venv" ] && ok "  starts nothing" || not_ok "  starts nothing" "$(ls -a "$venv")"
export FAKE_PIP_GATE=$TMP/gate
expect_exit 0 "venv.sh --background on a fresh machine returns at once" "$S/venv.sh" --background
expect_grep "^rigtune: making $venv in the background while the build runs \(its output: $venv.log\)$" \
  "$TMP/err" "  and says where its output goes"
# --wait at once: --background took the making's lock before it returned
"$S/venv.sh" --wait >"$TMP/wait.out" 2>"$TMP/wait.err" &
waiter=$!
# the making's pip is held at the gate: nothing is complete until the test opens it
for ((i = 0; i < 200; i++)); do grep -q "^-m pip install" "$TMP/log" 2>/dev/null && break; sleep 0.05; done
grep -q "^-m pip install" "$TMP/log" && [ ! -f "$venv/.complete" ] &&
  ok "  its pip runs, and the environment is not complete yet" ||
  not_ok "  its pip runs in the background" "$(log)" "$(ls -a "$venv")" "$(cat "$venv.log")"
kill -0 "$waiter" 2>/dev/null && ok "  --wait, run as --background returned, waits while it is in the making" ||
  not_ok "  --wait waits while it is in the making" "it returned: $(cat "$TMP/wait.out" "$TMP/wait.err")"
expect_exit 0 "a second --background meanwhile" "$S/venv.sh" --background
[ ! -s "$TMP/err" ] && ok "  leaves it to the making in progress, and says nothing" ||
  not_ok "  leaves it to the making in progress" "$(cat "$TMP/err")"
touch "$FAKE_PIP_GATE"
wait "$waiter"
rc=$?
[ "$rc" = 0 ] && [ -f "$venv/.complete" ] && ok "  and returns 0 once it is complete" ||
  not_ok "  --wait returns 0 once it is complete" "exit $rc; $(ls -a "$venv")"
expect_grep "^rigtune: waiting for $venv, in the making \(its output: $venv.log\)$" "$TMP/wait.err" \
  "  and says so"
expect_grep "^rigtune: test environment ready: $venv$" "$venv.log" "  the making's output is in its log"
[ "$(grep -c -e "^-m venv" "$TMP/log")" = 1 ] && ok "  made once, for the two --background" ||
  not_ok "  made once" "$(log)"
rm "$TMP/log"
expect_exit 0 "venv.sh --background where it is made" "$S/venv.sh" --background
[ ! -s "$TMP/err" ] && ! grep -q -e "-m venv" -e "-m pip" "$TMP/log" && ok "  starts nothing and says nothing" ||
  not_ok "  starts nothing" "$(cat "$TMP/err")" "$(log)"
unset FAKE_PIP_GATE
rm "$venv/.complete"
FAKE_PIP_FAIL=1 "$S/venv.sh" >/dev/null 2>&1
expect_exit 1 "venv.sh --wait where the making failed" "$S/venv.sh" --wait
echo "1..$n"
