/*
 * test_tune_loop.c: the loop of `rigtune tune` (tune.c, tune_trial.c) through a
 * fake target (tune_target.h) whose true rates are known and whose trials
 * take fake seconds on the fake budget clock (common/clock.h), no real ones:
 * the grid measures every feasible point once and the pick is the knee; a
 * point the target rules out is never measured and one that did not fit is
 * never picked; a trial the journals hold is reused, not measured; a
 * contended trial is measured again, and its second figure kept, where the
 * budget has the time for it; the budget stops the search at the trial it
 * runs out in; an interruption stops the search with what was measured; the
 * baseline rounds measure the recommended and fastest points again,
 * interleaved, within their deadline; a naive default's point that cannot
 * run does not take the pick away; a search with nothing feasible says why
 * each point failed; a default space's batch grows past its top while it
 * gains more than 3%, until the memory ends, and the knee is still the
 * smallest within 5%; the crossover sweep at the end of a 60 s tune gives
 * each curve three sizes, a shorter one leaves a short curve out or says
 * what budget gives them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/clock.h"
#include "../common/rt.h"
#include "../tuner/tune.h"
#include "../tuner/tune_baseline.h"
#include "../tuner/tune_target.h"

#define NB 4
#define NT 4
static const long batches[NB] = {8, 16, 32, 64};
#define MAX_LOG 64
#define BUDGET_S 600.0 /* fake seconds: far more than the 16 points' trials take */
#define TRIAL_S 1.0    /* a fake trial's fake seconds, unless a test says otherwise */

/* What the fake target does, and what the loop asked of it. */
typedef struct fake {
	int max_threads;          /* feasible() rules out more threads */
	long max_batch;           /* feasible() rules out larger batches (0: none): the memory check */
	double sat;               /* the batch's saturation constant (rate()) */
	long oom_batch;           /* measure(): this batch and more do not fit (0: all fit) */
	long stored_batch;        /* find(): the journals hold this batch's points (0: none) */
	int contended_at;         /* measure(): this call reports contention (-1: none) */
	int interrupt_at;         /* measure(): this call is interrupted (-1: none) */
	double trial_s;           /* measure(): each trial's fake seconds, whatever the cap */
	int log[MAX_LOG][2];      /* the points measured, in order */
	int nlog;
	rt_journal_record stored; /* what find() returns */
} fake;

static fake *the_fake;

static fake *the_fake;

/*
 * The true rate of batch b on t threads, in samples/s: the batch saturates
 * (b / (b + sat), sat 2 unless a test says otherwise), the threads peak at 3
 * (1, 1.8, 2, 1.6 times one thread's).
 */
static double rate(long b, int t)
{
	static const double thread_factor[NT + 1] = {0, 1.0, 1.8, 2.0, 1.6};
	return 1000.0 * (double)b / ((double)b + the_fake->sat) * thread_factor[t];
}

static long batch_at(const rt_space *s, const int *idx)
{
	int p = rt_space_find(s, "batch");
	return rt_space_int_at(s, p, idx[p]);
}

static int threads_at(const rt_space *s, const int *idx)
{
	int p = rt_space_find(s, "threads");
	return (int)rt_space_int_at(s, p, idx[p]);
}

static int fake_feasible(const tune_ctx *c, const int *idx, int *cpus)
{
	*cpus = threads_at(c->twl->space, idx);
	return *cpus <= the_fake->max_threads &&
	       (!the_fake->max_batch || batch_at(c->twl->space, idx) <= the_fake->max_batch);
}

static const rt_journal_record *fake_find(const tune_ctx *c, const rt_tune_trial *t)
{
	fake *f = the_fake;
	long b = batch_at(c->twl->space, t->idx);
	if (b != f->stored_batch)
		return NULL;
	int th = threads_at(c->twl->space, t->idx);
	f->stored.m = (rt_measurement){.feasible = 1, .median = rate(b, th)};
	return &f->stored;
}

static int fake_measure(const tune_ctx *c, const rt_tune_trial *t, double cap,
			rt_measurement *m, char *err, size_t errlen)
{
	fake *f = the_fake;
	(void)cap, (void)err, (void)errlen;
	long b = batch_at(c->twl->space, t->idx);
	int th = threads_at(c->twl->space, t->idx);
	int call = f->nlog;
	assert_true(f->nlog < MAX_LOG);
	f->log[f->nlog][0] = (int)b;
	f->log[f->nlog++][1] = th;
	memset(m, 0, sizeof *m);
	/* what a simulated trial took: the fake budget clock moves by it, nothing else does */
	m->seconds = f->trial_s;
	rt_clock_advance(m->seconds);
	if (call == f->interrupt_at)
		rt_tune_interrupt();
	if (f->oom_batch && b >= f->oom_batch) {
		m->cause = RT_CAUSE_MEMORY;
		snprintf(m->reason, sizeof m->reason, "needs more memory");
		return RT_OK;
	}
	m->feasible = 1;
	/* a contended run's figure is low: the loop must not keep it */
	m->contended = call == f->contended_at;
	m->contention = m->contended ? 0.5 : 0;
	m->median = rate(b, th) * (m->contended ? 0.5 : 1);
	m->ci_lo = m->ci_hi = m->median;
	return RT_OK;
}

static int fake_append(const tune_ctx *c, const rt_tune_trial *t, const rt_measurement *m,
		       char *err, size_t errlen)
{
	(void)c, (void)t, (void)m, (void)err, (void)errlen;
	fail_msg("no journal is open: nothing is appended");
	return RT_EIO;
}

static const rt_tune_target fake_target = {
	.feasible = fake_feasible,
	.find = fake_find,
	.measure = fake_measure,
	.append = fake_append,
};

/* One search state: the run, its one workload and the context the loop takes. */
typedef struct search {
	rt_tune_opts o;
	rt_tune_run run;
	rt_progress progress;
	tune_ctx c;
} search;

static void setup(search *s, fake *f)
{
	memset(s, 0, sizeof *s);
	*f = (fake){.max_threads = NT, .contended_at = -1, .interrupt_at = -1, .trial_s = TRIAL_S,
		  .sat = 2};
	the_fake = f;
	rt_tune_interrupt_clear();
	rt_clock_fake(0); /* before the progress, which starts on it */
	rt_tune_opts_default(&s->o);
	s->run.strategy = "grid";
	rt_progress_init(&s->progress, BUDGET_S, 1);
	rt_tune_workload *twl = &s->run.wl[s->run.nwl++];
	twl->name = "fake";
	twl->unit = "samples/s";
	twl->target = &fake_target;
	twl->space = rt_space_create();
	assert_non_null(twl->space);
	assert_int_equal(rt_space_add_ordinal(twl->space, "batch", batches, NB, NULL, 0), 0);
	assert_int_equal(rt_space_add_range(twl->space, "threads", 1, NT, 1, NULL, 0), 1);
	rt_space_set_role(twl->space, 0, RT_ROLE_SATURATING);
	rt_space_set_role(twl->space, 1, RT_ROLE_PEAKED);
	s->c = (tune_ctx){.run = &s->run, .twl = twl, .o = &s->o, .progress = &s->progress};
}

static void search_within(search *s, double budget)
{
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_tune_search(&s->c, budget, err, sizeof err), RT_OK);
}

static void search_ok(search *s)
{
	search_within(s, BUDGET_S);
}

/* How many times the fake measured point (b, t). */
static int measured(const fake *f, long b, int t)
{
	int n = 0;
	for (int i = 0; i < f->nlog; i++)
		n += f->log[i][0] == b && f->log[i][1] == t;
	return n;
}

/* The recommendation's and the fastest trial's points. */
static void assert_pick(const search *s, long fast_b, int fast_t, long rec_b, int rec_t)
{
	const rt_tune_workload *twl = s->c.twl;
	const rt_tune_trial *fastest, *rec;
	int kept;
	assert_int_equal(twl->status, RT_OK);
	assert_int_equal(rt_tune_pick(twl, &fastest, &rec, &kept), RT_OK);
	assert_int_equal(kept, 0);
	assert_int_equal(batch_at(twl->space, fastest->idx), fast_b);
	assert_int_equal(threads_at(twl->space, fastest->idx), fast_t);
	assert_int_equal(batch_at(twl->space, rec->idx), rec_b);
	assert_int_equal(threads_at(twl->space, rec->idx), rec_t);
}

static void teardown(search *s)
{
	rt_tune_run_free(&s->run);
	rt_tune_interrupt_clear();
	rt_clock_real();
}

/*
 * Every point once; the fastest is batch 64 on 3 threads (1939/s); the knee
 * is batch 32 (1882/s, 97% of it: within 5%), not 16 (1778/s, 92%), and
 * fewer threads fall short (1694/s).
 */
static void test_grid_measures_each_point_once_and_picks_the_knee(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	search_ok(&s);
	assert_int_equal(f.nlog, NB * NT);
	assert_float_equal(rt_clock_now(), NB * NT * TRIAL_S, 1e-9); /* its trials' time, no more */
	for (int b = 0; b < NB; b++)
		for (int t = 1; t <= NT; t++)
			assert_int_equal(measured(&f, batches[b], t), 1);
	assert_int_equal(s.c.twl->ntrials, NB * NT);
	assert_int_equal(s.c.twl->reused, 0);
	assert_pick(&s, 64, 3, 32, 3);
	const rt_tune_trial *fastest, *rec;
	int kept;
	rt_tune_pick(s.c.twl, &fastest, &rec, &kept);
	assert_float_equal(fastest->median, rate(64, 3), 1e-9);
	teardown(&s);
}

/*
 * What the target rules out is never measured; what did not fit is a trial
 * that the pick passes over: batch 64 out of memory, 4 threads ruled out,
 * the fastest is batch 32 on 3 threads and 16 falls short of it (94%).
 */
static void test_infeasible_points_are_not_measured_or_picked(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.max_threads = 3;
	f.oom_batch = 64;
	search_ok(&s);
	for (int b = 0; b < NB; b++)
		assert_int_equal(measured(&f, batches[b], 4), 0);
	int oom = 0;
	for (int i = 0; i < s.c.twl->ntrials; i++) {
		const rt_tune_trial *t = &s.c.twl->trials[i];
		if (batch_at(s.c.twl->space, t->idx) == 64) {
			assert_false(t->feasible);
			assert_int_equal(t->cause, RT_CAUSE_MEMORY);
			assert_string_equal(t->reason, "needs more memory");
			oom++;
		}
	}
	assert_true(oom >= 1);
	assert_pick(&s, 32, 3, 32, 3);
	teardown(&s);
}

/* The journals' trials are taken as they are: batch 8's four points are not measured. */
static void test_stored_trials_are_reused_not_measured(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.stored_batch = 8;
	search_ok(&s);
	assert_int_equal(f.nlog, (NB - 1) * NT);
	for (int t = 1; t <= NT; t++)
		assert_int_equal(measured(&f, 8, t), 0);
	assert_int_equal(s.c.twl->reused, NT);
	for (int i = 0; i < s.c.twl->ntrials; i++) {
		const rt_tune_trial *t = &s.c.twl->trials[i];
		long b = batch_at(s.c.twl->space, t->idx);
		assert_int_equal(t->reused, b == 8);
		assert_float_equal(t->median, rate(b, threads_at(s.c.twl->space, t->idx)), 1e-9);
	}
	assert_pick(&s, 64, 3, 32, 3);
	teardown(&s);
}

/* The fastest point's first run was contended (half its rate): it runs again, and counts. */
static void test_a_contended_trial_is_measured_again(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.contended_at = 14; /* grid order, batch major: (64, 3) is the 15th point */
	search_ok(&s);
	assert_int_equal(f.log[14][0], 64);
	assert_int_equal(f.log[14][1], 3);
	assert_int_equal(measured(&f, 64, 3), 2);
	assert_int_equal(f.nlog, NB * NT + 1);
	assert_pick(&s, 64, 3, 32, 3);
	teardown(&s);
}

/*
 * A budget of 100 s and trials of 10 s: the grid (2 s caps, batch major)
 * starts its 10th trial with 10 s left and no 11th with none; nothing is
 * walked towards the knee after it. The best of those 10 points, batch 16
 * on 3 threads (1778/s), is the pick; batch 8 on 3 threads (1600/s) and
 * batch 16 on 2 (1600/s) fall short of it.
 */
static void test_the_budget_stops_the_search(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.trial_s = 10;
	search_within(&s, 100);
	assert_int_equal(f.nlog, 10);
	assert_int_equal(s.c.twl->ntrials, 10);
	assert_float_equal(rt_clock_now(), 100, 1e-9);
	assert_int_equal(measured(&f, 32, 2), 1);
	assert_int_equal(measured(&f, 32, 3), 0);
	assert_int_equal(measured(&f, 64, 3), 0);
	assert_pick(&s, 16, 3, 16, 3);
	teardown(&s);
}

/*
 * The 10th trial of that budget is contended: it ends with the budget, so it
 * is not measured again and its low figure stands (half of batch 32 on 2
 * threads' 1694/s).
 */
static void test_a_contended_trial_past_the_budget_is_kept(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.trial_s = 10;
	f.contended_at = 9;
	search_within(&s, 100);
	assert_int_equal(f.nlog, 10);
	assert_int_equal(measured(&f, 32, 2), 1);
	const rt_tune_trial *t = &s.c.twl->trials[9];
	assert_int_equal(batch_at(s.c.twl->space, t->idx), 32);
	assert_int_equal(threads_at(s.c.twl->space, t->idx), 2);
	assert_float_equal(t->median, 0.5 * rate(32, 2), 1e-9);
	assert_float_equal(t->contention, 0.5, 1e-9);
	teardown(&s);
}

/*
 * After the search, the baseline rounds (tune_baseline.h) measure the
 * recommended point (32, 3) and the fastest (64, 3) again: A B, then B A;
 * no sweep was measured, so nothing else. With no time left, nothing.
 */
static void test_baseline_rounds_measure_the_picks_again(void **state)
{
	(void)state;
	search s;
	fake f;
	char err[RT_ERRLEN] = "";
	setup(&s, &f);
	search_ok(&s);
	int searched = f.nlog;
	rt_tune_rounds r = {.o = &s.o, .run = &s.run, .progress = &s.progress,
			    .deadline = rt_clock_now(), .stop = rt_tune_stop_requested};
	assert_int_equal(rt_tune_baseline(&r, err, sizeof err), RT_OK);
	assert_int_equal(f.nlog, searched);
	r.deadline = rt_clock_now() + BUDGET_S;
	assert_int_equal(rt_tune_baseline(&r, err, sizeof err), RT_OK);
	assert_int_equal(f.nlog, searched + 2 * RT_TUNE_BASELINE_ROUNDS);
	static const int order[4][2] = {{32, 3}, {64, 3}, {64, 3}, {32, 3}};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(f.log[searched + i][0], order[i][0]);
		assert_int_equal(f.log[searched + i][1], order[i][1]);
	}
	assert_pick(&s, 64, 3, 32, 3);
	teardown(&s);
}

/* Interrupted in its 6th trial, the search ends there: 5 trials, no error. */
static void test_an_interruption_stops_the_search(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.interrupt_at = 5;
	search_ok(&s);
	assert_true(rt_tune_stop_requested());
	assert_int_equal(f.nlog, 6);
	assert_int_equal(s.c.twl->ntrials, 5);
	teardown(&s);
}

/*
 * The naive default's point of the space is one the target rules out (batch
 * 64 on 4 threads): never measured, whatever the budget. The fastest (64 on
 * 3, 1939/s) is within the naive default's noise (1900/s, CI up to 1950):
 * the pick stands, the fastest, as the knee (32 on 3, 1882/s) falls below
 * the naive default's median. It was no recommendation at all, as if the
 * budget had run out before that point.
 */
static void test_a_naive_point_that_cannot_run_leaves_the_pick(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.max_threads = 3;
	rt_tune_workload *twl = s.c.twl;
	twl->naive = (rt_tune_trial){.naive = 1, .feasible = 1, .median = 1900, .ci_lo = 1850,
				     .ci_hi = 1950};
	twl->naive_idx[0] = NB - 1;
	twl->naive_idx[1] = NT - 1;
	search_ok(&s);
	assert_int_equal(measured(&f, 64, 4), 0);
	assert_string_equal(twl->note, "");
	assert_pick(&s, 64, 3, 64, 3);
	teardown(&s);
}

/*
 * Nothing fits (batch 8 out of memory, and so every larger batch): the note
 * says, for each point measured, the cause it failed with.
 */
static void test_every_point_infeasible_says_each_cause(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.oom_batch = 8;
	search_ok(&s);
	assert_int_equal(f.nlog, NT);
	assert_int_equal(s.c.twl->status, RT_EINFEASIBLE);
	assert_string_equal(s.c.twl->note,
			    "every point measured was infeasible: batch=8 threads=1: memory; "
			    "batch=8 threads=2: memory; batch=8 threads=3: memory; batch=8 "
			    "threads=4: memory");
	teardown(&s);
}

/*
 * A batch that still gains at the space's top grows past it (a default
 * space: twl->grow): with b / (b + 20) the fastest of the grid is batch 64
 * on 3 threads, 24% over 32; 128, 256, 512 and 1024 are measured on 3
 * threads (14%, 7.2%, 3.8%, then 1.9%, not more than 3%: the growing stops).
 * The knee is the smallest batch within 5% of the fastest (1024: 1961/s):
 * 512 (1925/s), not 256 (1855/s).
 */
static void test_the_batch_grows_while_it_gains(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.sat = 20;
	s.c.twl->grow = 1;
	search_ok(&s);
	/* and the walk to the knee measures 1 and 2 threads at batch 512 */
	assert_int_equal(f.nlog, NB * NT + 4 + 2);
	assert_int_equal(measured(&f, 512, 1) + measured(&f, 512, 2), 2);
	static const long grown[] = {128, 256, 512, 1024};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(f.log[NB * NT + i][0], grown[i]);
		assert_int_equal(f.log[NB * NT + i][1], 3);
	}
	assert_int_equal(rt_space_size(s.c.twl->space, 0), NB + 4);
	assert_string_equal(s.c.twl->grown, "grown from 64 to 1024: batch 1024 gained 1.9% over "
					    "512, not more than 3%");
	assert_pick(&s, 1024, 3, 512, 3);
	teardown(&s);
}

/*
 * The growing stops where the memory ends: the memory check rules out
 * batch 512 (never measured; 256 is the fastest and the knee, 128's 1730/s
 * falls short of its 1855/s by 6.8%), or the trial of 128 runs out of
 * memory (64 stays the fastest).
 */
static void test_the_batch_grows_until_the_memory_ends(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.sat = 20;
	f.max_batch = 256;
	s.c.twl->grow = 1;
	search_ok(&s);
	assert_int_equal(measured(&f, 512, 3), 0);
	assert_int_equal(measured(&f, 256, 3), 1);
	assert_string_equal(s.c.twl->grown, "grown from 64 to 256: batch 256 still gained 7.2%; 512 "
					    "does not fit the device's memory");
	assert_pick(&s, 256, 3, 256, 3);
	teardown(&s);
	setup(&s, &f);
	f.sat = 20;
	f.oom_batch = 128;
	s.c.twl->grow = 1;
	search_ok(&s);
	assert_int_equal(measured(&f, 128, 3), 1);
	assert_string_equal(s.c.twl->grown, "batch 64 still gained 23.8%; 128 ran out of memory");
	assert_pick(&s, 64, 3, 64, 3);
	teardown(&s);
}

/* Where the top gains 3% or less, nothing grows: with b / (b + 1), 64 gains 1.5% over 32. */
static void test_a_batch_that_levels_off_does_not_grow(void **state)
{
	(void)state;
	search s;
	fake f;
	setup(&s, &f);
	f.sat = 1;
	s.c.twl->grow = 1;
	search_ok(&s);
	assert_int_equal(f.nlog, NB * NT);
	assert_string_equal(s.c.twl->grown, "batch 64 gained 1.5% over 32, not more than 3%");
	assert_int_equal(rt_space_size(s.c.twl->space, 0), NB);
	teardown(&s);
}

/* ---- the crossover sweep at the end of a tune (tune_crossover.c) ---- */

/*
 * A sweep size's simulated trial on the fake clock: its set-up (0.1 s on
 * the CPU, 1 s on a device: a fresh process's context and BLAS handle, what
 * left a 60 s tune on an H200 one size of cuda/fp32), its warm-up and its
 * cap; t(n) = launch + 2 n^3 / peak (a device at 50 TFLOP/s, the CPU at 50
 * GFLOP/s a thread).
 */
static int xo_measure(void *user, const rt_point *pt, const rt_shape *sh,
		      const rt_measure_opts *mo, rt_measurement *m, char *err, size_t errlen)
{
	const rt_workload *w = rt_workload_builtin(RT_GEMM_WORKLOAD);
	double n = (double)sh->v[rt_shape_known(w, "n")], gflop = 2e-9 * n * n * n;
	int device = !rt_backend_on_host(pt->backend);
	double step = (device ? 20e-6 : 2e-6) + gflop / (device ? 50e3 : 50.0 * pt->threads);
	(void)user, (void)err, (void)errlen;
	memset(m, 0, sizeof *m);
	m->feasible = 1;
	m->nsamples = 3; /* few: the fit's bootstrap takes longer with more observations */
	m->samples = malloc(sizeof *m->samples * 3);
	assert_non_null(m->samples);
	for (int i = 0; i < 3; i++)
		m->samples[i] = gflop / step * (1 + 0.01 * i);
	m->setup_seconds = device ? 1.0 : 0.1;
	m->seconds = m->setup_seconds + mo->warmup_s + mo->time_cap_s;
	rt_clock_advance(m->seconds);
	return RT_OK;
}

/* A machine of 16 usable cores and a device, both offering fp32; its journal in a fresh folder. */
static void xo_machine(rt_tune_run *run, char *dir)
{
	memset(run, 0, sizeof *run);
	run->usable_cores = 16;
	static const char *const names[] = {"cpu", "sim"};
	for (int i = 0; i < 2; i++) {
		rt_accel *a = &run->machine.accel[run->machine.naccel++];
		snprintf(a->backend, sizeof a->backend, "%s", names[i]);
		a->available = 1;
		a->ndevices = 1;
		a->dev[0].precisions = RT_PREC_BIT(RT_FP32) | RT_PREC_BIT(RT_FP64);
	}
	assert_non_null(mkdtemp(dir));
	snprintf(run->journal_path, sizeof run->journal_path, "%s/host-20260101-000000.yaml", dir);
}

/* The sweep of a tune of budget seconds, then its fit, on the fake clock. */
static void xo_tune(rt_tune_run *run, double budget, double *reserve)
{
	rt_tune_opts o;
	rt_progress progress;
	rt_tune_opts_default(&o);
	o.budget_s = budget;
	rt_clock_fake(0);
	rt_progress_init(&progress, budget, 1);
	*reserve = rt_tune_crossover_reserve(&o, run);
	rt_crossover_sweep_opts xo = {.measure = xo_measure};
	assert_int_equal(rt_tune_crossover_sweep(&o, run, *reserve, &progress, &xo), 1);
	rt_tune_crossover_fit(run, &progress);
	rt_progress_done(&progress);
}

static void xo_cleanup(rt_tune_run *run, const char *dir)
{
	if (run->crossover.replay[0])
		assert_int_equal(unlink(run->crossover.replay), 0);
	rt_tune_run_free(run);
	assert_int_equal(rmdir(dir), 0);
	rt_clock_real();
}

/* Distinct sizes of curve i of the sweep, with its smallest and largest. */
static size_t xo_sizes(const rt_replay *r, size_t i, double *lo, double *hi)
{
	double picked[RT_REPLAY_CHECK_SIZES];
	size_t npicked, distinct;
	const rt_replay_curve *c = &r->curves[i];
	assert_int_equal(rt_replay_check_sizes(c->n, c->count, picked, &npicked, &distinct), 0);
	*lo = picked[0];
	*hi = picked[npicked - 1];
	return distinct;
}

/*
 * A sweep visits the sizes coarse to fine, and a 60 s tune keeps for it
 * what three sizes of each of the four curves take (3 x (2 x 0.15 s + 2 x
 * 1.05 s set-up + 4 x 0.05 s measuring) = 7.8 s, over the 60% of the
 * crossover's time that is not the fit's: 13 s, more than the 12% share's
 * 7.2 s): every curve has three sizes or more, from 32 to 1024, and the
 * crossover is saved and fitted.
 */
static void test_a_60s_tune_keeps_three_sizes_per_curve(void **state)
{
	(void)state;
	int order[16];
	static const int coarse[] = {0, 10, 5, 2, 7, 1, 3, 6, 8, 4, 9};
	assert_int_equal(rt_crossover_size_order(11, order), 11);
	assert_memory_equal(order, coarse, sizeof coarse);
	rt_tune_run run;
	char dir[] = "/tmp/rt-xo-XXXXXX";
	double reserve;
	xo_machine(&run, dir);
	xo_tune(&run, 60, &reserve);
	assert_float_equal(reserve, 13.0, 1e-9);
	const rt_replay *r = run.crossover.square;
	assert_int_equal(r->ncurves, 4);
	for (size_t i = 0; i < r->ncurves; i++) {
		double lo, hi;
		assert_true(xo_sizes(r, i, &lo, &hi) >= 3);
		assert_float_equal(lo, 32, 1e-9);
		assert_float_equal(hi, 1024, 1e-9);
	}
	assert_string_equal(run.xo_note, "");
	assert_true(run.crossover.replay[0]);
	assert_true(run.xo_fitted);
	xo_cleanup(&run, dir);
}

/*
 * A 12 s tune keeps 3 s (its 25% at most): the sweep's 1.8 s give each
 * curve one size, and the configuration says so, with the budget that
 * gives three (4 sizes took 2.6 s: 12 sizes 7.8 s, a 13 s crossover, 25% of
 * 52 s: --budget 60).
 */
static void test_a_short_tune_says_what_budget_gives_the_crossover(void **state)
{
	(void)state;
	rt_tune_run run;
	char dir[] = "/tmp/rt-xo-XXXXXX";
	double reserve;
	xo_machine(&run, dir);
	xo_tune(&run, 12, &reserve);
	assert_float_equal(reserve, 3.0, 1e-9);
	assert_false(run.xo_fitted);
	assert_string_equal(run.crossover.replay, "");
	assert_string_equal(run.xo_note,
			    "not kept: cpu:16t/fp32 (1 size), cpu:1t/fp32 (1 size), sim/fp32 (1 size), "
			    "sim+xfer/fp32 (1 size) of the 3 sizes a fit needs in the 2.6 s the sweep "
			    "had; a tune of --budget 60 or more gives every curve 3");
	xo_cleanup(&run, dir);
}

/*
 * A 40 s tune keeps its 25%, 10 s: the sweep's 6 s end in the third pass,
 * with sim+xfer at two sizes; the three full curves are kept and fitted, and
 * the note names the one left out (11 sizes took 6.7 s: 12 take 7.3 s, a
 * 12.2 s crossover, 25% of 48.7 s: --budget 50).
 */
static void test_a_curve_short_of_sizes_is_left_out(void **state)
{
	(void)state;
	rt_tune_run run;
	char dir[] = "/tmp/rt-xo-XXXXXX";
	double reserve;
	xo_machine(&run, dir);
	xo_tune(&run, 40, &reserve);
	assert_float_equal(reserve, 10.0, 1e-9);
	const rt_replay *r = run.crossover.square;
	assert_int_equal(r->ncurves, 3);
	for (size_t i = 0; i < r->ncurves; i++) {
		double lo, hi;
		assert_int_equal(xo_sizes(r, i, &lo, &hi), 3);
		assert_false(r->curves[i].id.xfer);
	}
	assert_string_equal(run.xo_note, "left out for want of sizes: sim+xfer/fp32 (2 sizes); a tune "
					 "of --budget 50 or more gives every curve 3");
	assert_true(run.crossover.replay[0]);
	assert_true(run.xo_fitted);
	xo_cleanup(&run, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_measures_each_point_once_and_picks_the_knee),
		cmocka_unit_test(test_infeasible_points_are_not_measured_or_picked),
		cmocka_unit_test(test_stored_trials_are_reused_not_measured),
		cmocka_unit_test(test_a_contended_trial_is_measured_again),
		cmocka_unit_test(test_a_contended_trial_past_the_budget_is_kept),
		cmocka_unit_test(test_the_budget_stops_the_search),
		cmocka_unit_test(test_an_interruption_stops_the_search),
		cmocka_unit_test(test_baseline_rounds_measure_the_picks_again),
		cmocka_unit_test(test_a_naive_point_that_cannot_run_leaves_the_pick),
		cmocka_unit_test(test_every_point_infeasible_says_each_cause),
		cmocka_unit_test(test_the_batch_grows_while_it_gains),
		cmocka_unit_test(test_the_batch_grows_until_the_memory_ends),
		cmocka_unit_test(test_a_batch_that_levels_off_does_not_grow),
		cmocka_unit_test(test_a_60s_tune_keeps_three_sizes_per_curve),
		cmocka_unit_test(test_a_short_tune_says_what_budget_gives_the_crossover),
		cmocka_unit_test(test_a_curve_short_of_sizes_is_left_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
