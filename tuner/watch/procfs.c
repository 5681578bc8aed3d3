/*
 * procfs.c: procfs.h on Linux. Each snapshot lists /proc once; a pid seen
 * for the first time has its parent read from /proc/PID/stat and is put in
 * or out of the tree for good, so that a tick costs one directory listing
 * plus the tree's own threads, not a read of every process of the machine.
 */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/rt.h"

/* A pid of the cache: whether it belongs to the tree, and its parent. */
struct rt_proc_known {
	pid_t pid, ppid;
	int in_tree;  /* 1 in, 0 out, -1 not decided yet (its parent is new too) */
	int seen;     /* in this listing */
};

static long ticks_per_s(void)
{
	static long hz;
	if (!hz)
		hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	return hz;
}

/* A small /proc file into buf (NUL-terminated); its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	while ((n = read(fd, buf, len - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * The fields of a stat line after the name: "PID (COMM) S PPID ...". The
 * name may hold spaces and parentheses: it ends at the last ')'. Returns
 * the text after it, the name into comm, printable (a name is any bytes the
 * program set, cut at 15 by the kernel, maybe inside a UTF-8 character:
 * what is not UTF-8 becomes '?', as YAML and a terminal need); NULL when
 * malformed.
 */
static const char *stat_fields(const char *line, char comm[16])
{
	const char *open = strchr(line, '('), *close = strrchr(line, ')');
	if (!open || !close || close < open || close[1] != ' ')
		return NULL;
	char raw[16];
	int len = (int)(close - open - 1);
	snprintf(raw, sizeof raw, "%.*s", len > 15 ? 15 : len, open + 1);
	rt_printable(comm, 16, raw);
	return close + 2;
}

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
	char path[64], line[512], comm[16];
	int ppid = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	const char *f = read_small(path, line, sizeof line) > 0 ? stat_fields(line, comm) : NULL;
	if (!f || sscanf(f, "%*c %d", &ppid) != 1)
		ppid = 0; /* gone already: out of the tree */
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

/* Lists /proc: drops the pids that are gone, learns the new ones. */
static int update_tree(rt_proc_tree *t)
{
	DIR *d = opendir("/proc");
	if (!d)
		return RT_EIO;
	int old = t->nknown, rc = RT_OK;
	for (int i = 0; i < old; i++)
		t->known[i].seen = 0;
	struct dirent *e;
	while (rc == RT_OK && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		struct rt_proc_known *k = find_known(t, old, (pid_t)pid);
		if (k)
			k->seen = 1;
		else
			rc = add_known(t, (pid_t)pid);
	}
	closedir(d);
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

static int add_thread(rt_proc_snap *s, const rt_proc_thread *th)
{
	if (rt_grow(&s->threads, &s->cap, s->n, sizeof *s->threads, 64))
		return RT_ENOMEM;
	s->threads[s->n++] = *th;
	return RT_OK;
}

/*
 * One thread: its name and state from stat, its CPU time and its time
 * waiting for a CPU from schedstat (nanoseconds) where the kernel keeps
 * them, else stat's utime + stime (clock ticks) and no wait. 0 when it is
 * gone meanwhile.
 */
static int read_thread(int pid, int tid, rt_proc_thread *th)
{
	char path[96], line[1024];
	unsigned long long ut = 0, st = 0, ns = 0, wait = 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
	const char *f = read_small(path, line, sizeof line) > 0 ? stat_fields(line, th->comm) : NULL;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!f || sscanf(f, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &th->state, &ut,
			 &st) != 3)
		return 0;
	th->pid = pid;
	th->tid = tid;
	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", pid, tid);
	if (read_small(path, line, sizeof line) > 0 && sscanf(line, "%llu %llu", &ns, &wait) == 2) {
		th->cpu_ns = ns;
		th->wait_ns = wait;
	} else {
		th->cpu_ns = (ut + st) * (1000000000ull / (unsigned long long)ticks_per_s());
	}
	return 1;
}

/* The threads and the resident memory of one process of the tree. */
static int read_process(rt_proc_snap *s, int pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return RT_OK; /* gone */
	struct dirent *e;
	int rc = RT_OK, any = 0;
	while (rc == RT_OK && (e = readdir(d))) {
		int tid = atoi(e->d_name);
		rt_proc_thread th = {0};
		if (tid > 0 && read_thread(pid, tid, &th)) {
			rc = add_thread(s, &th);
			any = 1;
		}
	}
	closedir(d);
	unsigned long long size, rss;
	snprintf(path, sizeof path, "/proc/%d/statm", pid);
	if (any && read_small(path, line, sizeof line) > 0 &&
	    sscanf(line, "%llu %llu", &size, &rss) == 2)
		s->rss_bytes += rss * (unsigned long long)sysconf(_SC_PAGESIZE);
	s->nprocs += any;
	return rc;
}

/* The machine's CPU time from /proc/stat's first line (clock ticks, every CPU). */
static void read_machine(rt_proc_snap *s)
{
	char line[512];
	unsigned long long v[8] = {0};
	s->machine_busy_ns = s->machine_total_ns = 0;
	if (read_small("/proc/stat", line, sizeof line) <= 0 ||
	    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) < 4)
		return;
	/* user nice system idle iowait irq softirq steal */
	unsigned long long idle = v[3] + v[4], busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	unsigned long long tick_ns = 1000000000ull / (unsigned long long)ticks_per_s();
	s->machine_busy_ns = busy * tick_ns;
	s->machine_total_ns = (busy + idle) * tick_ns;
}

int rt_proc_snapshot(rt_proc_tree *t, rt_proc_snap *s)
{
	s->n = s->nprocs = 0;
	s->rss_bytes = 0;
	int rc = update_tree(t);
	for (int i = 0; rc == RT_OK && i < t->nknown; i++)
		if (t->known[i].in_tree)
			rc = read_process(s, t->known[i].pid);
	read_machine(s);
	return rc;
}

int rt_proc_in_tree(rt_proc_tree *t, pid_t pid)
{
	struct rt_proc_known *k = find_known(t, t->nknown, pid);
	return k && k->in_tree == 1;
}

int rt_proc_alive(pid_t pid)
{
	char path[64], line[512], comm[16], state = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	const char *f = read_small(path, line, sizeof line) > 0 ? stat_fields(line, comm) : NULL;
	return f && sscanf(f, "%c", &state) == 1 && state != 'Z' && state != 'X';
}

int rt_proc_ncpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set))
		return (int)sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_COUNT(&set);
}
