#!/usr/bin/env bash
# rigtune fleet and the results store on the real engines: a PostgreSQL server
# and a Slurm cluster of two nodes on this machine (Debian's slurm-wlm runs
# several slurmd on one host: NodeName n1/n2 with their own ports, slurmd -N),
# munge for its authentication; every daemon is stopped on exit. The nodes
# tune and check GEMMs on the test plugin's device (tests/plugins/fake.c),
# whose GEMM library runs at a set pace (RIGTUNE_FAKE_GFLOPS: it sleeps the
# time the flops take): this shared 2-core machine's own CPU figures move 3x
# with the other work on it, a paced device's do not. n2's GEMM library is
# throttled to a quarter through Slurm's TaskProlog once a flag file exists
# (as a driver or library upgrade would slow a node). Asserts: the
# store's rows per node, the fleet check naming n2 and only n2 with what
# changed, the report's node sections and n2 as the outlier, the script's
# quoting, and a database outage during a tune (stopped mid-tune, restarted,
# store push): nothing lost, nothing doubled. Tiny budgets: gemm 128^3.
# tier: integration (Slurm and PostgreSQL)
# beside: others (the throttled node's device is paced by sleeps, 4x slower: no CPU load moves it)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_pg.sh"
R=$RIGTUNE
skip() { ok "# SKIP $1"; echo "1..$n"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "not root: the Slurm daemons and PostgreSQL's user need it"
for c in munged slurmctld slurmd sbatch scontrol psql; do
  command -v $c >/dev/null 2>&1 || skip "$c is not installed (scripts/install-deps.sh test installs slurm-wlm, munge, postgresql)"
done
[ -n "$PGBIN" ] || skip "PostgreSQL is not installed"

W=$(mktemp -d /tmp/rt-fleet-XXXXXX)
chmod 755 "$W"
cleanup() {
  # the tasks of this test's cluster first (slurmstepd outlives slurmd), then its daemons
  [ -f "$W/slurm.conf" ] && SLURM_CONF=$W/slurm.conf scancel -p rt >/dev/null 2>&1 && sleep 0.5
  # the daemons this test started: those reading its own slurm.conf, and its munged
  local pids
  pids=$(pgrep -f -- "-f $W/slurm.conf")
  [ -n "$pids" ] && kill $pids 2>/dev/null
  [ -f "$W/munge/pid" ] && kill "$(cat "$W/munge/pid")" 2>/dev/null
  pg_cleanup
  sleep 0.3
  [ -n "${KEEP:-}" ] || rm -rf "$W" "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM # through the EXIT trap

# ---- PostgreSQL on a private Unix socket ----
if pg_init "$W"; then
  ok "a PostgreSQL server on a Unix socket"
else not_ok "PostgreSQL" "$(tail -3 "$W/pg/log")"; echo "1..$n"; exit 1; fi

# ---- munge and a Slurm cluster of two nodes ----
mkdir -p "$W/munge" "$W/state" "$W/spool/n1" "$W/spool/n2" "$W/log" && chmod 700 "$W/munge"
dd if=/dev/urandom of="$W/munge/key" bs=1024 count=1 2>/dev/null && chmod 600 "$W/munge/key"
base=$((20000 + RANDOM % 20000))
cat >"$W/prolog.sh" <<EOF
#!/bin/sh
[ "\$SLURMD_NODENAME" = n2 ] && [ -f "$W/slow-n2" ] && echo "export RIGTUNE_FAKE_GFLOPS=0.5"
exit 0
EOF
chmod 755 "$W/prolog.sh"
cat >"$W/slurm.conf" <<EOF
ClusterName=rtfleet
SlurmctldHost=localhost
SlurmctldPort=$base
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/sock
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool/%n
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd-%n.pid
SlurmctldLogFile=$W/log/ctld.log
SlurmdLogFile=$W/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$W/prolog.sh
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
ReturnToService=2
MpiDefault=none
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + 1)) CPUs=1 Feature=cpu,kind1 State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + 2)) CPUs=1 Feature=cpu,kind2 State=UNKNOWN
PartitionName=rt Nodes=n1,n2 Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$W/slurm.conf
munged -f --key-file="$W/munge/key" --socket="$W/munge/sock" --log-file="$W/munge/log" \
  --pid-file="$W/munge/pid" --seed-file="$W/munge/seed" 2>/dev/null
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" -N n1 && slurmd -f "$SLURM_CONF" -N n2
for _ in $(seq 50); do [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break; sleep 0.2; done
if [ "$(sinfo -h -N -o '%N %t' 2>/dev/null | tr '\n' ' ')" = "n1 idle n2 idle " ]; then
  ok "a Slurm cluster of two nodes, n1 and n2, each with its own slurmd"
else not_ok "the Slurm cluster" "$(sinfo 2>&1)" "$(tail -n 3 "$W"/log/*)"; echo "1..$n"; exit 1; fi

cd "$W" || exit 1
# A fleet command that hangs (a task that never starts) fails here instead of
# holding the suite: each waits 150 s at most, each task 3 minutes.
fleet() { timeout 150 $R fleet "$@"; }
# The paced device at 2 GFLOP/s (n2 at 0.5 once throttled): 17 ms a 256^3 GEMM.
export RIGTUNE_BACKEND_PATH=$BUILD_DIR/tests/plugins RIGTUNE_FAKE_GFLOPS=2
# a paced device's trials keep their pace whatever else runs: none is set aside
# as contended (the jobs inherit it through sbatch; test_check.sh tests the rule)
export RIGTUNE_CONTENTION_LIMIT=1
cat >space.yaml <<EOF
workload: gemm
params:
  backend: [fake]
  precision: [fp32]
  threads: [1]
  pin: [compact]
EOF
TUNE=(--workload gemm --backend fake --space "$W/space.yaml" --shape m=256,n=256,k=256 --budget 3
      --no-crossover --quiet)

# ---- the script: every string quoted ----
expect_exit 0 "fleet tune --print shows the script" $R fleet tune --nodes 'n[1-2]' --store "$URL" --print -- \
  "${TUNE[@]}" --name "it's; rm -rf /"
cp "$TMP/out" script.sh
expect_grep "^#SBATCH --array=0-1$" script.sh "a job array of one task per node"
expect_grep "^#SBATCH --exclusive$" script.sh "each task has its node to itself"
expect_grep "'it'\\\\''s; rm -rf /'" script.sh "a string with a quote and a ; is single-quoted"
bash -n script.sh && ok "bash reads the script" || not_ok "bash -n" "$(cat script.sh)"
expect_exit 2 "a partition that cannot go into an #SBATCH line is refused" \
  $R fleet tune --partition 'rt
#SBATCH --uid=0' --store "$URL" --print
expect_exit 2 "--store is required" $R fleet tune --nodes n1
expect_exit 0 "fleet tune --nodes n1 --print" $R fleet tune --nodes n1 --store "$URL" --print
expect_grep "^#SBATCH --array=0-0$" "$TMP/out" "one task for the one node"
expect_grep "^#SBATCH --exclude=n2$" "$TMP/out" "the other node of the cluster is excluded"
expect_exit 0 "fleet tune --partition rt --constraint 'cpu&kind2' --print" \
  $R fleet tune --partition rt --constraint 'cpu&kind2' --store "$URL" --print
expect_grep "^#SBATCH --array=0-0$" "$TMP/out" "  one task: n2 alone has both features"
expect_grep "^#SBATCH --constraint=cpu&kind2$" "$TMP/out" "  and Slurm gets the constraint"
expect_exit 0 "--constraint cpu without a partition: the default one's nodes" \
  $R fleet tune --constraint cpu --store "$URL" --print
expect_grep "^#SBATCH --array=0-1$" "$TMP/out" "  two tasks"
expect_exit 2 "a constraint no node has is exit 2" $R fleet tune --constraint gpu --store "$URL" --print
expect_grep "the default partition with gpu names no node" "$TMP/err" "  naming it"

# ---- fleet tune: both nodes as they are ----
start=$(date +%s)
# --fresh: the two nodes are one machine here, and the second to take its lock would
# reuse the first one's trials from the shared results/ instead of measuring
expect_exit 0 "fleet tune of n[1-2] through sbatch" fleet tune --nodes 'n[1-2]' --store "$URL" --time 3:00 -- "${TUNE[@]}" --fresh
expect_grep "2 done, 0 running, 0 pending, 0 failed" "$TMP/err" "its progress counts both nodes done"
rows=$(sql "SELECT node || ':' || count(*) FROM rigtune_trials WHERE feasible GROUP BY node ORDER BY node" | tr '\n' ' ')
[[ $rows =~ ^n1:[1-9][0-9]*\ n2:[1-9][0-9]*\ $ ]] && ok "the store holds trials of n1 and n2 ($rows)" ||
  not_ok "trials per node" "$rows"
j1=$(sql "SELECT count(*) FROM rigtune_trials WHERE node = 'n1'")
jf=$(grep -l "node n1" results/fleet/rigtune-tune-*_*.log 2>/dev/null | head -1)
[ "$(sql "SELECT count(*) FROM rigtune_machines")" = 2 ] && ok "and both nodes' machines" ||
  not_ok "machines" "$(sql 'SELECT node, kind FROM rigtune_machines')"
[ "$(sql "SELECT version FROM rigtune_schema")" = 1 ] && ok "the schema is version 1" || not_ok "schema version"
[ -f configs/n1.yaml ] && [ -f configs/n2.yaml ] && ok "each node wrote configs/<node>.yaml" ||
  not_ok "configs" "$(ls configs)"

# ---- fleet check after n2's GEMM library is throttled ----
touch slow-n2
expect_exit 1 "fleet check: a regression (exit 1)" fleet check --nodes 'n[1-2]' --store "$URL" --time 3:00 -- \
  --budget 4 --threshold 40 --quiet
cp "$TMP/out" check.txt
expect_grep "^n2: regression: 1 of 1 points, the worst gemm backend=fake .* ([6-7][0-9]|80)% slower \(0\.([2-3][0-9]|40)x its baseline\); changed on it: .*gemm_impl fake-blas 1.0 at 2 GFLOP/s -> fake-blas 1.0 at 0.5 GFLOP/s" check.txt \
  "it names n2, by how much (a quarter of its pace; a loaded machine's launch overhead reads up to half) and what changed: its GEMM library's pace"
expect_grep "^n1: pass" check.txt "n1 passes"
expect_grep "^1 of 2 nodes regressed: n2$" check.txt "n2 and only n2 regressed"
expect_exit 1 "fleet check without nodes answers from the store" $R fleet check --store "$URL"
expect_grep "^1 of 2 nodes regressed: n2$" "$TMP/out" "  the same answer, nothing submitted"

# ---- fleet report: n2 the outlier ----
# --fresh: both nodes measured now, minutes apart at most, whatever the load did since
expect_exit 0 "fleet tune again, n2 slow" fleet tune --nodes 'n[1-2]' --store "$URL" --time 3:00 --quiet -- \
  "${TUNE[@]}" --fresh
expect_exit 0 "fleet report" $R fleet report --store "$URL" -o fleet.html
# the rows of the page, for the evidence of a failure below
sed 's/<tr/\n<tr/g' fleet.html | grep '^<tr' | sed 's/^/# /'
sql "SELECT t.node, t.fingerprint, t.started, count(*), max(t.median), min(m.blas_core) FROM rigtune_trials t
     LEFT JOIN rigtune_machines m USING (node, fingerprint) GROUP BY 1, 2, 3 ORDER BY 1, 3" | sed 's/^/# /'
n_sections=$(grep -c '<section class=kind>' fleet.html)
[ "$n_sections" = 1 ] && ok "one section: n1 and n2 are one kind" || not_ok "sections" "$n_sections"
expect_grep "<tr><td>n1</td>" fleet.html "n1 has its row"
expect_grep "<tr class=outlier><td>n2</td>" fleet.html "n2 has its row, marked an outlier"
expect_grep "Outlier: n2: gemm 7[0-9]% below its 1 peer \(0.[45][0-9]* vs. [12].[0-9]* GFLOP/s\); its accelerator is fake: fake device \(GEMM on fake-blas 1.0 at 0.5 GFLOP/s\), theirs fake: fake device \(GEMM on fake-blas 1.0 at 2 GFLOP/s\)" fleet.html \
  "the outlier line names n2, its figures and its GEMM library against theirs"
! grep -q "Outlier: n1" fleet.html && ok "n1 is no outlier" || not_ok "n1 named an outlier"
expect_grep "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';.* script-src 'none'" fleet.html \
  "the page runs no script, whatever the store holds (its Content-Security-Policy)"

# ---- the store survives an outage during a tune ----
fifo=$TMP/fifo
start_logged "$fifo" $R tune --store "$URL" --node solo --workload gemm --backend cpu --shape m=128,n=128,k=128 \
  --budget 6 --no-crossover -o solo.yaml
if wait_trials 2 "$TMP/solo.log"; then
  pg stop -m immediate
  wait_trials 2 "$TMP/solo.log"
  pg start
  drain "$TMP/solo.log"
  wait $PID; rc=$?; wait $DRAIN
  [ $rc -eq 0 ] && ok "tune goes on while the store is down" || not_ok "tune during the outage" "exit $rc" "$(tail -5 "$TMP/solo.log")"
else not_ok "the tune started" "$(cat "$TMP/solo.log")"; fi
expect_grep "store: .*trials stay in" "$TMP/solo.log" "it says the store is down and where the trials stay"
journal=$(sed -n 's/.*journal \(results\/[^)]*\)).*/\1/p' "$TMP/solo.log" | tail -1)
before=$(sql "SELECT count(*) FROM rigtune_trials WHERE node = 'solo'")
expect_exit 0 "store push of the journal" $R store push --store "$URL" --node solo "$journal"
total=$(grep -c '^fingerprint:' "$journal")
total=$((total - 1)) # the header has one too
after=$(sql "SELECT count(*) FROM rigtune_trials WHERE node = 'solo'")
added=$(sed -n 's/.*: \([0-9]*\) added.*/\1/p' "$TMP/out")
[ "$after" = "$total" ] && [ "$added" = $((total - before)) ] && [ "$before" -lt "$total" ] &&
  ok "after the push the store has each of the journal's $total trials ($before live, $added pushed)" ||
  not_ok "trials after the push" "journal $total, store before $before after $after, added $added"
expect_exit 0 "a second push" $R store push --store "$URL" --node solo "$journal"
expect_grep ": 0 added, $total already in the store" "$TMP/out" "adds nothing: no trial counted twice"
dups=$(sql "SELECT count(*) FROM (SELECT median, point FROM rigtune_trials WHERE node = 'solo' GROUP BY 1, 2 HAVING count(*) > 1) d")
[ "$dups" = 0 ] && ok "no trial twice in the store" || not_ok "duplicates" "$dups"
check=$(ls results/n2-check-*.yaml | head -1)
expect_exit 0 "store push of a check result already there" $R store push --store "$URL" --node n2 "$check"
expect_grep ": 0 added, 1 already in the store" "$TMP/out" "adds nothing either"
expect_exit 2 "store push of a file that is neither" $R store push --store "$URL" fleet.html
# what a file says is checked before it is filed (issue 32): a start time to come would rank
# its trials above every later one of the node for good; another host's trials, another node's
sed 's/^started: .*/started: 9999-12-31T00:00:00Z/' "$journal" >future.yaml
expect_exit 2 "store push of a journal started in 9999 is exit 2" \
  $R store push --store "$URL" --node solo future.yaml
expect_grep "future.yaml: started: 9999-12-31T00:00:00Z is in the future" "$TMP/err" "  saying why"
sed "s/^started: .*/started: $(date -u -d '+1 day' +%Y-%m-%dT%H:%M:%SZ)/" "$journal" >tomorrow.yaml
expect_exit 2 "one started tomorrow too (past a clock's skew)" \
  $R store push --store "$URL" --node solo tomorrow.yaml
sed 's/^host: .*/host: gpu07/' "$journal" >gpu07.yaml
expect_exit 2 "a journal of host gpu07 filed under node solo is exit 2" \
  $R store push --store "$URL" --node solo gpu07.yaml
expect_grep "gpu07.yaml: measured on host gpu07, which is neither the node it would be filed under \(solo\)" \
  "$TMP/err" "  saying why"
[ "$(sql "SELECT count(*) FROM rigtune_trials WHERE node = 'solo'")" = "$total" ] &&
  [ "$(sql "SELECT count(*) FROM rigtune_trials WHERE started > now() + interval '10 minutes'")" = 0 ] &&
  ok "  none of their trials is in the store" || not_ok "  none of their trials is in the store" \
  "$(sql "SELECT node, host, started FROM rigtune_trials WHERE node = 'solo' OR started > now() GROUP BY 1, 2, 3")"
sed "s/^started: .*/started: $(date -u -d '+2 minutes' +%Y-%m-%dT%H:%M:%SZ)/" "$journal" >skew.yaml
expect_exit 0 "two minutes ahead is a clock's skew: filed (this machine's, as node skewed)" \
  $R store push --store "$URL" --node skewed skew.yaml
expect_exit 0 "under its own node it is filed" $R store push --store "$URL" --node gpu07 gpu07.yaml
[ "$(sql "SELECT count(*) FROM rigtune_trials WHERE node = 'gpu07' AND host = 'gpu07'")" = "$total" ] &&
  ok "  every trial, as gpu07's" || not_ok "  every trial, as gpu07's" "$(sql "SELECT count(*) FROM rigtune_trials WHERE node = 'gpu07'")"
sed 's/^generated: .*/generated: 9999-12-31T00:00:00Z/' "$check" >future-check.yaml
expect_exit 2 "a check result generated in 9999 is exit 2" \
  $R store push --store "$URL" --node n2 future-check.yaml
expect_grep "generated: 9999-12-31T00:00:00Z is in the future" "$TMP/err" "  saying why"
# a password is never on a command line, which anyone can read in ps (issue 32): libpq reads
# it from PGPASSWORD or the file PGPASSFILE names
expect_exit 2 "--store URL with a password is exit 2" \
  $R store push --store "postgresql://postgres:hunter2@/rt?host=$W/pg" --node solo "$journal"
expect_grep "holds a password.*PGPASSFILE" "$TMP/err" "  saying where it goes"
grep -q hunter2 "$TMP/err" && not_ok "  without showing it" "$(cat "$TMP/err")" || ok "  without showing it"
expect_exit 2 "tune refuses it too" $R tune --store "postgresql://postgres:hunter2@/rt?host=$W/pg" -o keep.yaml
sql "CREATE ROLE pw LOGIN SUPERUSER PASSWORD 'hunter2'" >/dev/null
sed -i "1i local all pw scram-sha-256" "$W/pg/data/pg_hba.conf" && pg reload
PWURL="postgresql://pw@/rt?host=$W/pg"
expect_exit 3 "a store that asks for a password, given none, is exit 3" \
  env -u PGPASSWORD PGPASSFILE=/nonexistent $R store push --store "$PWURL" --node solo "$journal"
expect_grep "password" "$TMP/err" "  libpq says a password is wanted"
expect_exit 0 "PGPASSWORD gives it" \
  env PGPASSWORD=hunter2 $R store push --store "$PWURL" --node solo "$journal"
printf '*:*:rt:pw:hunter2\n' >"$TMP/pgpass" && chmod 600 "$TMP/pgpass"
expect_exit 0 "PGPASSFILE gives it" \
  env -u PGPASSWORD PGPASSFILE="$TMP/pgpass" $R store push --store "$PWURL" --node solo "$journal"
expect_grep ": 0 added, $total already in the store" "$TMP/out" "  the same store"
expect_exit 3 "store push to a store that is not there is exit 3" \
  $R store push --store "postgresql://postgres@/rt?host=$W/nowhere" "$journal"
expect_grep "cannot reach the store" "$TMP/err" "  and says so"
cd "$W" || exit 1
# ---- a signal to fleet cancels its job: what it started ends with it (issue 32); last, as
# its task leaves a partial configs/n1.yaml behind
fifo=$TMP/cancel.fifo
start_logged "$fifo" $R fleet tune --nodes n1 --store "$URL" --time 3:00 -- "${TUNE[@]}" --fresh --budget 300
running=
while IFS= read -r line <&3; do
  printf '%s\n' "$line" >>"$TMP/cancel.log"
  case $line in *" 1 running, "*) running=1; break ;; esac
done
jobid=$(sed -n 's/^rigtune: fleet: job \([0-9]*\),.*/\1/p' "$TMP/cancel.log")
kill -TERM "$PID"
drain "$TMP/cancel.log"
wait "$PID"; rc=$?; wait "$DRAIN"
[ -n "$running" ] && [ "$rc" -eq 3 ] && ok "SIGTERM to fleet tune while its task runs: exit 3" ||
  not_ok "SIGTERM to fleet tune while its task runs: exit 3" "exit $rc" "$(tail -5 "$TMP/cancel.log")"
expect_grep "stopped by Terminated: job $jobid cancelled \(scancel\)" "$TMP/cancel.log" "  saying so"
state=
for _ in $(seq 300); do # the task's rigtune stops its trial and writes what it found
  state=$(scontrol -o show job "$jobid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')
  [ "$state" = CANCELLED ] && ! pgrep -f -- "--node n1 .*--budget 300" >/dev/null && break
  sleep 0.2
done
[ "$state" = CANCELLED ] && ok "  the job is cancelled" || not_ok "  the job is cancelled" "JobState=$state"
pgrep -f -- "--node n1 .*--budget 300" >/dev/null && not_ok "  and its task's rigtune has ended" \
  "$(pgrep -af -- "--node n1 .*--budget 300")" || ok "  and its task's rigtune has ended"

echo "# the fleet test took $(($(date +%s) - start)) s"
echo "1..$n"
