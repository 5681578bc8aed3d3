# The HIP plugin, librigtune_hip.so: built where hipcc is on PATH. Included by the
# Makefile with every workloads/*/plugin.mk (see workloads/cuda/plugin.mk).
HIPCC ?= $(shell command -v hipcc 2>/dev/null)
HIP_SRCS := $(wildcard workloads/hip/*.hip)
PLUGINS_HERE += hip
ifneq ($(HIPCC),)
PLUGINS += $(BUILD)/librigtune_hip.so
endif

# hipcc builds only for the targets its device libraries know: of RX 7900
# (gfx1100), MI300 (gfx942), MI200 (gfx90a), MI100 (gfx908) and RX 6000
# (gfx1030), keep those it accepts (Debian's ROCm 5.2 lacks gfx1100/gfx942).
HIP_ARCHS ?= gfx1100 gfx942 gfx90a gfx908 gfx1030
HIP_OFFLOAD = $(foreach a,$(HIP_ARCHS),$(shell $(HIPCC) -x hip --offload-arch=$(a) \
	-c /dev/null -o /dev/null >/dev/null 2>&1 && echo --offload-arch=$(a)))
HIP_FLAGS := -O2 -fPIC -std=c++20 -Wall -fvisibility=hidden
$(BUILD)/librigtune_hip.so: $(HIP_SRCS) $(GPU_DEPS)
	@mkdir -p $(@D)
	$(HIPCC) $(HIP_FLAGS) $(HIP_OFFLOAD) -shared -x hip $(HIP_SRCS) -o $@ -ldl
