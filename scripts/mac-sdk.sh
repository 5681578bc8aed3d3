#!/usr/bin/env bash
# What the macOS cross-build (make test, Makefile's "macOS" part) needs of the
# third-party libraries, made from this Debian machine's own packages:
#   OUT/include   the headers of hwloc, NLopt, libyaml, OpenBLAS, libpq, oneDNN and OpenMP
#                 (and cmocka's, for the tests a Mac owner runs, where the test group is in),
#                 copied (the same APIs Homebrew's builds have; OpenBLAS's config says
#                 Darwin on arm64)
#   OUT/lib       link stubs: libNAME.dylib for aarch64-macos exporting, as empty
#                 functions, every symbol the Debian library exports, so that the link
#                 fails on a symbol the real library lacks, as it would on a Mac
#   scripts/mac-sdk.sh OUT "ZIG CC COMMAND"
set -euo pipefail
[ $# = 2 ] || { echo "usage: scripts/mac-sdk.sh OUT 'zig cc command'" >&2; exit 2; }
out=$1 zigcc=$2
rm -rf "$out.tmp"
inc=$out.tmp/include lib=$out.tmp/lib
mkdir -p "$inc/hwloc" "$inc/oneapi" "$lib"

# -print-file-name finds a library or header where this machine's compiler does.
multiarch=$(cc -print-multiarch)
blas_inc=$(pkg-config --variable=includedir openblas)
cp /usr/include/yaml.h /usr/include/hwloc.h /usr/include/nlopt.h "$inc/"
cp -r /usr/include/hwloc/. "$inc/hwloc/"
cp -r "/usr/include/$multiarch/hwloc/autogen" "$inc/hwloc/"
cp "$(pkg-config --variable=includedir libpq)"/{libpq-fe.h,postgres_ext.h,pg_config_ext.h} "$inc/"
cp "$blas_inc/cblas.h" "$inc/"
sed -e 's/OPENBLAS_OS_LINUX/OPENBLAS_OS_DARWIN/' -e 's/OPENBLAS_ARCH_X86_64/OPENBLAS_ARCH_ARM64/' \
  "$blas_inc/openblas_config.h" >"$inc/openblas_config.h"
cp -r /usr/include/oneapi/dnnl "$inc/oneapi/"
cp "$(cc -print-file-name=include)/omp.h" "$inc/"
cmocka=$([ -f /usr/include/cmocka.h ] && echo yes || true) # libcmocka-dev: the test group
[ -z "$cmocka" ] || cp /usr/include/cmocka.h "$inc/"

# NAME SONAME-OF-THE-DEBIAN-LIBRARY [SYMBOL-PREFIX]: OpenMP's API is the same in
# GNU's libgomp and LLVM's libomp (Homebrew's), its runtime entry points are not.
stub() {
  local name=$1 so prefix=${3:-}
  so=$(readlink -f "$(cc -print-file-name="$2")")
  [ -f "$so" ] || { echo "mac-sdk.sh: no $2 here (scripts/install-deps.sh build)" >&2; exit 1; }
  nm -D --defined-only --format=posix "$so" | cut -d' ' -f1 | sed 's/@.*//' |
    grep -E "^${prefix}[A-Za-z_][A-Za-z0-9_]*$" | sort -u |
    sed 's/.*/void &(void) {}/' >"$lib/$name.c"
  $zigcc -target aarch64-macos -shared -w -fno-builtin "$lib/$name.c" \
    -Wl,-install_name,"/opt/homebrew/lib/lib$name.dylib" -o "$lib/lib$name.dylib"
}
stub hwloc libhwloc.so
stub nlopt libnlopt.so
stub yaml libyaml.so
stub openblas libopenblas.so
stub pq libpq.so
stub dnnl libdnnl.so
stub omp libgomp.so omp_
[ -z "$cmocka" ] || stub cmocka libcmocka.so
rm -rf "$out"
mv "$out.tmp" "$out"
