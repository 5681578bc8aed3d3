#!/usr/bin/env bash
# macOS on Apple Silicon, as far as this Linux machine can show it: this cross-compiles
# every file of the binary for aarch64-macos (make build-mac: Zig's C compiler, warnings
# as errors) and links it (Makefile, "macOS"), checks what came out, and that
# scripts/check-portable.sh keeps Linux-only calls inside the platform module.
# beside: others (the cross-build and its files)
. "$(dirname "$0")/lib.sh"
# The cross-build, here rather than before the suite: it waits for Zig's download
# (scripts/zig.sh) and compiles while the other tests run. Its own make: not the
# suite's (make asan's sanitizers and jobserver are not the cross-build's).
if [ "$(uname -s)" != Darwin ]; then
  if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -j"$(nproc)" build-mac \
    >"$TMP/build" 2>&1; then
    ok "make build-mac: every file compiles for aarch64-macos, warnings as errors, and links"
  else
    not_ok "make build-mac: every file compiles for aarch64-macos, warnings as errors, and links" \
      "$(grep -m5 -E 'error|Error' "$TMP/build")" "$(tail -5 "$TMP/build")"
    echo "1..$n"
    exit 1
  fi
fi
# On a Mac the native build is the Mach-O binary, linked with Homebrew's own libraries.
# The cross-build is build-mac beside the host's build (build, build-asan) whatever its sanitizers.
bin=$(dirname "${BUILD_DIR:-$PWD/build}")/build-mac/rigtune
[ "$(uname -s)" = Darwin ] && bin=$RIGTUNE

# Mach-O 64-bit (0xfeedfacf, little-endian), CPU type arm64 (0x0100000c), an executable (2).
header=$(od -An -tx4 -N16 "$bin" 2>/dev/null | tr -s ' ')
if [ "$header" = " feedfacf 0100000c 00000000 00000002" ]; then
  ok "the macOS build is an arm64 Mach-O executable ($bin)"
else not_ok "the macOS build is an arm64 Mach-O executable ($bin)" "header: '$header'"; fi

# What the binary takes from each library is what that library exports (the stubs
# export exactly the Debian build's symbols): every library it was linked with is named.
# Its BLAS is Accelerate (the framework, against tests/mac_sdk's stub); rigtune-openblas, the
# same objects but blas.h's, is `make BLAS=openblas` on a Mac: Homebrew's OpenBLAS.
if [ "$(uname -s)" != Darwin ]; then
  loads() { # BINARY: the libraries it names, short
    LC_ALL=C grep -ao '/opt/homebrew/lib/lib[a-z]*\.dylib\|/System/Library/Frameworks/[A-Za-z]*\.framework/Versions/A/[A-Za-z]*' "$1" |
      sed 's,.*/,,; s,^lib,,; s,\.dylib$,,' | sort -u | tr '\n' ' '
  }
  got=$(loads "$bin")
  if [ "$got" = "Accelerate dnnl hwloc nlopt omp pq yaml " ]; then
    ok "it loads Accelerate, and hwloc, NLopt, libyaml, libpq, oneDNN and libomp from Homebrew"
  else not_ok "it loads Accelerate and the Homebrew libraries" "it names: $got"; fi
  got=$(loads "$(dirname "$bin")/rigtune-openblas")
  if [ "$got" = "dnnl hwloc nlopt omp openblas pq yaml " ]; then
    ok "rigtune-openblas loads Homebrew's OpenBLAS instead"
  else not_ok "rigtune-openblas loads Homebrew's OpenBLAS instead" "it names: $got"; fi
fi

# The tests scripts/mac-check.sh runs on a Mac link for it too (Linux: the cross-build's).
if [ "$(uname -s)" != Darwin ]; then
  for t in test_platform test_steer test_memwatch gpu_check; do
    [ -n "$header" ] && [ "$(od -An -tx4 -N16 "$(dirname "$bin")/tests/$t" 2>/dev/null | tr -s ' ')" = "$header" ] ||
      bad="${bad:-} $t"
  done
  if [ -z "${bad:-}" ]; then ok "test_platform, test_steer, test_memwatch and gpu_check link for aarch64-macos"
  else not_ok "the tests a Mac runs link for aarch64-macos" "not Mach-O arm64:$bad"; fi
fi

# Every embedded file made it, under Mach-O's names: the space of each workload.
if grep -q 'Default search space of the GEMM workload' "$bin"; then ok "the embedded spaces are in the Mach-O binary"
else not_ok "the embedded spaces are in the Mach-O binary"; fi

# The Metal plugin: a Mach-O dylib exporting the backend's entry point, that links what it
# calls of Apple's (against tests/mac_sdk's stubs: no symbol left open) and looks up in the
# binary, by name, the CPU backend it runs fp64 on.
plugin=$(dirname "$bin")/librigtune_metal.dylib
nm=$(command -v llvm-nm || echo "llvm-nm (missing: scripts/install-deps.sh test)")
if $nm -g --defined-only "$plugin" 2>/dev/null | grep -q ' T _rigtune_backend$'; then
  ok "the Metal plugin exports rigtune_backend ($plugin)"
else not_ok "the Metal plugin exports rigtune_backend ($plugin)" "$($nm -g "$plugin" 2>&1 | head -3)"; fi
strings -n 4 "$plugin" | grep -x 'rt_[a-z0-9_]*' | sed 's/^/_/' | sort -u >"$TMP/wants"
$nm -g --defined-only "$bin" 2>/dev/null | awk '{print $3}' | sort >"$TMP/has"
unmet=$(comm -23 "$TMP/wants" "$TMP/has" | tr '\n' ' ')
if [ -s "$TMP/wants" ] && [ -z "$unmet" ]; then
  ok "what the plugin looks up in rigtune ($(tr '\n' ' ' <"$TMP/wants")) the binary defines"
else not_ok "what the plugin looks up in rigtune the binary defines" "unmet: ${unmet:-nothing asked}"; fi
libs=$(LC_ALL=C grep -ao '/[A-Za-z0-9_./-]*\.dylib\|/System/Library/Frameworks/[A-Za-z0-9_./-]*' "$plugin" |
  grep -v librigtune_metal | sed 's,.*/,,' | sort -u | tr '\n' ' ') # (its own name aside)
if [ "$libs" = "CoreFoundation CoreGraphics Foundation Metal MetalPerformanceShaders libIOReport.dylib libSystem.B.dylib libobjc.A.dylib " ]; then
  ok "the plugin links Metal, MPS, Foundation, CoreGraphics, libobjc and libSystem (IOReport and CoreFoundation named for dlopen)"
else not_ok "the plugin links Metal, MPS, Foundation, CoreGraphics, libobjc and libSystem" "it names: $libs"; fi
if [ "$(uname -s)" != Darwin ] && [ -z "$($nm -g -u "$plugin" 2>/dev/null | grep '^_rt_')" ]; then
  ok "the plugin leaves nothing of rigtune's to the dynamic linker"
elif [ "$(uname -s)" != Darwin ]; then not_ok "the plugin leaves nothing of rigtune's to the dynamic linker" \
  "$($nm -g -u "$plugin" | grep '^_rt_' | head -3 | tr '\n' ' ')"; fi

# Both are built for macOS 14, the oldest the docs promise (LC_BUILD_VERSION's minos).
for f in "$bin" "$plugin"; do
  minos=$(llvm-objdump --macho --private-headers "$f" 2>/dev/null | awk '$1 == "minos" {print $2; exit}')
  if [ "$minos" = 14.0 ]; then ok "$(basename "$f") runs from macOS 14.0 (its Mach-O's minimum OS)"
  else not_ok "$(basename "$f") runs from macOS 14.0" "minos: '${minos:-none}'"; fi
done

# A misspelt Apple name fails the link here (the stubs name only what Apple documents): the
# plugin's own link line (make -n), on a copy of metal.c with one function or class misspelt.
if [ "$(uname -s)" != Darwin ]; then
  link=$(env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory -n -W workloads/metal/metal.c \
    build-mac/librigtune_metal.dylib | tail -1)
  misspelt() { # DESC FROM TO
    mkdir -p "$TMP/mis/workloads" "$TMP/mis/tests" "$TMP/mis/common"
    cp -r workloads/. "$TMP/mis/workloads/"; cp -r common/. "$TMP/mis/common/"
    cp -r tests/mac_sdk "$TMP/mis/tests/"
    sed -i "s/\b$2\b/$3/g" "$TMP/mis/workloads/metal/metal.c"
    if ! grep -q "$3" "$TMP/mis/workloads/metal/metal.c"; then not_ok "$1" "no $2 in metal.c"; return; fi
    if (cd "$TMP/mis" && ${link% -o *} -o "$TMP/mis/bad.dylib") >"$TMP/link" 2>&1; then
      not_ok "$1" "it linked"
    else expect_grep "undefined symbol: _.*$3" "$TMP/link" "$1"; fi
  }
  misspelt "a misspelt Metal function fails the plugin's link" MTLCopyAllDevices MTLCopyAllDevice
  misspelt "a misspelt MPS class fails the plugin's link" MPSMatrixMultiplication MPSMatrixMultiply
  # and the unchanged copy links (the failures above are the misspelling's)
  if (cd "$TMP/mis" && cp "$OLDPWD/workloads/metal/metal.c" workloads/metal/ &&
      ${link% -o *} -o "$TMP/mis/good.dylib") >"$TMP/link" 2>&1; then
    ok "the same link of the unchanged source succeeds"
  else not_ok "the same link of the unchanged source succeeds" "$(head -3 "$TMP/link")"; fi
fi

# Its kernels' source is in it, after the header both sides compile (metal.c compiles them
# on the Mac when a context opens).
if grep -q 'kernel void k_adam' "$plugin" && grep -q 'typedef struct mtl_args' "$plugin"; then
  ok "the plugin embeds args.h and kernels.metal"
else not_ok "the plugin embeds args.h and kernels.metal"; fi

# The Metal kernels, as far as Linux can read them: kernels.metal (after args.h, as the
# plugin compiles it) parses as C++14 against a shim declaring the Metal names it uses
# (tests/metal_shim/metal_stdlib). That is C++ syntax and declared names with fitting types,
# not Metal's semantics (address spaces, attributes): only a Mac's compile shows those.
shim_parse() { # SOURCE
  clang++ -fsyntax-only -x c++ -std=c++14 -Wall -Wextra -Werror -Wno-unknown-attributes \
    -I tests/metal_shim -include tests/metal_shim/metal_stdlib -include workloads/metal/args.h "$1"
}
if shim_parse workloads/metal/kernels.metal 2>"$TMP/shim"; then
  ok "the Metal kernels parse as C++14 with every name declared (a shim: not Metal's semantics)"
else not_ok "the Metal kernels parse as C++14 with every name declared" "$(head -5 "$TMP/shim")"; fi
# and the parse fails on a kernel that calls what the shim (Metal's subset here) lacks
{ cat workloads/metal/kernels.metal
  echo 'kernel void k_bad(constant mtl_args &a [[buffer(0)]]) { precise::erfc(a.s[0]); }'; } >"$TMP/bad.metal"
if shim_parse "$TMP/bad.metal" 2>"$TMP/shim"; then
  not_ok "the parse catches an undeclared name in the kernels" "it passed"
else expect_grep "erfc" "$TMP/shim" "the parse catches an undeclared name in the kernels"; fi

# scripts/mac-check.sh, the one command a Mac owner runs: bash reads it, shellcheck finds
# nothing, it installs the test group as well (the tests link cmocka), and off a Mac it
# says so and exits 2 before it does anything.
expect_exit 0 "mac-check.sh parses (bash -n)" bash -n scripts/mac-check.sh
if command -v shellcheck >/dev/null; then
  expect_exit 0 "shellcheck finds nothing in mac-check.sh" shellcheck scripts/mac-check.sh
fi
expect_grep 'install-deps.sh --if-missing build test' scripts/mac-check.sh \
  "mac-check.sh installs the build and the test groups"
if [ "$(uname -s)" != Darwin ]; then
  (cd "$TMP" && bash "$OLDPWD/scripts/mac-check.sh") >"$TMP/mc.out" 2>&1
  rc=$?
  if [ "$rc" = 2 ] && grep -q "run this on a Mac" "$TMP/mc.out" && [ -z "$(ls "$TMP"/mac-check-* 2>/dev/null)" ]; then
    ok "off a Mac, mac-check.sh says so and exits 2, writing nothing"
  else not_ok "off a Mac, mac-check.sh says so and exits 2" "exit $rc: $(head -2 "$TMP/mc.out")"; fi
fi

expect_exit 0 "no Linux-only name outside the platform module" scripts/check-portable.sh

# The check finds what it checks for: a copy of the tree with one Linux-only line.
cp -r common search workloads tuner scripts "$TMP/"
caught() { # DESC FILE LINE
  printf '%s\n' "$3" >>"$TMP/$2"
  (cd "$TMP" && scripts/check-portable.sh) >"$TMP/out" 2>&1
  local rc=$?
  cp "$2" "$TMP/$2"
  if [ "$rc" -eq 1 ] && grep -qF "$2:" "$TMP/out"; then ok "$1"
  else not_ok "$1" "exit $rc: $(tail -2 "$TMP/out")"; fi
}
caught "a Linux-only header is caught" tuner/tune.c '#include <sys/prctl.h>'
caught "a Linux-only call is caught" tuner/child.c 'static int f(int *p) { return pipe2(p, 0); }'
caught "a /proc path is caught" workloads/loader.c 'static const char *p = "/proc/self/exe";'
caught "cpu_set_t in a shared header is caught" tuner/usercmd.h 'typedef cpu_set_t rt_x;'
# and lets through what only looks like one
printf '%s\n' '/* sched_setaffinity(0, ...) and /proc/stat, in a comment */' \
  'static int g(void) { return rt_plat_execvpe(0, 0, 0); }' >>"$TMP/tuner/tune.c"
expect_exit 0 "a comment and a platform call are not Linux-only" sh -c "cd '$TMP' && scripts/check-portable.sh"
echo "1..$n"
