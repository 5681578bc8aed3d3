#!/usr/bin/env bash
# The check suite's premises on a CPU whose OpenBLAS does not know it: the whole
# script runs under OPENBLAS_CORETYPE=Prescott, as Debian's 0.3.21 runs on a
# Xeon it does not know (issue 46), so a machine whose OpenBLAS knows its CPU
# (the AMD ones the tests were written on) meets that case too. The premise
# "older GEMM kernels" (lib.sh's older_kernels_premise, what test_check.sh uses)
# must still be made, and its check must still find the regression.
# tier: slow (two short tunes and a check with real budgets, about 40 s)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE
cd "$TMP" || exit 1
export RIGTUNE_CONTENTION_LIMIT=1   # as test_check.sh: a shared host's busy trials are kept
export OPENBLAS_CORETYPE=Prescott

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

# test_check.sh's "older GEMM kernels: a regression", on this premise
expect_exit 0 "a short gemm tune makes the baseline" \
  $R tune --workload gemm --space space.yaml --backend cpu --no-crossover --budget 4 --quiet -o base.yaml
OPENBLAS_CORETYPE=$OLDER_CORE $R check --baseline base.yaml --budget 15 -o slow.yaml >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] && ok "older GEMM kernels: a regression (exit 1)" \
  || not_ok "older GEMM kernels: a regression (exit 1)" "exit $rc: $(tail -5 "$TMP/err")"
expect_grep "^suggestion: OpenBLAS kernel core changed \(blas\.core\) $CPU_CORE -> $OLDER_CORE" "$TMP/err" \
  "the machine diff explains it"
echo "1..$n"
