#!/usr/bin/env bash
# The check suite's premises on a CPU whose OpenBLAS does not know it: the whole
# script runs under OPENBLAS_CORETYPE=Prescott, as Debian's 0.3.21 runs on a
# Xeon it does not know (issue 46), so a machine whose OpenBLAS knows its CPU
# (the AMD ones the tests were written on) meets that case too. The premise
# "older GEMM kernels" (lib.sh's older_kernels_premise, what test_check.sh uses)
# must still be made, and its check must still find the regression.
# tier: slow (a short tune and a check with real budgets, about 30 s)
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

# test_check.sh's "older GEMM kernels: a regression", on this premise
printf 'workload: gemm\nparams:\n  backend: [cpu]\n  precision: [fp32]\n  threads: [1]\n  pin: [compact]\n' >space.yaml
expect_exit 0 "a short gemm tune makes the baseline" \
  $R tune --workload gemm --space space.yaml --backend cpu --no-crossover --budget 4 --quiet -o base.yaml
OPENBLAS_CORETYPE=$OLDER_CORE $R check --baseline base.yaml --budget 15 -o slow.yaml >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] && ok "older GEMM kernels: a regression (exit 1)" \
  || not_ok "older GEMM kernels: a regression (exit 1)" "exit $rc: $(tail -5 "$TMP/err")"
expect_grep "^suggestion: OpenBLAS kernel core changed \(blas\.core\) $CPU_CORE -> $OLDER_CORE" "$TMP/err" \
  "the machine diff explains it"
echo "1..$n"
