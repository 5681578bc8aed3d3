/* Backend plugins: dlopen, symbol lookup, ABI and table checks (loader.h). */
#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/platform.h"
#include "cpu_backend.h"

#define PLUGIN_PREFIX "librigtune_"
#define PLUGIN_SUFFIX RT_DYLIB_SUFFIX

/*
 * The plugins built from this tree (a folder workloads/NAME with a
 * backend.cu or backend.hip): known where they are not installed, so that
 * asking for one says why it is unavailable. The Makefile derives the list
 * from those folders (RT_PLUGINS_HERE: "cuda", "hip",); a plugin from
 * elsewhere needs no line anywhere: it is known once it is in a plugin
 * directory, and its table carries everything else about it.
 */
#ifndef RT_PLUGINS_HERE
#define RT_PLUGINS_HERE
#endif
static const char *const built_here[] = {RT_PLUGINS_HERE NULL};

/* The operations a table must provide; utilization and last_error are optional. */
static const struct {
	const char *name;
	size_t offset;
} mandatory_ops[] = {
#define OP(f) { #f, offsetof(rt_backend_ops, f) }
	OP(init), OP(device_info), OP(open), OP(close), OP(alloc), OP(free),
	OP(upload), OP(download), OP(synchronize), OP(mem_info), OP(gemm),
	OP(gemm_batched), OP(fill), OP(axpby), OP(add_bias), OP(sum_rows),
	OP(gelu), OP(gelu_backward), OP(tanh_fwd), OP(tanh_backward),
	OP(softmax), OP(softmax_backward), OP(layernorm), OP(layernorm_backward),
	OP(mse_loss), OP(adam),
#undef OP
};

/* Plugin names become file names and point fields: [a-z0-9_], 1..15 characters. */
static int valid_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= RT_BACKEND_NAMELEN)
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/*
 * Writes the directory of the running binary into dir (no trailing slash).
 * Returns 0, or -1 if the system does not say where it is.
 */
static int exe_dir(char *dir, size_t len)
{
	char path[PATH_MAX];
	if (rt_plat_exe_path(path, sizeof path))
		return -1;
	char *slash = strrchr(path, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(dir, len, "%s", path[0] ? path : "/");
	return 0;
}

/* The plugin directories: $RIGTUNE_BACKEND_PATH, else the binary's. -1 if neither. */
static int plugin_dirs(char *dirs, size_t len)
{
	const char *env = getenv("RIGTUNE_BACKEND_PATH");
	if (env && *env) {
		snprintf(dirs, len, "%s", env);
		return 0;
	}
	return exe_dir(dirs, len);
}

/*
 * The next directory of the colon-separated list at *p into *dir and *n,
 * *p moved past it; 0 at the end. Empty entries and relative ones are
 * skipped: a relative directory (".", "lib") is wherever rigtune happens to
 * be run, and dlopen runs the constructors of what it finds there.
 */
static int next_dir(const char **p, const char **dir, size_t *n)
{
	while (**p) {
		*dir = *p;
		*n = strcspn(*p, ":");
		*p += *n + ((*p)[*n] == ':');
		if (**dir == '/')
			return 1;
	}
	return 0;
}

/* Whether the list has a relative entry, which next_dir skips. */
static int has_relative(const char *dirs)
{
	for (const char *p = dirs; *p;) {
		size_t n = strcspn(p, ":");
		if (n && *p != '/')
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

/* Adds name to names[0..*n) unless it is there or there is no room. */
static void add_name(char (*names)[RT_BACKEND_NAMELEN], int cap, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return;
	if (*n < cap)
		snprintf(names[(*n)++], RT_BACKEND_NAMELEN, "%s", name);
}

/* The backend name of a plugin file librigtune_NAME.so into name; 0, or -1 for any other file. */
static int plugin_name(const char *file, char *name, size_t len)
{
	size_t n = strlen(file), pre = strlen(PLUGIN_PREFIX), suf = strlen(PLUGIN_SUFFIX);
	if (n <= pre + suf || strncmp(file, PLUGIN_PREFIX, pre) ||
	    strcmp(file + n - suf, PLUGIN_SUFFIX) || n - pre - suf >= len)
		return -1;
	snprintf(name, len, "%.*s", (int)(n - pre - suf), file + pre);
	return valid_name(name) ? 0 : -1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Adds the plugins of directory dir (n bytes of a list) to names, in name order. */
static void scan_dir(const char *dir, size_t n, char (*names)[RT_BACKEND_NAMELEN], int cap,
		     int *count)
{
	char path[PATH_MAX], found[RT_MAX_BACKENDS][RT_BACKEND_NAMELEN];
	int nfound = 0;
	snprintf(path, sizeof path, "%.*s", (int)n, dir);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) && nfound < RT_MAX_BACKENDS)
		if (plugin_name(de->d_name, found[nfound], RT_BACKEND_NAMELEN) == 0)
			nfound++;
	closedir(d);
	qsort(found, (size_t)nfound, sizeof found[0], cmp_name);
	for (int i = 0; i < nfound; i++)
		add_name(names, cap, count, found[i]);
}

int rt_backend_list(char (*names)[RT_BACKEND_NAMELEN], int cap)
{
	char dirs[PATH_MAX];
	int n = 0;
	add_name(names, cap, &n, RT_HOST_BACKEND);
	for (size_t i = 0; built_here[i]; i++)
		add_name(names, cap, &n, built_here[i]);
	if (plugin_dirs(dirs, sizeof dirs))
		return n;
	const char *p = dirs, *dir;
	size_t len;
	while (next_dir(&p, &dir, &len))
		scan_dir(dir, len, names, cap, &n);
	return n;
}

int rt_backend_known(const char *name)
{
	char names[RT_MAX_BACKENDS][RT_BACKEND_NAMELEN];
	int n = rt_backend_list(names, RT_MAX_BACKENDS);
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

void rt_backend_names(char *buf, size_t len)
{
	char names[RT_MAX_BACKENDS][RT_BACKEND_NAMELEN];
	int n = rt_backend_list(names, RT_MAX_BACKENDS);
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++)
		rt_list_append(buf, len, ", ", names[i]);
}

/*
 * Finds file in the directories of the colon-separated list dirs (next_dir)
 * and writes the first existing path into out. Returns 0, or -1 if no
 * directory has it.
 */
static int search_path(const char *dirs, const char *file, char *out, size_t len)
{
	const char *p = dirs, *dir;
	size_t n;
	while (next_dir(&p, &dir, &n)) {
		snprintf(out, len, "%.*s/%s", (int)n, dir, file);
		if (access(out, F_OK) == 0)
			return 0;
	}
	return -1;
}

/*
 * dlerror() often starts with the path we passed; drop it, the caller's
 * message already names the plugin.
 */
static const char *dl_reason(const char *path)
{
	const char *e = dlerror();
	size_t n = strlen(path);
	if (!e)
		return "unknown dlopen error";
	if (strncmp(e, path, n) == 0 && e[n] == ':' && e[n + 1] == ' ')
		return e + n + 2;
	return e;
}

/*
 * Checks a table returned by a plugin: ABI first (nothing else may be read
 * from a table of another ABI), then the name, that it is a device, and the
 * mandatory operations.
 */
static int check_table(const rt_backend_ops *ops, const char *name, const char *file,
		       char *err, size_t errlen)
{
	if (!ops)
		return rt_fail(err, errlen, RT_EUNAVAIL, "%s: %s() returned no table", file,
			       RT_BACKEND_SYMBOL);
	if (ops->abi != RT_BACKEND_ABI)
		return rt_fail(err, errlen, RT_EUNAVAIL, "%s: ABI %u, expected %d", file,
			       ops->abi, RT_BACKEND_ABI);
	if (!ops->name || strcmp(ops->name, name) != 0)
		return rt_fail(err, errlen, RT_EUNAVAIL, "%s: backend calls itself '%s'", file,
			       ops->name ? ops->name : "(null)");
	if (ops->host)
		return rt_fail(err, errlen, RT_EUNAVAIL, "%s: a plugin is a device, not the host",
			       file);
	for (size_t i = 0; i < RT_COUNT(mandatory_ops); i++) {
		void *fn;
		memcpy(&fn, (const char *)ops + mandatory_ops[i].offset, sizeof fn);
		if (!fn)
			return rt_fail(err, errlen, RT_EUNAVAIL, "%s: no operation %s", file,
				       mandatory_ops[i].name);
	}
	return 0;
}

int rt_backend_load(const char *name, const rt_backend_ops **ops, void **handle,
		    char *err, size_t errlen)
{
	char file[64], dirs[PATH_MAX], path[PATH_MAX];

	*ops = NULL;
	*handle = NULL;
	if (!valid_name(name))
		return rt_fail(err, errlen, RT_EINVAL, "bad backend name '%s'", name);
	snprintf(file, sizeof file, PLUGIN_PREFIX "%s" PLUGIN_SUFFIX, name);
	if (plugin_dirs(dirs, sizeof dirs) != 0)
		return rt_fail(err, errlen, RT_EUNAVAIL,
			       "%s: cannot find the binary's directory", file);
	if (search_path(dirs, file, path, sizeof path) != 0)
		return rt_fail(err, errlen, RT_EUNAVAIL, "%s: not found in %s%s", file, dirs,
			       has_relative(dirs) ? " (relative directories are ignored: give "
						    "RIGTUNE_BACKEND_PATH absolute ones)"
						  : "");

	/*
	 * RTLD_NODELETE: a GPU runtime (cudart, libstdc++ under it) is not made
	 * to be unloaded; keeping the code mapped after dlclose also lets leak
	 * checkers see the runtime's static allocations as reachable.
	 */
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!lib)
		return rt_fail(err, errlen, RT_EUNAVAIL, "%s: %s", file, dl_reason(path));
	dlerror();
	void *sym = dlsym(lib, RT_BACKEND_SYMBOL);
	if (!sym) {
		dlclose(lib);
		return rt_fail(err, errlen, RT_EUNAVAIL, "%s: no symbol %s", file,
			       RT_BACKEND_SYMBOL);
	}
	const rt_backend_ops *table = ((rt_backend_entry_fn)sym)();
	int rc = check_table(table, name, file, err, errlen);
	if (rc != 0) {
		dlclose(lib);
		return rc;
	}
	*ops = table;
	*handle = lib;
	return 0;
}

void rt_backend_unload(void *handle)
{
	if (handle)
		dlclose(handle);
}

int rt_backend_get(const char *name, const rt_backend_ops **ops, void **handle,
		   char *err, size_t errlen)
{
	if (rt_backend_on_host(name)) {
		*ops = rt_cpu_backend();
		*handle = NULL;
		return 0;
	}
	return rt_backend_load(name, ops, handle, err, errlen);
}

/*
 * The frameworks' device names the accelerator probe read from the plugins'
 * tables in its children, so that a hint or a command's {device} never
 * loads a plugin (and its vendor libraries) into rigtune's own process.
 */
static struct {
	char name[RT_BACKEND_NAMELEN];
	char device[RT_BACKEND_NAMELEN];
} noted[RT_MAX_BACKENDS];
static int nnoted;

void rt_backend_note_framework_device(const char *name, const char *device)
{
	int i = 0;
	while (i < nnoted && strcmp(noted[i].name, name))
		i++;
	if (i == RT_MAX_BACKENDS)
		return;
	nnoted += i == nnoted;
	snprintf(noted[i].name, sizeof noted[i].name, "%.*s", RT_BACKEND_NAMELEN - 1, name);
	snprintf(noted[i].device, sizeof noted[i].device, "%.*s", RT_BACKEND_NAMELEN - 1,
		 device);
}

void rt_backend_framework_device(const char *name, char *buf, size_t len)
{
	const char *device = "cuda";
	if (rt_backend_on_host(name))
		device = rt_cpu_backend()->framework_device;
	for (int i = 0; i < nnoted; i++)
		if (!strcmp(noted[i].name, name))
			device = noted[i].device;
	snprintf(buf, len, "%s", device);
}
