/*
 * The device monitor's parts that need no device: IOReport's arithmetic
 * (workloads/devmon_ioreport.h) over the delta samples in
 * tests/data/ioreport/ (constructed, not recorded: its README says how),
 * the whole IOReport monitor (subscription, samples, deltas, releases)
 * against a stand-in of libIOReport and CoreFoundation
 * (tests/fakes/ioreport.c), the table's reasons when no vendor finds a
 * device, and the samples' batch. NVML's and ROCm SMI's monitors over
 * their fakes are in tests/test_gpu_host.c.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "../common/rt.h"
#include "../workloads/devmon.h"
#include "../workloads/devmon_ioreport.h"

#define MAX_CHANNELS 16

/*
 * Reads tests/data/ioreport/NAME ("channel: G | S | N", then "STATE
 * RESIDENCY" lines) into ch; how many channels. A line that is neither
 * fails the test with its file and line.
 */
static int read_sample(const char *name, rt_ior_channel *ch)
{
	char path[256], line[256];
	snprintf(path, sizeof path, "tests/data/ioreport/%s", name);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: cannot open", path);
	int n = 0, lineno = 0;
	memset(ch, 0, MAX_CHANNELS * sizeof *ch);
	while (fgets(line, sizeof line, f)) {
		rt_ior_channel *c = n ? &ch[n - 1] : NULL;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!strncmp(line, "channel: ", 9) && n < MAX_CHANNELS) {
			c = &ch[n++];
			if (sscanf(line + 9, "%63[^|]| %63[^|]| %63[^\n]", c->group, c->subgroup,
			           c->name) != 3)
				fail_msg("%s:%d: a channel is 'channel: G | S | N'", path, lineno);
			c->group[strcspn(c->group, "\n")] = '\0';
			for (char *e = c->group + strlen(c->group); e > c->group && e[-1] == ' ';)
				*--e = '\0';
			for (char *e = c->subgroup + strlen(c->subgroup);
			     e > c->subgroup && e[-1] == ' ';)
				*--e = '\0';
		} else if (c && c->nstates < RT_IOR_MAX_STATES &&
		           sscanf(line, "%63s %lld", c->state[c->nstates].name,
		                  &c->state[c->nstates].residency) == 2) {
			c->nstates++;
		} else {
			fail_msg("%s:%d: not a channel or a state: %s", path, lineno, line);
		}
	}
	fclose(f);
	return n;
}

static void test_state_names(void **state)
{
	(void)state;
	assert_false(rt_ioreport_state_active("OFF"));
	assert_false(rt_ioreport_state_active("IDLE"));
	assert_false(rt_ioreport_state_active("DOWN"));
	assert_true(rt_ioreport_state_active("P1"));
	assert_true(rt_ioreport_state_active("P15"));
	assert_true(rt_ioreport_state_active("V0P1"));
	assert_true(rt_ioreport_state_active("off")); /* IOReport's names are upper case */
}

/* Busy 30%, 0 and (all but one tick of IDLE) 1: GPUPH of the GPU's subgroup, no other channel. */
static void test_gpu_busy(void **state)
{
	(void)state;
	rt_ior_channel ch[MAX_CHANNELS];
	char why[RT_ERRLEN] = "";
	double busy = -1;
	int n = read_sample("gpu-busy30.txt", ch);
	assert_int_equal(n, 4);
	assert_string_equal(ch[2].subgroup, "GPU Performance States");
	assert_int_equal(rt_ioreport_gpu_busy(ch, n, &busy, why, sizeof why), RT_OK);
	assert_float_equal(busy, 0.3, 1e-12);
	n = read_sample("gpu-idle.txt", ch);
	assert_int_equal(rt_ioreport_gpu_busy(ch, n, &busy, why, sizeof why), RT_OK);
	assert_true(busy == 0);
	n = read_sample("gpu-full.txt", ch);
	assert_int_equal(rt_ioreport_gpu_busy(ch, n, &busy, why, sizeof why), RT_OK);
	assert_float_equal(busy, 999999.0 / 1000000.0, 1e-12);
}

/* What is not a GPU's sample says so, and why. */
static void test_gpu_busy_unavailable(void **state)
{
	(void)state;
	rt_ior_channel ch[MAX_CHANNELS];
	char why[RT_ERRLEN] = "";
	double busy = -1;
	int n = read_sample("no-gpu.txt", ch);
	assert_int_equal(rt_ioreport_gpu_busy(ch, n, &busy, why, sizeof why), RT_EUNAVAIL);
	assert_string_equal(why,
	                    "IOReport: no channel GPUPH in GPU Stats / GPU Performance States");
	n = read_sample("gpu-empty.txt", ch);
	assert_int_equal(rt_ioreport_gpu_busy(ch, n, &busy, why, sizeof why), RT_EUNAVAIL);
	assert_string_equal(why, "IOReport: GPUPH has no residency");
	n = read_sample("gpu-negative.txt", ch);
	assert_int_equal(rt_ioreport_gpu_busy(ch, n, &busy, why, sizeof why), RT_EUNAVAIL);
	assert_string_equal(why, "IOReport: GPUPH state P1 has residency -20");
	assert_true(busy == -1);
	assert_int_equal(rt_ioreport_gpu_busy(ch, 0, &busy, NULL, 0), RT_EUNAVAIL);
}

/* No vendor finds a device: each one's reason, in the table's order. */
static void test_no_monitor(void **state)
{
	(void)state;
	char why[RT_ERRLEN] = "";
	setenv("RIGTUNE_NVML", "/nonexistent/libnvml.so", 1);
	setenv("RIGTUNE_ROCM_SMI", "/nonexistent/librsmi.so", 1);
	assert_null(rt_devmon_open_any(why, sizeof why));
	assert_non_null(strstr(why, "NVML: /nonexistent/libnvml.so: cannot open"));
	assert_non_null(strstr(why, "; ROCm SMI: /nonexistent/librsmi.so: cannot open"));
	assert_string_equal(rt_devmon_label(NULL), "none");
	assert_int_equal(rt_devmon_ndevices(NULL), 0);
	rt_devmon_close(NULL);
	unsetenv("RIGTUNE_NVML");
	unsetenv("RIGTUNE_ROCM_SMI");
}

/* The stand-in of IOReport and CoreFoundation, loaded for both. */
static void *use_fake_ioreport(const char *script)
{
	static char path[1100];
	const char *build = getenv("BUILD_DIR");
	snprintf(path, sizeof path, "%s/tests/fakes/libioreport_fake.so",
	         build && *build ? build : "build");
	setenv("RIGTUNE_IOREPORT", path, 1);
	setenv("RIGTUNE_COREFOUNDATION", path, 1);
	setenv("RIGTUNE_FAKE_IOREPORT", script, 1);
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		fail_msg("%s", dlerror());
	return lib;
}

static void pause_ms(long ms)
{
	struct timespec t = {0, ms * 1000000};
	nanosleep(&t, NULL);
}

/*
 * The IOReport monitor as the Metal plugin reads it: the first call opens
 * it (no sample yet), the next reads the GPU's busy share since, from the
 * delta of two samples; watch's poll; every object it was handed is
 * released at close.
 */
static void test_ioreport_monitor(void **state)
{
	(void)state;
	char why[RT_ERRLEN] = "";
	void *lib = use_fake_ioreport("busy=0.3");
	int *live = dlsym(lib, "fake_ioreport_live");
	assert_non_null(live);
	rt_devmon *m = NULL;
	int failed = 0;
	double busy = -1;
	assert_int_equal(
	    rt_devmon_utilization(&m, &failed, &rt_devmon_ioreport, NULL, &busy, why, sizeof why),
	    RT_EUNAVAIL);
	assert_string_equal(why, "the monitor's window starts now");
	assert_int_equal(rt_devmon_ndevices(m), 1);
	assert_string_equal(rt_devmon_label(m), "IOReport");
	pause_ms(20);
	assert_int_equal(
	    rt_devmon_utilization(&m, &failed, &rt_devmon_ioreport, NULL, &busy, why, sizeof why),
	    RT_OK);
	assert_float_equal(busy, 0.3, 1e-6);
	/* watch's poll: one sample per poll, its window the time since the one before */
	rt_dev_batch b = {NULL, 0, 0};
	pause_ms(20);
	assert_int_equal(rt_devmon_poll(m, &b), RT_OK);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.s[0].kind, RT_DEV_DEVICE);
	assert_int_equal(b.s[0].device, 0);
	assert_true(b.s[0].window >= 0.015 && b.s[0].window < 5);
	assert_float_equal(b.s[0].busy, 0.3, 1e-6);
	free(b.s);
	rt_devmon_close(m);
	assert_int_equal(*live, 0);

	/* a macOS without the GPU's channels, and one without the libraries */
	use_fake_ioreport("gpu=0");
	assert_null(rt_devmon_open(&rt_devmon_ioreport, NULL, why, sizeof why));
	assert_string_equal(
	    why, "IOReport: no GPU Stats / GPU Performance States channels to subscribe to");
	assert_int_equal(*live, 0);
	unsetenv("RIGTUNE_IOREPORT");
	unsetenv("RIGTUNE_COREFOUNDATION");
	unsetenv("RIGTUNE_FAKE_IOREPORT");
	assert_null(rt_devmon_open(&rt_devmon_ioreport, NULL, why, sizeof why));
	assert_non_null(strstr(why, "CoreFoundation"));
	dlclose(lib);
	dlclose(lib); /* use_fake_ioreport opened it twice */
}

static void test_batch(void **state)
{
	(void)state;
	rt_dev_batch b = {NULL, 0, 0};
	for (int i = 0; i < 600; i++)
		assert_int_equal(
		    rt_dev_batch_push(&b, (rt_dev_sample){0, RT_DEV_DEVICE, 0, i, 0, 0}), RT_OK);
	assert_int_equal(b.n, 600);
	assert_true(b.cap >= 600);
	assert_true(b.s[599].t == 599);
	free(b.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state_names),          cmocka_unit_test(test_gpu_busy),
	    cmocka_unit_test(test_gpu_busy_unavailable), cmocka_unit_test(test_ioreport_monitor),
	    cmocka_unit_test(test_no_monitor),           cmocka_unit_test(test_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
