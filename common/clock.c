/*
 * clock.c: the budget clock (clock.h): rt_now(), a fake a unit test sets
 * and moves, or the fake in RIGTUNE_TEST_CLOCK's file.
 */
#include "clock.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt.h"

static enum { UNREAD, REAL, FAKE, FAKE_FILE } mode;
static double fake_now;    /* FAKE: its seconds */
static const char *path;   /* FAKE_FILE: the file of its seconds */

/* Whether the binary runs on a test's clock: asked once, at the first reading. */
static void read_mode(void)
{
	path = getenv("RIGTUNE_TEST_CLOCK");
	mode = path && *path ? FAKE_FILE : REAL;
}

/* The seconds in the test clock's file: 0 before a simulated trial wrote it. */
static double file_seconds(void)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	if (!f) {
		RT_BUG_ON(errno != ENOENT); /* a test's own file: it cannot be unreadable */
		return 0;
	}
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	double s;
	RT_BUG_ON(rt_parse_double(buf, &s) != RT_OK); /* written by the test's fake, not a user */
	return s;
}

double rt_clock_now(void)
{
	if (mode == UNREAD)
		read_mode();
	return mode == FAKE ? fake_now : mode == FAKE_FILE ? file_seconds() : rt_now();
}

void rt_clock_fake(double start)
{
	mode = FAKE;
	fake_now = start;
}

void rt_clock_advance(double seconds)
{
	if (mode == FAKE)
		fake_now += seconds;
}

void rt_clock_real(void)
{
	mode = REAL;
}
