#include "memwatch.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common/platform.h"
#include "../common/rt.h"

/* Processes of a group's tree whose footprints are summed; the rest go uncounted. */
#define TREE_MAX 1024

uint64_t rt_memwatch_test_cap(void)
{
	const char *s = getenv("RIGTUNE_MEMWATCH_MIB");
	char *end;
	unsigned long long mib = s ? strtoull(s, &end, 10) : 0;
	return s && *s && !*end && mib > 0 && mib < (1ull << 40) ? (uint64_t)mib << 20 : 0;
}

rt_memcap rt_memcap_how(uint64_t cap)
{
	if (!cap)
		return RT_MEMCAP_NONE;
	return rt_plat_can_cap_memory() && !rt_memwatch_test_cap() ? RT_MEMCAP_SYSTEM
								    : RT_MEMCAP_WATCHDOG;
}

/*
 * What the watched trial holds: pid's footprint, and with group every
 * descendant's (found level by level). -1 when pid's own cannot be read.
 */
static int footprint(const rt_memwatch *w, uint64_t *bytes)
{
	pid_t tree[TREE_MAX];
	if (rt_plat_footprint(w->pid, bytes))
		return -1;
	int n = 1;
	tree[0] = w->pid;
	for (int i = 0; w->group && i < n && n < TREE_MAX; i++)
		n += rt_plat_children(tree[i], tree + n, TREE_MAX - n);
	for (int i = 1; i < n; i++) {
		uint64_t b;
		if (rt_plat_footprint(tree[i], &b) == 0) /* one that just ended counts nothing */
			*bytes += b;
	}
	return 0;
}

/* One look, under the lock: 1 when it was past the cap and the trial was killed. */
static int look(rt_memwatch *w)
{
	uint64_t b;
	pthread_mutex_lock(&w->lock);
	int over = w->pid > 0 && footprint(w, &b) == 0 && b > w->cap;
	if (over) {
		w->seen = b;
		atomic_store(&w->fired, 1);
		if (w->group)
			killpg(w->pid, SIGKILL);
		else
			kill(w->pid, SIGKILL);
	}
	pthread_mutex_unlock(&w->lock);
	return over;
}

static void *watch(void *arg)
{
	rt_memwatch *w = arg;
	const struct timespec period = {0, (long)(RT_MEMWATCH_PERIOD_S * 1e9)};
	while (!atomic_load(&w->stop) && !look(w))
		nanosleep(&period, NULL);
	return NULL;
}

int rt_memwatch_start(rt_memwatch *w, pid_t pid, int group, uint64_t cap)
{
	w->pid = pid;
	w->group = group;
	w->cap = cap;
	w->seen = 0;
	atomic_init(&w->stop, 0);
	atomic_init(&w->fired, 0);
	if (pthread_mutex_init(&w->lock, NULL))
		return RT_ERUNTIME;
	if (pthread_create(&w->thread, NULL, watch, w)) {
		pthread_mutex_destroy(&w->lock);
		return RT_ERUNTIME;
	}
	return RT_OK;
}

int rt_memwatch_stop(rt_memwatch *w)
{
	atomic_store(&w->stop, 1);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	return atomic_load(&w->fired);
}

void rt_memwatch_hold(rt_memwatch *w)
{
	pthread_mutex_lock(&w->lock);
}

void rt_memwatch_release(rt_memwatch *w, int reaped)
{
	if (reaped)
		w->pid = 0;
	pthread_mutex_unlock(&w->lock);
}

void rt_memwatch_reason(uint64_t cap, uint64_t seen, char *buf, size_t len)
{
	snprintf(buf, len, "needs more than the %.1f GiB cap (%.1f GiB when the watchdog ended it)",
		 (double)cap / (1 << 30), (double)seen / (1 << 30));
}
