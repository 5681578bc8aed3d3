/*
 * devmon_ioreport.c: the device monitor of Apple Silicon's GPU, IOReport
 * (devmon.h): the GPU's active residency, which a process reads without
 * root, as the macOS monitors (asitop, macmon) read it. The monitor
 * subscribes to the channels of group "GPU Stats", subgroup "GPU
 * Performance States", takes a sample at each poll, and the delta from the
 * previous one gives the share of the time the GPU spent in a performance
 * state rather than OFF/IDLE/DOWN (devmon_ioreport.h's arithmetic, plain C
 * on every OS). One device: a Mac has one GPU.
 *
 * IOReport is private API: libIOReport.dylib and CoreFoundation are
 * dlopen'ed and their functions looked up by name, as metal.c reaches
 * Metal; a Mac without them has no monitor, and says why. The calls'
 * declarations are those the open-source monitors use. Nothing here needs
 * a Mac to compile: $RIGTUNE_IOREPORT and $RIGTUNE_COREFOUNDATION name the
 * libraries to load instead of Apple's, and tests/test_devmon.c runs the
 * whole reader on Linux against a stand-in of both (tests/fakes/ioreport.c).
 * On Linux the table (devmon_table.c) does not list it.
 */
#include "devmon_ioreport.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "devmon.h"
#include "host_abi.h"

int rt_ioreport_state_active(const char *name)
{
	return strcmp(name, "OFF") && strcmp(name, "IDLE") && strcmp(name, "DOWN");
}

int rt_ioreport_gpu_busy(const rt_ior_channel *ch, int n, double *busy, char *why, size_t len)
{
	for (int c = 0; c < n; c++) {
		if (strcmp(ch[c].group, RT_IOR_GPU_GROUP) ||
		    strcmp(ch[c].subgroup, RT_IOR_GPU_SUBGROUP) ||
		    strcmp(ch[c].name, RT_IOR_GPU_CHANNEL))
			continue;
		double active = 0, total = 0;
		for (int i = 0; i < ch[c].nstates; i++) {
			const rt_ior_state *s = &ch[c].state[i];
			if (s->residency < 0)
				return rt_abi_fail(why, len, RT_EUNAVAIL,
				                   "IOReport: %s state %s has residency %lld",
				                   ch[c].name, s->name, s->residency);
			total += (double)s->residency;
			active += rt_ioreport_state_active(s->name) ? (double)s->residency : 0;
		}
		if (total <= 0)
			return rt_abi_fail(why, len, RT_EUNAVAIL, "IOReport: %s has no residency",
			                   ch[c].name);
		*busy = active / total;
		return RT_OK;
	}
	return rt_abi_fail(why, len, RT_EUNAVAIL, "IOReport: no channel %s in %s / %s",
	                   RT_IOR_GPU_CHANNEL, RT_IOR_GPU_GROUP, RT_IOR_GPU_SUBGROUP);
}

#define IOREPORT_LIB "/usr/lib/libIOReport.dylib"
#define CF_FW "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"
#define CF_UTF8 0x08000100u /* kCFStringEncodingUTF8 */
#define IOR_MAX_CHANNELS 64

typedef const void *cf_ref; /* CFTypeRef: CFStringRef, CFDictionaryRef, CFArrayRef, ... */

/* The calls: CoreFoundation's (documented) and IOReport's. */
typedef struct ior_api {
	void *lib, *cf;
	cf_ref (*str_create)(cf_ref alloc, const char *s, uint32_t enc);
	int (*str_get)(cf_ref s, char *buf, long len, uint32_t enc);
	cf_ref (*dict_get)(cf_ref dict, const void *key);
	long (*array_count)(cf_ref array);
	cf_ref (*array_at)(cf_ref array, long i);
	void (*release)(cf_ref o);
	cf_ref (*copy_channels)(cf_ref group, cf_ref subgroup, uint64_t a, uint64_t b, uint64_t c);
	cf_ref (*subscribe)(const void *a, cf_ref desired, cf_ref *subscribed, uint64_t id,
	                    cf_ref b);
	cf_ref (*samples)(cf_ref subscription, cf_ref subscribed, cf_ref a);
	cf_ref (*delta)(cf_ref prev, cf_ref cur, cf_ref a);
	cf_ref (*ch_group)(cf_ref ch);
	cf_ref (*ch_subgroup)(cf_ref ch);
	cf_ref (*ch_name)(cf_ref ch);
	int (*state_count)(cf_ref ch);
	cf_ref (*state_name)(cf_ref ch, int i);
	long long (*state_residency)(cf_ref ch, int i);
} ior_api;

typedef struct ior_state {
	ior_api api;
	cf_ref channels, subscribed, subscription, prev; /* prev: the last poll's sample */
	double prev_t;
	rt_ior_channel parsed[IOR_MAX_CHANNELS];
} ior_state;

static int load_api(ior_api *a, char *why, size_t len)
{
	a->cf = rt_devmon_dlopen("RIGTUNE_COREFOUNDATION", CF_FW, why, len);
	if (!a->cf)
		return RT_EUNAVAIL;
	a->lib = rt_devmon_dlopen("RIGTUNE_IOREPORT", IOREPORT_LIB, why, len);
	const rt_dl_need cf[] = {
	    RT_DL_NEED("CFStringCreateWithCString", a->str_create),
	    RT_DL_NEED("CFStringGetCString", a->str_get),
	    RT_DL_NEED("CFDictionaryGetValue", a->dict_get),
	    RT_DL_NEED("CFArrayGetCount", a->array_count),
	    RT_DL_NEED("CFArrayGetValueAtIndex", a->array_at),
	    RT_DL_NEED("CFRelease", a->release),
	};
	const rt_dl_need ior[] = {
	    RT_DL_NEED("IOReportCopyChannelsInGroup", a->copy_channels),
	    RT_DL_NEED("IOReportCreateSubscription", a->subscribe),
	    RT_DL_NEED("IOReportCreateSamples", a->samples),
	    RT_DL_NEED("IOReportCreateSamplesDelta", a->delta),
	    RT_DL_NEED("IOReportChannelGetGroup", a->ch_group),
	    RT_DL_NEED("IOReportChannelGetSubGroup", a->ch_subgroup),
	    RT_DL_NEED("IOReportChannelGetChannelName", a->ch_name),
	    RT_DL_NEED("IOReportStateGetCount", a->state_count),
	    RT_DL_NEED("IOReportStateGetNameForIndex", a->state_name),
	    RT_DL_NEED("IOReportStateGetResidency", a->state_residency),
	};
	if (a->lib && rt_dl_resolve(a->cf, "CoreFoundation", cf, RT_COUNT(cf), why, len) == 0 &&
	    rt_dl_resolve(a->lib, IOREPORT_LIB, ior, RT_COUNT(ior), why, len) == 0)
		return RT_OK;
	if (a->lib)
		dlclose(a->lib);
	dlclose(a->cf);
	return RT_EUNAVAIL;
}

/* A CFString's text into buf ("" for none). */
static void cf_text(const ior_api *a, cf_ref s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s && !a->str_get(s, buf, (long)len, CF_UTF8))
		buf[0] = '\0';
}

/* The delta sample's channels as plain C: how many went into s->parsed. */
static int parse_delta(ior_state *s, cf_ref delta)
{
	const ior_api *a = &s->api;
	cf_ref key = a->str_create(NULL, "IOReportChannels", CF_UTF8);
	cf_ref list = key ? a->dict_get(delta, key) : NULL;
	long n = list ? a->array_count(list) : 0;
	int used = 0;
	for (long i = 0; i < n && used < IOR_MAX_CHANNELS; i++) {
		cf_ref ch = a->array_at(list, i);
		rt_ior_channel *p = &s->parsed[used++];
		cf_text(a, a->ch_group(ch), p->group, sizeof p->group);
		cf_text(a, a->ch_subgroup(ch), p->subgroup, sizeof p->subgroup);
		cf_text(a, a->ch_name(ch), p->name, sizeof p->name);
		int k = a->state_count(ch);
		p->nstates = k < RT_IOR_MAX_STATES ? (k > 0 ? k : 0) : RT_IOR_MAX_STATES;
		for (int j = 0; j < p->nstates; j++) {
			cf_text(a, a->state_name(ch, j), p->state[j].name, sizeof p->state[j].name);
			p->state[j].residency = a->state_residency(ch, j);
		}
	}
	if (key)
		a->release(key);
	return used;
}

static void ior_release(ior_state *s)
{
	const ior_api *a = &s->api;
	cf_ref held[] = {s->prev, s->subscription, s->subscribed, s->channels};
	for (size_t i = 0; i < RT_COUNT(held); i++)
		if (held[i])
			a->release(held[i]);
	dlclose(a->lib);
	dlclose(a->cf);
}

static int ior_open(void *state, const char *bus, int *ndev, char *why, size_t len)
{
	ior_state *s = (ior_state *)state;
	ior_api *a = &s->api;
	(void)bus; /* one GPU */
	if (load_api(a, why, len))
		return RT_EUNAVAIL;
	cf_ref group = a->str_create(NULL, RT_IOR_GPU_GROUP, CF_UTF8);
	cf_ref sub = a->str_create(NULL, RT_IOR_GPU_SUBGROUP, CF_UTF8);
	if (group && sub)
		s->channels = a->copy_channels(group, sub, 0, 0, 0);
	if (s->channels)
		s->subscription = a->subscribe(NULL, s->channels, &s->subscribed, 0, NULL);
	if (s->subscription)
		s->prev = a->samples(s->subscription, s->subscribed, NULL);
	if (group)
		a->release(group);
	if (sub)
		a->release(sub);
	if (!s->prev) {
		rt_abi_fail(why, len, RT_EUNAVAIL, "IOReport: no %s / %s channels to subscribe to",
		            RT_IOR_GPU_GROUP, RT_IOR_GPU_SUBGROUP);
		ior_release(s);
		return RT_EUNAVAIL;
	}
	s->prev_t = rt_devmon_clock();
	*ndev = 1;
	return RT_OK;
}

/* One sample: the GPU's busy share since the last poll (none when it has no residency yet). */
static int ior_poll(void *state, rt_dev_batch *out)
{
	ior_state *s = (ior_state *)state;
	const ior_api *a = &s->api;
	cf_ref cur = a->samples(s->subscription, s->subscribed, NULL);
	if (!cur)
		return RT_OK;
	double now = rt_devmon_clock(), busy;
	cf_ref delta = a->delta(s->prev, cur, NULL);
	int rc = RT_OK;
	if (delta && rt_ioreport_gpu_busy(s->parsed, parse_delta(s, delta), &busy, NULL, 0) == 0) {
		rt_dev_sample x = {0, RT_DEV_DEVICE, 0, now, now - s->prev_t, busy};
		rc = rt_dev_batch_push(out, x);
	}
	if (delta)
		a->release(delta);
	a->release(s->prev);
	s->prev = cur;
	s->prev_t = now;
	return rc;
}

static void ior_close(void *state)
{
	ior_release((ior_state *)state);
}

const rt_devmon_vendor rt_devmon_ioreport = {
    "ioreport", "IOReport", sizeof(ior_state), ior_open, ior_poll, ior_close,
};
