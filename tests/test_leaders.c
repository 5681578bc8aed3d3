/*
 * test_leaders.c: search/leaders.h on a fake target whose true rates are
 * known: each run's samples are its rate times the run's luck (a seeded
 * draw, +-3%) times each step's (+-1%). A first run that was lucky must not
 * win: the leaders are measured again interleaved, the true fastest picked,
 * a point far below never run again, and the budget holds.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/rng.h"
#include "../common/rt.h"
#include "../search/leaders.h"

#define STEPS 20
#define RUN_S 5.0 /* each run's cost on the fake clock */
#define MAX_LOG 512

typedef struct fake {
	const double *rate; /* true rate of each candidate */
	double luck, step;  /* relative spread of a run's luck and of a step */
	rt_rng rng;
	double clock;
	int log[MAX_LOG];   /* the candidates in the order they ran */
	int round_of[MAX_LOG];
	int nlog;
} fake;

/* One run of rate r: STEPS samples around r times the run's luck. */
static double *fake_run(fake *f, double r, size_t *n)
{
	double *v = malloc(sizeof *v * STEPS);
	double luck = 1 + f->luck * rt_rng_normal(&f->rng);
	for (int s = 0; v && s < STEPS; s++)
		v[s] = r * luck * (1 + f->step * rt_rng_normal(&f->rng));
	*n = STEPS;
	return v;
}

static double fake_clock(void *user)
{
	return ((fake *)user)->clock;
}

static double fake_cost(void *user, int i)
{
	(void)user;
	(void)i;
	return RUN_S;
}

static int fake_measure(void *user, int i, int round, double **v, size_t *n)
{
	fake *f = user;
	assert_true(f->nlog < MAX_LOG);
	f->log[f->nlog] = i;
	f->round_of[f->nlog++] = round;
	f->clock += RUN_S;
	*v = fake_run(f, f->rate[i], n);
	return *v ? RT_OK : RT_ENOMEM;
}

/* Candidate i's first run, with a luck of its own (a lucky or an unlucky run). */
static void first_run(fake *f, rt_leader *c, int i, double luck)
{
	size_t n;
	double *v = fake_run(f, f->rate[i] * luck, &n);
	assert_non_null(v);
	c[i] = (rt_leader){.v = v, .n = n};
	rt_leader_summarize(&c[i]);
}

static rt_leaders_opts opts_for(fake *f, double within, double budget)
{
	return (rt_leaders_opts){.within = within, .deadline = f->clock + budget, .min_rounds = 2,
				 .clock = fake_clock, .cost = fake_cost, .measure = fake_measure,
				 .user = f};
}

/*
 * Every round runs each of its candidates once, and no candidate runs twice
 * in a row, within a round or across two: A B C, B C A, never A A B B.
 */
static void assert_interleaved(const fake *f)
{
	for (int k = 0; k < f->nlog; k++) {
		int runs_in_round = 0;
		for (int j = 0; j < f->nlog; j++)
			runs_in_round += f->round_of[j] == f->round_of[k] && f->log[j] == f->log[k];
		assert_int_equal(runs_in_round, 1);
		if (k > 0)
			assert_int_not_equal(f->log[k - 1], f->log[k]);
	}
}

/*
 * Four points: 1 is the fastest (104), 0 a little slower (100) whose first
 * run was 6% lucky, so it leads after one run each with CIs that overlap;
 * 2 (90) is within reach of the band at first, 3 (60) never. Within 0 (the
 * fastest alone): 1 wins, told apart, 3 never runs again.
 */
static void test_lucky_first_run_does_not_win(void **state)
{
	(void)state;
	static const double rate[] = {100, 104, 90, 60};
	fake f = {.rate = rate, .luck = 0.01, .step = 0.04};
	rt_leader c[4];
	rt_rng_seed(&f.rng, 7);
	first_run(&f, c, 0, 1.06);
	first_run(&f, c, 1, 1.0);
	first_run(&f, c, 2, 1.0);
	first_run(&f, c, 3, 1.0);
	assert_true(c[0].median > c[1].median); /* the lucky run leads */
	assert_true(c[1].hi >= c[0].lo);        /* and their CIs overlap */
	rt_leaders_opts o = opts_for(&f, 0, 600);
	rt_leaders_result res;
	assert_int_equal(rt_leaders_separate(c, 4, &o, &res), RT_OK);
	print_message("# %d rounds, %d runs; medians %.1f %.1f %.1f; separated %d\n", res.rounds,
		      res.runs, c[0].median, c[1].median, c[2].median, res.separated);
	assert_int_equal(res.best, 1);
	assert_true(res.separated);
	assert_true(res.first_leaders >= 2);
	assert_true(res.rounds >= 2);
	assert_true(c[0].again >= 2 && c[1].again >= 2);
	assert_int_equal(c[3].again, 0); /* far below: never measured again */
	assert_int_equal(res.runs, f.nlog);
	assert_interleaved(&f);
	assert_true(f.clock <= o.deadline);
	rt_leaders_free(c, 4);
}

/*
 * With the knee's band (5%): 0 at 100 is within 5% of 1 at 104, so once
 * their CIs say so clearly the leaders are told apart although 0 and 1
 * overlap; 2 (90) falls out of the band.
 */
static void test_knee_band(void **state)
{
	(void)state;
	static const double rate[] = {100, 104, 90, 60};
	fake f = {.rate = rate, .luck = 0.01, .step = 0.01};
	rt_leader c[4];
	rt_rng_seed(&f.rng, 11);
	for (int i = 0; i < 4; i++)
		first_run(&f, c, i, i == 2 ? 1.1 : 1.0); /* 2's first run lucky: into the band */
	rt_leaders_opts o = opts_for(&f, 0.05, 600);
	rt_leaders_result res;
	assert_int_equal(rt_leaders_separate(c, 4, &o, &res), RT_OK);
	int lead[4], sep;
	int n = rt_leaders_of(c, 4, 0.05, lead, &sep);
	assert_true(sep && res.separated);
	assert_int_equal(lead[0], 1);
	assert_int_equal(n, 2); /* 1 and 0 within 5%; 2 out */
	assert_int_equal(lead[1], 0);
	assert_true(c[2].again >= 1); /* 2 was a leader at first, and measured again */
	assert_interleaved(&f);
	rt_leaders_free(c, 4);
}

/*
 * Two points of the same rate are never told apart with within 0: the
 * rounds go on while the budget allows, and stop before it is spent.
 */
static void test_budget_holds(void **state)
{
	(void)state;
	static const double rate[] = {100, 100};
	fake f = {.rate = rate, .luck = 0, .step = 0.05};
	rt_leader c[2];
	rt_rng_seed(&f.rng, 3);
	first_run(&f, c, 0, 1.0);
	first_run(&f, c, 1, 1.0);
	rt_leaders_opts o = opts_for(&f, 0, 52); /* 5 rounds of two 5 s runs, and 2 s */
	rt_leaders_result res;
	assert_int_equal(rt_leaders_separate(c, 2, &o, &res), RT_OK);
	assert_false(res.separated);
	assert_int_equal(res.rounds, 5);
	assert_int_equal(res.runs, 10);
	assert_true(f.clock <= o.deadline);
	assert_interleaved(&f);
	rt_leaders_free(c, 2);
}

/*
 * Leaders already apart after one run each: the fastest and the next are
 * still measured again in the least rounds (a run's CI is not its luck),
 * and nothing else.
 */
static void test_already_apart(void **state)
{
	(void)state;
	static const double rate[] = {100, 50, 70};
	fake f = {.rate = rate, .luck = 0, .step = 0.01};
	rt_leader c[3];
	rt_rng_seed(&f.rng, 5);
	for (int i = 0; i < 3; i++)
		first_run(&f, c, i, 1.0);
	rt_leaders_opts o = opts_for(&f, 0.05, 600);
	rt_leaders_result res;
	assert_int_equal(rt_leaders_separate(c, 3, &o, &res), RT_OK);
	assert_int_equal(res.rounds, 2);
	assert_int_equal(res.runs, 4);
	assert_int_equal(c[0].again, 2);
	assert_int_equal(c[2].again, 2); /* the next, 70 */
	assert_int_equal(c[1].again, 0);
	assert_int_equal(res.best, 0);
	assert_true(res.separated);
	assert_int_equal(res.first_leaders, 1);
	assert_interleaved(&f);
	rt_leaders_free(c, 3);
}

/*
 * One lucky run (30% above its rate, its steps steady) sets a slower point
 * apart as the fastest; measured again beside the next, it falls back and
 * the true fastest wins.
 */
static void test_lucky_run_apart(void **state)
{
	(void)state;
	static const double rate[] = {90, 100};
	fake f = {.rate = rate, .luck = 0.01, .step = 0.01};
	rt_leader c[2];
	rt_rng_seed(&f.rng, 13);
	first_run(&f, c, 0, 1.3);
	first_run(&f, c, 1, 1.0);
	assert_true(c[0].lo > c[1].hi); /* apart, the wrong way */
	rt_leaders_opts o = opts_for(&f, 0.05, 600);
	rt_leaders_result res;
	assert_int_equal(rt_leaders_separate(c, 2, &o, &res), RT_OK);
	assert_int_equal(res.best, 1);
	assert_true(res.separated);
	assert_interleaved(&f);
	rt_leaders_free(c, 2);
}

/* A run that fails keeps the candidate's samples; an abort code comes back. */
static int failing_measure(void *user, int i, int round, double **v, size_t *n)
{
	fake *f = user;
	(void)round;
	f->clock += RUN_S;
	*v = NULL;
	*n = 0;
	return f->nlog++ == 3 ? RT_ERUNTIME : i == 0 ? RT_EINFEASIBLE : RT_OK;
}

static void test_failures(void **state)
{
	(void)state;
	static const double rate[] = {100, 100};
	fake f = {.rate = rate, .luck = 0, .step = 0.01};
	rt_leader c[2];
	rt_rng_seed(&f.rng, 9);
	first_run(&f, c, 0, 1.0);
	first_run(&f, c, 1, 1.0);
	size_t n0 = c[0].n;
	rt_leaders_opts o = opts_for(&f, 0, 600);
	o.measure = failing_measure;
	rt_leaders_result res;
	assert_int_equal(rt_leaders_separate(c, 2, &o, &res), RT_ERUNTIME);
	assert_int_equal(c[0].n, n0);
	assert_int_equal(c[0].again, 0);
	rt_leaders_free(c, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lucky_first_run_does_not_win),
		cmocka_unit_test(test_knee_band),
		cmocka_unit_test(test_budget_holds),
		cmocka_unit_test(test_already_apart),
		cmocka_unit_test(test_lucky_run_apart),
		cmocka_unit_test(test_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
