# The CUDA plugin, librigtune_cuda.so: built where nvcc is (CUDA_HOME, else PATH).
# Included by the Makefile with every workloads/*/plugin.mk; adds its name to
# PLUGINS_HERE (the loader knows it where it is not installed) and its library to
# PLUGINS where it can be built.
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA_SRCS := $(wildcard workloads/cuda/*.cu)
PLUGINS_HERE += cuda
ifneq ($(NVCC),)
PLUGINS += $(BUILD)/librigtune_cuda.so
endif

# CUDA 13 builds sm_75 (Turing) and newer: machine code for Turing, Ampere
# (sm_80, which also runs on sm_86/sm_89) and Hopper, plus compute_90 PTX that
# the driver compiles for anything newer (Blackwell) on first load.
NVCC_FLAGS := -O2 -std=c++20 -Xcompiler -fPIC,-Wall,-fvisibility=hidden \
	-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
$(BUILD)/librigtune_cuda.so: $(CUDA_SRCS) $(GPU_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -shared $(CUDA_SRCS) -o $@ -lcublas -lcublasLt -ldl

# The kernels (workloads/gpu/kernels.cuh and kernels_plain.cuh, shared with HIP) also run
# on a CPU, as C++ against a shim of CUDA's names (tests/cuda_emu.cpp, clang++): on every
# machine, tests/test_gpu_emu.c checks the fast kernels against the plain ones and both
# against the CPU reference, at warp widths 32 and 64.
# (Under UBSan without C++'s enum check: the ABI is C, where an rt_dtype may hold any int a
# caller passes, and the test checks that the kernels refuse an unknown one.)
CUDA_EMU_CXX ?= clang++
CUDA_EMU_SAN := -fsanitize=$(SAN) -fno-sanitize=function,vptr,enum -fno-sanitize-recover=all
$(BUILD)/tests/cuda_emu.o: tests/cuda_emu.cpp tests/cuda_emu.h tests/cuda_shim/cuda_emu_shim.h \
		$(GPU_DEPS)
	@mkdir -p $(@D)
	$(CUDA_EMU_CXX) $(OPT) -g -std=c++14 -fno-exceptions -fno-rtti -Wall -Wextra \
		$(if $(filter true,$(CI)),-Werror) -Itests/cuda_shim -pthread \
		$(if $(SAN),$(CUDA_EMU_SAN)) \
		-c $< -o $@
$(BUILD)/tests/test_gpu_emu: $(BUILD)/tests/test_gpu_emu.o $(BUILD)/tests/cuda_emu.o \
		$(BUILD)/librigtune.a
	$(CC) $(LDFLAGS) -rdynamic $^ $(CMOCKA_LIBS) $(LDLIBS) -o $@
