#!/usr/bin/env bash
# The check suite's premises on a CPU whose OpenBLAS does not know it: the whole
# script runs under OPENBLAS_CORETYPE=Prescott, as Debian's 0.3.21 runs on a
# Xeon it does not know (issue 46), so a machine whose OpenBLAS knows its CPU
# (the AMD ones the tests were written on) meets that case too. The premise
# "older GEMM kernels" (lib.sh's older_kernels_premise, what test_check.sh uses)
# must still be made, and its check must still find the regression.
# tier: slow (six short tunes and a check with real budgets, about 50 s)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
cd "$TMP" || exit 1
export RIGTUNE_CONTENTION_LIMIT=1   # as test_check.sh: a shared host's busy trials are kept
export OPENBLAS_CORETYPE=Prescott
export RIGTUNE_CACHE_DIR=$TMP/cache # the kernel sets' figures: this script's own (blas_cores.h)

detected=$($R probe 2>/dev/null | sed -n 's/^    core: //p')
[ "$detected" = Prescott ] && ok "the premise of this script: OpenBLAS runs Prescott's kernels" ||
  not_ok "the premise of this script: OpenBLAS runs Prescott's kernels" "probe: core '$detected'"

if ! older_kernels_premise; then
  skip_one "older kernels are made though OpenBLAS detected Prescott" "$NO_OLDER_KERNELS"
  echo "1..$n"; exit 0
fi
[ "$OPENBLAS_CORETYPE" != "$OLDER_CORE" ] &&
  ok "older kernels are made though OpenBLAS detected Prescott: $OPENBLAS_CORETYPE, older $OLDER_CORE" ||
  not_ok "older kernels are made though OpenBLAS detected Prescott" "both $OLDER_CORE"
now=$($R probe 2>/dev/null | sed -n 's/^    core: //p')
[ "$now" = "$CPU_CORE" ] && ok "the baseline's OpenBLAS runs the CPU's kernels ($now, for $CPU_ISA)" ||
  not_ok "the baseline's OpenBLAS runs the CPU's kernels" "probe: core '$now', wanted $CPU_CORE"

printf 'workload: gemm\nparams:\n  backend: [cpu]\n  precision: [fp32]\n  threads: [1]\n  pin: [compact]\n' >space.yaml
# A BLAS that does not know its CPU is tuned (blas_cores.h): with OpenBLAS
# on Prescott's kernels (this script's premise) and a CPU with wider ones,
# tune measures the kernel sets the flags allow and recommends one in the
# configuration's env, with the measured ratio. The figures are not
# asserted (no timing is): the fields, and that the chosen set is one the
# CPU's flags allow (when one was faster by 5%).
allowed=$(case $CPU_ISA in
  avx512_bf16) echo "Sandybridge Haswell SkylakeX Cooperlake" ;; avx512) echo "Sandybridge Haswell SkylakeX" ;;
  avx2) echo "Sandybridge Haswell" ;; avx) echo Sandybridge ;; esac)
# (in a folder of its own: its journal's Prescott trials must not become the
# baseline's below, which a tune in the same results/ would reuse)
mkdir kern && cd kern || exit 1
OPENBLAS_CORETYPE=Prescott $R tune --workload gemm --space ../space.yaml --backend cpu --no-crossover \
  --budget 4 --quiet -o ../kernels.yaml >"$TMP/out" 2>"$TMP/err"
rc=$?
cd "$TMP" || exit 1
[ "$rc" -eq 0 ] && ok "tune on Prescott's kernels (exit 0)" || not_ok "tune on Prescott's kernels" "exit $rc: $(tail -3 "$TMP/err")"
expect_grep "^    blas_kernels:$" kernels.yaml "  the configuration gives the kernel sets measured"
expect_grep "^      runs: Prescott$" kernels.yaml "  the ones OpenBLAS ran"
expect_grep "^      ratio: [0-9.]+$" kernels.yaml "  and the ratio measured"
expect_grep "^      gflops: \{Prescott: [0-9.]+, " kernels.yaml "  with each set's figure"
chosen=$(sed -n 's/^      chosen: \([A-Za-z]*\)$/\1/p' kernels.yaml)
if [ -n "$chosen" ] && [ "$chosen" != null ]; then
  [[ " $allowed " == *" $chosen "* ]] && ok "  the chosen kernels ($chosen) are ones the CPU's flags allow ($CPU_ISA)" ||
    not_ok "  the chosen kernels are ones the CPU's flags allow" "$chosen, allowed: $allowed"
  expect_grep "^      OPENBLAS_CORETYPE: $chosen$" kernels.yaml "  and the env sets OPENBLAS_CORETYPE=$chosen"
  env -u OPENBLAS_CORETYPE $R env --config kernels.yaml >"$TMP/out" 2>"$TMP/err"
  expect_grep "^export OPENBLAS_CORETYPE='?$chosen'?$" "$TMP/out" "  rigtune env exports it"
  env -u OPENBLAS_CORETYPE $R exec --config kernels.yaml -- sh -c 'echo "coretype=$OPENBLAS_CORETYPE"' >"$TMP/out" 2>"$TMP/err"
  expect_grep "^coretype=$chosen$" "$TMP/out" "  rigtune exec gives it to the command"
else
  skip_one "the chosen kernels are ones the CPU's flags allow" \
    "no wider kernel set ran 5% faster than Prescott's here ($(grep -m1 "kernel sets" "$TMP/err"))"
fi

# The figures are kept for the next tune (blas_cores.h): a second tune on
# the same machine and library reuses them, says when they were measured,
# and gives the same figures; a kept file whose values are not ones a tune
# writes, or whose library is another, is measured again and written over.
kept=$(ls cache/blas-kernels-*.yaml 2>/dev/null | head -1)
[ -n "$kept" ] && ok "the kernel sets' figures are kept in the cache directory ($(basename "$kept"))" ||
  not_ok "the kernel sets' figures are kept in the cache directory" "$(ls -la cache 2>&1)"
kernel_tune() { # DIR OUT: a 4 s tune in DIR/ (a journal of its own), its progress in $TMP/err
  mkdir -p "$1" && (cd "$1" && OPENBLAS_CORETYPE=Prescott $R tune --workload gemm --space ../space.yaml --backend cpu \
    --no-crossover --budget 4 -o "../$2" >"$TMP/out" 2>"$TMP/err")
}
gflops_of() { sed -n 's/^      gflops: //p' "$1"; }
kernel_tune kern2 kernels2.yaml
rc=$?
[ "$rc" -eq 0 ] && ok "a second tune (exit 0)" || not_ok "a second tune" "exit $rc: $(tail -3 "$TMP/err")"
expect_grep "kernel sets, 1-thread SGEMM GFLOP/s \(measured [0-9T:-]+Z, kept in $TMP/cache/blas-kernels-" \
  "$TMP/err" "  reuses the kept figures and says when they were measured"
[ -n "$(gflops_of kernels.yaml)" ] && [ "$(gflops_of kernels2.yaml)" = "$(gflops_of kernels.yaml)" ] &&
  ok "  with the first tune's figures" ||
  not_ok "  with the first tune's figures" "$(gflops_of kernels.yaml) / $(gflops_of kernels2.yaml)"
expect_grep "^      measured: [0-9T:-]+Z$" kernels2.yaml "  and its configuration says when they were measured"
sed -i 's/^\(gflops: {[A-Za-z]*: \)[0-9.e+]*/\11e9/' "$kept"
kernel_tune kern3 kernels3.yaml
expect_grep "kernel sets, 1-thread SGEMM GFLOP/s: Prescott" "$TMP/err" \
  "a kept figure no tune writes (1e9 GFLOP/s): measured again"
grep -q '1e9\|1000000000' "$kept" && not_ok "  and written over" "$(cat "$kept")" || ok "  and written over"
grep -q '^      measured:' kernels3.yaml && not_ok "  its configuration has no measured: (measured now)" ||
  ok "  its configuration has no measured: (measured now)"
sed -i 's/^bytes: .*/bytes: 12/' "$kept"
kernel_tune kern4 kernels4.yaml
expect_grep "kernel sets, 1-thread SGEMM GFLOP/s: Prescott" "$TMP/err" \
  "kept figures of another library file (its size): measured again"
RIGTUNE_CACHE_DIR=/proc/rigtune-cache kernel_tune kern5 kernels5.yaml
rc=$?
[ "$rc" -eq 0 ] && ok "a cache directory that cannot be made: the tune goes on (exit 0)" ||
  not_ok "a cache directory that cannot be made: the tune goes on" "exit $rc: $(tail -3 "$TMP/err")"
expect_grep "figures are not kept for the next tune: cannot create directory /proc/rigtune-cache" \
  "$TMP/err" "  and says why the figures are not kept"

# test_check.sh's "older GEMM kernels: a regression", on this premise
expect_exit 0 "a short gemm tune makes the baseline" \
  $R tune --workload gemm --space space.yaml --backend cpu --no-crossover --budget 4 --quiet -o base.yaml
OPENBLAS_CORETYPE=$OLDER_CORE $R check --baseline base.yaml --budget 15 -o slow.yaml >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] && ok "older GEMM kernels: a regression (exit 1)" \
  || not_ok "older GEMM kernels: a regression (exit 1)" "exit $rc: $(tail -5 "$TMP/err")"
expect_grep "^suggestion: OpenBLAS kernel core changed \(blas\.core\) $CPU_CORE -> $OLDER_CORE" "$TMP/err" \
  "the machine diff explains it"
grep -q '^suggestion: .*(accelerators\[cpu' "$TMP/err" &&
  not_ok "  and suggests nothing from the CPU backend's driver (it restates blas.core)" "$(grep '^suggestion' "$TMP/err")" ||
  ok "  and suggests nothing from the CPU backend's driver (it restates blas.core)"
echo "1..$n"
