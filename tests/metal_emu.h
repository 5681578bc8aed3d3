/*
 * metal_emu.h: the Metal kernels run on the CPU (tests/metal_emu.cpp), for
 * tests/test_metal_host.c: a plan's launches as Metal would run them, each
 * threadgroup's MTL_GROUP threads as threads with a barrier.
 */
#ifndef RT_TESTS_METAL_EMU_H
#define RT_TESTS_METAL_EMU_H

#include "../workloads/metal/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Runs p's launches in order: 0, or RT_ERUNTIME without the memory or the
 * barrier of a launch (a thread that cannot start aborts: its group's
 * other threads would wait at its barrier for ever).
 */
int mtl_emulate(const mtl_plan *p);

/* x through the emulated bfloat and back: what an Apple GPU's bfloat(x) holds. */
float mtl_emu_bfloat(float x);

#ifdef __cplusplus
}
#endif

#endif
