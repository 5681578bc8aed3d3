/*
 * backends.h: a backend by name, for the trial child and the probe: "cpu" is
 * the linked-in CPU backend, any other name is a plugin (workloads/loader.c).
 */
#ifndef RT_BACKENDS_H
#define RT_BACKENDS_H

#include "../workloads/backend.h"

/*
 * Loads and init()s backend `name` and checks that device `dev` exists.
 * *handle is the plugin handle (NULL for cpu), for rt_backend_close_named.
 * RT_EUNAVAIL with the reason when the backend or device is not there.
 */
int rt_backend_open_named(const char *name, int dev, const rt_backend_ops **ops,
			  void **handle, char *err, size_t errlen);
void rt_backend_close_named(void *handle);

#include "machine.h"

/*
 * Fills m->accel with the devices of every backend rt_backend_list() knows
 * (the first RT_MAX_ACCEL), or the reason it has none. Each backend is probed in a forked
 * child of its own, so that no GPU runtime is ever initialized in the calling process (CUDA
 * does not survive a fork) and one that crashes or hangs costs only its own devices.
 */
void rt_probe_accelerators(rt_machine *m);

#endif
