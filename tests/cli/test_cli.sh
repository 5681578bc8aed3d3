#!/usr/bin/env bash
# The command line: help, version, probe, bench gemm, and bad input (exit 2).
# beside: others (exit codes, messages and fields; its bench and tune must finish, their figures are not asserted)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE

expect_exit 0 "--help exits 0" $R --help
expect_grep "probe" "$TMP/out" "--help lists the commands"
expect_exit 0 "--version exits 0" $R --version
expect_grep "^rigtune [0-9]+\.[0-9]+" "$TMP/out" "--version prints the version"
expect_exit 2 "no command is a usage error" $R
expect_exit 2 "unknown command exits 2" $R frobnicate
expect_grep "unknown command 'frobnicate'" "$TMP/err" "unknown command is named"
expect_exit 0 "probe --help exits 0" $R probe --help
expect_grep "topology" "$TMP/out" "probe --help shows its options"

expect_exit 0 "probe on this machine" $R probe
expect_grep "^  fingerprint: '?[0-9a-f]{16}'?$" "$TMP/out" "probe prints a fingerprint"
expect_grep "^    pus: ($(nproc)|$(getconf _NPROCESSORS_ONLN))$" "$TMP/out" "probe's PU count is what the OS reports"
# OpenBLAS's kernels against the CPU's widest vector instructions (blas_kernels.h)
cpu_kernels   # CPU_ISA, CPU_CORE: from the CPU's flags (lib.sh)
isa_name=$CPU_ISA want=$CPU_CORE
expect_grep "^    vector_isa: $isa_name$" "$TMP/out" "probe names the CPU's widest vector instructions ($isa_name)"
core=$(sed -n 's/^    core: //p' "$TMP/out")
case "$isa_name:$core" in
  avx512*:Cooperlake | avx512*:SkylakeX | avx512*:SapphireRapids | avx2:Haswell | avx2:Zen)
    grep -q '^    core_note:' "$TMP/out" && not_ok "no core note: $core fits $isa_name" "$(grep -A2 core_note "$TMP/out")" ||
      ok "no core note: OpenBLAS's own $core fits $isa_name" ;;
  *) expect_grep "^    core_note: .*runs its $core kernels" "$TMP/out" "a core note: OpenBLAS's own $core on $isa_name" ;;
esac
if [ -n "$CPU_ISA" ]; then
  OPENBLAS_CORETYPE=Prescott expect_exit 0 "probe with OpenBLAS forced to its SSE kernels" $R probe
  expect_grep "core_note: .*Prescott kernels \(sse\) on a CPU with $isa_name" "$TMP/out" \
    "probe notes the narrower kernels"
  tr -d '\n' <"$TMP/out" | tr -s ' ' | grep -q "OPENBLAS_CORETYPE=$want selects" &&
    ok "the note names the kernels for the CPU ($want)" ||
    not_ok "the note names the kernels for the CPU ($want)" "$(grep -A3 core_note "$TMP/out")"
  OPENBLAS_CORETYPE=Prescott expect_exit 0 "tune with the SSE kernels" \
    $R tune --workload gemm --budget 4 --no-crossover -o "$TMP/k.yaml"
  expect_grep "rigtune: warning: OpenBLAS runs its Prescott kernels" "$TMP/err" \
    "tune warns before it measures"
fi
expect_exit 0 "probe of the hybrid topology" $R probe --topology tests/data/hybrid16.xml
expect_grep "usable_cores: 12" "$TMP/out" "hybrid: 12 usable P-cores"
expect_grep "role: efficiency, cores: 4" "$TMP/out" "hybrid: 4 E-cores"
expect_exit 0 "probe -o writes a file" $R probe --topology tests/data/numa2smt.xml -o "$TMP/m.yaml"
expect_grep "pus: 32" "$TMP/m.yaml" "the file holds the probe"
expect_exit 2 "probe: unknown option" $R probe --bogus
expect_grep "unknown option '--bogus'" "$TMP/err" "the unknown option is named"
expect_exit 2 "probe: missing topology file" $R probe --topology "$TMP/none.xml"
expect_grep "none.xml" "$TMP/err" "the missing file is named"
printf '<topology><object' >"$TMP/bad.xml"
expect_exit 2 "probe: malformed topology" $R probe --topology "$TMP/bad.xml"
expect_grep "bad.xml" "$TMP/err" "the malformed file is named"
expect_exit 2 "probe: --topology without a value" $R probe --topology

expect_exit 0 "bench gemm" $R bench gemm m=96 n=80 k=64 threads=1 --seconds 0.3
expect_grep "^throughput: \{median: [0-9.]+" "$TMP/out" "bench prints the median throughput"
expect_grep "unit: GFLOP/s" "$TMP/out" "gemm throughput is in GFLOP/s"
expect_grep "^shape: \{m: 96, n: 80, k: 64, transfer: 0\}" "$TMP/out" "bench echoes the shape"
expect_exit 2 "bench: malformed KEY=VALUE" $R bench gemm m1024
expect_grep "expected KEY=VALUE, got 'm1024'" "$TMP/err" "the malformed argument is quoted"
expect_exit 2 "bench: unknown key" $R bench gemm q=3
expect_grep "unknown key 'q'" "$TMP/err" "the unknown key is named"
expect_exit 2 "bench: non-numeric value" $R bench gemm m=big
expect_exit 2 "bench: zero size" $R bench gemm m=0
expect_grep "m=0: must be between 1" "$TMP/err" "the range is stated"
expect_exit 2 "bench: unknown precision" $R bench gemm precision=fp8
expect_exit 2 "bench: unknown workload" $R bench resnet
expect_exit 2 "bench: bad --seconds" $R bench gemm --seconds -1
# KEY=VALUE arguments are collected by the option parser: every spelling of -o,
# before and after the keys, measures what the keys say (issue 12: -oFILE m=32 measured 1024).
for spelling in "-o$TMP/o.yaml gemm" "gemm -o $TMP/o.yaml" "gemm --output=$TMP/o.yaml" \
                "--output $TMP/o.yaml gemm" "gemm m=32 -o$TMP/o.yaml"; do
  rm -f "$TMP/o.yaml"
  expect_exit 0 "bench $spelling m=32 ..." $R bench $spelling m=32 n=16 k=8 --seconds 0.1
  expect_grep "^shape: \{m: 32, n: 16, k: 8, transfer: 0\}" "$TMP/o.yaml" "  measured m=32 n=16 k=8 into the file"
done
expect_exit 0 "bench: keys after --" $R bench gemm --seconds 0.1 -o "$TMP/o.yaml" -- m=24 n=16 k=8
expect_grep "^shape: \{m: 24, n: 16, k: 8" "$TMP/o.yaml" "keys after -- are keys"
expect_exit 2 "bench: no workload" $R bench --seconds 1
expect_grep "missing WORKLOAD \(gemm, transformer, ppo\)" "$TMP/err" "names the workloads"
echo "keep" >"$TMP/keep.yaml"
expect_exit 2 "bench: bad input leaves -o untouched" $R bench gemm m=0 -o "$TMP/keep.yaml"
expect_grep "^keep$" "$TMP/keep.yaml" "the existing file survives"
RIGTUNE_BACKEND_PATH=$TMP expect_exit 3 "bench: an unavailable backend is a run-time failure" $R bench gemm backend=cuda m=64 n=64 k=64
expect_grep "infeasible: .*cuda" "$TMP/err" "and says why"

# Backends are discovered: a plugin in the plugin directory is a backend by its file name.
P="$BUILD_DIR/tests/plugins"
RIGTUNE_BACKEND_PATH=$P expect_exit 0 "probe with the test plugins' directory" $R probe
expect_grep "backend: fake" "$TMP/out" "probe lists the discovered plugin"
expect_grep "name: fake device" "$TMP/out" "with its device"
RIGTUNE_BACKEND_PATH=$P expect_exit 3 "bench accepts a discovered backend (whose GEMM declines)" $R bench gemm backend=fake m=32 n=32 k=32 --seconds 0.1
expect_grep "^cause: unavailable" "$TMP/out" "the failure has its kind"
RIGTUNE_BACKEND_PATH=$TMP expect_exit 2 "without the plugin the name is unknown" $R bench gemm backend=fake
expect_grep "'fake' is not one of cpu, cuda, hip" "$TMP/err" "and the known ones are listed"
