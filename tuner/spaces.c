/*
 * spaces.c: the default search spaces of configs/space-<workload>.yaml,
 * embedded in the binary (.incbin, so configs/ stays the one source) for
 * every workload of workloads/registry.h, and loading a workload's space
 * from them or from a --space file.
 */
#include "spaces.h"

#include <stdio.h>
#include <string.h>

#include "../common/platform.h"
#include "../common/rt.h"
#include "spacefile.h"

#define RT_WORKLOAD(name)                                                    \
	RT_EMBED(rt_space_yaml_##name, "configs/space-" #name ".yaml");        \
	extern const char rt_space_yaml_##name[];
#include "../workloads/registry.h"
#undef RT_WORKLOAD

static const struct {
	const char *workload;
	const char *text;
} defaults[] = {
#define RT_WORKLOAD(name) {#name, rt_space_yaml_##name},
#include "../workloads/registry.h"
#undef RT_WORKLOAD
};

/* The embedded configs/space-<workload>.yaml text, or NULL. */
static const char *default_space_text(const char *workload)
{
	for (size_t i = 0; i < RT_COUNT(defaults); i++)
		if (!strcmp(defaults[i].workload, workload))
			return defaults[i].text;
	return NULL;
}

int rt_space_for(const rt_workload *w, const char *space_file, long usable_cores,
		 rt_space **out, char *err, size_t errlen)
{
	char named[64] = "";
	int rc;
	if (space_file) {
		rc = rt_spacefile_load(space_file, w, usable_cores, out, named, sizeof named, err,
				       errlen);
		if (rc == RT_EIO) /* a --space file that cannot be read is bad input */
			rc = RT_EINVAL;
		if (rc == RT_OK && named[0] && strcmp(named, w->name)) {
			rt_space_destroy(*out);
			*out = NULL;
			rc = rt_fail(err, errlen, RT_EINVAL,
				     "%s: the space is for workload '%s', not '%s'", space_file,
				     named, w->name);
		}
		return rc;
	}
	const char *text = default_space_text(w->name);
	if (!text)
		return rt_fail(err, errlen, RT_EINVAL, "no default space for workload '%s'",
			       w->name);
	char name[64];
	snprintf(name, sizeof name, "<default %s space>", w->name);
	rc = rt_spacefile_parse(text, strlen(text), name, w, usable_cores, out, named, sizeof named,
				err, errlen);
	int perf, eff;
	int hybrid = rt_plat_core_kinds(&perf, &eff) == 0 && perf > 0 && eff > 0;
	if (rc == RT_OK && (rc = rt_space_steer_pins(*out, rt_plat_can_bind(), hybrid, err, errlen))) {
		rt_space_destroy(*out);
		*out = NULL;
	}
	return rc;
}

int rt_space_steer_pins(rt_space *s, int can_bind, int hybrid, char *err, size_t errlen)
{
	static const char *const steered[] = {"pcores", "ecores", "none"};
	int p = rt_space_find(s, "pin");
	if (can_bind || p < 0)
		return RT_OK;
	return hybrid ? rt_space_set_categorical(s, p, steered, 3, err, errlen)
		      : rt_space_set_categorical(s, p, steered + 2, 1, err, errlen);
}
