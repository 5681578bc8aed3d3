/*
 * The frameworks' device name of a plugin comes through the accelerator
 * probe's record (read from its table in the probe's child), and naming it
 * in a hint or a command's {device} loads no plugin into this process. Its
 * own binary: the loader's other tests load the fake plugin, which then
 * stays mapped (RTLD_NODELETE).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../tuner/backends.h"
#include "../tuner/hints.h"
#include "../workloads/loader.h"
#include "plugin_dir.h"

static int setup_path(void **state)
{
	(void)state;
	static char dir[1024];
	test_plugin_dir(dir, sizeof dir);
	setenv("RIGTUNE_FAKE_FRAMEWORK_DEVICE", "mps", 1);
	setenv("RIGTUNE_FAKE_UNIFIED", "1", 1);
	return setenv("RIGTUNE_BACKEND_PATH", dir, 1);
}

/* Whether this process has a file whose path holds part mapped. */
static int mapped(const char *part)
{
	char line[1024];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f))
		found |= strstr(line, part) != NULL;
	fclose(f);
	return found;
}

static const rt_accel *accel_of(const rt_machine *m, const char *backend)
{
	for (int i = 0; i < m->naccel; i++)
		if (!strcmp(m->accel[i].backend, backend))
			return &m->accel[i];
	fail_msg("no accelerator record for %s", backend);
	return NULL;
}

static void test_device_name_from_probe(void **state)
{
	(void)state;
	static rt_machine m;
	char dev[24];
	rt_backend_framework_device("fake", dev, sizeof dev);
	assert_string_equal(dev, "cuda"); /* not probed yet: PyTorch's default accelerator */
	rt_probe_accelerators(&m);
	const rt_accel *a = accel_of(&m, "fake");
	assert_true(a->available);
	assert_string_equal(a->framework_device, "mps");
	assert_int_equal(a->dev[0].unified_memory, 1);
	rt_backend_framework_device("fake", dev, sizeof dev);
	assert_string_equal(dev, "mps");
	rt_backend_framework_device("cpu", dev, sizeof dev);
	assert_string_equal(dev, "cpu");

	rt_point pt;
	rt_shape sh;
	rt_hints h;
	const rt_workload *w = rt_workload_find("ppo");
	rt_point_default(&pt);
	snprintf(pt.backend, sizeof pt.backend, "fake");
	pt.precision = RT_FP16;
	rt_shape_default(w, &sh);
	rt_hints_for(NULL, w, &pt, &sh, &h);
	int named = 0;
	for (int i = 0; i < h.fw[RT_FW_SB3].n; i++)
		named |= strstr(h.fw[RT_FW_SB3].line[i], "device='mps'") != NULL;
	assert_true(named);
	assert_false(mapped("librigtune_fake"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_name_from_probe),
	};
	return cmocka_run_group_tests(tests, setup_path, NULL);
}
