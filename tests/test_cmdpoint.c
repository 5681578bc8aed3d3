/*
 * test_cmdpoint.c: a user's command's point (tuner/cmdpoint.h), its knobs
 * rows made at run time: from a space's index each knob gets the built-in
 * table's row, a command's own or the user's, with its number read once;
 * a document's text reads back to the same point; equality and the
 * store's text ignore the order; YAML writes numbers as a configuration
 * and a journal always have; the refusals name the knob. A journal and a
 * configuration of a command written before its knobs were rows
 * (tests/data/cmd, by the binary of main at 971ab35) read back as points,
 * each trial found by its point of the space.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/cmdpoint.h"
#include "../workloads/knobs.h"
#include "../tuner/config.h"
#include "../tuner/journal.h"
#include "../tuner/spacefile.h"

#define D "tests/data/cmd/"

/* batch [16, 64], opt [sgd, adam w], pin [none, spread], device [cpu, cuda:1], seed [7, 9]. */
static rt_space *command_space(void)
{
	static const long batches[] = {16, 64}, seeds[] = {7, 9};
	static const char *const opts[] = {"sgd", "adam w"}, *const pins[] = {"none", "spread"};
	static const char *const devices[] = {"cpu", "cuda:1"};
	rt_space *s = rt_space_create();
	assert_non_null(s);
	assert_int_equal(rt_space_add_ordinal(s, "batch", batches, 2, NULL, 0), 0);
	assert_int_equal(rt_space_add_categorical(s, "opt", opts, 2, NULL, 0), 1);
	assert_int_equal(rt_space_add_categorical(s, "pin", pins, 2, NULL, 0), 2);
	assert_int_equal(rt_space_add_categorical(s, "device", devices, 2, NULL, 0), 3);
	assert_int_equal(rt_space_add_ordinal(s, "seed", seeds, 2, NULL, 0), 4);
	return s;
}

static void rows_of_a_space_point(void **state)
{
	(void)state;
	rt_space *s = command_space();
	int idx[] = {1, 1, 1, 1, 0};
	rt_cmd_point pt;
	rt_cmd_point_at(s, idx, &pt);
	assert_int_equal(pt.n, 5);
	/* batch and pin are the built-in table's rows: a pin's number is its rt_pin */
	assert_ptr_equal(rt_cmd_point_find(&pt, "batch")->row, rt_knob_find("batch"));
	assert_ptr_equal(rt_cmd_point_find(&pt, "pin")->row, rt_knob_find("pin"));
	assert_int_equal(rt_cmd_point_num(&pt, "batch", 0), 64);
	assert_int_equal(rt_cmd_point_num(&pt, "pin", -1), RT_PIN_SPREAD);
	assert_string_equal(rt_cmd_point_find(&pt, "device")->text, "cuda:1");
	assert_int_equal(rt_cmd_point_find(&pt, "device")->row->kind, RT_KNOB_TEXT);
	assert_int_equal(rt_cmd_point_find(&pt, "opt")->row->kind, RT_KNOB_TEXT);
	assert_int_equal(rt_cmd_point_find(&pt, "seed")->row->kind, RT_KNOB_INT);
	assert_string_equal(rt_cmd_point_find(&pt, "seed")->text, "7");
	assert_null(rt_cmd_point_find(&pt, "threads"));
	assert_int_equal(rt_cmd_point_num(&pt, "threads", 3), 3);
	rt_space_destroy(s);
}

static void text_reads_back_to_the_point(void **state)
{
	(void)state;
	rt_space *s = command_space();
	int idx[] = {0, 1, 0, 0, 1};
	rt_cmd_point pt, back;
	rt_cmd_point_at(s, idx, &pt);
	/* a document's knobs, in another order, as text */
	rt_knob_value kv[] = {{"seed", "9"}, {"opt", "adam w"}, {"pin", "none"}, {"batch", "16"},
			      {"device", "cpu"}};
	char err[RT_ERRLEN] = "", text[256];
	assert_int_equal(rt_cmd_point_of(kv, 5, &back, err, sizeof err), RT_OK);
	assert_true(rt_cmd_point_equal(&pt, &back));
	assert_int_equal(rt_cmd_point_num(&back, "pin", -1), RT_PIN_NONE);
	rt_cmd_point_text(&back, " ", text, sizeof text);
	assert_string_equal(text, "batch=16 device=cpu opt=adam w pin=none seed=9");
	kv[0].value = "7";
	assert_int_equal(rt_cmd_point_of(kv, 5, &back, err, sizeof err), RT_OK);
	assert_false(rt_cmd_point_equal(&pt, &back));
	assert_int_equal(rt_cmd_point_of(kv, 4, &back, err, sizeof err), RT_OK);
	assert_false(rt_cmd_point_equal(&pt, &back)); /* a knob fewer */
	/* "007" is no integer as written: a name, which "7" is not */
	rt_knob_value odd[] = {{"seed", "007"}};
	assert_int_equal(rt_cmd_point_of(odd, 1, &back, err, sizeof err), RT_OK);
	assert_int_equal(back.k[0].row->kind, RT_KNOB_TEXT);
	rt_space_destroy(s);
}

/* The flow mapping of pt as its document's text. */
static void emitted(const rt_cmd_point *pt, int plain_numbers, char *out, size_t len)
{
	rt_yw w;
	char *text, err[RT_ERRLEN];
	size_t n;
	assert_int_equal(rt_yw_init(&w), 0);
	rt_yw_map(&w, 0);
	rt_yw_str(&w, "knobs");
	rt_cmd_point_emit(&w, pt, plain_numbers);
	rt_yw_end_map(&w);
	assert_int_equal(rt_yw_finish(&w, &text, &n, err, sizeof err), 0);
	snprintf(out, len, "%s", text);
	free(text);
}

static void yaml_as_configurations_and_journals_write_it(void **state)
{
	(void)state;
	rt_space *s = command_space();
	int idx[] = {1, 0, 1, 1, 1};
	rt_cmd_point pt, back;
	char text[512], err[RT_ERRLEN] = "";
	rt_cmd_point_at(s, idx, &pt);
	emitted(&pt, 1, text, sizeof text);
	assert_non_null(strstr(text, "knobs: {batch: 64, opt: sgd, pin: spread, device: 'cuda:1', "
				     "seed: 9}"));
	emitted(&pt, 0, text, sizeof text);
	assert_non_null(strstr(text, "knobs: {batch: '64', opt: sgd, pin: spread, device: "
				     "'cuda:1', seed: '9'}"));
	rt_yr r;
	assert_int_equal(rt_yr_load(&r, "doc", text, strlen(text), err, sizeof err), 0);
	const rt_ynode *map = rt_yr_get(&r, rt_yr_root(&r), "knobs");
	assert_int_equal(rt_cmd_point_decode(&r, map, "knobs", &back), RT_OK);
	assert_true(rt_cmd_point_equal(&pt, &back));
	assert_int_equal(rt_cmd_point_num(&back, "batch", 0), 64);
	rt_yr_free(&r);
	rt_space_destroy(s);
}

/* Adds name: value to a point of one knob (threads: 2) and wants the error want. */
static void refused(const char *name, const char *value, const char *want)
{
	rt_cmd_point pt;
	rt_knob_value kv[] = {{"threads", "2"}, {name, value}};
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_cmd_point_of(kv, 2, &pt, err, sizeof err), RT_EINVAL);
	if (!strstr(err, want))
		fail_msg("%s: %s: got '%s', wanted '%s'", name, value, err, want);
}

static void refusals_name_the_knob(void **state)
{
	(void)state;
	char long_value[RT_CMD_VALUE_LEN + 1];
	memset(long_value, 'x', RT_CMD_VALUE_LEN);
	long_value[RT_CMD_VALUE_LEN] = '\0';
	refused("pin", "tight", "pin: 'tight' is not one of none compact spread pcores ecores");
	refused("precision", "fp8", "precision: 'fp8' is not one of fp64 fp32 tf32 bf16 fp16");
	refused("batch", "many", "batch: expected an integer, got 'many'");
	/* a CPU count the binding would take (a file's 2^63 - 1 threads: exec said nothing) */
	refused("workers", "9223372036854775807", "workers: 9223372036854775807 is out of range");
	refused("blas_threads", "0", "blas_threads: 0 is out of range [1, 4096]");
	refused("batch", "16777217", "batch: 16777217 is out of range [1, 16777216]");
	refused("threads", "4", "threads: given twice");
	refused("opt", "", "opt: expected a value");
	refused("opt", long_value, "opt: a value longer than 127 characters");
	refused("a_name_far_too_long_for_a_knob_x", "1", "a knob's name has 1 to 31 characters");
}

/* fake_train.py's rate at batch b with optimizer opt (lr 3, its environment applied). */
static double fake_rate(long b, const char *opt)
{
	return 1000.0 * (double)b / (double)(b + 2) * (!strcmp(opt, "sgd") ? 0.8 : 1.0);
}

static void old_journal_reads_as_points(void **state)
{
	(void)state;
	rt_journal_record *recs;
	size_t n;
	rt_space *s;
	char err[RT_ERRLEN] = "";
	if (rt_journal_load(D "journal.yaml", &recs, &n, NULL, NULL, err, sizeof err))
		fail_msg("%s", err);
	if (rt_spacefile_load_command(D "space.yaml", 2, &s, NULL, 0, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(n, 8); /* the two leaders measured again, interleaved */
	int idx[RT_SPACE_MAX_PARAMS], found = 0;
	for (int ok = (rt_space_first(s, idx), 1); ok; ok = rt_space_next(s, idx), found++) {
		rt_cmd_point pt;
		rt_cmd_point_at(s, idx, &pt);
		const rt_journal_record *r =
			rt_journal_find_knobs(recs, n, recs[0].fingerprint, recs[0].command, &pt);
		assert_non_null(r);
		assert_null(r->workload);
		/* the trial of this point: its rate is the fake's at its batch and optimizer */
		long b = rt_cmd_point_num(&r->knobs, "batch", 0);
		const char *opt = rt_cmd_point_find(&r->knobs, "opt")->text;
		assert_true(fabs(r->m.median - fake_rate(b, opt)) < 1e-6 * r->m.median);
		assert_int_equal(rt_cmd_point_num(&r->knobs, "pin", -1), RT_PIN_NONE);
		assert_int_equal(rt_cmd_point_num(&r->knobs, "precision", -1), RT_BF16);
		assert_int_equal(rt_cmd_point_num(&r->knobs, "blas_threads", 0), 1);
	}
	assert_int_equal(found, 4);
	rt_space_destroy(s);
	rt_journal_records_free(recs, n);
}

static void old_configuration_reads_as_a_point(void **state)
{
	(void)state;
	rt_config c;
	rt_cmd_point pt;
	char err[RT_ERRLEN] = "", text[256];
	if (rt_config_load(D "config.yaml", &c, err, sizeof err))
		fail_msg("%s", err);
	const rt_config_rec *rec = rt_config_find(&c, "command");
	assert_non_null(rec);
	assert_int_equal(rt_config_command_point(&c, &rec->recommended, &pt, err, sizeof err),
			 RT_OK);
	rt_cmd_point_text(&pt, " ", text, sizeof text);
	assert_string_equal(text, "batch=32 blas_threads=1 opt=adam pin=none precision=bf16 "
				  "threads=1");
	assert_int_equal(rt_cmd_point_num(&pt, "precision", -1), RT_BF16);
	rt_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_of_a_space_point),
		cmocka_unit_test(text_reads_back_to_the_point),
		cmocka_unit_test(yaml_as_configurations_and_journals_write_it),
		cmocka_unit_test(refusals_name_the_knob),
		cmocka_unit_test(old_journal_reads_as_points),
		cmocka_unit_test(old_configuration_reads_as_a_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
