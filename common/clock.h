/*
 * clock.h: the budget clock, what a run's budget, its deadlines and its
 * progress are counted on (tune's search, the leaders' rounds, check's
 * rounds, a command's run and fixed cost as the budget predicts them).
 * Apart from the clock that measures, rt_now(): a trial's rate, a timeout,
 * the canary and the memory watchdog time on it, and it is never fake.
 *
 * The budget clock is rt_now() unless a test fakes it, as SQLite's test
 * builds replace its clock: then it moves only by what simulated trials
 * report, so that a test of the tune's logic (which points, how many
 * rounds, where the budget stops) spends no real seconds and gives the same
 * outcome on a fast machine and a slow one.
 *  - A unit test: rt_clock_fake(start), its fake trials rt_clock_advance()
 *    by the seconds they report, rt_clock_real() at the end.
 *  - The binary: RIGTUNE_TEST_CLOCK=FILE, test-only, read at the first
 *    reading: the clock's seconds are the number in FILE (0 while there is
 *    no FILE), which the simulated trials a test runs (tests/fake_train.py)
 *    move on instead of sleeping. Nothing else moves it: a real trial costs
 *    no time on it, so it is for runs whose trials are all simulated.
 */
#ifndef RT_CLOCK_H
#define RT_CLOCK_H

/* The budget clock's seconds: rt_now(), or the fake's time. */
double rt_clock_now(void);

/* Tests: the fake clock from `start` on, whatever RIGTUNE_TEST_CLOCK says. */
void rt_clock_fake(double start);
/*
 * Tests: a simulated trial spent `seconds`: rt_clock_fake's clock moves on;
 * the real one does not, nor RIGTUNE_TEST_CLOCK's (its trials move the file).
 */
void rt_clock_advance(double seconds);
/* Tests: the real clock again. */
void rt_clock_real(void);

#endif
