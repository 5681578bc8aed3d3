/*
 * procfs_linux.c: procfs_os.h on Linux, from /proc: the pids of /proc's
 * listing, each one's parent from /proc/PID/stat, the threads of a process
 * from /proc/PID/task, the machine's CPU time from /proc/stat.
 */
#ifdef __linux__
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/rt.h"
#include "procfs.h"
#include "procfs_os.h"

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

pid_t rt_proc_os_parent(pid_t pid)
{
	char path[64], line[512], comm[16];
	int ppid = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	const char *f = read_small(path, line, sizeof line) > 0 ? stat_fields(line, comm) : NULL;
	if (!f || sscanf(f, "%*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

int rt_proc_os_each_pid(int (*fn)(void *ctx, pid_t pid), void *ctx)
{
	DIR *d = opendir("/proc");
	if (!d)
		return RT_EIO;
	int rc = RT_OK;
	struct dirent *e;
	while (rc == RT_OK && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (!*end && pid > 0)
			rc = fn(ctx, (pid_t)pid);
	}
	closedir(d);
	return rc;
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

int rt_proc_os_read_process(rt_proc_snap *s, int pid)
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
			rc = rt_proc_add_thread(s, &th);
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

/* /proc/stat's first line: clock ticks, every CPU. */
void rt_proc_os_machine(rt_proc_snap *s)
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
#endif
