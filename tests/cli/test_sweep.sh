#!/usr/bin/env bash
# rigtune sweep with the real engines: the Optuna script run by Debian's
# python3-optuna on SQLite (3 trials) and by two workers at once on a
# PostgreSQL server this script starts (Unix socket in a private directory,
# stopped on exit whatever happens); the W&B YAML against W&B's documented
# schema; the Hydra file read by omegaconf; JSON Lines; batch values never
# past what fits; exit 2 with FILE:LINE:COLUMN for bad input.
# tier: integration (Optuna, PostgreSQL, omegaconf)
# beside: others (engines' trials and files; no figure)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
PY=/usr/bin/python3
sweep_fixture $PY
CHECK="$PY $HERE/sweep_check.py"

# ---- bad input: exit 2, naming the file, line and column ----
expect_exit 2 "a missing --from file is exit 2" $R sweep --from nope.yaml --workload transformer --format grid
expect_grep "nope.yaml" "$TMP/err" "the message names the missing file"
expect_exit 2 "a configuration without the workload is exit 2" \
  $R sweep --from cfg.yaml --workload nosuch --format grid
expect_grep "no recommendation for workload 'nosuch' \(it has: transformer, ppo, gemm\)" "$TMP/err" \
  "the message lists the workloads it has"
expect_exit 2 "an entry without a recommendation is exit 2" \
  $R sweep --from cfg.yaml --workload gemm --format grid
expect_exit 2 "an unknown format is exit 2" $R sweep $S --format csv
expect_exit 2 "a journal is not a configuration" $R sweep --from journal.yaml --workload transformer --format grid
sed 's/^  memory_gib:/  cpu: {cores: many}\n  memory_gib:/' cfg.yaml >manycores.yaml
expect_exit 2 "a machine: that cannot be read is exit 2 where the plan needs its memory" \
  $R sweep --from manycores.yaml --workload ppo --format grid
expect_grep "manycores.yaml:[0-9]+:16: machine: cores: expected a whole number" "$TMP/err" \
  "  naming the field at its place"
bad_params() { # description, expected FILE:LINE:COL message, yaml
  printf '%b' "$3" >bad.yaml
  expect_exit 2 "--params $1 is exit 2" $R sweep --from cfg.yaml --workload transformer --format grid --params bad.yaml
  expect_grep "^rigtune: sweep: bad.yaml:$2" "$TMP/err" "  with bad.yaml:$2"
}
bad_params "with an unknown scale" "2:35: lr: scale: expected linear or log, got 'ln'" \
  "wd: {low: 0, high: 1}\nlr: {low: 1.0e-5, high: 1, scale: ln}\n"
bad_params "with low > high" "1:11: wd: low \(0.5\) must be below high \(0.1\)" "wd: {low: 0.5, high: 0.1}\n"
bad_params "with empty values" "1:15: opt: values: empty" "opt: {values: []}\n"
bad_params "with an unknown key" "1:23: wd: unknown key 'step'" "wd: {low: 0, high: 1, step: 0.1}\n"
bad_params "with malformed YAML" "2:1: malformed YAML" "wd: {low: 0, high: 1\n"
bad_params "naming a fixed knob" "1:1: threads: set by the sweep itself" "threads: {values: [1, 2]}\n"
bad_params "with log and low <= 0" "1:11: lr: scale log needs low > 0" "lr: {low: 0, high: 1, scale: log}\n"
bad_params "with a fractional int bound" "1:21: n: low: expected a whole number" "n: {type: int, low: 1.5, high: 4}\n"
expect_exit 2 "a missing --params file is exit 2" $R sweep $S --format grid --params none.yaml
expect_grep "none.yaml" "$TMP/err" "the message names it"
expect_exit 2 "an unknown {placeholder} in --cmd is exit 2" \
  $R sweep $S --format optuna --cmd "$PY x.py --lr {learning_rate}" --objective "$OBJ"
expect_grep "\{learning_rate\} names no parameter" "$TMP/err" "  naming it"
expect_exit 2 "an objective with two groups is exit 2" $R sweep $S --format optuna --cmd "$CMD" --objective '(a)(b)'
expect_exit 2 "wandb without --metric or a named --objective is exit 2" $R sweep $S --format wandb --cmd "$CMD"
expect_exit 0 "sweep --help" $R sweep --help
listed=$(sed -n '/^Formats:$/,/^$/p' "$TMP/out" | awk '/^  [a-z]/ { print $1 }' | tr '\n' ' ')
[ "$listed" = "optuna ray wandb hydra grid " ] && ok "--help lists the formats from their table: $listed" ||
  not_ok "--help lists the formats" "got '$listed'"
expect_grep "^  ppo +sweeps num_envs from the knee" "$TMP/out" "--help lists the workloads with a knee, from the registry"

# ---- every format: batch never past what fits (256 ran out of memory) ----
expect_exit 0 "the Optuna script is written" $R sweep $S --format optuna --cmd "$CMD" --objective "$OBJ" -o sweep.py
expect_grep "^BATCH = \[32, 64, 128\]$" sweep.py "its batch values run from the knee to 128, below the memory failure at 256"
expect_grep "ran out of memory" "$TMP/err" "stderr says why the batch stops there"
expect_grep "64 +308 samples/s +interpolated" "$TMP/err" "stderr shows batch 64 interpolated between 32 and 128"
expect_grep "about [0-9]" "$TMP/err" "and the time of the whole sweep"
expect_grep "^SECONDS = \{32: 106.7, 64: 207.8, 128: 405.1\}$" sweep.py \
  "seconds per trial = 1000 steps x batch / throughput (300, 308, 316 samples/s)"
line=$(grep -n '^import optuna' sweep.py | cut -d: -f1)
envl=$(grep -n '^os.environ.update(ENV)' sweep.py | cut -d: -f1)
[ -n "$line" ] && [ -n "$envl" ] && [ "$envl" -lt "$line" ] && ok "the environment is set before optuna is imported" ||
  not_ok "the environment before the imports" "environ at line $envl, import optuna at $line"

# ---- Optuna: 3 trials on SQLite, run by Debian's python3-optuna ----
export SWEEP_TEST_PUS
SWEEP_TEST_PUS=$(sed -n 's/^PUS = \[\(.*\)\]$/\1/p' sweep.py | tr -d ' ')
[ -n "$SWEEP_TEST_PUS" ] && ok "the script binds to the PUs of the pin policy ($SWEEP_TEST_PUS)" ||
  not_ok "a CPU list for this host" "$(grep '^PUS' sweep.py)"
if $PY sweep.py --n-trials 3 --storage "sqlite:///$TMP/s.db" >opt.log 2>&1; then
  ok "3 trials of the study on SQLite"; else not_ok "3 trials on SQLite" "$(tail -5 opt.log)"; fi
if $CHECK study "sqlite:///$TMP/s.db" "rigtune-$(hostname)-transformer" 3 32 1 1 >chk.log 2>&1; then
  ok "the study holds 3 complete trials, the knee first, the objective's values"
else not_ok "the SQLite study" "$(cat chk.log)"; fi
# A script written without an objective takes it when it runs.
expect_exit 0 "a script without an objective is written" $R sweep $S --format optuna -o later.py
expect_exit 2 "it refuses to run without one" $PY later.py --n-trials 1 --storage memory
expect_grep "give the objective: --cmd" "$TMP/err" "  and says what to give"
expect_exit 2 "it checks a --cmd given at run time" $PY later.py --cmd "x {nosuch}" --objective "$OBJ"
expect_exit 1 "a command that is not there stops it before the study starts" \
  $PY later.py --cmd "nosuch-program {lr}" --objective "$OBJ" --storage "sqlite:///$TMP/none.db"
[ ! -e none.db ] && [ ! -e "$TMP/none.db" ] && expect_grep "cannot run nosuch-program: not found" "$TMP/err" \
  "  saying so, with no study made" || not_ok "  no study made" "$(ls)"
if $PY later.py --n-trials 1 --storage "sqlite:///$TMP/s.db" --cmd "$CMD" --objective "$OBJ" >opt2.log 2>&1 &&
  $CHECK study "sqlite:///$TMP/s.db" "rigtune-$(hostname)-transformer" 4 32 2 1 >chk.log 2>&1; then
  ok "a second run (--cmd given to the script) continues the study, the knee not enqueued again"
else not_ok "a second run on the same study" "$(tail -3 opt2.log; cat chk.log)"; fi

# ---- Optuna with --function: a Python function as the objective, in memory ----
cat >sweep_fn.py <<'PY'
import os
def objective(p):
    assert os.environ["OMP_NUM_THREADS"] == str(p["threads"]), "the environment is not set"
    assert p["batch"] in (32, 64, 128) and p["precision"] == "fp32", p
    return p["batch"] * p["lr"]
PY
expect_exit 0 "a script with --function" $R sweep $S --format optuna --function sweep_fn:objective -o fn.py
if $PY fn.py --n-trials 2 --storage memory >fn.log 2>&1; then
  expect_grep "best of 2 complete trials: objective = " fn.log \
    "its 2 trials ran the function, which saw the environment and the fixed knobs"
else not_ok "the --function study" "$(tail -5 fn.log)"; fi

# ---- Optuna: two workers at once on one PostgreSQL study ----
# Both may enqueue the knee when they start at the same instant (2 at most).
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
PG=$(mktemp -d /tmp/rt-pg-XXXXXX)
pg_as() { (cd "$PG" && if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi); }
pg_stop() { pg_as "$PGBIN/pg_ctl" -D "$PG/data" -m immediate stop >/dev/null 2>&1; rm -rf "$PG"; }
trap 'pg_stop; rm -rf "$TMP"' EXIT
if [ -z "$PGBIN" ]; then
  ok "# SKIP PostgreSQL is not installed (scripts/install-deps.sh installs it)"
else
  chmod 755 "$PG"
  [ "$(id -u)" -eq 0 ] && chown postgres "$PG"
  if pg_as "$PGBIN/initdb" -D "$PG/data" -U postgres --auth=trust --no-sync >"$PG/initdb.log" 2>&1 &&
    pg_as "$PGBIN/pg_ctl" -D "$PG/data" -w -l "$PG/server.log" \
      -o "-k $PG -c listen_addresses='' -p 5432 -c fsync=off" start >/dev/null 2>&1 &&
    pg_as "$PGBIN/createdb" -h "$PG" -p 5432 -U postgres optuna; then
    ok "a PostgreSQL server on a Unix socket in $PG"
  else
    not_ok "PostgreSQL server" "$(tail -3 "$PG/initdb.log" "$PG/server.log" 2>/dev/null)"
  fi
  URL="postgresql+psycopg2://postgres@/optuna?host=$PG&port=5432"
  $PY sweep.py --n-trials 3 --storage "$URL" --study-name shared >w1.log 2>&1 &
  w1=$!
  $PY sweep.py --n-trials 3 --storage "$URL" --study-name shared >w2.log 2>&1 &
  w2=$!
  wait $w1; r1=$?
  wait $w2; r2=$?
  [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && ok "two workers at once ran their 3 trials each" ||
    not_ok "two workers" "exit $r1 and $r2" "$(tail -3 w1.log w2.log)"
  if $CHECK study "$URL" shared 6 32 2 2 >chk.log 2>&1; then
    ok "both workers' trials are in the one study: 6 trials, 2 workers, the knee first"
  else not_ok "the shared study" "$(cat chk.log)"; fi
fi

# ---- W&B: the documented sweep schema ----
if $CHECK wandb-selftest >chk.log 2>&1; then ok "the W&B validator rejects broken configurations"
else not_ok "the W&B validator's self-test" "$(cat chk.log)"; fi
expect_exit 0 "the W&B sweep is written" $R sweep $S --format wandb --direction maximize \
  --cmd "$PY train.py --epochs 3 --lr {lr} --batch={batch}" --objective "$OBJ" -o wandb.yaml
if $CHECK wandb wandb.yaml >chk.log 2>&1; then ok "it follows W&B's documented sweep schema"
else not_ok "W&B schema" "$(cat chk.log)"; fi
expect_grep "^    values: \[32, 64, 128\]$" wandb.yaml "its batch values stop below the memory failure"
expect_grep '^  - "OMP_NUM_THREADS=2"$' wandb.yaml "its command sets the environment after \${env}"
expect_grep '^  - "--epochs"$' wandb.yaml "and keeps the command's fixed arguments"
expect_grep '^  name: "val_loss"$' wandb.yaml "the metric is named after --objective"
expect_grep '^  goal: maximize$' wandb.yaml "in the --direction given"
expect_exit 2 "a placeholder W&B cannot place is exit 2" $R sweep $S --format wandb --metric l \
  --cmd "$PY train.py --learning-rate {lr}"

# ---- Hydra: omegaconf reads it; the Optuna sweeper's keys and grammar ----
expect_exit 0 "the Hydra file is written" $R sweep $S --format hydra -o hydra.yaml
if $CHECK hydra hydra.yaml "$D/params.yaml" $FITS >chk.log 2>&1; then
  ok "omegaconf reads it: hydra/sweeper optuna, params as choice/interval/tag(log, ...)"
else not_ok "the Hydra file" "$(cat chk.log)"; fi

# ---- grid: JSON Lines ----
expect_exit 0 "the grid is written" $R sweep $S --format grid --trials 9 -o grid.jsonl
if $CHECK grid grid.jsonl 9 $FITS >chk.log 2>&1; then ok "9 JSON lines as asked, the knee first, batch <= 128"
else not_ok "the grid" "$(cat chk.log)"; fi
printf 'opt: {values: [adam, sgd]}\n' >two.yaml
expect_exit 0 "a grid of 2 x 3 finite values" $R sweep --from cfg.yaml --workload transformer --format grid --params two.yaml --trials 50 -o small.jsonl
n_lines=$(wc -l <small.jsonl)
n_distinct=$(sort -u small.jsonl | wc -l)
[ "$n_lines" -eq 6 ] && [ "$n_distinct" -eq 6 ] && ok "holds each of its 6 distinct trials once" ||
  not_ok "the small grid" "$n_lines lines, $n_distinct distinct"

echo "1..$n"
