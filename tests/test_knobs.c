/*
 * test_knobs.c: the knob table's codec (workloads/knobs.h): each knob's
 * text reads back to the same point, the refusals name the knob, equality
 * and distance see every knob, and the texts and labels a workload's point
 * is written as (the journal's YAML, the store's "k=v", check's label)
 * have exactly the knobs it reads, in the table's order, and two points
 * alike but for an axis are one line along it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/params.h"
#include "../workloads/knobs.h"

/* A point where every knob differs from its default. */
static void odd_point(rt_point *pt)
{
	rt_point_default(pt);
	strcpy(pt->backend, "cuda");
	pt->device = 2;
	pt->precision = RT_BF16;
	pt->batch = 48;
	pt->threads = 6;
	pt->workers = 3;
	pt->pin = RT_PIN_SPREAD;
}

static void defaults_are_the_rows(void **state)
{
	(void)state;
	rt_point pt;
	rt_point_default(&pt);
	assert_string_equal(pt.backend, "cpu");
	assert_int_equal(pt.device, 0);
	assert_int_equal(pt.precision, RT_FP32);
	assert_int_equal(pt.batch, 32);
	assert_int_equal(pt.threads, 1);
	assert_int_equal(pt.workers, 0);
	assert_int_equal(pt.pin, RT_PIN_COMPACT);
	assert_int_equal(RT_NKNOBS, 7);
	assert_ptr_equal(rt_knob_find("workers"), &rt_knobs[RT_K_workers]);
	assert_null(rt_knob_find("grad_accum"));
}

/* Every knob written as text and read back gives the same point. */
static void text_round_trips(void **state)
{
	(void)state;
	rt_point a, b;
	char err[RT_ERRLEN] = "", v[64];
	odd_point(&a);
	rt_point_default(&b);
	for (int i = 0; i < RT_NKNOBS; i++)
		if (rt_knob_set(&rt_knobs[i], rt_knob_text(&rt_knobs[i], &a, v, sizeof v), &b, err,
				sizeof err))
			fail_msg("%s: %s", rt_knobs[i].name, err);
	assert_true(rt_point_equal(&a, &b));
	assert_string_equal(rt_knob_text(&rt_knobs[RT_K_precision], &a, v, sizeof v), "bf16");
	assert_string_equal(rt_knob_text(&rt_knobs[RT_K_pin], &a, v, sizeof v), "spread");
}

static void expect_refused(const char *name, const char *value, const char *want)
{
	rt_point pt, before;
	char err[RT_ERRLEN] = "";
	rt_point_default(&pt);
	before = pt;
	assert_int_equal(rt_knob_set(rt_knob_find(name), value, &pt, err, sizeof err), RT_EINVAL);
	assert_string_equal(err, want);
	assert_true(rt_point_equal(&pt, &before)); /* nothing set */
}

static void refusals_name_the_knob(void **state)
{
	(void)state;
	expect_refused("batch", "0", "batch=0: must be between 1 and 16777216");
	expect_refused("threads", "4097", "threads=4097: must be between 1 and 4096");
	expect_refused("workers", "two", "workers: expected an integer, got 'two'");
	expect_refused("precision", "fp8", "precision: 'fp8' is not one of fp64 fp32 tf32 bf16 fp16");
	expect_refused("pin", "middle", "pin: 'middle' is not one of none compact spread pcores ecores");
	rt_point pt;
	char err[RT_ERRLEN] = "";
	rt_point_default(&pt);
	rt_shape sh;
	const rt_workload *tf = rt_workload_find("transformer");
	rt_shape_default(tf, &sh);
	assert_int_equal(rt_params_set(tf, "backend", "nope", &pt, &sh, err, sizeof err),
			 RT_EINVAL);
	assert_non_null(strstr(err, "backend: 'nope' is not one of cpu"));
	assert_int_equal(rt_knob_set(rt_knob_find("backend"), "a-name-of-16-chr", &pt, err,
				     sizeof err), RT_EINVAL);
	assert_string_equal(err, "backend: 'a-name-of-16-chr' is longer than 15 characters");
	assert_string_equal(pt.backend, "cpu");
	/* a space's number sets a choice by its index, in range only */
	assert_int_equal(rt_knob_set_long(&rt_knobs[RT_K_pin], RT_NPIN, &pt, err, sizeof err),
			 RT_EINVAL);
	assert_int_equal(rt_knob_set_long(&rt_knobs[RT_K_pin], RT_PIN_NONE, &pt, err, sizeof err),
			 RT_OK);
	assert_int_equal(pt.pin, RT_PIN_NONE);
}

/* Each knob alone makes two points unequal; distance: 1 a name, |log| a size. */
static void equality_and_distance_see_every_knob(void **state)
{
	(void)state;
	rt_point a, b, odd;
	char err[RT_ERRLEN] = "", v[64];
	rt_point_default(&a);
	odd_point(&odd);
	assert_true(rt_point_equal(&a, &a));
	assert_true(rt_point_distance(&a, &a) == 0);
	for (int i = 0; i < RT_NKNOBS; i++) {
		const rt_knob *k = &rt_knobs[i];
		b = a;
		assert_int_equal(rt_knob_set(k, rt_knob_text(k, &odd, v, sizeof v), &b, err,
					     sizeof err), RT_OK);
		assert_false(rt_point_equal(&a, &b));
		double d = rt_point_distance(&a, &b);
		if (k->flags & RT_KF_LOG)
			assert_float_equal(d, fabs(log((1.0 + rt_knob_get(k, &b)) /
						       (1.0 + rt_knob_get(k, &a)))), 1e-12);
		else
			assert_float_equal(d, 1, 0);
	}
	assert_int_equal(rt_point_cores(&odd), 9); /* threads 6 + workers 3 */
}

/* The texts of a point have the knobs its workload reads, a device only when not 0. */
static void texts_have_the_knobs_read(void **state)
{
	(void)state;
	rt_point pt;
	char buf[256];
	const rt_workload *gemm = rt_workload_find("gemm"), *tf = rt_workload_find("transformer");
	assert_non_null(gemm);
	assert_non_null(tf);
	rt_point_default(&pt);
	pt.threads = 2;
	rt_point_text(&pt, tf, " ", buf, sizeof buf);
	assert_string_equal(buf, "backend=cpu precision=fp32 batch=32 threads=2 workers=0 pin=compact");
	rt_point_text(&pt, gemm, " ", buf, sizeof buf);
	assert_string_equal(buf, "backend=cpu precision=fp32 threads=2 pin=compact");
	rt_point_label(&pt, tf, buf, sizeof buf);
	assert_string_equal(buf, "cpu fp32 b=32 t=2 w=0");

	odd_point(&pt);
	rt_point_text(&pt, NULL, ",", buf, sizeof buf);
	assert_string_equal(buf, "backend=cuda,device=2,precision=bf16,batch=48,threads=6,"
				 "workers=3,pin=spread");
	rt_point_label(&pt, gemm, buf, sizeof buf);
	assert_string_equal(buf, "cuda bf16 dev=2 t=6 spread");
	/* a page's words: counts of cores as counts, singular at 1 */
	rt_knob_words(&rt_knobs[RT_K_threads], &pt, buf, sizeof buf);
	assert_string_equal(buf, "6 threads");
	pt.workers = 1;
	rt_knob_words(&rt_knobs[RT_K_workers], &pt, buf, sizeof buf);
	assert_string_equal(buf, "1 worker");
	rt_knob_words(&rt_knobs[RT_K_batch], &pt, buf, sizeof buf);
	assert_string_equal(buf, "batch 48");
	rt_knob_words(&rt_knobs[RT_K_pin], &pt, buf, sizeof buf);
	assert_string_equal(buf, "pin spread");
	rt_knob_words(&rt_knobs[RT_K_precision], &pt, buf, sizeof buf);
	assert_string_equal(buf, "bf16");
	rt_point_text(&pt, gemm, " ", buf, 20); /* cut to fit, terminated */
	assert_string_equal(buf, "backend=cuda device");
}

/* Two points alike but for one knob: the same line along that knob's axis; unread knobs aside. */
static void same_but_leaves_out_the_axis(void **state)
{
	(void)state;
	const rt_workload *gemm = rt_workload_find("gemm"), *tf = rt_workload_find("transformer");
	rt_point a, b;
	rt_point_default(&a);
	b = a;
	b.batch = 64;
	assert_false(rt_point_same_but(&a, &b, tf, NULL));
	assert_true(rt_point_same_but(&a, &b, tf, "batch"));
	assert_true(rt_point_same_but(&a, &b, gemm, NULL)); /* gemm reads no batch */
	assert_true(rt_point_same_but(&a, &b, tf, "d_model") == 0); /* a shape key spares none */
	b.threads = 4;
	assert_false(rt_point_same_but(&a, &b, tf, "batch"));
	assert_false(rt_point_same_but(&a, &b, gemm, NULL));
	assert_true(rt_point_same_but(&a, &b, gemm, "threads"));
}

/* KEY=VALUE and a space's number go through the same rows; a shape key beside them. */
static void params_set_knobs_and_shape_keys(void **state)
{
	(void)state;
	const rt_workload *tf = rt_workload_find("transformer");
	rt_point pt;
	rt_shape sh;
	char err[RT_ERRLEN] = "";
	rt_point_default(&pt);
	rt_shape_default(tf, &sh);
	assert_int_equal(rt_params_apply(tf, "workers=4", &pt, &sh, err, sizeof err), RT_OK);
	assert_int_equal(pt.workers, 4);
	assert_int_equal(rt_params_set_long(tf, "batch", 8, &pt, &sh, err, sizeof err), RT_OK);
	assert_int_equal(pt.batch, 8);
	int k = rt_shape_index(tf, "layers");
	assert_int_equal(rt_params_set_long(tf, "layers", 3, &pt, &sh, err, sizeof err), RT_OK);
	assert_int_equal(sh.v[k], 3);
	assert_int_equal(rt_params_set(tf, "nope", "1", &pt, &sh, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "unknown key 'nope' for transformer (point keys: backend "
				    "device precision batch threads workers pin; shape keys: "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_are_the_rows),
		cmocka_unit_test(text_round_trips),
		cmocka_unit_test(refusals_name_the_knob),
		cmocka_unit_test(equality_and_distance_see_every_knob),
		cmocka_unit_test(texts_have_the_knobs_read),
		cmocka_unit_test(same_but_leaves_out_the_axis),
		cmocka_unit_test(params_set_knobs_and_shape_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
