# The Metal plugin, librigtune_metal.dylib (Apple Silicon): plain C through the
# Objective-C runtime, built on a Mac by its cc; make test cross-builds it on Linux
# (the Makefile's macOS part). Included by the Makefile with every
# workloads/*/plugin.mk (see workloads/cuda/plugin.mk); only a Mac knows its name.
# With the device monitor's shared part and IOReport's file (workloads/devmon.h).
METAL_SRCS := $(wildcard workloads/metal/*.c) workloads/devmon.c workloads/devmon_ioreport.c
# What the build reads beside them: the headers, and the kernels' source (kernels.metal,
# after args.h), which metal.c embeds (RT_EMBED) and compiles on the Mac at run time.
METAL_DEPS := $(METAL_SRCS) $(wildcard workloads/metal/*.h workloads/metal/*.metal) \
	workloads/devmon.h workloads/devmon_ioreport.h workloads/host_abi.h
# It links what it calls (CoreGraphics too: without it a command-line tool may get no default
# Metal device, Apple's MTLCreateSystemDefaultDevice says) and no symbol is left open: the
# binary's CPU backend it looks up at run time. macOS 14 is the oldest it builds for.
METAL_FLAGS := -O2 -std=c11 -Wall -Wextra -fPIC -shared -fvisibility=hidden
METAL_LIBS := -framework Metal -framework MetalPerformanceShaders -framework Foundation \
	-framework CoreGraphics -lobjc
ifeq ($(UNAME),Darwin)
PLUGINS_HERE += metal
PLUGINS += $(BUILD)/librigtune_metal.dylib
endif
$(BUILD)/librigtune_metal.dylib: $(METAL_DEPS) $(GPU_DEPS)
	@mkdir -p $(@D)
	$(CC) $(METAL_FLAGS) $(MACOS_MIN) $(if $(filter true,$(CI)),-Werror) $(METAL_SRCS) \
		$(METAL_LIBS) -o $@
# Its host logic needs no Mac (plan.c), and its kernels run on a CPU as C++ against a shim
# of Metal's names (tests/metal_emu.cpp, clang++): tests/test_metal_host.c links both on every
# machine and checks each plan, run through the kernels, against the CPU reference. (Under
# UBSan without the checks that need C++'s type information: the test links as C.)
METAL_EMU_CXX ?= clang++
METAL_EMU_SAN := -fsanitize=$(SAN) -fno-sanitize=function,vptr -fno-sanitize-recover=all
$(BUILD)/tests/metal_emu.o: tests/metal_emu.cpp tests/metal_emu.h tests/metal_shim/metal_stdlib \
		$(METAL_DEPS)
	@mkdir -p $(@D)
	$(METAL_EMU_CXX) $(OPT) -g -std=c++14 -fno-exceptions -fno-rtti -Wall -Wextra \
		$(if $(filter true,$(CI)),-Werror) -Wno-unknown-attributes -Itests/metal_shim -pthread \
		$(if $(SAN),$(METAL_EMU_SAN)) \
		-c $< -o $@
# (its own link line: the objects before the library whose barrier metal_emu.o calls)
$(BUILD)/tests/test_metal_host: $(BUILD)/tests/test_metal_host.o $(BUILD)/workloads/metal/plan.o \
		$(BUILD)/tests/metal_emu.o $(BUILD)/librigtune.a
	$(CC) $(LDFLAGS) -rdynamic $^ $(CMOCKA_LIBS) $(LDLIBS) -o $@
