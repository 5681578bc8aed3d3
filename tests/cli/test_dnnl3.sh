#!/usr/bin/env bash
# workloads/cpu_dnnl.c against oneDNN 3.x as well as Debian 12's 2.x: 3.0 dropped
# the operation descriptors and output scales that 2.x has (issue 46; Homebrew,
# Debian 13 and Ubuntu 24.04 ship 3.x). The file is compiled against PyPI's
# oneDNN 3 (scripts/onednn3.sh: made on the first run, cached after), linked with
# tests/test_cpu_dnnl.c and the rest of librigtune.a, and run: its bf16 GEMMs
# against their references, on a CPU with bf16 units (the unit test skips them
# elsewhere, and says so).
# tier: slow (compiles against oneDNN 3, downloaded once: about 20 s after)
# beside: others (a build and the GEMMs against their references)
. "$(dirname "$0")/lib.sh"
SRC=$PWD
CC=${CC:-cc}
CFLAGS="-O2 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread"
# Under make asan (SAN=address,undefined, which make exports), librigtune.a is instrumented:
# what links with it is too.
[ -z "${SAN:-}" ] || CFLAGS="$CFLAGS -fsanitize=$SAN"
LIBS=$(pkg-config --libs hwloc nlopt yaml-0.1 openblas libpq cmocka)

if ! D=$(scripts/onednn3.sh 2>"$TMP/err" && scripts/onednn3.sh --path); then
  not_ok "oneDNN 3 is made (scripts/onednn3.sh)" "$(tail -3 "$TMP/err")"
  echo "1..$n"; exit 1
fi
major=$(sed -n 's/^#define DNNL_VERSION_MAJOR //p' "$D/include/oneapi/dnnl/dnnl_version.h")
[ "$major" = 3 ] && ok "scripts/onednn3.sh gives oneDNN 3 ($D)" ||
  not_ok "scripts/onednn3.sh gives oneDNN 3" "DNNL_VERSION_MAJOR '$major' in $D"

# shellcheck disable=SC2086 # CC and CFLAGS are word lists
$CC $CFLAGS -fopenmp -I"$D/include" -c "$SRC/workloads/cpu_dnnl.c" -o "$TMP/cpu_dnnl3.o" 2>"$TMP/err" &&
  ok "cpu_dnnl.c compiles against oneDNN 3's headers, warnings as errors" ||
  not_ok "cpu_dnnl.c compiles against oneDNN 3's headers" "$(head -c 800 "$TMP/err")"
# shellcheck disable=SC2086
$CC $CFLAGS -c "$SRC/tests/test_cpu_dnnl.c" -o "$TMP/test_cpu_dnnl.o" 2>"$TMP/err" &&
  $CC $CFLAGS "$TMP/test_cpu_dnnl.o" "$TMP/cpu_dnnl3.o" "$BUILD_DIR/librigtune.a" $LIBS \
    -L"$D/lib" -Wl,-rpath,"$D/lib" -ldnnl -lgomp -ldl -lm -o "$TMP/test_cpu_dnnl3" 2>>"$TMP/err" &&
  ok "test_cpu_dnnl links with it and librigtune.a" ||
  not_ok "test_cpu_dnnl links with it and librigtune.a" "$(head -c 800 "$TMP/err")"
ldd "$TMP/test_cpu_dnnl3" 2>/dev/null | grep -q "libdnnl\.so\.3 => $D/lib/" &&
  ok "  the binary loads oneDNN 3's library" ||
  not_ok "  the binary loads oneDNN 3's library" "$(ldd "$TMP/test_cpu_dnnl3" 2>&1 | grep dnnl)"

# cmocka's own report, not the TAP that tests/run.sh asks of the unit tests
CMOCKA_MESSAGE_OUTPUT=stdout "$TMP/test_cpu_dnnl3" >"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "PASSED" "$TMP/out" && ok "its tests pass against oneDNN 3" ||
  not_ok "its tests pass against oneDNN 3" "exit $rc" "$(grep -E 'FAILED|ERROR|Failure|error' "$TMP/out" | head -5)"
cpu_bf16=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -cxE 'avx512_bf16|amx_bf16')
if [ "$cpu_bf16" -gt 0 ]; then
  grep -q "SKIPPED" "$TMP/out" && not_ok "  the bf16 GEMM checks ran (a CPU with bf16 units)" \
    "$(grep SKIPPED "$TMP/out")" || ok "  the bf16 GEMM checks ran (a CPU with bf16 units), none skipped"
else
  skip_one "  the bf16 GEMM checks ran" "the CPU has neither avx512_bf16 nor amx_bf16: oneDNN runs no bf16 GEMM here"
fi
echo "1..$n"
