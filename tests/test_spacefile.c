/* test_spacefile.c: space files, the default ones and every kind of mistake. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/rt.h"
#include "../search/space.h"
#include "../tuner/spacefile.h"
#include "../workloads/loader.h"

static rt_space *parse_ok(const char *text, long auto_max, char *workload, size_t wlen)
{
	rt_space *s = NULL;
	char err[RT_ERRLEN] = "";
	int rc = rt_spacefile_parse(text, strlen(text), "t.yaml", NULL, auto_max, &s, workload,
				    wlen, err, sizeof err);
	if (rc)
		print_error("unexpected error: %s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(s);
	return s;
}

/*
 * Parses text as a space of workload w (NULL: any) expecting RT_EINVAL with
 * want (file:line:col: problem) in the message.
 */
static void parse_bad_for(const rt_workload *w, const char *text, long auto_max,
			  const char *want)
{
	rt_space *s = (rt_space *)&s; /* must come back NULL */
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_spacefile_parse(text, strlen(text), "t.yaml", w, auto_max, &s, NULL,
					    0, err, sizeof err),
			 RT_EINVAL);
	assert_null(s);
	if (!strstr(err, want))
		print_error("message '%s' lacks '%s'\n", err, want);
	assert_non_null(strstr(err, want));
}

static void parse_bad(const char *text, long auto_max, const char *want)
{
	parse_bad_for(NULL, text, auto_max, want);
}

static void test_example(void **state)
{
	(void)state;
	char w[32];
	rt_space *s = parse_ok("# a comment\n"
			       "workload: transformer\n"
			       "params:\n"
			       "  backend: [cpu, cuda, hip]\n"
			       "  precision: [fp32, bf16]\n"
			       "  batch: [64, 8, 16, 32, 128, 256]\n"
			       "  threads: {min: 1, max: auto}\n"
			       "  workers:\n"
			       "    min: 0\n"
			       "    max: 4\n"
			       "    step: 2\n"
			       "  pin: [compact, spread]\n",
			       6, w, sizeof w);
	assert_string_equal(w, "transformer");
	assert_int_equal(rt_space_nparams(s), 6);
	static const char *const names[] = { "backend", "precision", "batch",
					     "threads", "workers",   "pin" };
	for (int p = 0; p < 6; p++)
		assert_string_equal(rt_space_name(s, p), names[p]);
	assert_int_equal(rt_space_kind(s, 0), RT_PARAM_CATEGORICAL);
	assert_string_equal(rt_space_str_at(s, 0, 2), "hip");
	assert_int_equal(rt_space_kind(s, 2), RT_PARAM_ORDINAL);
	assert_int_equal(rt_space_int_at(s, 2, 0), 8); /* sorted */
	assert_int_equal(rt_space_int_at(s, 2, 3), 64);
	assert_int_equal(rt_space_role(s, 2), RT_ROLE_SATURATING);
	assert_int_equal(rt_space_kind(s, 3), RT_PARAM_RANGE);
	assert_int_equal(rt_space_size(s, 3), 6); /* auto = 6 */
	assert_int_equal(rt_space_role(s, 3), RT_ROLE_PEAKED);
	assert_int_equal(rt_space_size(s, 4), 3); /* 0, 2, 4 */
	assert_int_equal(rt_space_int_at(s, 4, 2), 4);
	assert_int_equal(rt_space_role(s, 4), RT_ROLE_PEAKED);
	assert_int_equal(rt_space_role(s, 0), RT_ROLE_NONE);
	assert_int_equal(rt_space_grid_size(s), 3 * 2 * 6 * 6 * 3 * 2);
	rt_space_destroy(s);

	/* threads as a list, no workload key */
	s = parse_ok("params:\n  threads: [4, 1, 2]\n", 8, w, sizeof w);
	assert_string_equal(w, "");
	assert_int_equal(rt_space_kind(s, 0), RT_PARAM_ORDINAL);
	assert_int_equal(rt_space_int_at(s, 0, 2), 4);
	rt_space_destroy(s);
}

/* The default files parse, and each precision's grid stays small on 2 cores. */
static void test_default_files(void **state)
{
	(void)state;
	static const char *const files[] = { "configs/space-gemm.yaml",
					     "configs/space-transformer.yaml",
					     "configs/space-ppo.yaml" };
	static const char *const workloads[] = { "gemm", "transformer", "ppo" };
	for (int i = 0; i < 3; i++) {
		rt_space *s = NULL;
		char w[32], err[RT_ERRLEN] = "";
		int rc = rt_spacefile_load(files[i], rt_workload_find(workloads[i]), 2, &s, w,
					   sizeof w, err, sizeof err);
		if (rc)
			print_error("%s\n", err);
		assert_int_equal(rc, 0);
		assert_string_equal(w, workloads[i]);
		int b = rt_space_find(s, "backend"), t = rt_space_find(s, "threads");
		assert_true(b >= 0 && t >= 0);
		assert_int_equal(rt_space_size(s, t), 2);
		/*
		 * one backend's share of one precision on 2 cores: a backend tries
		 * only the precisions its device offers (the CPU: fp32 and bf16)
		 */
		int p = rt_space_find(s, "precision");
		uint64_t per_precision = rt_space_grid_size(s) / (uint64_t)rt_space_size(s, b) /
					 (uint64_t)(p >= 0 ? rt_space_size(s, p) : 1);
		assert_true(per_precision <= 48);
		rt_space_destroy(s);
	}
}

static void test_errors(void **state)
{
	(void)state;
	parse_bad("workload: x\nparams:\n  batch: [8, \"16\"]\n", 2,
		  "t.yaml:3:14: batch: expected a list of positive integers");
	parse_bad("params:\n  batch: [8, sixteen]\n", 2,
		  "t.yaml:2:14: batch: expected a list of positive integers");
	parse_bad("params:\n  batch: 8\n", 2, "t.yaml:2:10: batch: expected a list of positive");
	parse_bad("params:\n  batch: [0, 8]\n", 2, "t.yaml:2:11: batch: expected a list");
	parse_bad("params:\n  batch: [8, -16]\n", 2, "t.yaml:2:14: batch: expected a list");
	parse_bad("params:\n  batch: [8, 16.5]\n", 2, "t.yaml:2:14: batch: expected a list");
	parse_bad("params:\n  batch: []\n", 2, "t.yaml:2:10: batch: empty list");
	parse_bad("params:\n  batch: [8, 16, 8]\n", 2, "t.yaml:2:18: batch: value 8 given twice");
	parse_bad("params:\n  batch: {min: 1, max: 8}\n", 2, "t.yaml:2:10: batch: expected");
	parse_bad("params:\n  batch: [[8]]\n", 2, "t.yaml:2:11: batch: expected");
	parse_bad("params:\n  precision: [fp32, fp8]\n", 2,
		  "t.yaml:2:21: precision: expected a list of precisions");
	parse_bad("params:\n  pin: [compact, everywhere]\n", 2, "t.yaml:2:18: pin: expected");
	parse_bad("params:\n  backend: [cpu, CUDA]\n", 2, "t.yaml:2:18: backend: expected");
	parse_bad("params:\n  threads: {min: 4, max: 2}\n", 2,
		  "t.yaml:2:12: threads: impossible range: min 4 > max 2");
	parse_bad("params:\n  workers: {min: 3, max: auto}\n", 2,
		  "t.yaml:2:12: workers: impossible range: min 3 > max 2");
	parse_bad("params:\n  threads: {min: 0, max: 2}\n", 2,
		  "t.yaml:2:18: threads: min: expected an integer >= 1");
	parse_bad("params:\n  threads: {min: 1, max: \"auto\"}\n", 2,
		  "t.yaml:2:26: threads: max: expected an integer >= 1 or auto");
	parse_bad("params:\n  threads: [1, 5000]\n", 2,
		  "t.yaml:2:16: threads: 5000 is more than 4096");
	parse_bad("params:\n  threads: {min: 1, max: 4, step: 0}\n", 2,
		  "t.yaml:2:35: threads: step: expected an integer >= 1");
	parse_bad("params:\n  threads: {min: 1}\n", 2, "t.yaml:2:12: threads: a range needs min");
	parse_bad("params:\n  threads: {min: 1, min: 2, max: 3}\n", 2,
		  "t.yaml:2:21: threads: duplicate key 'min'");
	parse_bad("params:\n  threads: {min: 1, most: 2}\n", 2,
		  "t.yaml:2:21: threads: unknown key 'most'");
	parse_bad("params:\n  batch: [8]\n  batch: [16]\n", 2,
		  "t.yaml:3:3: params: duplicate key 'batch'");
	parse_bad("params:\n  bach: [8]\n", 2, "t.yaml:2:3: params: unknown parameter bach");
	parse_bad("params:\n  batch: [8]\nparams:\n  threads: [1]\n", 2,
		  "t.yaml:3:1: duplicate key 'params'");
	parse_bad("workload: gemm\nbudget: 60\n", 2,
		  "t.yaml:2:1: unknown key budget (expected workload or params)");
	parse_bad("workload: gemm\n", 2, "t.yaml:1:1: params: missing");
	parse_bad("params: {}\n", 2, "params: no parameters");
	parse_bad("params: [batch]\n", 2, "t.yaml:1:9: params: expected a mapping");
	parse_bad("- a\n- b\n", 2, "t.yaml:1:1: expected a mapping");
	parse_bad("", 2, "t.yaml:1:1: empty: no YAML document");
	parse_bad("params:\n  batch: [8, 16\n", 2, "t.yaml:3:1: malformed YAML");
	parse_bad("params:\n  batch: &b [8]\n  threads: *b\n", 2,
		  "t.yaml:3:12: an alias (*b): rigtune's files never use anchors and aliases");
	parse_bad("params:\n  threads: {min: &m 1, max: *m}\n", 2,
		  "t.yaml:2:29: an alias (*m): rigtune's files never use anchors and aliases");
	parse_bad("params:\n  batch: [8]\n---\nparams:\n  batch: [8]\n", 2,
		  "t.yaml:3:1: a second document; expected one");
}

static void test_files(void **state)
{
	(void)state;
	rt_space *s = NULL;
	char err[RT_ERRLEN], path[] = "/tmp/rigtune-spaceXXXXXX";
	assert_int_equal(rt_spacefile_load("/nonexistent/space.yaml", NULL, 2, &s, NULL, 0, err,
					   sizeof err),
			 RT_EIO);
	assert_null(s);
	assert_non_null(strstr(err, "cannot read /nonexistent/space.yaml"));
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char text[] = "workload: ppo\nparams:\n  workers: {min: 0, max: x}\n";
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	assert_int_equal(rt_spacefile_load(path, NULL, 2, &s, NULL, 0, err, sizeof err),
			 RT_EINVAL);
	char want[128];
	snprintf(want, sizeof want, "%s:3:26: workers: max: expected an integer >= 0 or auto",
		 path);
	assert_string_equal(err, want);
	unlink(path);
}

/* backend: [all] is every backend rigtune knows; all goes alone. */
static void test_all_backends(void **state)
{
	(void)state;
	char names[RT_MAX_BACKENDS][RT_BACKEND_NAMELEN];
	int n = rt_backend_list(names, RT_MAX_BACKENDS);
	rt_space *s = parse_ok("params:\n  backend: [all]\n  threads: [1]\n", 2, NULL, 0);
	assert_true(n >= 3);
	assert_int_equal(rt_space_size(s, 0), n);
	for (int i = 0; i < n; i++)
		assert_string_equal(rt_space_str_at(s, 0, i), names[i]);
	rt_space_destroy(s);
	parse_bad("params:\n  backend: [cpu, all]\n", 2,
		  "t.yaml:2:18: backend: all stands for every backend: give it alone");
	parse_bad("params:\n  backend: [cpu, tpu]\n", 2,
		  "t.yaml:2:18: backend: expected [all] or a list of backends (cpu, cuda, hip");
}

/*
 * The keys of one workload's space come from its descriptor: the knobs it
 * reads and its shape keys, its knee key saturating.
 */
static void test_keys_of_the_workload(void **state)
{
	(void)state;
	const rt_workload *ppo = rt_workload_find("ppo"), *tf = rt_workload_find("transformer");
	rt_space *s = NULL;
	char err[RT_ERRLEN] = "";
	static const char text[] = "params:\n  num_envs: [16, 64]\n  minibatch: [128]\n";
	assert_int_equal(rt_spacefile_parse(text, strlen(text), "t.yaml", ppo, 2, &s, NULL, 0,
					    err, sizeof err),
			 0);
	assert_int_equal(rt_space_role(s, rt_space_find(s, "num_envs")), RT_ROLE_SATURATING);
	assert_int_equal(rt_space_role(s, rt_space_find(s, "minibatch")), RT_ROLE_NONE);
	rt_space_destroy(s);
	parse_bad_for(ppo, "params:\n  threads: [1]\n  batch: [8, 16]\n", 2,
		      "t.yaml:3:3: params: ppo does not read 'batch': searching it wastes trials");
	parse_bad_for(tf, "params:\n  num_envs: [16]\n", 2,
		      "t.yaml:2:3: params: unknown parameter num_envs (expected backend, "
		      "precision, pin, batch, threads, workers, d_model, heads");
	parse_bad_for(ppo, "params:\n  env_us: [-1]\n", 2,
		      "t.yaml:2:12: env_us: expected a list of integers >= 0");
	/* the transformer's knee is batch */
	static const char tb[] = "params:\n  batch: [8, 16]\n  seq_len: [32, 64]\n";
	assert_int_equal(rt_spacefile_parse(tb, strlen(tb), "t.yaml", tf, 2, &s, NULL, 0, err,
					    sizeof err),
			 0);
	assert_int_equal(rt_space_role(s, 0), RT_ROLE_SATURATING);
	assert_int_equal(rt_space_role(s, 1), RT_ROLE_NONE);
	rt_space_destroy(s);
}

static rt_space *command_ok(const char *text, long auto_max, char *knee, size_t klen)
{
	rt_space *s = NULL;
	char err[RT_ERRLEN] = "";
	int rc = rt_spacefile_parse_command(text, strlen(text), "c.yaml", auto_max, &s, knee, klen,
					    err, sizeof err);
	if (rc)
		print_error("unexpected error: %s\n", err);
	assert_int_equal(rc, 0);
	return s;
}

static void command_bad(const char *text, const char *want)
{
	rt_space *s = (rt_space *)&s;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_spacefile_parse_command(text, strlen(text), "c.yaml", 4, &s, NULL, 0,
						    err, sizeof err),
			 RT_EINVAL);
	assert_null(s);
	if (!strstr(err, want))
		print_error("message '%s' lacks '%s'\n", err, want);
	assert_non_null(strstr(err, want));
}

/* A command's space: its knobs, the user's own, the knee, and the mistakes. */
static void test_command_space(void **state)
{
	(void)state;
	char knee[32];
	rt_space *s = command_ok("workload: command\n"
				 "params:\n"
				 "  batch: [64, 16, 32]\n"
				 "  threads: {min: 1, max: auto}\n"
				 "  blas_threads: [1, 2]\n"
				 "  workers: [0, 1]\n"
				 "  device: [cpu, cuda:0, hip:1]\n"
				 "  precision: [fp32, bf16]\n"
				 "  pin: [none, compact]\n"
				 "  lr: [0.001, 3e-4]\n"
				 "  layers: [4, 2]\n",
				 3, knee, sizeof knee);
	assert_string_equal(knee, "batch");
	assert_int_equal(rt_space_nparams(s), 9);
	assert_int_equal(rt_space_role(s, rt_space_find(s, "batch")), RT_ROLE_SATURATING);
	assert_int_equal(rt_space_int_at(s, 0, 0), 16); /* sorted */
	assert_int_equal(rt_space_size(s, rt_space_find(s, "threads")), 3);
	assert_int_equal(rt_space_role(s, rt_space_find(s, "blas_threads")), RT_ROLE_PEAKED);
	int lr = rt_space_find(s, "lr"), layers = rt_space_find(s, "layers");
	assert_int_equal(rt_space_kind(s, lr), RT_PARAM_CATEGORICAL); /* names, as written */
	assert_string_equal(rt_space_str_at(s, lr, 1), "3e-4");
	assert_int_equal(rt_space_kind(s, layers), RT_PARAM_ORDINAL); /* integers: ordinal */
	assert_int_equal(rt_space_role(s, layers), RT_ROLE_NONE);
	rt_space_destroy(s);
	/* knee: names the knob; without batch there is none */
	s = command_ok("workload: command\nknee: envs\nparams:\n  envs: [8, 16]\n  batch: [4]\n",
		       2, knee, sizeof knee);
	assert_string_equal(knee, "envs");
	assert_int_equal(rt_space_role(s, 0), RT_ROLE_SATURATING);
	assert_int_equal(rt_space_role(s, 1), RT_ROLE_NONE);
	rt_space_destroy(s);
	s = command_ok("params:\n  threads: [1]\n", 2, knee, sizeof knee);
	assert_string_equal(knee, "");
	rt_space_destroy(s);
	command_bad("workload: transformer\nparams:\n  batch: [8]\n",
		    "c.yaml:1:11: workload: tune --cmd takes a space with workload: command");
	command_bad("workload: command\nknee: lr\nparams:\n  lr: [a, b]\n",
		    "c.yaml:2:7: knee: 'lr' is not a knob of params: with numbers");
	command_bad("workload: command\nknee: nope\nparams:\n  batch: [1]\n",
		    "knee: 'nope' is not a knob");
	command_bad("params:\n  2fast: [1]\n", "c.yaml:2:3: params: 2fast cannot name a knob");
	/* RIGTUNE_BACKEND_PATH, RIGTUNE_CPU_MASK in the command's environment: rigtune's own */
	command_bad("params:\n  lr: [1]\n  backend_path: [/tmp/evil]\n",
		    "c.yaml:3:3: params: backend_path cannot name a knob: its variable "
		    "RIGTUNE_<KNOB> is one of rigtune's own settings");
	command_bad("params:\n  CPU_mask: [ff]\n", "c.yaml:2:3: params: CPU_mask cannot name");
	command_bad("params:\n  device: [gpu]\n",
		    "c.yaml:2:12: device: expected a list of devices (cpu, cuda:N, hip:N)");
	command_bad("params:\n  lr: [0.1, 0.1]\n", "lr: value 0.1 given twice");
	command_bad("params:\n  lr: []\n", "lr: empty list");
	command_bad("params:\n  blas_threads: [0]\n", "blas_threads: expected a list of positive");
	/* a count rigtune binds by (pin's CPU set): within its knob's row, not 10^8 */
	command_bad("params:\n  threads: [1, 100000000]\n",
		    "c.yaml:2:16: threads: 100000000 is more than 4096");
	command_bad("params:\n  workers: {min: 0, max: 5000}\n",
		    "c.yaml:2:26: workers: 5000 is more than 4096");
	command_bad("params:\n  batch: [16777217]\n", "batch: 16777217 is more than 16777216");
	command_bad("colour: red\nparams:\n  lr: [1]\n",
		    "unknown key colour (expected workload, params or knee)");
	/* and a command's space is not a workload's */
	parse_bad_for(rt_workload_find("gemm"), "workload: command\nparams:\n  threads: [1]\n", 2,
		      "t.yaml:1:11: workload: command is the space of your own command");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_default_files),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_keys_of_the_workload),
		cmocka_unit_test(test_all_backends),
		cmocka_unit_test(test_command_space),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
