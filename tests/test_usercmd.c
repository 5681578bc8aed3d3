/*
 * The user's command: splitting the template, placeholders, quoting back,
 * the child (environment, exec errors, timeout, the process group, both
 * pipes at once, binding, memory cap: RLIMIT_AS or the watchdog), the metric,
 * the outcome of a run, and what a command's point sets (usercmd_knobs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/usercmd_knobs.h"
#include "../tuner/usercmd.h"
#include "shell_places.h"

static rt_cmd_template parse_ok(const char *text, int shell)
{
	rt_cmd_template t;
	char err[RT_ERRLEN] = "";
	int rc = rt_cmd_template_parse(text, shell, &t, err, sizeof err);
	if (rc)
		print_error("'%s': %s\n", text, err);
	assert_int_equal(rc, RT_OK);
	return t;
}

static void parse_bad(const char *text, const char *want)
{
	rt_cmd_template t;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_cmd_template_parse(text, 0, &t, err, sizeof err), RT_EINVAL);
	if (!strstr(err, want))
		print_error("'%s': message '%s' lacks '%s'\n", text, err, want);
	assert_non_null(strstr(err, want));
	assert_int_equal(t.nwords, 0);
}

static void test_split(void **state)
{
	(void)state;
	rt_cmd_template t = parse_ok("  python3  'a b' \"c \\\"d\\\" \\x\" e\\ f '' x'y'z\n", 0);
	const char *want[] = {"python3", "a b", "c \"d\" \\x", "e f", "", "xyz"};
	assert_int_equal(t.nwords, 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(t.words[i], want[i]);
	rt_cmd_template_free(&t);
	/* what a shell would do something with is literal only inside quotes */
	t = parse_ok("grep 'a|b' \"x > y\" '$HOME'", 0);
	assert_string_equal(t.words[1], "a|b");
	assert_string_equal(t.words[2], "x > y");
	assert_string_equal(t.words[3], "$HOME");
	rt_cmd_template_free(&t);
}

static void test_split_errors(void **state)
{
	(void)state;
	parse_bad("python3 'train.py", "unterminated single quote");
	parse_bad("python3 \"train.py", "unterminated double quote");
	parse_bad("python3 train.py\\", "ends in a backslash");
	parse_bad("   ", "empty");
	parse_bad("python3 train.py | tee log", "'|' outside quotes");
	parse_bad("python3 train.py > log", "'>' outside quotes");
	parse_bad("echo $HOME", "'$' outside quotes");
	parse_bad("train --batch {1x}", "a placeholder is {name}");
	parse_bad("train --batch {}", "a placeholder is {name}");
	parse_bad("train --batch {batch", "a placeholder is {name}");
	parse_bad("train --json a}", "lone '}'");
}

static void test_placeholders(void **state)
{
	(void)state;
	rt_cmd_template t = parse_ok("train --batch {batch} --lr={lr} --tag {batch}-{{x}}", 0);
	char names[4][RT_KNOB_NAMELEN];
	assert_int_equal(rt_cmd_template_names(&t, names, 4), 2);
	assert_string_equal(names[0], "batch");
	assert_string_equal(names[1], "lr");
	rt_knob_value kv[] = {{"lr", "0.001"}, {"batch", "64"}};
	char **argv, err[RT_ERRLEN];
	assert_int_equal(rt_cmd_template_expand(&t, kv, 2, &argv, err, sizeof err), RT_OK);
	const char *want[] = {"train", "--batch", "64", "--lr=0.001", "--tag", "64-{x}", NULL};
	for (int i = 0; want[i]; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[6]);
	rt_argv_free(argv);
	/* a placeholder without a value names itself */
	assert_int_equal(rt_cmd_template_expand(&t, kv + 1, 1, &argv, err, sizeof err), RT_EINVAL);
	assert_null(argv);
	assert_non_null(strstr(err, "{lr} has no knob"));
	rt_cmd_template_free(&t);
}

static void test_shell_template(void **state)
{
	(void)state;
	rt_cmd_template t = parse_ok("echo {n} | tr 1 2", 1);
	rt_knob_value kv[] = {{"n", "1"}};
	char **argv, err[RT_ERRLEN];
	assert_int_equal(rt_cmd_template_expand(&t, kv, 1, &argv, err, sizeof err), RT_OK);
	assert_string_equal(argv[0], "/bin/sh");
	assert_string_equal(argv[1], "-c");
	assert_string_equal(argv[2], "echo '1' | tr 1 2");
	assert_null(argv[3]);
	rt_argv_free(argv);
	rt_cmd_template_free(&t);
}

/* What /bin/sh -c script prints on stdout (up to len - 1 bytes), its exit status into *status. */
static void sh_output(char *const *argv, char *buf, size_t len, int *status)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < len && (r = read(fd[0], buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd[0]);
	waitpid(pid, status, 0);
}

/*
 * --shell: a knob value, whatever it holds, reaches the command as the very
 * text it is, in every place sh can quote it, and nothing of it runs.
 * Hostile values, then random mixes of what sh treats specially.
 */
static void test_shell_values(void **state)
{
	(void)state;
	char dir[] = "/tmp/rt-shell-XXXXXX", canary[64];
	assert_non_null(mkdtemp(dir));
	snprintf(canary, sizeof canary, "%s/ran", dir);
	char fixed[][96] = {"x; touch %s", "'; touch %s; '", "\"; touch %s; \"", "$(touch %s)",
			    "`touch %s`", "\\", "\\'", "\n touch %s\n", "a b\tc", "", "*", "~",
			    "${{x}}", "$IFS", "-n", "--", "\\\"$(touch %s)\\\"", "'\"'\"'"};
	char seed_value[128];
	unsigned long rng = 23;
	static const char alphabet[] = "'\"\\$`(){}[];&|<>#*?~!= \t\nab0-";
	for (int k = 0; k < 150 + (int)RT_COUNT(fixed); k++) {
		if (k < (int)RT_COUNT(fixed)) {
			snprintf(seed_value, sizeof seed_value, fixed[k], canary);
		} else {
			int n = 1 + (int)((rng = rng * 6364136223846793005ul + 1) >> 60);
			for (int i = 0; i < n; i++) {
				rng = rng * 6364136223846793005ul + 1442695040888963407ul;
				seed_value[i] = alphabet[(rng >> 33) % (sizeof alphabet - 1)];
			}
			seed_value[n] = '\0';
		}
		for (size_t p = 0; p < RT_COUNT(shell_places); p++) {
			rt_cmd_template t = parse_ok(shell_places[p].tpl, 1);
			rt_knob_value kv[] = {{"v", seed_value}};
			char **argv, err[RT_ERRLEN], got[2048], want[2048];
			int status;
			assert_int_equal(rt_cmd_template_expand(&t, kv, 1, &argv, err, sizeof err), 0);
			sh_output(argv, got, sizeof got, &status);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(want, sizeof want, shell_places[p].want, seed_value);
#pragma GCC diagnostic pop
			if (strcmp(got, want) || status)
				print_error("%s with v='%s': sh ran '%s' and printed '%s' (status %d)\n",
					    shell_places[p].tpl, seed_value, argv[2], got, status);
			assert_string_equal(got, want);
			rt_argv_free(argv);
			rt_cmd_template_free(&t);
		}
	}
	assert_int_equal(access(canary, F_OK), -1);
	rmdir(dir);
}

/* Where sh would read a value in a way rigtune cannot quote: refused at once. */
static void test_shell_refused(void **state)
{
	(void)state;
	static const char *const bad[][2] = {
		{"echo `echo {v}`", "inside `...`"},
		{"echo ${{x:-{v}}}", "inside ${...}"},
		{"echo $(( {v} + 1 ))", "arithmetic"},
		{"(( {v} ))", "arithmetic"},
		{"echo \\{v}", "backslash"},
		{"echo ${v}", "a $"},
		{"cat <<EOF\n{v}\nEOF", "here-document"},
		{"echo x # {v}\necho {v}", "comment"},
		{"echo $'{v}'", "$'...'"},
		{"echo \"`echo {v}`\"", "inside `...`"},
	};
	for (size_t i = 0; i < RT_COUNT(bad); i++) {
		rt_cmd_template t;
		char err[RT_ERRLEN] = "";
		assert_int_equal(rt_cmd_template_parse(bad[i][0], 1, &t, err, sizeof err), RT_EINVAL);
		if (!strstr(err, bad[i][1]) || !strstr(err, "{v}"))
			print_error("'%s': '%s' lacks '%s'\n", bad[i][0], err, bad[i][1]);
		assert_non_null(strstr(err, bad[i][1]));
		assert_int_equal(t.nwords, 0);
	}
}

static void test_quote(void **state)
{
	(void)state;
	char buf[64];
	rt_shell_quote("plain-word_1.5/x", buf, sizeof buf);
	assert_string_equal(buf, "plain-word_1.5/x");
	rt_shell_quote("it's a b", buf, sizeof buf);
	assert_string_equal(buf, "'it'\\''s a b'");
	rt_shell_quote("", buf, sizeof buf);
	assert_string_equal(buf, "''");
	char *argv[] = {"python3", "a b", NULL};
	rt_argv_format(argv, buf, sizeof buf);
	assert_string_equal(buf, "python3 'a b'");
}

/* Lines a child printed, for the tests to look at. */
typedef struct lines {
	int n[2];
	char last[2][256];
	char all[4096];
} lines;

static void collect(void *user, int is_err, const char *text)
{
	lines *l = user;
	l->n[is_err]++;
	snprintf(l->last[is_err], sizeof l->last[0], "%s", text);
	rt_list_append(l->all, sizeof l->all, "\n", text);
}

static int run_sh(const char *script, char *const *env, double timeout, lines *l,
		  rt_usercmd_exit *x)
{
	char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
	char err[RT_ERRLEN];
	memset(l, 0, sizeof *l);
	rt_usercmd c = {.argv = argv, .env = env, .timeout_s = timeout, .line = collect, .user = l};
	return rt_usercmd_run(&c, x, err, sizeof err);
}

static void test_env_and_status(void **state)
{
	(void)state;
	lines l;
	rt_usercmd_exit x;
	char *env[] = {"RT_TEST_A=one", "HOME=/nowhere", NULL};
	assert_int_equal(run_sh("echo A=$RT_TEST_A H=$HOME; echo oops >&2; echo >&2; exit 3", env,
				10, &l, &x),
			 RT_OK);
	assert_string_equal(l.last[0], "A=one H=/nowhere");
	assert_string_equal(x.last_err, "oops"); /* the last line that is not blank */
	assert_true(WIFEXITED(x.status));
	assert_int_equal(WEXITSTATUS(x.status), 3);
	assert_false(x.timed_out);
}

static void test_exec_failure(void **state)
{
	(void)state;
	char *argv[] = {"/nonexistent/rt-no-such-command", NULL};
	char err[RT_ERRLEN] = "";
	rt_usercmd_exit x;
	rt_usercmd c = {.argv = argv};
	assert_int_equal(rt_usercmd_run(&c, &x, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "cannot run '/nonexistent/rt-no-such-command'"));
	assert_non_null(strstr(err, "No such file"));
}

/* The deadline kills the whole group: the child and what it started. */
static void test_timeout_kills_group(void **state)
{
	(void)state;
	lines l;
	rt_usercmd_exit x;
	double t0 = rt_now();
	assert_int_equal(run_sh("sleep 30 & echo started; sleep 30", NULL, 0.5, &l, &x), RT_OK);
	assert_true(x.timed_out);
	assert_true(rt_now() - t0 < 10);
	assert_string_equal(l.last[0], "started");
}

/* A background process that keeps the pipes open does not hold the run up. */
static void test_straggler(void **state)
{
	(void)state;
	lines l;
	rt_usercmd_exit x;
	double t0 = rt_now();
	assert_int_equal(run_sh("sleep 30 & echo done", NULL, 60, &l, &x), RT_OK);
	assert_false(x.timed_out);
	assert_true(WIFEXITED(x.status) && WEXITSTATUS(x.status) == 0);
	assert_true(rt_now() - t0 < 10);
}

/* Megabytes on both pipes, interleaved: no deadlock, every line arrives. */
static void test_large_output(void **state)
{
	(void)state;
	lines l;
	rt_usercmd_exit x;
	assert_int_equal(run_sh("i=0; while [ $i -lt 20000 ]; do "
				"echo \"out $i ..................................................\"; "
				"echo \"err $i ..................................................\" >&2; "
				"i=$((i+1)); done",
				NULL, 120, &l, &x),
			 RT_OK);
	assert_int_equal(l.n[0], 20000);
	assert_int_equal(l.n[1], 20000);
	assert_non_null(strstr(l.last[0], "out 19999"));
	assert_non_null(strstr(l.last[1], "err 19999"));
}

/* A pin policy binds the child before exec. */
static void test_pin(void **state)
{
	(void)state;
	char *argv[] = {"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status", NULL};
	char err[RT_ERRLEN];
	lines l = {0};
	rt_usercmd_exit x;
	rt_usercmd c = {.argv = argv, .pin = RT_PIN_COMPACT, .pin_cpus = 1, .line = collect,
			.user = &l};
	assert_int_equal(rt_usercmd_run(&c, &x, err, sizeof err), RT_OK);
	const char *list = strchr(l.last[0], ':');
	assert_non_null(list);
	list += strspn(list, ":\t ");
	assert_null(strpbrk(list, ",-")); /* one CPU */
	assert_int_equal(rt_cpuset_count(&c.cpus), 1);
}

static void test_metric(void **state)
{
	(void)state;
	rt_metric m;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_metric_init(&m, "samples/s [0-9.]+", 1, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "0 capture groups"));
	assert_int_equal(rt_metric_init(&m, "(a)=([0-9]+)", 1, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "2 capture groups"));
	assert_int_equal(rt_metric_init(&m, "([0-9", 1, err, sizeof err), RT_EINVAL);
	assert_int_equal(rt_metric_init(&m, "v=([0-9.e+-]+)", 2, err, sizeof err), RT_OK);
	rt_metric_line(&m, "v=1 v=2");        /* two matches on a line: both warm up */
	rt_metric_line(&m, "nothing here");
	rt_metric_line(&m, "v=3.5 and v=4e2");
	rt_metric_line(&m, "v=abc");          /* not a number: not a sample */
	assert_int_equal(m.nsamples, 2);
	assert_true(m.samples[0] == 3.5 && m.samples[1] == 400);
	rt_metric_reset(&m);
	assert_int_equal(m.nsamples, 0);
	rt_metric_line(&m, "v=9");
	assert_int_equal(m.nsamples, 0); /* the warm-up starts again */
	rt_metric_free(&m);
}

/*
 * A command that prints millions of matches: the samples kept stay at most
 * RT_CMD_MAX_SAMPLES, thinned evenly (every stride-th of those seen, from the
 * first), so that the journal rigtune writes is one it can read back.
 */
static void test_metric_samples_bounded(void **state)
{
	(void)state;
	rt_metric m;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_metric_init(&m, "v=([0-9]+)", 0, err, sizeof err), RT_OK);
	long lines = 10L * RT_CMD_MAX_SAMPLES + 3;
	for (long i = 0; i < lines; i++) {
		char line[32];
		snprintf(line, sizeof line, "v=%ld", i);
		rt_metric_line(&m, line);
	}
	/* 4096 kept at stride 16 would be 65536 seen: 40963 seen at stride 16 keep 2561 */
	long stride = 16;
	assert_int_equal(m.seen, lines);
	assert_int_equal(m.stride, stride);
	assert_int_equal(m.nsamples, (lines + stride - 1) / stride);
	assert_true(m.nsamples <= RT_CMD_MAX_SAMPLES);
	for (int i = 0; i < m.nsamples; i++)
		if (m.samples[i] != (double)(i * stride))
			fail_msg("sample %d is %g, expected %ld", i, m.samples[i], i * stride);
	rt_metric_reset(&m);
	rt_metric_line(&m, "v=7");
	assert_true(m.nsamples == 1 && m.samples[0] == 7 && m.stride == 1);
	rt_metric_free(&m);
}

/* One measurement: the outcome and its cause. */
static rt_cause measure_sh(const char *script, uint64_t mem_cap, double timeout,
			   rt_measurement *out)
{
	char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
	char err[RT_ERRLEN] = "";
	rt_metric m;
	assert_int_equal(rt_metric_init(&m, "rate ([0-9.]+)", 1, err, sizeof err), RT_OK);
	rt_usercmd c = {.argv = argv, .mem_cap = mem_cap, .timeout_s = timeout};
	int rc = rt_usercmd_measure(&c, &m, out, err, sizeof err);
	if (rc)
		print_error("%s\n", err);
	assert_int_equal(rc, RT_OK);
	rt_metric_free(&m);
	return out->cause;
}

static void test_outcomes(void **state)
{
	(void)state;
	rt_measurement m;
	assert_int_equal(measure_sh("for r in 1 10 20 30; do echo rate $r; done", 0, 10, &m),
			 RT_CAUSE_NONE);
	assert_true(m.feasible);
	assert_int_equal(m.nsamples, 3); /* the first is the warm-up */
	assert_true(m.median == 20);
	rt_measurement_free(&m);
	assert_int_equal(measure_sh("echo rate 5; echo rate 6; echo broke >&2; exit 1", 0, 10, &m),
			 RT_CAUSE_CRASH);
	assert_false(m.feasible);
	assert_non_null(strstr(m.reason, "exit status 1: broke"));
	assert_int_equal(measure_sh("echo hello; echo rate 1", 0, 10, &m), RT_CAUSE_BAD_OUTPUT);
	assert_non_null(strstr(m.reason, "no match"));
	assert_int_equal(measure_sh("kill -SEGV $$", 0, 10, &m), RT_CAUSE_CRASH);
	assert_non_null(strstr(m.reason, "signal 11"));
	assert_int_equal(measure_sh("echo rate 1; sleep 30", 0, 0.5, &m), RT_CAUSE_TIMEOUT);
	assert_non_null(strstr(m.reason, "timeout"));
	assert_int_equal(measure_sh("echo 'RuntimeError: CUDA out of memory.' >&2; exit 1", 0, 10,
				    &m),
			 RT_CAUSE_MEMORY);
}

/* RLIMIT_AS in the child: an allocation beyond it fails, and that reads as memory. */
static void test_memory_cap(void **state)
{
	(void)state;
	rt_measurement m;
	/* awk's string grows until malloc fails under a 256 MiB address space */
	assert_int_equal(measure_sh("echo rate 1; echo rate 2; awk 'BEGIN { s = \"x\"; "
				    "while (1) s = s s }'",
				    256ull << 20, 60, &m),
			 RT_CAUSE_MEMORY);
	assert_non_null(strstr(m.reason, "out of memory"));
}

static const char *env_of(const rt_usercmd_env *e, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < e->n; i++)
		if (!strncmp(e->var[i], name, n) && e->var[i][n] == '=')
			return e->var[i] + n + 1;
	return NULL;
}

/* A machine whose probe found these backends' tables (a NULL visible: none). */
static const rt_machine *machine_with(const char *const (*accel)[2], int n)
{
	static rt_machine m;
	memset(&m, 0, sizeof m);
	for (int i = 0; i < n; i++) {
		snprintf(m.accel[i].backend, sizeof m.accel[i].backend, "%s", accel[i][0]);
		snprintf(m.accel[i].visible, sizeof m.accel[i].visible, "%s",
			 accel[i][1] ? accel[i][1] : "");
	}
	m.naccel = n;
	return &m;
}

/* The point of n name/value texts, which must be one. */
static const rt_cmd_point *point_of(const rt_knob_value *kv, int n)
{
	static rt_cmd_point pt;
	char err[RT_ERRLEN];
	if (rt_cmd_point_of(kv, n, &pt, err, sizeof err))
		fail_msg("not a point: %s", err);
	return &pt;
}

static void test_point_env(void **state)
{
	(void)state;
	static const char *const accel[][2] = {{"cpu", NULL},
					       {"cuda", "CUDA_VISIBLE_DEVICES"},
					       {"hip", "HIP_VISIBLE_DEVICES"},
					       {"xpu", "ZE_AFFINITY_MASK"}}; /* from outside the tree */
	const rt_machine *m = machine_with(accel, 4);
	rt_knob_value kv[] = {{"threads", "1"}, {"blas_threads", "2"}, {"device", "cuda:1"},
			      {"lr", "0.01"}, {"workers", "1"}};
	rt_usercmd_env e;
	rt_cmdknobs_env(point_of(kv, 5), m, &e);
	assert_string_equal(env_of(&e, "OMP_NUM_THREADS"), "1");
	assert_string_equal(env_of(&e, "MKL_NUM_THREADS"), "1"); /* PyTorch reads it first */
	assert_string_equal(env_of(&e, "OPENBLAS_NUM_THREADS"), "2");
	assert_string_equal(env_of(&e, "VECLIB_MAXIMUM_THREADS"), "2");
	assert_string_equal(env_of(&e, "CUDA_VISIBLE_DEVICES"), "1");
	assert_null(env_of(&e, "HIP_VISIBLE_DEVICES"));
	assert_string_equal(env_of(&e, "RIGTUNE_LR"), "0.01");
	assert_string_equal(env_of(&e, "RIGTUNE_DEVICE"), "cuda:0"); /* the one GPU it sees */
	assert_string_equal(env_of(&e, "RIGTUNE_BLAS_THREADS"), "2");
	assert_null(e.ptr[e.n]);
	assert_int_equal(rt_cmdknobs_cpus(point_of(kv, 5), 8), 3); /* max(1, 2) + 1 worker */
	rt_knob_value cpu[] = {{"device", "cpu"}, {"workers", "2"}};
	rt_cmdknobs_env(point_of(cpu, 2), m, &e);
	assert_string_equal(env_of(&e, "CUDA_VISIBLE_DEVICES"), "");
	assert_string_equal(env_of(&e, "HIP_VISIBLE_DEVICES"), "");
	assert_string_equal(env_of(&e, "ZE_AFFINITY_MASK"), ""); /* every backend's, hidden */
	assert_null(env_of(&e, "OMP_NUM_THREADS"));
	/* no thread knob: every core */
	assert_int_equal(rt_cmdknobs_cpus(point_of(cpu, 2), 8), 10);
	rt_knob_value hip[] = {{"device", "hip:2"}};
	rt_cmdknobs_env(point_of(hip, 1), m, &e);
	assert_string_equal(env_of(&e, "HIP_VISIBLE_DEVICES"), "2");
	assert_null(env_of(&e, "CUDA_VISIBLE_DEVICES"));
	/* the variable comes from the backend's table: a plugin from elsewhere needs no line here */
	rt_knob_value xpu[] = {{"device", "xpu:3"}};
	rt_cmdknobs_env(point_of(xpu, 1), m, &e);
	assert_string_equal(env_of(&e, "ZE_AFFINITY_MASK"), "3");
	assert_null(env_of(&e, "CUDA_VISIBLE_DEVICES"));
	/* a backend the probe could not load has no variable to set */
	rt_cmdknobs_env(point_of(hip, 1), machine_with(accel, 2), &e);
	assert_null(env_of(&e, "HIP_VISIBLE_DEVICES"));
	assert_int_equal(rt_cmdknobs_device_check("cpu:1"), -1);
	assert_int_equal(rt_cmdknobs_device_check("hip:-1"), -1);
	assert_int_equal(rt_cmdknobs_device_check("hip:0"), 0);
	assert_int_equal(rt_cmdknobs_device_check("cuda:"), -1);
	assert_int_equal(rt_cmdknobs_device_check("gpu"), -1);
	assert_null(rt_cmdknobs_name_bad("blas_threads"));
	assert_non_null(rt_cmdknobs_name_bad("2x"));
	assert_non_null(rt_cmdknobs_name_bad("a-b"));
	/* a knob's variable may not be one of rigtune's own settings, whatever its case */
	assert_non_null(rt_cmdknobs_name_bad("backend_path"));
	assert_non_null(rt_cmdknobs_name_bad("Lock_Dir"));
	assert_non_null(rt_cmdknobs_name_bad("cpu_mask"));
	assert_null(rt_cmdknobs_name_bad("backend"));
}


/* Whether process pid is still there (a zombie of ours counts as gone). */
static int alive(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *close = strrchr(buf, ')');
	return close && close[1] == ' ' && close[2] != 'Z';
}

/* How many processes the file at path lists (a pid a line); fails if one of them is alive. */
static int none_alive(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	long pid;
	int count = 0;
	while (fscanf(f, "%ld", &pid) == 1) {
		count++;
		if (alive((pid_t)pid))
			fail_msg("process %ld of %s outlived the trial", pid, path);
	}
	fclose(f);
	return count;
}

/*
 * tune's runs and check's trials are placed and capped by one function: the
 * CPUs from the machine's physical cores (not the logical CPUs), the memory
 * cap only where no GPU runtime can be in the run.
 */
static void test_point_limits(void **state)
{
	(void)state;
	static const char *const accel[][2] = {{"cpu", NULL}, {"cuda", "CUDA_VISIBLE_DEVICES"}};
	rt_machine *m = (rt_machine *)machine_with(accel, 2);
	m->cores = 4;
	m->pus = 8;
	rt_knob_value pin[] = {{"pin", "compact"}, {"batch", "8"}};
	rt_usercmd uc = {0};
	rt_cmdknobs_limits(point_of(pin, 2), m, &uc);
	assert_int_equal(uc.pin, RT_PIN_COMPACT);
	assert_int_equal(uc.pin_cpus, 4); /* no thread knob: the physical cores */
	assert_true(uc.mem_cap > 0);      /* no accelerator available: capped */
	m->accel[1].available = 1;
	rt_cmdknobs_limits(point_of(pin, 2), m, &uc);
	assert_int_equal(uc.mem_cap, 0); /* CUDA may be in it */
	rt_knob_value cpu[] = {{"device", "cpu"}, {"threads", "2"}, {"workers", "1"}};
	rt_cmdknobs_limits(point_of(cpu, 3), m, &uc);
	assert_int_equal(uc.pin, RT_PIN_NONE);
	assert_int_equal(uc.pin_cpus, 3);
	assert_true(uc.mem_cap > 0); /* device cpu: capped although a GPU is there */
}

/*
 * A child that double-forks into its own session (setsid) is out of reach
 * of killpg: it survived the trial. The whole tree ends with it, whether
 * the command exits on its own, times out, or leaves a process below the
 * escaped one.
 */
static void test_setsid_children_end_with_the_trial(void **state)
{
	(void)state;
	char dir[] = "/tmp/rt-usercmd-XXXXXX", script[1024], path[128];
	assert_non_null(mkdtemp(dir));
	static const double timeouts[] = {60, 3};
	for (size_t t = 0; t < RT_COUNT(timeouts); t++) {
		snprintf(path, sizeof path, "%s/pids", dir);
		unlink(path);
		/* escaped: a new session; below it, a sleep of its own in the background */
		snprintf(script, sizeof script,
			 "setsid sh -c 'sleep 300 & echo $! >>%s; sh -c \"sleep 300 & echo \\$! >>%s\"; "
			 "echo $$ >>%s; sleep 300' & "
			 "until [ \"$(wc -l <%s 2>/dev/null)\" = 3 ]; do sleep 0.05; done; "
			 "echo started;%s",
			 path, path, path, path, t ? " sleep 300" : "");
		lines l;
		rt_usercmd_exit x;
		assert_int_equal(run_sh(script, NULL, timeouts[t], &l, &x), RT_OK);
		assert_string_equal(l.last[0], "started");
		assert_int_equal(none_alive(path), 3);
		assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* nothing left to reap either */
	}
	unlink(path);
	rmdir(dir);
}

/*
 * This binary as a command's worker (main: --eat MIB HOLD_S): it touches MIB
 * MiB, prints two rates, and holds them HOLD_S seconds.
 */
static int eat(size_t mib, double hold_s)
{
	char *p = malloc(mib << 20);
	if (!p)
		return 3;
	memset(p, 1, mib << 20);
	/* read back: memory in use, which no compiler may leave out */
	printf("rate %d\nrate %d\n", p[0], p[(mib << 20) - 1]);
	fflush(stdout);
	usleep((useconds_t)(hold_s * 1e6));
	free(p);
	return 0;
}

/*
 * Where RLIMIT_AS does not hold (macOS; RIGTUNE_MEMWATCH_MIB takes that path
 * here), the watchdog holds the cap on the command's whole tree, as on a
 * PyTorch script's DataLoader workers: two workers of 400 MiB under a 640 MiB
 * cap, each within it alone, end the run as memory with the figure seen, and
 * neither outlives it; one of them alone runs as it would.
 */
static void test_memory_watchdog(void **state)
{
	(void)state;
	char exe[1024], dir[] = "/tmp/rt-usercmd-XXXXXX", pids[128], script[3200];
	assert_int_equal(rt_plat_exe_path(exe, sizeof exe), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(pids, sizeof pids, "%s/pids", dir);
	snprintf(script, sizeof script,
		 "'%s' --eat 400 60 & echo $! >>%s; '%s' --eat 400 60 & echo $! >>%s; wait", exe,
		 pids, exe, pids);
	setenv("RIGTUNE_MEMWATCH_MIB", "640", 1);
	rt_measurement m;
	assert_int_equal(measure_sh(script, 640ull << 20, 120, &m), RT_CAUSE_MEMORY);
	double cap, seen;
	if (sscanf(m.reason, "needs more than the %lf GiB cap (%lf GiB when the watchdog ended it)",
		   &cap, &seen) != 2)
		fail_msg("reason: '%s'", m.reason);
	assert_true(cap == 0.6 && seen >= 0.6 && seen <= 1.0);
	assert_int_equal(none_alive(pids), 2);

	snprintf(script, sizeof script, "exec '%s' --eat 400 0.3", exe);
	assert_int_equal(measure_sh(script, 640ull << 20, 120, &m), RT_CAUSE_NONE);
	assert_true(m.feasible && m.nsamples == 1 && m.median == 1);
	rt_measurement_free(&m);
	unsetenv("RIGTUNE_MEMWATCH_MIB");
	unlink(pids);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--eat"))
		return eat(strtoul(argv[2], NULL, 10), strtod(argv[3], NULL));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_errors),
		cmocka_unit_test(test_placeholders),
		cmocka_unit_test(test_shell_template),
		cmocka_unit_test(test_shell_values),
		cmocka_unit_test(test_shell_refused),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_point_limits),
		cmocka_unit_test(test_env_and_status),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_setsid_children_end_with_the_trial),
		cmocka_unit_test(test_straggler),
		cmocka_unit_test(test_large_output),
		cmocka_unit_test(test_pin),
		cmocka_unit_test(test_metric),
		cmocka_unit_test(test_metric_samples_bounded),
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_memory_cap),
		cmocka_unit_test(test_memory_watchdog),
		cmocka_unit_test(test_point_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
