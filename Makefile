# rigtune: out-of-tree build into build/ (or build-asan/ for `make asan`).
#
#   make            build build/rigtune, the GPU plugins that this machine can compile
#   make run        set up what is missing, build, run the default tuning, draw its report
#   make test       set up what is missing (test clients, the frameworks' venv), build, run
#                   every test; on Linux one of them cross-builds for macOS (build-mac)
#   make check T=NAME   build what it needs and run one test alone: tests/test_NAME.c's
#                   binary or tests/cli/NAME.sh (NAME with or without test_)
#   make check-fast the fast tier: the tests that need no real engine and spend no real
#                   tuning budget (tests/run.sh says which tier a test is in)
#   make check-slow, make check-integration   the other two tiers, alone
#   make asan       the same suite under AddressSanitizer + UBSan (clang where present)
#   make bench      the benchmarks in bench/ (they print figures)
#   make fuzz       every libFuzzer harness in fuzz/ for SECONDS (default 60) each
#   make format     clang-format every source file
#   HIP=1           also install hipcc (done anyway where /dev/kfd shows an AMD GPU)
#
# make, run, test, asan, bench and fuzz install what is missing first and then
# build in a second make: pkg-config is read when a Makefile is parsed, so the
# build must be parsed after the packages are there (a fresh machine's first
# `make` or `make test`).
#
# Sources are found by wildcard: a new .c file in common/ search/ workloads/
# tuner/ or a tuner/ family folder (cmd/ sweep/ page/ check/ fleet/ watch/) joins the program,
# a new tests/test_*.c becomes a cmocka binary.

SAN ?=
BUILD ?= build
CC ?= cc
PKG_CONFIG ?= pkg-config
UNAME := $(shell uname -s)
# The BLAS (workloads/blas.h): OpenBLAS; on a Mac Apple's Accelerate, which PyPI's torch and
# numpy use there (`make BLAS=openblas BUILD=build-openblas`: Homebrew's OpenBLAS instead).
BLAS ?= $(if $(filter Darwin,$(UNAME)),accelerate,openblas)
PKGS := hwloc nlopt yaml-0.1 libpq $(filter-out accelerate,$(BLAS))

ifeq ($(UNAME),Darwin)
# Homebrew keeps OpenBLAS, libpq and libomp out of the default paths ("keg-only"), and
# clang does not search Homebrew's include and lib folders.
BREW := $(shell brew --prefix 2>/dev/null)
export PKG_CONFIG_PATH := $(BREW)/opt/openblas/lib/pkgconfig:$(BREW)/opt/libpq/lib/pkgconfig$(if \
	$(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
endif
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

OPT ?= -O2
CFLAGS ?= $(OPT) -g
CFLAGS += -std=c11 -Wall -Wextra -D_GNU_SOURCE -pthread -MMD -MP $(PKG_CFLAGS)
ifeq ($(CI),true)
CFLAGS += -Werror
endif
ifneq ($(SAN),)
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SAN)
endif
# oneDNN (bf16 GEMMs on the CPU) ships no pkg-config file; Debian's threads with libgomp,
# whose omp_set_num_threads the backend calls.
DNNL_LIBS := -ldnnl -lgomp
# On a Mac (Homebrew): oneDNN threads with LLVM's libomp; a shared library is a .dylib.
# What is built runs on macOS 14 and later (the oldest the docs promise), whatever the
# building Mac runs.
MACOS_MIN := -mmacosx-version-min=14.0
SO := so
ifeq ($(UNAME),Darwin)
DNNL_LIBS := -ldnnl -L$(BREW)/opt/libomp/lib -lomp
CFLAGS += -I$(BREW)/include -I$(BREW)/opt/libomp/include $(MACOS_MIN)
LDFLAGS += -L$(BREW)/lib $(MACOS_MIN)
SO := dylib
endif
ifeq ($(BLAS),accelerate)
CFLAGS += -DRT_BLAS_ACCELERATE
PKG_LIBS += -framework Accelerate
endif
LDLIBS := $(PKG_LIBS) $(DNNL_LIBS) -ldl -lm -pthread

LIB_SRCS := $(filter-out tuner/main.c,$(wildcard common/*.c search/*.c workloads/*.c tuner/*.c \
	tuner/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
TEST_PLUGINS := $(patsubst tests/plugins/%.c,$(BUILD)/tests/plugins/librigtune_%.$(SO),$(wildcard tests/plugins/*.c))
# Fake vendor libraries (rocBLAS, NVML) the GPU plugins' host code is tested against.
TEST_FAKES := $(patsubst tests/fakes/%.c,$(BUILD)/tests/fakes/lib%_fake.so,$(wildcard tests/fakes/*.c))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
# Libraries the benchmarks and tests preload (bench/lib/NAME.c: libNAME.so), never run.
BENCH_LIBS := $(patsubst bench/lib/%.c,$(BUILD)/bench/lib%.so,$(wildcard bench/lib/*.c))

# GPU plugins: each folder workloads/NAME/ with a plugin.mk is one; its fragment
# names it in PLUGINS_HERE (the loader knows it where it is not installed), adds
# its library to PLUGINS where its compiler exists, and has its rule. The binary
# never links them. A new plugin touches nothing outside its folder.
GPU_DEPS := $(wildcard workloads/gpu/* workloads/devmon*) workloads/host_abi.h workloads/backend.h \
	workloads/kernels.h common/rt.h
PLUGINS :=
PLUGINS_HERE :=
# a fragment's first rule is not what a bare `make` builds
.DEFAULT_GOAL := all
include $(sort $(wildcard workloads/*/plugin.mk))

.PHONY: all deps test-deps run test check check-fast check-slow check-integration asan bench \
	fuzz format clean build-all build-run build-test build-check build-check-fast \
	build-check-slow build-check-integration build-bench build-fuzz
.SECONDARY:
all: deps
	@$(SUBMAKE) build-all
build-all: $(BUILD)/rigtune $(PLUGINS)

# The second make, which builds (and then runs what was asked), uses every CPU unless
# make was given its own -j.
NPROC := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
SUBMAKE = $(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))

# hipcc is wanted where an AMD GPU can use it, or when asked (CI asks).
HIP_GROUP := $(if $(filter 1,$(HIP))$(wildcard /dev/kfd),hip)
deps:
	@scripts/install-deps.sh --if-missing build $(HIP_GROUP)
# test-deps also starts making what the tests fetch from PyPI, where it is missing: the
# virtual environment of frameworks the tests apply hints in, Zig (the macOS build) and
# oneDNN 3. They download in the background while make builds; tests/run.sh waits for them
# (scripts/cached-venv.sh's --background and --wait).
test-deps:
	@scripts/install-deps.sh --if-missing build test $(HIP_GROUP)
	@for s in venv zig onednn3; do scripts/$$s.sh --background || exit; done

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

# The plugins this tree builds (their plugin.mk): the loader knows them by name
# where they are not installed.
$(BUILD)/workloads/loader.o: CFLAGS += -DRT_PLUGINS_HERE='$(foreach p,$(sort $(PLUGINS_HERE)),"$(p)",)'

# The CPU kernels' sqrt never sees a negative argument (Adam's), and only a
# call that needs not set errno vectorizes.
$(BUILD)/workloads/cpu_kernels.o: CFLAGS += -fno-math-errno

$(BUILD)/librigtune.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/rigtune: $(BUILD)/tuner/main.o $(BUILD)/librigtune.a
	$(CC) $(LDFLAGS) -rdynamic $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/librigtune.a
	$(CC) $(LDFLAGS) -rdynamic $^ $(CMOCKA_LIBS) $(LDLIBS) -o $@

# test_steer wraps the platform seam's thread hook (GNU ld's --wrap) to see every pool thread
# start through it; on a Mac it checks the threads' QoS classes themselves.
ifeq ($(UNAME),Linux)
$(BUILD)/tests/test_steer: LDFLAGS += -Wl,--wrap=rt_plat_thread_attr
endif

# A plugin may call back into the binary (-rdynamic): macOS's linker must be told to leave that open.
PLUGIN_LDFLAGS := $(if $(filter Darwin,$(UNAME)),-undefined dynamic_lookup)
$(BUILD)/tests/plugins/librigtune_%.$(SO): tests/plugins/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared $(PLUGIN_LDFLAGS) $< -o $@

$(BUILD)/tests/fakes/lib%_fake.so: tests/fakes/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared $< -o $@

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(BUILD)/librigtune.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Not sanitized: it is preloaded into processes that are not (an ASan runtime must load first).
$(BUILD)/bench/lib%.so: bench/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(OPT) -g -std=c11 -Wall -Wextra $(if $(filter true,$(CI)),-Werror) -fPIC -shared $< \
		-o $@ -ldl

# ---- macOS on Apple Silicon, cross-compiled here (make test on Linux) ----
# Every file of the binary compiled for aarch64-macos by Zig's C compiler (scripts/zig.sh:
# PyPI's ziglang, with macOS's libc headers and libSystem), warnings as errors, and linked
# against link stubs of the third-party libraries (scripts/mac-sdk.sh): a call that only
# Linux has fails make test here, not on a user's Mac. `make build-mac` alone does this.
# One cross-build whatever the host build's sanitizers: `make asan` checks it as `make test` does.
# Apple's own libraries (Metal, MPS, Foundation, CoreGraphics, libobjc, Accelerate; IOKit,
# CoreFoundation and libIOReport for the GPU monitor) are text stubs (tests/mac_sdk, TAPI v4
# .tbd) naming, from Apple's documentation, what rigtune calls: nothing links with
# -undefined dynamic_lookup, so a misspelt function or class fails the link here.
# The target is macOS 14, the oldest the docs promise (the Mach-O's minimum OS).
MAC := build-mac
MAC_TARGET := -target aarch64-macos.14.0
MAC_APPLE := -Ftests/mac_sdk/Frameworks -Ltests/mac_sdk/lib
ZIG_CC := $(shell scripts/zig.sh --path)/bin/python -m ziglang cc
MAC_CFLAGS = $(MAC_TARGET) $(OPT) -std=c11 -Wall -Wextra -Werror -pthread -MMD -MP \
	-isystem $(MAC)/sdk/include
# Accelerate is its BLAS, as on a Mac (`make BLAS=openblas` there: Homebrew's OpenBLAS, which
# rigtune-openblas is, linked from the same objects but blas.h's).
MAC_LIBS := -L$(MAC)/sdk/lib $(MAC_APPLE) -lhwloc -lnlopt -lyaml -framework Accelerate -lpq -ldnnl \
	-lomp -lm -pthread
MAC_OPENBLAS_LIBS := $(subst -framework Accelerate,-lopenblas,$(MAC_LIBS))
MAC_STUBS := $(shell find tests/mac_sdk -name '*.tbd')
MAC_LIB_OBJS := $(patsubst %.c,$(MAC)/%.o,$(LIB_SRCS))
MAC_OBJS := $(MAC)/tuner/main.o $(MAC_LIB_OBJS)
# The files that include workloads/blas.h compile once per BLAS: for Accelerate against
# tests/mac_sdk's stub of its header, for rigtune-openblas against OpenBLAS's cblas.h.
MAC_BLAS_SRCS := $(shell grep -l 'blas\.h"' $(LIB_SRCS))
MAC_BLAS_OBJS := $(MAC_BLAS_SRCS:%.c=$(MAC)/%.o)
# The tests scripts/mac-check.sh runs on a Mac, linked here too (cmocka: a stub).
MAC_TESTS := $(MAC)/tests/test_platform $(MAC)/tests/test_steer $(MAC)/tests/test_memwatch \
	$(MAC)/tests/gpu_check
# tests/cli/test_mac.sh runs this make as its first check, beside the other tests: the
# cross-build and Zig's download then overlap the suite instead of delaying it. One
# cross-build whatever the host build's sanitizers.
.PHONY: build-mac
build-mac: $(MAC)/rigtune $(MAC)/rigtune-openblas $(MAC)/librigtune_metal.dylib $(MAC_TESTS)
$(MAC)/sdk/.complete: scripts/mac-sdk.sh scripts/zig.sh scripts/cached-venv.sh
	scripts/zig.sh
	scripts/mac-sdk.sh $(MAC)/sdk "$(ZIG_CC)"
	@touch $@
$(MAC)/%.o: %.c $(MAC)/sdk/.complete
	@mkdir -p $(@D)
	$(ZIG_CC) $(MAC_CFLAGS) -c $< -o $@
$(MAC_BLAS_OBJS): MAC_CFLAGS += -DRT_BLAS_ACCELERATE -isystem tests/mac_sdk/include
$(MAC)/openblas/%.o: %.c $(MAC)/sdk/.complete
	@mkdir -p $(@D)
	$(ZIG_CC) $(MAC_CFLAGS) -c $< -o $@
$(MAC)/rigtune: $(MAC_OBJS) $(MAC_STUBS)
	$(ZIG_CC) $(MAC_TARGET) $(MAC_OBJS) $(MAC_LIBS) -o $@
$(MAC)/rigtune-openblas: $(filter-out $(MAC_BLAS_OBJS),$(MAC_OBJS)) \
		$(MAC_BLAS_SRCS:%.c=$(MAC)/openblas/%.o)
	$(ZIG_CC) $(MAC_TARGET) $^ $(MAC_OPENBLAS_LIBS) -o $@
$(MAC)/tests/%: $(MAC)/tests/%.o $(MAC_LIB_OBJS)
	$(ZIG_CC) $(MAC_TARGET) $^ $(MAC_LIBS) -lcmocka -o $@
$(MAC)/librigtune_metal.dylib: $(METAL_DEPS) $(GPU_DEPS) $(MAC)/sdk/.complete $(MAC_STUBS)
	$(ZIG_CC) $(MAC_TARGET) $(METAL_FLAGS) -Werror $(METAL_SRCS) $(MAC_APPLE) $(METAL_LIBS) -o $@

run: deps
	@$(SUBMAKE) build-run
build-run: build-all
	$(BUILD)/rigtune tune --budget 60
	$(BUILD)/rigtune report -o results/$$(uname -n)-report.html

# tests/gpu_check.c: a plugin against the CPU backend (scripts/gpu-check.sh).
GPU_CHECK := $(BUILD)/tests/gpu_check

test: test-deps
	@$(SUBMAKE) build-test
# What a CLI script may run beside rigtune: the test plugins, fake vendor libraries,
# preloaded libraries, the benchmarks (test_check_cmd.sh runs bench_check) and the GPU
# checker (test_mac.sh makes the macOS cross-build itself). `make check` builds them too,
# so that one script alone never runs a stale benchmark.
TEST_AIDS := $(TEST_PLUGINS) $(TEST_FAKES) $(BENCH_LIBS) $(BENCH_BINS) $(GPU_CHECK)
build-test: build-all $(TEST_BINS) $(TEST_AIDS)
	@BUILD=$(BUILD) tests/run.sh

# One test alone (T=test_journal, T=journal, T=test_tune): its binary if it is a unit test.
check: test-deps
	@$(SUBMAKE) build-check
T_NAME = $(addprefix test_,$(patsubst test_%,%,$(basename $(notdir $(T)))))
build-check: build-all $(TEST_AIDS) $(filter $(addprefix $(BUILD)/tests/,$(T_NAME) $(T)),$(TEST_BINS))
	@test -n "$(T)" || { echo "make check: name the test, T=NAME (make check-fast runs a tier)"; exit 2; }
	@BUILD=$(BUILD) tests/run.sh $(T)
check-fast check-slow check-integration: test-deps
	@$(SUBMAKE) build-$@
build-check-fast build-check-slow build-check-integration: build-all $(TEST_BINS) $(TEST_AIDS)
	@BUILD=$(BUILD) tests/run.sh --tier $(patsubst build-check-%,%,$@)

# clang's UBSan also flags arithmetic on a NULL pointer, which gcc's does not.
ASAN_CC ?= $(if $(shell command -v clang 2>/dev/null),clang,$(CC))
# A trial over its memory cap must see malloc fail (cause memory), as without ASan,
# not have ASan's allocator abort the process.
asan: test-deps
	@ASAN_OPTIONS=$${ASAN_OPTIONS:+$$ASAN_OPTIONS:}allocator_may_return_null=1 \
		$(SUBMAKE) BUILD=build-asan SAN=address,undefined OPT=-O1 \
		CC=$(ASAN_CC) build-test

# Fuzzing with clang's libFuzzer: each fuzz/fuzz_NAME.c is a harness for one parser,
# run for SECONDS on its seeds (fuzz/seeds/NAME/); scripts/fuzz.sh prints the figures.
SECONDS ?= 60
FUZZ_BINS := $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard fuzz/fuzz_*.c))
fuzz: test-deps
	@$(SUBMAKE) BUILD=build-fuzz CC=clang OPT=-O1 \
		SAN=fuzzer-no-link,address,undefined build-fuzz
build-fuzz: $(FUZZ_BINS)
	@scripts/fuzz.sh $(SECONDS) $(FUZZ_BINS)
$(BUILD)/fuzz/%: fuzz/%.c $(BUILD)/librigtune.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer,address,undefined $< $(BUILD)/librigtune.a $(LDLIBS) -o $@

bench: deps
	@$(SUBMAKE) build-bench
build-bench: build-all $(BENCH_BINS) $(BENCH_LIBS)
	@for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done
	@echo "== bench/bench_advice.py"; /usr/bin/python3 bench/bench_advice.py

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.hip')

clean:
	rm -rf build build-asan build-fuzz build-mac

-include $(shell find $(BUILD) $(MAC) -name '*.d' 2>/dev/null)

# Files embedded with .incbin (RT_EMBED): rebuild when they change.
$(BUILD)/tuner/spaces.o $(MAC)/tuner/spaces.o: $(wildcard configs/space-*.yaml)
$(BUILD)/tuner/sweep/sweep_script.o $(MAC)/tuner/sweep/sweep_script.o: $(wildcard tuner/sweep/*_body.py)
