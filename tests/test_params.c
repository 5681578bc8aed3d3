/*
 * test_params.c: the comma-separated lists of options (rt_arglist_split):
 * the exact items, and the refusals of a list that is too long, has too
 * many items or an empty one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/params.h"

static void splits_into_exact_items(void **state)
{
	(void)state;
	rt_arglist l;
	char err[RT_ERRLEN] = "";
	const char *list = "d_model=768,seq_len=60,heads=12";
	assert_int_equal(rt_arglist_split(list, "--shape", 8, &l, err, sizeof err), RT_OK);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.item[0], "d_model=768");
	assert_string_equal(l.item[1], "seq_len=60");
	assert_string_equal(l.item[2], "heads=12");
	assert_string_equal(err, "");

	assert_int_equal(rt_arglist_split("cpu", "--backend", 8, &l, err, sizeof err), RT_OK);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.item[0], "cpu");
	/* blanks are part of an item: the caller's check of the name refuses them */
	assert_int_equal(rt_arglist_split(" a,b ", "--x", 8, &l, err, sizeof err), RT_OK);
	assert_string_equal(l.item[0], " a");
	assert_string_equal(l.item[1], "b ");
}

/* The longest list taken is RT_ARGLIST_MAX_CHARS characters; one more is refused. */
static void refuses_a_list_longer_than_its_buffer(void **state)
{
	(void)state;
	char list[RT_ARGLIST_MAX_CHARS + 2], err[RT_ERRLEN];
	rt_arglist l;
	memset(list, 'x', RT_ARGLIST_MAX_CHARS);
	list[RT_ARGLIST_MAX_CHARS] = '\0';
	list[100] = ',';
	assert_int_equal(rt_arglist_split(list, "--shape", 8, &l, err, sizeof err), RT_OK);
	assert_int_equal(l.n, 2);
	assert_int_equal(strlen(l.item[0]), 100);
	assert_int_equal(strlen(l.item[1]), RT_ARGLIST_MAX_CHARS - 101);

	strcat(list, "y");
	assert_int_equal(rt_arglist_split(list, "--shape", 8, &l, err, sizeof err), RT_EINVAL);
	char want[128];
	snprintf(want, sizeof want, "--shape: longer than %d characters (%d)",
		 RT_ARGLIST_MAX_CHARS, RT_ARGLIST_MAX_CHARS + 1);
	assert_string_equal(err, want);
}

static void refuses_too_many_items(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	rt_arglist l;
	assert_int_equal(rt_arglist_split("cpu,cuda", "--backend", 2, &l, err, sizeof err), RT_OK);
	assert_int_equal(l.n, 2);
	assert_int_equal(rt_arglist_split("cpu,cuda,hip", "--backend", 2, &l, err, sizeof err),
			 RT_EINVAL);
	assert_string_equal(err, "--backend: more than 2 items in 'cpu,cuda,hip'");

	/* a max above what the list holds is cut to it */
	char many[4 * RT_ARGLIST_MAX_ITEMS + 8] = "";
	for (int i = 0; i <= RT_ARGLIST_MAX_ITEMS; i++)
		strcat(many, i ? ",a" : "a");
	assert_int_equal(rt_arglist_split(many, "--x", 1000, &l, err, sizeof err), RT_EINVAL);
	char want[64];
	snprintf(want, sizeof want, "--x: more than %d items", RT_ARGLIST_MAX_ITEMS);
	assert_memory_equal(err, want, strlen(want));
	many[strlen(many) - 2] = '\0'; /* exactly RT_ARGLIST_MAX_ITEMS */
	assert_int_equal(rt_arglist_split(many, "--x", 1000, &l, err, sizeof err), RT_OK);
	assert_int_equal(l.n, RT_ARGLIST_MAX_ITEMS);
}

static void refuses_empty_items(void **state)
{
	(void)state;
	static const struct {
		const char *list, *msg;
	} cases[] = {
		{"a,,b", "--shape: empty item 2 in 'a,,b'"},
		{",a", "--shape: empty item 1 in ',a'"},
		{"a,", "--shape: empty item 2 in 'a,'"},
		{",", "--shape: empty item 1 in ','"},
		{"", "--shape: expected a comma-separated list, got nothing"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[RT_ERRLEN] = "";
		rt_arglist l;
		assert_int_equal(rt_arglist_split(cases[i].list, "--shape", 8, &l, err, sizeof err),
				 RT_EINVAL);
		assert_string_equal(err, cases[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(splits_into_exact_items),
		cmocka_unit_test(refuses_a_list_longer_than_its_buffer),
		cmocka_unit_test(refuses_too_many_items),
		cmocka_unit_test(refuses_empty_items),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
