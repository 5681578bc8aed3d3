/*
 * loader.h: finding a backend by name.
 *
 * The CPU backend is linked in; every other backend is a plugin,
 * librigtune_<name>.so, loaded with dlopen(RTLD_NOW | RTLD_LOCAL) from the
 * directories in $RIGTUNE_BACKEND_PATH (colon-separated) if it is set, else
 * from the directory of the running binary. A plugin that is missing, cannot
 * be loaded, lacks RT_BACKEND_SYMBOL, was built for another ABI or has an
 * incomplete table is RT_EUNAVAIL with a one-line reason, never a crash; the
 * library is closed again on every failure path.
 *
 * Loading a plugin does not initialize it: the caller calls ops->init().
 */
#ifndef RT_LOADER_H
#define RT_LOADER_H

#include <stddef.h>

#include "backend.h"

/* The backends rigtune knows, in the order it tries them. */
#define RT_NBACKENDS 3
extern const char *const rt_backend_names[RT_NBACKENDS];

/* 1 if name is one of rt_backend_names. */
int rt_backend_known(const char *name);

/*
 * Loads librigtune_<name>.so and checks its table. On success *ops is the
 * table and *handle the library, to be passed to rt_backend_unload() once
 * the table is no longer used. name is [a-z0-9_]+ (RT_EINVAL otherwise).
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

#endif
