/*
 * Loader tests: every plugin goes through the real dlopen path, from
 * $BUILD_DIR/tests/plugins (built from the sources in tests/plugins by the Makefile).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../workloads/loader.h"
#include "plugin_dir.h"

static char plugin_dir[1024];

static int setup_path(void **state)
{
	(void)state;
	test_plugin_dir(plugin_dir, sizeof plugin_dir);
	return setenv("RIGTUNE_BACKEND_PATH", plugin_dir, 1);
}

/* Loads name and expects failure with exactly the message want. */
static void expect_failure(const char *name, int code, const char *want)
{
	const rt_backend_ops *ops = (const rt_backend_ops *)1;
	void *handle = (void *)1;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_backend_load(name, &ops, &handle, err, sizeof err), code);
	assert_string_equal(err, want);
	assert_null(ops);
	assert_null(handle);
}

static void test_good_plugin(void **state)
{
	(void)state;
	const rt_backend_ops *ops;
	void *handle;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_backend_load("fake", &ops, &handle, err, sizeof err), 0);
	assert_non_null(handle);
	assert_string_equal(ops->name, "fake");
	assert_int_equal(ops->abi, RT_BACKEND_ABI);

	unsetenv("RIGTUNE_FAKE_DEVICES");
	assert_int_equal(ops->init(err, sizeof err), 1);
	rt_device_info info;
	assert_int_equal(ops->device_info(0, &info), 0);
	assert_string_equal(info.name, "fake device");

	/* A round trip through the plugin's own memory operations. */
	rt_ctx *ctx;
	void *buf;
	double in[3] = { 1.5, -2.25, 3e10 }, out[3] = { 0 };
	assert_int_equal(ops->open(0, 1, &ctx, err, sizeof err), 0);
	assert_int_equal(ops->alloc(ctx, sizeof in, &buf), 0);
	assert_int_equal(ops->upload(ctx, buf, in, sizeof in), 0);
	assert_int_equal(ops->download(ctx, out, buf, sizeof out), 0);
	assert_memory_equal(in, out, sizeof in);
	ops->free(ctx, buf);
	ops->close(ctx);
	rt_backend_unload(handle);
}

static void test_good_plugin_without_device(void **state)
{
	(void)state;
	const rt_backend_ops *ops;
	void *handle;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_backend_load("fake", &ops, &handle, err, sizeof err), 0);
	setenv("RIGTUNE_FAKE_DEVICES", "0", 1);
	assert_int_equal(ops->init(err, sizeof err), RT_EUNAVAIL);
	assert_string_equal(err, "no fake device");
	unsetenv("RIGTUNE_FAKE_DEVICES");
	rt_backend_unload(handle);
}

static void test_wrong_abi(void **state)
{
	(void)state;
	char want[128];
	snprintf(want, sizeof want, "librigtune_badabi.so: ABI %d, expected %d",
		 RT_BACKEND_ABI + 5, RT_BACKEND_ABI);
	expect_failure("badabi", RT_EUNAVAIL, want);
}

static void test_missing_symbol(void **state)
{
	(void)state;
	expect_failure("nosym", RT_EUNAVAIL, "librigtune_nosym.so: no symbol rigtune_backend");
}

static void test_incomplete_table(void **state)
{
	(void)state;
	expect_failure("partial", RT_EUNAVAIL, "librigtune_partial.so: no operation device_info");
}

static void test_missing_file(void **state)
{
	(void)state;
	char want[1200];
	snprintf(want, sizeof want, "librigtune_missing.so: not found in %s", plugin_dir);
	expect_failure("missing", RT_EUNAVAIL, want);
}

static void test_bad_name(void **state)
{
	(void)state;
	expect_failure("../fake", RT_EINVAL, "bad backend name '../fake'");
	expect_failure("", RT_EINVAL, "bad backend name ''");
	expect_failure("sixteen_letters_", RT_EINVAL, "bad backend name 'sixteen_letters_'");
}

/* A file that is not a shared object: dlopen's reason, without the path. */
static void test_unloadable_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/rt_loader_XXXXXX", path[1100];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/librigtune_junk.so", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 8; i++) /* longer than an ELF header, so dlopen reads it */
		fputs("this is a text file, not a shared object\n", f);
	fclose(f);
	setenv("RIGTUNE_BACKEND_PATH", dir, 1);

	const rt_backend_ops *ops;
	void *handle;
	char err[RT_ERRLEN] = "";
	int rc = rt_backend_load("junk", &ops, &handle, err, sizeof err);
	unlink(path);
	rmdir(dir);
	setenv("RIGTUNE_BACKEND_PATH", plugin_dir, 1);
	assert_int_equal(rc, RT_EUNAVAIL);
	assert_null(handle);
	assert_true(strncmp(err, "librigtune_junk.so: ", 20) == 0);
	assert_null(strstr(err, dir));
	assert_null(strchr(err, '\n'));
	assert_non_null(strstr(err, "ELF"));
}

/* A colon-separated path: an empty entry and a missing directory are skipped. */
static void test_path_list(void **state)
{
	(void)state;
	char list[1200];
	snprintf(list, sizeof list, "/nonexistent/rigtune::%s", plugin_dir);
	setenv("RIGTUNE_BACKEND_PATH", list, 1);
	const rt_backend_ops *ops;
	void *handle;
	char err[RT_ERRLEN] = "";
	int rc = rt_backend_load("fake", &ops, &handle, err, sizeof err);
	setenv("RIGTUNE_BACKEND_PATH", plugin_dir, 1);
	assert_int_equal(rc, 0);
	assert_string_equal(ops->name, "fake");
	rt_backend_unload(handle);
}

/* Without the variable, plugins are looked for beside the running binary. */
static void test_default_directory(void **state)
{
	(void)state;
	char exe[1024], want[1200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(want, sizeof want, "librigtune_missing.so: not found in %s", exe);
	unsetenv("RIGTUNE_BACKEND_PATH");
	expect_failure("missing", RT_EUNAVAIL, want);
	setenv("RIGTUNE_BACKEND_PATH", plugin_dir, 1);
}

static void test_cpu_always_available(void **state)
{
	(void)state;
	const rt_backend_ops *ops = NULL;
	void *handle = (void *)1;
	char err[RT_ERRLEN] = "";
	setenv("RIGTUNE_BACKEND_PATH", "/nonexistent", 1);
	int rc = rt_backend_get("cpu", &ops, &handle, err, sizeof err);
	setenv("RIGTUNE_BACKEND_PATH", plugin_dir, 1);
	assert_int_equal(rc, 0);
	assert_null(handle);
	assert_string_equal(ops->name, "cpu");
	assert_int_equal(ops->abi, RT_BACKEND_ABI);
	assert_true(ops->init(err, sizeof err) >= 1);
	rt_backend_unload(handle);
	rt_backend_unload(NULL);
}

/*
 * The known names start with cpu and the plugins this tree builds (known
 * where they are not installed), then every plugin of the plugin
 * directories in name order; the GPU ones go through the loader.
 */
static void test_known_names(void **state)
{
	(void)state;
	char names[RT_MAX_BACKENDS][RT_BACKEND_NAMELEN], list[256];
	static const char *const known[] = {"cpu",  "cuda",  "hip",
					    "badabi", "fake", "nosym", "partial", "sim"};
	assert_int_equal(rt_backend_list(names, RT_MAX_BACKENDS), (int)RT_COUNT(known));
	for (size_t i = 0; i < RT_COUNT(known); i++)
		assert_string_equal(names[i], known[i]);
	assert_int_equal(rt_backend_list(names, 2), 2);
	rt_backend_names(list, sizeof list);
	assert_string_equal(list, "cpu, cuda, hip, badabi, fake, nosym, partial, sim");
	assert_true(rt_backend_known("fake"));
	assert_true(rt_backend_known("hip"));
	assert_false(rt_backend_known("tpu"));
	const rt_backend_ops *ops;
	void *handle;
	char err[RT_ERRLEN] = "", want[1200];
	snprintf(want, sizeof want, "librigtune_hip.so: not found in %s", plugin_dir);
	assert_int_equal(rt_backend_get("hip", &ops, &handle, err, sizeof err), RT_EUNAVAIL);
	assert_string_equal(err, want);
}

/*
 * Discovery: a plugin is known by being in a plugin directory. Only
 * librigtune_NAME.so with a valid NAME counts; a name found in two
 * directories of the path is one backend.
 */
static void test_discovery(void **state)
{
	(void)state;
	char a[] = "/tmp/rt_found_a_XXXXXX", b[] = "/tmp/rt_found_b_XXXXXX", path[4200];
	char names[RT_MAX_BACKENDS][RT_BACKEND_NAMELEN];
	static const char *const files[] = {
		"librigtune_sycl.so",    "librigtune_metal.so",       "librigtune_.so",
		"librigtune_Bad.so",     "librigtune_x.so.1",         "libother.so",
		"librigtune_sycl.so.tmp", "librigtune_waytoolongname16.so",
	};
	assert_non_null(mkdtemp(a));
	assert_non_null(mkdtemp(b));
	for (size_t i = 0; i < RT_COUNT(files); i++) {
		snprintf(path, sizeof path, "%s/%s", a, files[i]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/librigtune_sycl.so", b);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof path, "%s:%s:/nonexistent", b, a);
	setenv("RIGTUNE_BACKEND_PATH", path, 1);
	static const char *const want[] = {"cpu", "cuda", "hip", "sycl", "metal"};
	assert_int_equal(rt_backend_list(names, RT_MAX_BACKENDS), (int)RT_COUNT(want));
	for (size_t i = 0; i < RT_COUNT(want); i++)
		assert_string_equal(names[i], want[i]);
	assert_true(rt_backend_known("metal"));
	assert_false(rt_backend_known("Bad"));
	setenv("RIGTUNE_BACKEND_PATH", plugin_dir, 1);
	for (size_t i = 0; i < RT_COUNT(files); i++) {
		snprintf(path, sizeof path, "%s/%s", a, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/librigtune_sycl.so", b);
	unlink(path);
	rmdir(a);
	rmdir(b);
}


/*
 * A relative entry is wherever rigtune runs: never searched, in a load or a
 * listing, even when it holds the plugin (here: the test plugins' directory
 * written relative to the current one).
 */
static void test_relative_entries_ignored(void **state)
{
	(void)state;
	char here[1024], rel[1100];
	assert_non_null(getcwd(here, sizeof here));
	assert_int_equal(chdir(plugin_dir), 0);
	snprintf(rel, sizeof rel, ".:tests:/nonexistent");
	setenv("RIGTUNE_BACKEND_PATH", rel, 1);
	const rt_backend_ops *ops = NULL;
	void *handle = NULL;
	char err[RT_ERRLEN] = "";
	int rc = rt_backend_load("fake", &ops, &handle, err, sizeof err);
	int known = rt_backend_known("fake");
	assert_int_equal(chdir(here), 0);
	setenv("RIGTUNE_BACKEND_PATH", plugin_dir, 1);
	assert_int_equal(rc, RT_EUNAVAIL);
	assert_null(handle);
	assert_string_equal(err, "librigtune_fake.so: not found in .:tests:/nonexistent (relative "
				 "directories are ignored: give RIGTUNE_BACKEND_PATH absolute ones)");
	assert_false(known);
}

/*
 * What a backend says of itself, asked by name: the host is the linked-in
 * backend alone; the frameworks' device name is the CPU backend's "cpu",
 * and a plugin's, never loaded for it, is PyTorch's default accelerator
 * until the accelerator probe notes its table's (tests/test_fw_device.c).
 */
static void test_self_description(void **state)
{
	(void)state;
	char dev[24];
	assert_true(rt_backend_on_host("cpu"));
	assert_false(rt_backend_on_host("cuda"));
	assert_false(rt_backend_on_host("cpu:0"));
	assert_false(rt_backend_on_host("fake"));
	rt_backend_framework_device("cpu", dev, sizeof dev);
	assert_string_equal(dev, "cpu");
	rt_backend_framework_device("fake", dev, sizeof dev);
	assert_string_equal(dev, "cuda");
	rt_backend_framework_device("partial", dev, sizeof dev); /* refused: incomplete table */
	assert_string_equal(dev, "cuda");
	rt_backend_framework_device("nosuch", dev, sizeof dev);
	assert_string_equal(dev, "cuda");
	const rt_backend_ops *ops;
	void *handle;
	char err[256];
	assert_int_equal(rt_backend_load("fake", &ops, &handle, err, sizeof err), RT_OK);
	assert_false(ops->host);
	rt_backend_unload(handle);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_plugin),
		cmocka_unit_test(test_good_plugin_without_device),
		cmocka_unit_test(test_wrong_abi),
		cmocka_unit_test(test_missing_symbol),
		cmocka_unit_test(test_incomplete_table),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_bad_name),
		cmocka_unit_test(test_unloadable_file),
		cmocka_unit_test(test_path_list),
		cmocka_unit_test(test_relative_entries_ignored),
		cmocka_unit_test(test_default_directory),
		cmocka_unit_test(test_cpu_always_available),
		cmocka_unit_test(test_known_names),
		cmocka_unit_test(test_discovery),
		cmocka_unit_test(test_self_description),
	};
	return cmocka_run_group_tests(tests, setup_path, NULL);
}
