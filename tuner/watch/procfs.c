/*
 * procfs.c: the system-independent half of procfs.h: the cache of pids
 * that tells which belong to the tree. Each snapshot lists the machine's
 * pids once (procfs_os.h); a pid seen for the first time has its parent
 * read and is put in or out of the tree for good, so that a tick costs one
 * listing plus the tree's own threads, not a read of every process.
 */
#include "procfs.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/rt.h"
#include "procfs_os.h"

/* A pid of the cache: whether it belongs to the tree, and its parent. */
struct rt_proc_known {
	pid_t pid, ppid;
	int in_tree;  /* 1 in, 0 out, -1 not decided yet (its parent is new too) */
	int seen;     /* in this listing */
};

void rt_proc_tree_init(rt_proc_tree *t, pid_t root, int root_counts)
{
	memset(t, 0, sizeof *t);
	t->root = root;
	t->root_counts = root_counts;
}

void rt_proc_tree_free(rt_proc_tree *t)
{
	free(t->known);
	memset(t, 0, sizeof *t);
}

void rt_proc_snap_free(rt_proc_snap *s)
{
	free(s->threads);
	memset(s, 0, sizeof *s);
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct rt_proc_known *)a)->pid, y = ((const struct rt_proc_known *)b)->pid;
	return (x > y) - (x < y);
}

static struct rt_proc_known *find_known(rt_proc_tree *t, int upto, pid_t pid)
{
	struct rt_proc_known key = {.pid = pid};
	if (upto == 0)
		return NULL; /* nothing known yet, and no array: bsearch must not see NULL */
	return bsearch(&key, t->known, (size_t)upto, sizeof key, by_pid);
}

/* A pid first seen now: its parent, and whether it is in the tree if that is known yet. */
static int add_known(rt_proc_tree *t, pid_t pid)
{
	if (rt_grow(&t->known, &t->cap, t->nknown, sizeof *t->known, 512))
		return RT_ENOMEM;
	pid_t ppid = rt_proc_os_parent(pid); /* 0: gone already, out of the tree */
	int in = (pid == t->root && t->root_counts) || (ppid && ppid == t->root) ? 1 : -1;
	if (pid == t->root && !t->root_counts)
		in = 0;
	if (!ppid && in < 0)
		in = 0;
	t->known[t->nknown++] = (struct rt_proc_known){pid, ppid, in, 1};
	return RT_OK;
}

/* New pids whose parent was new too: in the tree when their parent turned out to be. */
static void settle(rt_proc_tree *t)
{
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < t->nknown; i++) {
			struct rt_proc_known *k = &t->known[i];
			if (k->in_tree >= 0)
				continue;
			struct rt_proc_known *p = find_known(t, t->nknown, k->ppid);
			int parent = p ? p->in_tree : 0;
			if (parent >= 0) {
				k->in_tree = parent;
				changed = 1;
			}
		}
	}
	for (int i = 0; i < t->nknown; i++)
		if (t->known[i].in_tree < 0)
			t->known[i].in_tree = 0; /* a loop of parents: cannot be */
}

/* One pid of the listing: known already, or learnt now. */
static int see_pid(void *ctx, pid_t pid)
{
	rt_proc_tree *t = ctx;
	struct rt_proc_known *k = find_known(t, t->nknown_before, pid);
	if (!k)
		return add_known(t, pid);
	k->seen = 1;
	return RT_OK;
}

/* Lists the machine's pids: drops the ones that are gone, learns the new ones. */
static int update_tree(rt_proc_tree *t)
{
	t->nknown_before = t->nknown;
	for (int i = 0; i < t->nknown; i++)
		t->known[i].seen = 0;
	int rc = rt_proc_os_each_pid(see_pid, t);
	int n = 0;
	for (int i = 0; i < t->nknown; i++)
		if (t->known[i].seen)
			t->known[n++] = t->known[i];
	t->nknown = n;
	if (n)
		qsort(t->known, (size_t)n, sizeof *t->known, by_pid);
	settle(t);
	return rc;
}

int rt_proc_snapshot(rt_proc_tree *t, rt_proc_snap *s)
{
	s->n = s->nprocs = 0;
	s->rss_bytes = 0;
	int rc = update_tree(t);
	for (int i = 0; rc == RT_OK && i < t->nknown; i++)
		if (t->known[i].in_tree)
			rc = rt_proc_os_read_process(s, t->known[i].pid);
	rt_proc_os_machine(s);
	return rc;
}

int rt_proc_in_tree(rt_proc_tree *t, pid_t pid)
{
	struct rt_proc_known *k = find_known(t, t->nknown, pid);
	return k && k->in_tree == 1;
}
