# Sourced by the CLI tests: TAP helpers around $RIGTUNE.
# Each check prints "ok N - what" or "not ok N - what" with the evidence.
n=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }

# expect_exit CODE DESC CMD...: runs CMD, output in $TMP/out and $TMP/err.
expect_exit() {
  local want=$1 desc=$2; shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -eq "$want" ]; then ok "$desc"; else
    not_ok "$desc" "exit $rc, wanted $want" "stderr: $(head -c 400 "$TMP/err")"; fi
}
# expect_grep PATTERN FILE DESC
expect_grep() {
  if grep -qE -- "$1" "$2"; then ok "$3"; else not_ok "$3" "no /$1/ in: $(head -c 400 "$2")"; fi
}

# Event-driven waiting on a background rigtune (no sleeps that guess): start_logged
# FIFO CMD... runs CMD with its stderr into the named pipe FIFO and reads it on fd 3
# (PID is CMD's); wait_trials N FILE copies progress lines to FILE until N lines
# "rigtune: trial ..." have arrived (or CMD ended); drain FILE copies the rest in the
# background so that CMD never blocks on a full pipe.
start_logged() {
  local fifo=$1; shift
  rm -f "$fifo"; mkfifo "$fifo"
  "$@" 2>"$fifo" &
  PID=$!
  exec 3<"$fifo"
}
wait_trials() {
  local want=$1 file=$2 seen=0 line
  while [ "$seen" -lt "$want" ] && IFS= read -r line <&3; do
    printf '%s\n' "$line" >>"$file"
    case $line in "rigtune: trial "*) seen=$((seen + 1)) ;; esac
  done
  [ "$seen" -ge "$want" ]
}
drain() { cat <&3 >>"$1" & DRAIN=$!; exec 3<&-; }

# need_test_python: PY is the interpreter of the test environment of PyPI's frameworks
# ($RIGTUNE_TEST_PYTHON, which tests/run.sh sets), or the script fails here (a test that
# needs it does not skip: `make test` makes the environment).
need_test_python() {
  PY=${RIGTUNE_TEST_PYTHON:-}
  if [ -n "$PY" ] && [ -x "$PY" ]; then return 0; fi
  not_ok "the test environment's Python" "RIGTUNE_TEST_PYTHON is '$PY', not an interpreter:" \
    "tests/run.sh sets it (scripts/venv.sh makes the environment); to run this script alone:" \
    "RIGTUNE_TEST_PYTHON=\$(scripts/venv.sh --path)/bin/python bash $0"
  echo "1..$n"
  exit 1
}

# sweep_fixture PYTHON: the sweep tests' set-up, in $TMP (where it cds): cfg.yaml, the
# fixture configuration with this host's name (so that the sweep computes the CPU binding
# here), and its journal. Sets HERE (tests/), D (tests/data/sweep), FITS (the batch values
# that fit: transformer knee 32; 64 interpolated; 128 ran; 256 out of memory), S (the
# sweep's --from, --workload, --params), OBJ and CMD (tests/sweep_objective.py run by PYTHON
# as the trial's command, with its --objective).
sweep_fixture() {
  HERE=$(cd "$(dirname "$0")/.." && pwd)
  D=$HERE/data/sweep
  FITS=32,64,128
  cd "$TMP" || exit 1
  sed "s/hostname: fixture-host/hostname: $(hostname)/" "$D/config.yaml" >cfg.yaml
  cp "$D/journal.yaml" .
  S="--from cfg.yaml --workload transformer --params $D/params.yaml"
  OBJ='val_loss ([0-9.eE+-]+)'
  CMD="$1 $HERE/sweep_objective.py --lr {lr} --batch {batch} --layers {layers} --optimizer {optimizer} --threads {threads}"
}

# cpu_kernels: sets CPU_ISA (the CPU's widest vector instructions as blas_kernels.h
# names them: avx512_bf16, avx512, avx2, avx; empty for none) and CPU_CORE (the OpenBLAS
# kernel set made for them), from the flags of /proc/cpuinfo: what the CPU can run,
# not what OpenBLAS detected (Debian's 0.3.21 runs Prescott's SSE kernels on CPUs it
# does not know).
cpu_kernels() {
  local flags
  flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
  case $flags in
    *" avx512_bf16 "*) CPU_ISA=avx512_bf16 CPU_CORE=Cooperlake ;;
    *" avx512f "*) CPU_ISA=avx512 CPU_CORE=SkylakeX ;;
    *" avx2 "*) CPU_ISA=avx2 CPU_CORE=Haswell ;;
    *" avx "*) CPU_ISA=avx CPU_CORE=Sandybridge ;;
    *) CPU_ISA= CPU_CORE= ;;
  esac
}

# older_kernels_premise: makes the premise "the same OpenBLAS with older kernels" rather
# than finding it on the machine. On success, exports OPENBLAS_CORETYPE=$CPU_CORE (the
# kernels the CPU's flags allow, whatever OpenBLAS detected) and sets OLDER_CORE=Prescott,
# both checked with probe to be what OpenBLAS then runs, and to differ. Else returns 1
# with NO_OLDER_KERNELS saying why (for a SKIP).
older_kernels_premise() {
  local wide older
  cpu_kernels
  OLDER_CORE=Prescott
  if [ -z "$CPU_CORE" ]; then
    NO_OLDER_KERNELS="the CPU has no AVX: OpenBLAS has no kernels wider than Prescott's for it"
    return 1
  fi
  wide=$(OPENBLAS_CORETYPE=$CPU_CORE $RIGTUNE probe 2>/dev/null | sed -n 's/^    core: //p')
  older=$(OPENBLAS_CORETYPE=$OLDER_CORE $RIGTUNE probe 2>/dev/null | sed -n 's/^    core: //p')
  if [ "$wide" != "$CPU_CORE" ] || [ "$older" != "$OLDER_CORE" ]; then
    NO_OLDER_KERNELS="this OpenBLAS does not run the kernels OPENBLAS_CORETYPE names ($CPU_CORE: '$wide', $OLDER_CORE: '$older')"
    return 1
  fi
  export OPENBLAS_CORETYPE=$CPU_CORE
}

# skip_one DESC WHY: a TAP skip of one check
skip_one() { n=$((n + 1)); echo "ok $n # SKIP $1: $2"; }
