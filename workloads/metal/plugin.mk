# The Metal plugin, librigtune_metal.dylib (Apple Silicon): plain C through the
# Objective-C runtime, built on a Mac by its cc; make test cross-builds it on Linux
# (the Makefile's macOS part). Included by the Makefile with every
# workloads/*/plugin.mk (see workloads/cuda/plugin.mk); only a Mac knows its name.
METAL_SRCS := $(wildcard workloads/metal/*.c)
# It takes the CPU reference kernels from the binary, which exports them.
METAL_FLAGS := -O2 -std=c11 -Wall -Wextra -fPIC -shared -undefined dynamic_lookup \
	-fvisibility=hidden
ifeq ($(UNAME),Darwin)
PLUGINS_HERE += metal
PLUGINS += $(BUILD)/librigtune_metal.dylib
endif
$(BUILD)/librigtune_metal.dylib: $(METAL_SRCS) $(GPU_DEPS)
	@mkdir -p $(@D)
	$(CC) $(METAL_FLAGS) $(if $(filter true,$(CI)),-Werror) $(METAL_SRCS) -o $@
