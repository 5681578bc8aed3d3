/*
 * loader.h: finding a backend by name.
 *
 * The CPU backend is linked in; every other backend is a plugin,
 * librigtune_<name>.so, loaded with dlopen(RTLD_NOW | RTLD_LOCAL) from the
 * directories in $RIGTUNE_BACKEND_PATH (colon-separated) if it is set, else
 * from the directory of the running binary. Only absolute directories of
 * the variable count: a relative one is wherever rigtune is run, and would
 * load code from there (a "not found" message says it was ignored). A plugin that is missing, cannot
 * be loaded, lacks RT_BACKEND_SYMBOL, was built for another ABI or has an
 * incomplete table is RT_EUNAVAIL with a one-line reason, never a crash; the
 * library is closed again on every failure path.
 *
 * The backends are discovered, not listed: every librigtune_<name>.so in
 * those directories is one (hwloc-components style), so a plugin arrives by
 * being copied there. The plugins this tree builds (cuda, hip) are known
 * even where they are not installed, so that asking for one says why it is
 * unavailable instead of calling it a typo.
 *
 * Loading a plugin does not initialize it: the caller calls ops->init().
 */
#ifndef RT_LOADER_H
#define RT_LOADER_H

#include <stddef.h>

#include "backend.h"

/*
 * Most backends rigtune tells apart at once, and the room for a name with
 * its NUL (as rt_point's backend holds it).
 */
#define RT_MAX_BACKENDS 16
#define RT_BACKEND_NAMELEN 16

/*
 * The backends rigtune knows, in the order it tries them: "cpu", the
 * plugins this tree builds, then those found in the plugin directories (in
 * name order), each once. Writes up to cap names; returns how many.
 */
int rt_backend_list(char (*names)[RT_BACKEND_NAMELEN], int cap);

/* 1 if name is one of rt_backend_list's. */
int rt_backend_known(const char *name);

/* "cpu, cuda, hip": rt_backend_list's names, cut to fit len. */
void rt_backend_names(char *buf, size_t len);

/*
 * Loads librigtune_<name>.so and checks its table. On success *ops is the
 * table and *handle the library, to be passed to rt_backend_unload() once
 * the table is no longer used. name is [a-z0-9_]{1,15} (RT_EINVAL otherwise).
 */
int rt_backend_load(const char *name, const rt_backend_ops **ops, void **handle,
		    char *err, size_t errlen);

/* Closes a library from rt_backend_load(); NULL is allowed (the CPU backend). */
void rt_backend_unload(void *handle);

/*
 * The backend called name: the linked-in table for "cpu" (with *handle set
 * to NULL), a plugin loaded by rt_backend_load() for any other name.
 */
int rt_backend_get(const char *name, const rt_backend_ops **ops, void **handle,
		   char *err, size_t errlen);

/*
 * The frameworks' name for the devices of the backend called name (its
 * table's framework_device), for code outside workloads/ that must not
 * compare backend names (whether it is the host's: rt_backend_on_host,
 * backend.h): the linked-in table's for the host; for a plugin, what the
 * accelerator probe noted (rt_backend_note_framework_device), never loading
 * it here. One not probed in this process (a configuration read on another
 * machine), or whose table names none, is taken as PyTorch's default
 * accelerator, "cuda".
 */
void rt_backend_framework_device(const char *name, char *buf, size_t len);

/* Notes device as the framework device of backend name (the probe's record of its table). */
void rt_backend_note_framework_device(const char *name, const char *device);

#endif
