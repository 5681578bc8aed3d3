/* The YAML writer: text that would load as another type is quoted; numbers are not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/yamlr.h"
#include "../tuner/yamlw.h"
#include "yaml_lookup.h"

static char *emit_pairs(void)
{
	rt_yw w;
	assert_int_equal(rt_yw_init(&w), 0);
	rt_yw_map(&w, 0);
	rt_yw_kstr(&w, "threads_text", "2");
	rt_yw_kstr(&w, "host", "on");
	rt_yw_kstr(&w, "digits", "0123456789012345");
	rt_yw_kstr(&w, "hex", "9b685717497a9a80");
	rt_yw_kstr(&w, "key", "d_ff");
	rt_yw_kstr(&w, "empty", "");
	rt_yw_kstr(&w, "name", "fp32");
	rt_yw_kstr(&w, "n", "n");
	rt_yw_kint(&w, "count", 3);
	rt_yw_knum(&w, "ratio", 0.5, 3);
	rt_yw_end_map(&w);
	char *text, err[128];
	size_t len;
	assert_int_equal(rt_yw_finish(&w, &text, &len, err, sizeof err), 0);
	return text;
}

static void test_quoting(void **state)
{
	(void)state;
	char *text = emit_pairs();
	assert_non_null(strstr(text, "threads_text: '2'\n"));
	assert_non_null(strstr(text, "host: 'on'\n"));
	assert_non_null(strstr(text, "digits: '0123456789012345'\n"));
	assert_non_null(strstr(text, "hex: 9b685717497a9a80\n"));
	assert_non_null(strstr(text, "key: d_ff\n"));
	assert_non_null(strstr(text, "empty: ''\n"));
	assert_non_null(strstr(text, "name: fp32\n"));
	assert_non_null(strstr(text, "n: n\n"));
	assert_non_null(strstr(text, "count: 3\n"));
	assert_non_null(strstr(text, "ratio: 0.5\n"));
	yaml_document_t doc;
	assert_int_equal(yl_load(&doc, text), 0);
	assert_string_equal(yl_str(&doc, "threads_text"), "2");
	assert_string_equal(yl_str(&doc, "digits"), "0123456789012345");
	yaml_document_delete(&doc);
	free(text);
}


/* A backend name of Latin-1 bytes ended as exit 3 "YAML emitter: out of memory". */
static void test_not_utf8_refused(void **state)
{
	(void)state;
	rt_yw w;
	assert_int_equal(rt_yw_init(&w), 0);
	rt_yw_map(&w, 0);
	rt_yw_kstr(&w, "backend", "caf\xe9\x1b[2J");
	rt_yw_kstr(&w, "after", "ignored");
	rt_yw_end_map(&w);
	char *text = NULL, err[128];
	size_t len;
	assert_int_equal(rt_yw_finish(&w, &text, &len, err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "cannot write 'caf??[2J' as YAML: it is not UTF-8");
	assert_null(text);
}

/*
 * A parsed document written again node by node (rt_yw_node) reads back with
 * the same types: a quoted '2' stays a string, a plain 64 a number, flow
 * and block styles as they were.
 */
static void test_node_copy(void **state)
{
	(void)state;
	static const char in[] = "a:\n  point: {batch: 64, env: '2', ok: true}\n"
				 "  list:\n  - x\n  - 'on'\n  ci: [1.5, 2]\n";
	rt_yr r;
	rt_yw w;
	char err[256], *text;
	size_t len;
	assert_int_equal(rt_yr_load(&r, "in", in, strlen(in), err, sizeof err), RT_OK);
	assert_int_equal(rt_yw_init(&w), RT_OK);
	rt_yw_node(&w, r.doc, rt_yr_root(&r));
	assert_int_equal(rt_yw_finish(&w, &text, &len, err, sizeof err), RT_OK);
	assert_non_null(strstr(text, "point: {batch: 64, env: '2', ok: true}\n"));
	assert_non_null(strstr(text, "  - x\n  - 'on'\n"));
	assert_non_null(strstr(text, "ci: [1.5, 2]\n"));
	free(text);
	rt_yr_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_node_copy),
		cmocka_unit_test(test_not_utf8_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
