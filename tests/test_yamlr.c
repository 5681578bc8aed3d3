/* The YAML reader: typed getters, and every problem at its FILE:LINE:COLUMN. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/yamlr.h"

static const char doc_text[] = "name: box\n"
			       "count: 12\n"
			       "ratio: 0.25\n"
			       "quoted: '16'\n"
			       "flag: true\n"
			       "nan: .nan\n"
			       "inf: -.inf\n"
			       "empty:\n"
			       "list: [1.5, 2.5, 4]\n"
			       "search:\n"
			       "  journal: results/x.yaml\n";

static void load(rt_yr *r, const char *text, char *err, size_t errlen)
{
	assert_int_equal(rt_yr_load(r, "t.yaml", text, strlen(text), err, errlen), RT_OK);
}

static void test_getters(void **state)
{
	(void)state;
	rt_yr r;
	char err[RT_ERRLEN];
	load(&r, doc_text, err, sizeof err);
	const rt_ynode *root = rt_yr_root(&r);
	const char *s;
	double v;
	long n;
	int b;
	assert_int_equal(rt_yr_need_str(&r, root, "name", &s), RT_OK);
	assert_string_equal(s, "box");
	assert_int_equal(rt_yr_need_int(&r, root, "count", 0, 100, &n), RT_OK);
	assert_int_equal(n, 12);
	assert_int_equal(rt_yr_need_num(&r, root, "ratio", &v), RT_OK);
	assert_true(v == 0.25);
	assert_int_equal(rt_yr_need_num(&r, root, "nan", &v), RT_OK);
	assert_true(isnan(v));
	assert_int_equal(rt_yr_need_num(&r, root, "inf", &v), RT_OK);
	assert_true(isinf(v) && v < 0);
	assert_int_equal(rt_yr_need_bool(&r, root, "flag", &b), RT_OK);
	assert_int_equal(b, 1);
	assert_true(rt_yr_is_null(rt_yr_get(&r, root, "empty")));
	assert_true(rt_yr_is_null(rt_yr_get(&r, root, "absent")));
	assert_false(rt_yr_is_null(rt_yr_get(&r, root, "name")));
	double *list;
	int count;
	assert_int_equal(rt_yr_need_nums(&r, root, "list", &list, &count), RT_OK);
	assert_int_equal(count, 3);
	assert_true(list[0] == 1.5 && list[1] == 2.5 && list[2] == 4);
	free(list);
	assert_string_equal(rt_yr_scalar(rt_yr_at(&r, root, "search.journal")), "results/x.yaml");
	assert_null(rt_yr_at(&r, root, "search.missing"));
	assert_null(rt_yr_at(&r, root, "name.deeper"));
	rt_yr_free(&r);
}

/* A quoted number is text: the schema's types are what the user wrote. */
static void test_quoted_number_is_text(void **state)
{
	(void)state;
	rt_yr r;
	char err[RT_ERRLEN];
	long n;
	load(&r, doc_text, err, sizeof err);
	assert_int_equal(rt_yr_need_int(&r, rt_yr_root(&r), "quoted", 0, 100, &n), RT_EINVAL);
	assert_string_equal(err, "t.yaml:4:9: quoted: expected a whole number");
	rt_yr_free(&r);
}

static void test_errors_name_the_place(void **state)
{
	(void)state;
	rt_yr r;
	char err[RT_ERRLEN];
	long n;
	load(&r, doc_text, err, sizeof err);
	const rt_ynode *root = rt_yr_root(&r);
	assert_int_equal(rt_yr_need_int(&r, root, "count", 0, 10, &n), RT_EINVAL);
	assert_string_equal(err, "t.yaml:2:8: count: 12 is out of range [0, 10]");
	assert_int_equal(rt_yr_need_num(&r, root, "name", (double[1]){0}), RT_EINVAL);
	assert_string_equal(err, "t.yaml:1:7: name: expected a number");
	assert_int_equal(rt_yr_need_str(&r, root, "missing", &(const char *){NULL}), RT_EINVAL);
	assert_string_equal(err, "t.yaml:1:1: missing key 'missing'");
	const rt_ynode *seq;
	assert_int_equal(rt_yr_need(&r, root, "search", YAML_SEQUENCE_NODE, &seq), RT_EINVAL);
	assert_string_equal(err, "t.yaml:11:3: search: expected a sequence");
	static const char *const allowed[] = {"name", "count"};
	assert_int_equal(rt_yr_only_keys(&r, root, "top", allowed, 2), RT_EINVAL);
	assert_string_equal(err, "t.yaml:3:1: top: unknown key 'ratio'");
	rt_yr_free(&r);
}

/* The reader rule's getters: finite and in range, else the value at its place. */
static void test_bounded_numbers(void **state)
{
	(void)state;
	rt_yr r;
	char err[RT_ERRLEN];
	double v, pair[2];
	static const char text[] = "ok: 0.5\nhuge: 1e300\ninf: .inf\nnan: .nan\n"
				   "ci: [1, 2]\nwide: [1, -.inf]\nitem: 7e20\n";
	load(&r, text, err, sizeof err);
	const rt_ynode *root = rt_yr_root(&r);
	assert_int_equal(rt_yr_need_num_in(&r, root, "ok", 0, 1, &v), RT_OK);
	assert_true(v == 0.5);
	assert_int_equal(rt_yr_need_num_in(&r, root, "huge", 0, RT_YR_MAX_MEASURE, &v), RT_EINVAL);
	assert_string_equal(err, "t.yaml:2:7: huge: 1e+300 is out of range [0, 1e+18]");
	assert_int_equal(rt_yr_need_num_in(&r, root, "inf", 0, RT_YR_MAX_MEASURE, &v), RT_EINVAL);
	assert_string_equal(err, "t.yaml:3:6: inf: inf is out of range [0, 1e+18]");
	assert_int_equal(rt_yr_need_num_in(&r, root, "nan", -1, 1, &v), RT_EINVAL);
	assert_string_equal(err, "t.yaml:4:6: nan: nan is out of range [-1, 1]");
	assert_int_equal(rt_yr_need_pair_in(&r, root, "ci", 0, 2, pair), RT_OK);
	assert_true(pair[0] == 1 && pair[1] == 2);
	assert_int_equal(rt_yr_need_pair_in(&r, root, "ci", 0, 1.5, pair), RT_EINVAL);
	assert_string_equal(err, "t.yaml:5:9: ci: 2 is out of range [0, 1.5]");
	assert_int_equal(rt_yr_need_pair_in(&r, root, "wide", -10, 10, pair), RT_EINVAL);
	assert_string_equal(err, "t.yaml:6:11: wide: -inf is out of range [-10, 10]");
	assert_int_equal(rt_yr_number_in(&r, rt_yr_get(&r, root, "item"), "item", 0, 1e18, &v),
			 RT_EINVAL);
	assert_string_equal(err, "t.yaml:7:7: item: 7e+20 is out of range [0, 1e+18]");
	rt_yr_free(&r);
}

static void test_malformed(void **state)
{
	(void)state;
	rt_yr r;
	char err[RT_ERRLEN];
	static const char bad[] = "a: [1, 2\nb: 3\n";
	assert_int_equal(rt_yr_load(&r, "bad.yaml", bad, strlen(bad), err, sizeof err), RT_EINVAL);
	assert_int_equal(strncmp(err, "bad.yaml:2:", 11), 0);
	rt_yr_free(&r); /* safe after a failed load */
	assert_int_equal(rt_yr_load(&r, "e.yaml", "", 0, err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "e.yaml:1:1: empty: no YAML document");
	static const char two[] = "a: 1\n---\nb: 2\n";
	assert_int_equal(rt_yr_load(&r, "two.yaml", two, strlen(two), err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "two.yaml:2:1: a second document; expected one");
}

static void test_file(void **state)
{
	(void)state;
	char path[] = "/tmp/rt-yamlr-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(rt_write_all(fd, doc_text, strlen(doc_text)), 0);
	close(fd);
	rt_yr r;
	char err[RT_ERRLEN];
	assert_int_equal(rt_yr_load_file(&r, path, err, sizeof err), RT_OK);
	assert_int_equal(rt_yr_npairs(rt_yr_root(&r)), 10);
	rt_yr_free(&r);
	unlink(path);
	assert_int_equal(rt_yr_load_file(&r, path, err, sizeof err), RT_EIO);
	assert_non_null(strstr(err, "cannot read /tmp/rt-yamlr-"));
	assert_int_equal(rt_yr_load_file(&r, "/tmp", err, sizeof err), RT_EIO);
	assert_string_equal(err, "cannot read /tmp: it is a directory");
}

/* A FIFO would wait for a writer forever, a device never end: refused at once. */
static void test_file_not_regular(void **state)
{
	(void)state;
	char dir[] = "/tmp/rt-yamlr-XXXXXX", fifo[64];
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	rt_yr r;
	char err[RT_ERRLEN], want[128];
	assert_int_equal(rt_yr_load_file(&r, fifo, err, sizeof err), RT_EINVAL);
	snprintf(want, sizeof want, "cannot read %s: not a regular file", fifo);
	assert_string_equal(err, want);
	assert_int_equal(rt_yr_load_file(&r, "/dev/zero", err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "cannot read /dev/zero: not a regular file");
	unlink(fifo);
	rmdir(dir);
}


/* Loads text, which must fail, and checks the message. */
static void refused(const char *text, size_t len, const char *want)
{
	rt_yr r;
	char err[RT_ERRLEN];
	assert_int_equal(rt_yr_load(&r, "t.yaml", text, len, err, sizeof err), RT_EINVAL);
	assert_string_equal(err, want);
}

/*
 * No format of rigtune's uses aliases: a cyclic one hung `check`'s walk, and
 * nested ones turned a few KB into 111,150 lines of diff.
 */
static void test_aliases_refused(void **state)
{
	(void)state;
	const char *cyclic = "machine:\n  loop: &c [*c, *c]\n";
	refused(cyclic, strlen(cyclic),
		"t.yaml:2:13: an alias (*c): rigtune's files never use anchors and aliases; "
		"write the value out");
	const char *laughs = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n";
	refused(laughs, strlen(laughs),
		"t.yaml:2:8: an alias (*a): rigtune's files never use anchors and aliases; "
		"write the value out");
	/* an anchor alone names nothing twice: harmless, read as written */
	rt_yr r;
	char err[RT_ERRLEN];
	const char *anchor = "a: &x 3\n";
	assert_int_equal(rt_yr_load(&r, "t.yaml", anchor, strlen(anchor), err, sizeof err), RT_OK);
	rt_yr_free(&r);
}

/* 200,000 brackets kept `env` busy for minutes; the screen stops at the limit. */
static void test_depth_limit(void **state)
{
	(void)state;
	size_t deep = 200000;
	char *text = malloc(deep + 1);
	assert_non_null(text);
	memset(text, '[', deep);
	text[deep] = '\0';
	char want[128];
	snprintf(want, sizeof want,
		 "t.yaml:1:%d: nested deeper than %d levels; rigtune's files never are",
		 RT_YR_MAX_DEPTH + 1, RT_YR_MAX_DEPTH);
	refused(text, deep, want);
	/* exactly the limit is read */
	char ok[2 * RT_YR_MAX_DEPTH + 1];
	memset(ok, '[', RT_YR_MAX_DEPTH);
	memset(ok + RT_YR_MAX_DEPTH, ']', RT_YR_MAX_DEPTH);
	ok[2 * RT_YR_MAX_DEPTH] = '\0';
	rt_yr r;
	char err[RT_ERRLEN];
	assert_int_equal(rt_yr_load(&r, "t.yaml", ok, strlen(ok), err, sizeof err), RT_OK);
	rt_yr_free(&r);
	free(text);
}

/*
 * A loaded node costs libyaml ~200 bytes whatever its text: an 8 MiB flow
 * sequence of 1s took 695 MB. The screen counts the values of a document;
 * the limit is read, one more is refused at its place, in each document.
 */
static void test_node_limit(void **state)
{
	(void)state;
	size_t items = RT_YR_MAX_NODES; /* with the sequence itself: one more than the limit */
	char *text = malloc(2 * items + 2);
	assert_non_null(text);
	text[0] = '[';
	for (size_t i = 0; i < items; i++)
		memcpy(text + 1 + 2 * i, i + 1 < items ? "1," : "1]", 2);
	text[2 * items + 1] = '\0';
	char want[128];
	snprintf(want, sizeof want,
		 "t.yaml:1:%zu: more than %d values in one document; rigtune's files never have "
		 "as many", 2 * items, RT_YR_MAX_NODES);
	refused(text, strlen(text), want);
	/* one value fewer: exactly the limit, read */
	memcpy(text + 2 * items - 3, "1]", 3);
	rt_yr r;
	char err[RT_ERRLEN];
	assert_int_equal(rt_yr_load(&r, "t.yaml", text, strlen(text), err, sizeof err), RT_OK);
	assert_int_equal(rt_yr_root(&r)->data.sequence.items.top -
				 rt_yr_root(&r)->data.sequence.items.start,
			 items - 1);
	rt_yr_free(&r);
	free(text);
}

static void test_size_limit(void **state)
{
	(void)state;
	size_t len = (size_t)RT_YR_MAX_BYTES + 1;
	char *text = malloc(len);
	assert_non_null(text);
	memset(text, ' ', len);
	char want[128];
	snprintf(want, sizeof want, "t.yaml: %zu bytes; rigtune reads YAML of at most 64 MiB", len);
	refused(text, len, want);
	free(text);
}

/* libyaml's reader sets no mark: the place is counted from its byte offset. */
static void test_reader_errors_have_a_place(void **state)
{
	(void)state;
	char text[512] = "";
	for (int i = 1; i < 30; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "k%d: %d\n", i, i);
	size_t at = strlen(text);
	snprintf(text + at, sizeof text - at, "name: \xc3\xa9\xc3\xa9\xff\n");
	refused(text, strlen(text),
		"t.yaml:30:9: malformed YAML: invalid leading UTF-8 octet (0xFF)");
	char nul[] = "a: 1\nb: x\0y\n";
	refused(nul, sizeof nul - 1,
		"t.yaml:2:5: malformed YAML: control characters are not allowed (0x00)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_quoted_number_is_text),
		cmocka_unit_test(test_errors_name_the_place),
		cmocka_unit_test(test_bounded_numbers),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_file_not_regular),
		cmocka_unit_test(test_aliases_refused),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_node_limit),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_reader_errors_have_a_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
