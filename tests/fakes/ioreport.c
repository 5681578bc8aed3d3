/*
 * A stand-in of libIOReport and of the CoreFoundation calls the IOReport
 * monitor makes (workloads/devmon_ioreport.c), for tests/test_devmon.c:
 * loaded through $RIGTUNE_IOREPORT and $RIGTUNE_COREFOUNDATION both. Its
 * objects are tagged structs behind CoreFoundation's opaque pointers.
 *
 * $RIGTUNE_FAKE_IOREPORT says what it reports: "busy=0.3" (default 0.25),
 * the GPU's share of the time since the library loaded spent in P1 and P5
 * (half each), the rest OFF; "gpu=0", no GPU channels (a Mac without them).
 * (Read again at each IOReportCopyChannelsInGroup: a monitor's opening.)
 * A sample holds a CPU channel besides GPUPH, with cumulative residencies
 * in nanoseconds, as IOReport's grow. fake_ioreport_live counts the
 * objects created and not yet released (Create/Copy calls, as
 * CoreFoundation's ownership rule has it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "script.h"

enum { STR, DICT, ARRAY, CHANNEL, SUB };
#define STATES 4

typedef struct obj {
	int kind;
	char text[64];        /* STR */
	struct obj *items[2]; /* ARRAY: the channels; DICT: its array */
	int n;
	struct obj *group, *subgroup, *name; /* CHANNEL: owned strings */
	struct obj *state[STATES];
	long long res[STATES];
	int nstates;
} obj;

int fake_ioreport_live;
static double busy = 0.25, t0;
static int gpu = 1;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One setting of "busy=0.3,gpu=0" (script.h). */
static void set(const char *key, double v)
{
	if (!strcmp(key, "busy"))
		busy = v;
	else if (!strcmp(key, "gpu"))
		gpu = v != 0;
}

static void load(void)
{
	if (t0 == 0)
		t0 = now_s();
	busy = 0.25;
	gpu = 1;
	fake_script("RIGTUNE_FAKE_IOREPORT", set);
}

static obj *make(int kind, int counted)
{
	obj *o = calloc(1, sizeof *o);
	o->kind = kind;
	fake_ioreport_live += counted;
	return o;
}

static obj *text(const char *s, int counted)
{
	obj *o = make(STR, counted);
	snprintf(o->text, sizeof o->text, "%s", s);
	return o;
}

static void drop(obj *o)
{
	if (!o)
		return;
	for (int i = 0; i < 2; i++)
		drop(o->items[i]);
	drop(o->group);
	drop(o->subgroup);
	drop(o->name);
	for (int i = 0; i < STATES; i++)
		drop(o->state[i]);
	free(o);
}

static obj *channel(const char *g, const char *sg, const char *name, const char *const *states,
                    const long long *res, int n)
{
	obj *c = make(CHANNEL, 0);
	c->group = text(g, 0);
	c->subgroup = text(sg, 0);
	c->name = text(name, 0);
	for (int i = 0; i < n; i++) {
		c->state[i] = text(states[i], 0);
		c->res[i] = res[i];
	}
	c->nstates = n;
	return c;
}

/* A sample: the CPU's channel and GPUPH, their residencies since the library loaded. */
static obj *sample(double elapsed_s)
{
	static const char *const cpu[] = {"IDLE", "V0P1"}, *const gpuph[] = {"OFF", "P1", "P5"};
	long long ns = (long long)(elapsed_s * 1e9), on = (long long)(elapsed_s * 1e9 * busy);
	long long cpu_res[] = {ns / 2, ns - ns / 2}, gpu_res[] = {ns - on, on / 2, on - on / 2};
	obj *d = make(DICT, 1), *a = make(ARRAY, 0);
	a->items[0] =
	    channel("CPU Stats", "CPU Core Performance States", "ECPU000", cpu, cpu_res, 2);
	a->items[1] = channel("GPU Stats", "GPU Performance States", "GPUPH", gpuph, gpu_res, 3);
	a->n = 2;
	d->items[0] = a;
	return d;
}

/* ---- CoreFoundation ---- */

const void *CFStringCreateWithCString(const void *alloc, const char *s, unsigned enc)
{
	(void)alloc, (void)enc;
	return text(s, 1);
}

int CFStringGetCString(const void *s, char *buf, long len, unsigned enc)
{
	(void)enc;
	const obj *o = s;
	if (o->kind != STR || (long)strlen(o->text) >= len)
		return 0;
	strcpy(buf, o->text);
	return 1;
}

const void *CFDictionaryGetValue(const void *dict, const void *key)
{
	const obj *d = dict, *k = key;
	return d->kind == DICT && k->kind == STR && !strcmp(k->text, "IOReportChannels")
	           ? d->items[0]
	           : NULL;
}

long CFArrayGetCount(const void *array)
{
	return ((const obj *)array)->n;
}

const void *CFArrayGetValueAtIndex(const void *array, long i)
{
	return ((const obj *)array)->items[i];
}

void CFRelease(const void *o)
{
	fake_ioreport_live--;
	drop((obj *)o);
}

/* ---- IOReport ---- */

const void *IOReportCopyChannelsInGroup(const void *group, const void *subgroup,
                                        unsigned long long a, unsigned long long b,
                                        unsigned long long c)
{
	(void)a, (void)b, (void)c;
	load();
	if (!gpu || strcmp(((const obj *)group)->text, "GPU Stats") ||
	    strcmp(((const obj *)subgroup)->text, "GPU Performance States"))
		return NULL;
	return make(DICT, 1);
}

const void *IOReportCreateSubscription(const void *a, const void *desired, const void **subscribed,
                                       unsigned long long id, const void *b)
{
	(void)a, (void)id, (void)b;
	if (!desired)
		return NULL;
	*subscribed = make(DICT, 1);
	return make(SUB, 1);
}

const void *IOReportCreateSamples(const void *sub, const void *subscribed, const void *a)
{
	(void)a;
	return sub && subscribed ? sample(now_s() - t0) : NULL;
}

/* cur less prev, channel by channel and state by state. */
const void *IOReportCreateSamplesDelta(const void *prev, const void *cur, const void *a)
{
	(void)a;
	const obj *p = ((const obj *)prev)->items[0], *c = ((const obj *)cur)->items[0];
	obj *d = sample(0);
	for (int i = 0; i < c->n; i++)
		for (int s = 0; s < c->items[i]->nstates; s++)
			d->items[0]->items[i]->res[s] = c->items[i]->res[s] - p->items[i]->res[s];
	return d;
}

const void *IOReportChannelGetGroup(const void *ch)
{
	return ((const obj *)ch)->group;
}

const void *IOReportChannelGetSubGroup(const void *ch)
{
	return ((const obj *)ch)->subgroup;
}

const void *IOReportChannelGetChannelName(const void *ch)
{
	return ((const obj *)ch)->name;
}

int IOReportStateGetCount(const void *ch)
{
	return ((const obj *)ch)->nstates;
}

const void *IOReportStateGetNameForIndex(const void *ch, int i)
{
	return ((const obj *)ch)->state[i];
}

long long IOReportStateGetResidency(const void *ch, int i)
{
	return ((const obj *)ch)->res[i];
}
