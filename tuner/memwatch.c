#include "memwatch.h"

#include <signal.h>
#include <time.h>

#include "../common/platform.h"
#include "../common/rt.h"

static void *watch(void *arg)
{
	rt_memwatch *w = arg;
	const struct timespec period = {0, (long)(RT_MEMWATCH_PERIOD_S * 1e9)};
	while (!atomic_load(&w->stop)) {
		uint64_t b;
		if (rt_plat_footprint(w->pid, &b) == 0 && b > w->cap) {
			w->seen = b;
			atomic_store(&w->fired, 1);
			kill(w->pid, SIGKILL);
			break;
		}
		nanosleep(&period, NULL);
	}
	return NULL;
}

int rt_memwatch_start(rt_memwatch *w, pid_t pid, uint64_t cap)
{
	w->pid = pid;
	w->cap = cap;
	w->seen = 0;
	atomic_init(&w->stop, 0);
	atomic_init(&w->fired, 0);
	return pthread_create(&w->thread, NULL, watch, w) ? RT_ERUNTIME : RT_OK;
}

int rt_memwatch_stop(rt_memwatch *w)
{
	atomic_store(&w->stop, 1);
	pthread_join(w->thread, NULL);
	return atomic_load(&w->fired);
}
