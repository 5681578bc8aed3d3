/*
 * rigtune sweep's parts: the --params file and its errors with their place,
 * the plan from a recommendation and its journal (batch values, where each
 * figure comes from, the memory cut), values in the engines' syntax, the
 * objective's checks and the grid's trials. The engines themselves run in
 * tests/cli/test_sweep.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/sweep/sweep.h"
#include "../tuner/sweep/sweep_impl.h"

#define FIXTURE "tests/data/sweep/config.yaml"

static const char *const reserved[] = {"batch", "threads", "pin"};

static int parse(const char *text, rt_sweep_params *p, char *err, size_t errlen)
{
	return rt_sweep_params_parse("p.yaml", text, strlen(text), reserved, 3, p, err, errlen);
}

/* The fixture's configuration and the plan of workload, sweeping trials trials. */
static void load_plan(const char *workload, int trials, rt_config *c, rt_sweep_plan *plan)
{
	char err[RT_ERRLEN] = "";
	rt_sweep_opts o = {workload, 1000, trials};
	if (rt_config_load(FIXTURE, c, err, sizeof err) ||
	    rt_sweep_plan_make(c, &o, plan, err, sizeof err))
		fail_msg("%s", err);
}

/* One change to the fixture: the first `from` becomes `to`. */
typedef struct edit {
	const char *from, *to;
} edit;

/* The fixture with edits made, in dir (a mkdtemp template) as c.yaml, loaded into c. */
static void load_edited(const edit *e, int n, char *dir, rt_config *c)
{
	char *text, *next, cfg[64], err[RT_ERRLEN] = "";
	size_t len;
	assert_int_equal(rt_read_file(FIXTURE, &text, &len, err, sizeof err), RT_OK);
	for (int i = 0; i < n; i++) {
		char *at = strstr(text, e[i].from);
		assert_non_null(at);
		assert_true(asprintf(&next, "%.*s%s%s", (int)(at - text), text, e[i].to,
				     at + strlen(e[i].from)) > 0);
		free(text);
		text = next;
	}
	assert_non_null(mkdtemp(dir));
	snprintf(cfg, sizeof cfg, "%s/c.yaml", dir);
	FILE *f = fopen(cfg, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(text);
	if (rt_config_load(cfg, c, err, sizeof err))
		fail_msg("%s", err);
}

static void unload_edited(const char *dir, rt_config *c)
{
	char cfg[64];
	rt_config_free(c);
	snprintf(cfg, sizeof cfg, "%s/c.yaml", dir);
	unlink(cfg);
	rmdir(dir);
}

static void test_params_kinds(void **state)
{
	(void)state;
	rt_sweep_params p;
	char err[RT_ERRLEN] = "";
	int rc = parse("lr: {low: 1.0e-5, high: 0.1, scale: log}\n"
		       "layers: {low: 2, high: 8, type: int}\n"
		       "opt: {values: [adam, 0.5, 3, true, '7']}\n"
		       "wd: {high: 0.1, low: 0}\n",
		       &p, err, sizeof err);
	assert_int_equal(rc, RT_OK);
	assert_int_equal(p.n, 4);
	assert_string_equal(p.p[0].name, "lr");
	assert_true(p.p[0].is_range && p.p[0].log && !p.p[0].integer);
	assert_true(p.p[0].low == 1.0e-5 && p.p[0].high == 0.1);
	assert_true(p.p[1].is_range && p.p[1].integer && !p.p[1].log);
	assert_true(p.p[1].low == 2 && p.p[1].high == 8);
	assert_false(p.p[2].is_range);
	assert_int_equal(p.p[2].nvalues, 5);
	assert_int_equal(p.p[2].values[0].type, RT_SV_STR);
	assert_string_equal(p.p[2].values[0].str, "adam");
	assert_int_equal(p.p[2].values[1].type, RT_SV_FLOAT);
	assert_true(p.p[2].values[1].num == 0.5);
	assert_int_equal(p.p[2].values[2].type, RT_SV_INT);
	assert_int_equal(p.p[2].values[3].type, RT_SV_BOOL);
	assert_int_equal(p.p[2].values[4].type, RT_SV_STR); /* quoted: a string */
	assert_true(p.p[3].is_range && !p.p[3].log && p.p[3].low == 0 && p.p[3].high == 0.1);
	rt_sweep_params_free(&p);
}

static void test_params_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *message;
	} cases[] = {
		{"lr: {low: 1, high: 2, scale: ln}\n", "p.yaml:1:30: lr: scale: expected linear or log"},
		{"lr: {low: 3, high: 2}\n", "p.yaml:1:11: lr: low (3) must be below high (2)"},
		{"lr: {low: 2, high: 2}\n", "p.yaml:1:11: lr: low (2) must be below high (2)"},
		{"opt: {values: []}\n", "p.yaml:1:15: opt: values: empty"},
		{"lr: {low: 1, high: 2, step: 1}\n", "p.yaml:1:23: lr: unknown key 'step'"},
		{"lr: {low: 1, high: 2\n", "p.yaml:2:1: malformed YAML"},
		{"lr: {low: 0, high: 1, scale: log}\n", "p.yaml:1:11: lr: scale log needs low > 0"},
		{"n: {low: 1.5, high: 4, type: int}\n", "p.yaml:1:10: n: low: expected a whole number"},
		{"n: {low: 1, high: 4, type: integer}\n", "p.yaml:1:28: n: type: expected float or int"},
		{"lr: {low: .inf, high: 4}\n", "p.yaml:1:11: lr: low: expected a finite number"},
		{"lr: {high: 4}\n", "p.yaml:1:5: lr: missing key 'low'"},
		{"opt: {values: [a, b], low: 1}\n", "p.yaml:1:6: opt: values and low exclude each other"},
		{"opt: {values: [a, b, a]}\n", "p.yaml:1:22: opt: values: 'a' is repeated"},
		{"opt: {values: [a, ~]}\n", "p.yaml:1:19: opt: values: null is not a value"},
		{"opt: {values: [[1]]}\n", "p.yaml:1:16: opt: values: expected scalars"},
		{"opt: [a, b]\n", "p.yaml:1:6: opt: expected {values: [...]} or {low: L, high: H}"},
		{"threads: {values: [1, 2]}\n", "p.yaml:1:1: threads: set by the sweep itself"},
		{"2lr: {low: 1, high: 2}\n", "p.yaml:1:1: a parameter's name is a letter"},
		{"- lr\n", "p.yaml:1:1: expected a mapping of parameter names"},
		{"lr: {low: 1, high: 2}\nlr: {low: 1, high: 3}\n", "p.yaml:2:1: lr: repeated"},
	};
	for (size_t i = 0; i < RT_COUNT(cases); i++) {
		rt_sweep_params p;
		char err[RT_ERRLEN] = "";
		int rc = parse(cases[i].text, &p, err, sizeof err);
		if (rc != RT_EINVAL || !strstr(err, cases[i].message))
			fail_msg("%s: rc %d, '%s', expected '%s'", cases[i].text, rc, err,
				 cases[i].message);
		assert_int_equal(p.n, 0);
	}
}

/* The fixture (see its comment): knee 32, 64 interpolated, 128 ran, 256 out of memory. */
static void test_plan_from_journal(void **state)
{
	(void)state;
	rt_config c;
	rt_sweep_plan plan;
	load_plan("transformer", 10, &c, &plan);
	assert_string_equal(plan.axis, "batch");
	assert_int_equal(plan.knee, 32);
	assert_int_equal(plan.nbatch, 3);
	static const long values[] = {32, 64, 128};
	static const double tp[] = {300, 308, 316};
	static const rt_sweep_source src[] = {RT_SRC_MEASURED, RT_SRC_INTERPOLATED,
					      RT_SRC_MEASURED};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(plan.batch[i].value, values[i]);
		assert_true(plan.batch[i].throughput > tp[i] - 1e-9 &&
			    plan.batch[i].throughput < tp[i] + 1e-9);
		assert_int_equal(plan.batch[i].source, src[i]);
		assert_true(plan.batch[i].fit_measured);
		double s = 1000.0 * (double)values[i] / tp[i];
		assert_true(plan.batch[i].seconds > s - 1e-6 && plan.batch[i].seconds < s + 1e-6);
	}
	assert_non_null(strstr(plan.limit, "batch=256 ran out of memory"));
	assert_true(rt_sweep_mean_seconds(&plan) > 239 && rt_sweep_mean_seconds(&plan) < 240);
	rt_config_free(&c);
}

/* Without a journal, ppo's num_envs past the knee stop where the memory model says. */
static void test_plan_memory_model(void **state)
{
	(void)state;
	const rt_workload *w = rt_workload_find("ppo");
	rt_point pt;
	rt_shape sh;
	rt_point_default(&pt);
	rt_shape_default(w, &sh);
	int k = rt_shape_index(w, "num_envs");
	sh.v[k] = 128;
	double gib128 = (double)w->mem_bytes(&pt, &sh) / (1u << 30);
	sh.v[k] = 256;
	double gib256 = (double)w->mem_bytes(&pt, &sh) / (1u << 30);
	/* available memory between what 128 and 256 need, with the margin */
	double avail = (gib128 + gib256) / 2 / RT_SWEEP_MEM_SHARE;

	char path[] = "/tmp/rt-sweep-XXXXXX", line[64], err[RT_ERRLEN] = "";
	snprintf(line, sizeof line, "memory_gib: {total: 16, available: %.9f}", avail);
	const edit mem = {"memory_gib: {total: 16, available: 12}", line};
	rt_config c;
	rt_sweep_plan plan;
	load_edited(&mem, 1, path, &c);
	rt_sweep_opts o = {"ppo", 100, 10};
	assert_int_equal(rt_sweep_plan_make(&c, &o, &plan, err, sizeof err), RT_OK);
	assert_string_equal(plan.axis, "num_envs");
	assert_int_equal(plan.knee, 64);
	assert_int_equal(plan.nbatch, 2);
	assert_int_equal(plan.batch[0].value, 64);
	assert_true(plan.batch[0].fit_measured);
	assert_int_equal(plan.batch[1].value, 128);
	assert_false(plan.batch[1].fit_measured);
	assert_int_equal(plan.batch[1].source, RT_SRC_EXTRAPOLATED);
	assert_true(plan.batch[1].throughput == 10000);
	assert_non_null(strstr(plan.limit, "num_envs=256 would need"));
	assert_non_null(strstr(plan.notes, "journal.yaml is not here"));
	unload_edited(path, &c);
}

/*
 * A machine: the machine's reader refuses: a plan that needs its memory (ppo
 * past what ran) fails with the section's problem at its place; one that
 * does not (the transformer, each value ran or failed in tune) is made.
 */
static void test_plan_unreadable_machine(void **state)
{
	(void)state;
	const edit bad = {"  memory_gib: {total: 16, available: 12}",
			  "  cpu: {cores: many}\n  memory_gib: {total: 16, available: 12}"};
	char path[] = "/tmp/rt-sweep-XXXXXX", want[RT_ERRLEN], err[RT_ERRLEN] = "";
	rt_config c;
	rt_sweep_plan plan;
	load_edited(&bad, 1, path, &c);
	rt_sweep_opts o = {"ppo", 100, 10};
	assert_int_equal(rt_sweep_plan_make(&c, &o, &plan, err, sizeof err), RT_EINVAL);
	snprintf(want, sizeof want,
		 "%s/c.yaml:13:16: machine: cores: expected a whole number from -1 to 16777216",
		 path);
	assert_string_equal(err, want);
	/* with its journal beside it, the transformer's 256 ran out of memory in tune */
	char journal[64], *text;
	size_t len;
	snprintf(journal, sizeof journal, "%s/journal.yaml", path);
	assert_int_equal(rt_read_file("tests/data/sweep/journal.yaml", &text, &len, err, sizeof err),
			 RT_OK);
	FILE *f = fopen(journal, "w");
	assert_non_null(f);
	fwrite(text, 1, len, f);
	fclose(f);
	free(text);
	o.workload = "transformer";
	if (rt_sweep_plan_make(&c, &o, &plan, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(plan.nbatch, 3);
	assert_non_null(strstr(plan.limit, "batch=256 ran out of memory"));
	unlink(journal);
	unload_edited(path, &c);
}

static void test_plan_errors(void **state)
{
	(void)state;
	rt_config c;
	rt_sweep_plan plan;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_config_load(FIXTURE, &c, err, sizeof err), RT_OK);
	rt_sweep_opts o = {"nosuch", 1000, 10};
	assert_int_equal(rt_sweep_plan_make(&c, &o, &plan, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "no recommendation for workload 'nosuch' (it has: "
				    "transformer, ppo, gemm)"));
	o.workload = "gemm";
	assert_int_equal(rt_sweep_plan_make(&c, &o, &plan, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "gemm has no recommendation: not measured"));
	rt_config_free(&c);
}

/* A workload with no knee (gemm) has nothing to sweep; the message lists those that have one. */
static void test_plan_without_knee(void **state)
{
	(void)state;
	/* the transformer's entry under gemm's name, gemm's under another */
	static const edit rename[] = {{"  gemm:\n    none:", "  other:\n    none:"},
				      {"  transformer:\n", "  gemm:\n"}};
	char path[] = "/tmp/rt-sweep-XXXXXX", err[RT_ERRLEN] = "";
	rt_config c;
	rt_sweep_plan plan;
	load_edited(rename, 2, path, &c);
	rt_sweep_opts o = {"gemm", 1000, 10};
	assert_int_equal(rt_sweep_plan_make(&c, &o, &plan, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "'gemm' is not a built-in workload with a batch to sweep "
				    "(transformer (batch), ppo (num_envs))"));
	unload_edited(path, &c);
}

static char *capture_float(double v)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	rt_sweep_put_float(f, v);
	fclose(f);
	return text;
}

static void test_put_float(void **state)
{
	(void)state;
	static const struct {
		double v;
		const char *text;
	} cases[] = {{1e-5, "1.0e-05"}, {0.1, "0.1"}, {3, "3.0"}, {1e20, "1.0e+20"},
		     {-2.5, "-2.5"},   {0.30000000000000004, "0.30000000000000004"}};
	for (size_t i = 0; i < RT_COUNT(cases); i++) {
		char *t = capture_float(cases[i].v);
		assert_string_equal(t, cases[i].text);
		assert_true(strtod(t, NULL) == cases[i].v);
		free(t);
	}
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	rt_sweep_put_str(f, "a\"b\\c\nd\x01");
	fclose(f);
	assert_string_equal(text, "\"a\\\"b\\\\c\\nd\\u0001\"");
	free(text);
}

static void test_objective_check(void **state)
{
	(void)state;
	rt_config c;
	rt_sweep_plan plan;
	rt_sweep_params p;
	char err[RT_ERRLEN] = "";
	load_plan("transformer", 10, &c, &plan);
	assert_int_equal(parse("lr: {low: 1.0e-5, high: 0.1}\n", &p, err, sizeof err), RT_OK);
	static const struct {
		const char *cmd, *regex, *function, *message; /* NULL message: accepted */
	} cases[] = {
		{"t --lr {lr} --b {batch} --t {threads} {{x}}", "loss ([0-9.]+)", NULL, NULL},
		{"t --lr {learning_rate}", "l (x)", NULL, "{learning_rate} names no parameter"},
		{"t {lr", "l (x)", NULL, "a lone '{' at column 3"},
		{"t }", "l (x)", NULL, "a lone '}' at column 3"},
		{"t", "loss [0-9.]+", NULL, "exactly one group"},
		{"t", "(loss) ([0-9.]+)", NULL, "got 2 groups"},
		{"t", "(?:loss|l) \\(([0-9.]+)\\) [(]", NULL, NULL},
		{"t", "l ([[:digit:]]+)", NULL, "no [:class:]"},
		{NULL, NULL, "train:objective", NULL},
		{NULL, NULL, "pkg.mod:fn", NULL},
		{NULL, NULL, "train", "expected module:name"},
		{NULL, NULL, "train:1x", "expected module:name"},
	};
	for (size_t i = 0; i < RT_COUNT(cases); i++) {
		rt_sweep_objective obj = {cases[i].cmd, cases[i].regex, cases[i].function, NULL,
					  RT_SWEEP_MINIMIZE};
		int rc = rt_sweep_objective_check(&obj, &plan, &p, err, sizeof err);
		if (cases[i].message ? rc != RT_EINVAL || !strstr(err, cases[i].message)
				     : rc != RT_OK)
			fail_msg("case %zu: rc %d '%s'", i, rc, err);
	}
	rt_sweep_params_free(&p);
	rt_config_free(&c);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; (s = strchr(s, '\n')); s++)
		n++;
	return n;
}

/* As many trials as asked, the knee first, the values of a range inside it. */
static void test_grid(void **state)
{
	(void)state;
	rt_config c;
	rt_sweep_plan plan;
	rt_sweep_params p;
	char err[RT_ERRLEN] = "", *text;
	size_t len;
	load_plan("transformer", 25, &c, &plan);
	assert_int_equal(parse("lr: {low: 1.0e-4, high: 1.0e-2, scale: log}\n"
			       "opt: {values: [adam, sgd, lamb]}\n",
			       &p, err, sizeof err),
			 RT_OK);
	rt_sweep_objective obj = {0};
	const rt_sweep_format *grid = rt_sweep_format_find("grid");
	assert_non_null(grid);
	assert_int_equal(rt_sweep_write(grid, &plan, &p, &obj, &text, &len, err, sizeof err),
			 RT_OK);
	assert_int_equal(count_lines(text), 25);
	/* trial 0: the knee, lr at the geometric middle, the middle value */
	assert_non_null(strstr(text, "{\"trial\": 0, \"params\": {\"batch\": 32, \"lr\": 0.001"));
	assert_non_null(strstr(strchr(text, '\n') - 60, "\"opt\": \"sgd\""));
	int seen[3] = {0};
	for (const char *s = text; (s = strstr(s, "\"batch\": ")); s++) {
		long b = strtol(s + 9, NULL, 10);
		if (b != 32 && b != 64 && b != 128)
			fail_msg("batch %ld is not among 32, 64, 128", b);
		seen[b == 32 ? 0 : b == 64 ? 1 : 2]++;
	}
	assert_true(seen[0] >= 7 && seen[1] >= 7 && seen[2] >= 7); /* spread over all three */
	for (const char *s = text; (s = strstr(s, "\"lr\": ")); s++) {
		double lr = strtod(s + 6, NULL);
		assert_true(lr >= 1.0e-4 && lr <= 1.0e-2);
	}
	free(text);
	rt_sweep_params_free(&p);
	rt_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_kinds),   cmocka_unit_test(test_params_errors),
		cmocka_unit_test(test_plan_from_journal), cmocka_unit_test(test_plan_memory_model),
		cmocka_unit_test(test_plan_errors),    cmocka_unit_test(test_plan_without_knee),
		cmocka_unit_test(test_plan_unreadable_machine),
		cmocka_unit_test(test_put_float),
		cmocka_unit_test(test_objective_check), cmocka_unit_test(test_grid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
