/*
 * devmon.c: what every vendor's monitor shares (devmon.h): the samples,
 * opening a vendor's state, the plugins' window. Plain C that C++
 * compiles (the GPU plugins include this file), needing only libc.
 */
#include "devmon.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_abi.h"

struct rt_devmon {
	const rt_devmon_vendor *v;
	void *state;
	int ndev;
	double window_t0;     /* the window's samples are stamped after this */
	rt_dev_batch scratch; /* a window read's samples */
};

int rt_dev_batch_push(rt_dev_batch *b, rt_dev_sample x)
{
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 256;
		rt_dev_sample *s = (rt_dev_sample *)realloc(b->s, (size_t)cap * sizeof *s);
		if (!s)
			return RT_ENOMEM;
		b->s = s;
		b->cap = cap;
	}
	b->s[b->n++] = x;
	return RT_OK;
}

double rt_devmon_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *rt_devmon_dlopen(const char *env, const char *name, char *why, size_t len)
{
	const char *path = getenv(env);
	void *lib = dlopen(path && *path ? path : name, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		rt_abi_fail(why, len, RT_EUNAVAIL, "%s", dlerror());
	return lib;
}

rt_devmon *rt_devmon_open(const rt_devmon_vendor *v, const char *bus, char *why, size_t len)
{
	rt_devmon *m = (rt_devmon *)calloc(1, sizeof *m);
	if (m)
		m->state = calloc(1, v->state_size);
	if (!m || !m->state) {
		free(m);
		rt_abi_fail(why, len, RT_ENOMEM, "out of memory");
		return NULL;
	}
	m->v = v;
	if (v->open(m->state, bus, &m->ndev, why, len) == RT_OK)
		return m;
	free(m->state);
	free(m);
	return NULL;
}

int rt_devmon_ndevices(const rt_devmon *m)
{
	return m ? m->ndev : 0;
}

const char *rt_devmon_label(const rt_devmon *m)
{
	return m ? m->v->label : "none";
}

const rt_devmon_vendor *rt_devmon_vendor_of(const rt_devmon *m)
{
	return m ? m->v : NULL;
}

int rt_devmon_poll(rt_devmon *m, rt_dev_batch *out)
{
	return m ? m->v->poll(m->state, out) : RT_OK;
}

void rt_devmon_window_start(rt_devmon *m)
{
	m->scratch.n = 0;
	m->v->poll(m->state, &m->scratch); /* what came before is not the window's */
	m->scratch.n = 0;
	m->window_t0 = rt_devmon_clock();
}

int rt_devmon_window_read(rt_devmon *m, double *busy, int *n, char *why, size_t len)
{
	double sum = 0;
	*n = 0;
	*busy = 0;
	m->scratch.n = 0;
	if (m->v->poll(m->state, &m->scratch))
		return rt_abi_fail(why, len, RT_ENOMEM, "out of memory");
	for (int i = 0; i < m->scratch.n; i++) {
		const rt_dev_sample *s = &m->scratch.s[i];
		if (s->kind == RT_DEV_DEVICE && s->device == 0 && s->t > m->window_t0) {
			sum += s->busy;
			(*n)++;
		}
	}
	if (!*n)
		return rt_abi_fail(why, len, RT_EUNAVAIL, "no sample in the window");
	*busy = sum / *n;
	return RT_OK;
}

int rt_devmon_utilization(rt_devmon **m, int *failed, const rt_devmon_vendor *v, const char *bus,
                          double *busy, char *why, size_t len)
{
	int n;
	if (*failed)
		return RT_EUNAVAIL;
	if (!*m) {
		*m = rt_devmon_open(v, bus, why, len);
		if (!*m) {
			*failed = 1;
			return RT_EUNAVAIL;
		}
		rt_devmon_window_start(*m);
		return rt_abi_fail(why, len, RT_EUNAVAIL, "the monitor's window starts now");
	}
	return rt_devmon_window_read(*m, busy, &n, why, len);
}

void rt_devmon_close(rt_devmon *m)
{
	if (!m)
		return;
	m->v->close(m->state);
	free(m->state);
	free(m->scratch.s);
	free(m);
}
