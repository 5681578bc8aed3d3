/*
 * Any YAML as a baseline's machine for check's diff: the screen (aliases,
 * depth, size), libyaml's load with its errors placed, the machine reader
 * (rt_machine_read) and the bounded walk (never more than
 * RT_MDIFF_MAX_ENTRIES fields), diffed against a fixed machine both ways
 * and against itself.
 */
#include "../tuner/check/machdiff.h"
#include "fuzz.h"

static const char machine[] = "cpu: {model: X, arch: x86_64, cores: 4, pus: 8,\n"
			      "  numa_nodes: [{node: 0, memory_gib: 15.5}]}\n"
			      "memory_gib: {total: 15.5}\n"
			      "accelerators: [{backend: cuda, available: true,\n"
			      "  devices: [{index: 0, name: A}]}]\n";

static void diff(const rt_machine *a, const rt_machine *b)
{
	rt_mdiff d;
	int rc = rt_mdiff_compute(a, b, &d);
	if (rc == 0 && d.n > RT_MDIFF_MAX_ENTRIES)
		abort();
	rt_mdiff_free(&d);
}

/* The machine of text, 0 when it is one. */
static int read_machine(const char *name, const char *text, size_t len, rt_machine *m)
{
	char err[512];
	rt_yr r;
	if (rt_yr_load(&r, name, text, len, err, sizeof err))
		return -1;
	static rt_machine_said said; /* read too: the derived values a page shows */
	int rc = rt_machine_read(&r, rt_yr_root(&r), m, &said);
	rt_yr_free(&r);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static rt_machine in, fixed;
	if (read_machine("machine", machine, sizeof machine - 1, &fixed))
		abort();
	if (read_machine("input", (const char *)data, size, &in) == 0) {
		diff(&in, &fixed);
		diff(&fixed, &in);
		diff(&in, &in);
	}
	return 0;
}
