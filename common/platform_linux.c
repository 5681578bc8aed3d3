/*
 * platform_linux.c: platform.h on Linux: /proc and /sys, sched_setaffinity,
 * prctl, memfd, pipe2, execvpe, cgroup v2.
 */
#ifdef __linux__
#include "platform.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

int rt_plat_cpus_allowed(rt_cpuset *s)
{
	cpu_set_t set;
	rt_cpuset_zero(s);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && c < RT_CPUSET_MAX; c++)
		if (CPU_ISSET(c, &set))
			rt_cpuset_add(s, c);
	return 0;
}

int rt_plat_can_bind(void)
{
	return 1;
}

int rt_plat_bind(const rt_cpuset *s)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE && c < RT_CPUSET_MAX; c++)
		if (rt_cpuset_has(s, c))
			CPU_SET(c, &set);
	return sched_setaffinity(0, sizeof set, &set);
}

int rt_plat_steer(rt_steer s)
{
	(void)s;
	errno = ENOSYS;
	return -1;
}

int rt_plat_thread_attr(pthread_attr_t *attr)
{
	(void)attr; /* the threads inherit the binding of the one that starts them */
	return 0;
}

void rt_plat_thread_place(const char **qos, int *cpu)
{
	*qos = "none";
	*cpu = sched_getcpu();
}

/* A "Key:   123 kB" line of /proc/meminfo in bytes; 0, or -1 when the file or key is not there. */
static int meminfo_bytes(const char *key, uint64_t *bytes)
{
	char line[256];
	size_t klen = strlen(key);
	int rc = -1;
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (rc && fgets(line, sizeof line, f)) {
		unsigned long long kb;
		if (!strncmp(line, key, klen) && line[klen] == ':' &&
		    sscanf(line + klen + 1, "%llu", &kb) == 1) {
			*bytes = (uint64_t)kb * 1024;
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* MemAvailable where the kernel has it, else sysinfo's free and buffer memory. */
int rt_plat_memory(uint64_t *total, uint64_t *available)
{
	struct sysinfo si;
	if (meminfo_bytes("MemTotal", total) == 0 && meminfo_bytes("MemAvailable", available) == 0)
		return 0;
	if (sysinfo(&si) != 0)
		return -1;
	*total = (uint64_t)si.totalram * si.mem_unit;
	*available = (uint64_t)(si.freeram + si.bufferram) * si.mem_unit;
	return 0;
}

double rt_plat_cpu_tick_s(void)
{
	return 1.0 / (double)sysconf(_SC_CLK_TCK);
}

/* /proc/stat's "cpuN" lines: user, nice, system, irq, softirq and steal are busy. */
int rt_plat_cpu_busy(double *busy_s, int cap)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	double tick = rt_plat_cpu_tick_s();
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		int cpu;
		unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal = 0;
		/* "cpuN user nice system idle iowait irq softirq steal ...": not the "cpu " total
		 */
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &user,
		           &nice, &sys, &idle, &iowait, &irq, &softirq, &steal) < 8 ||
		    cpu < 0 || cpu >= cap)
			continue;
		for (; n < cpu; n++) /* an offline CPU has no line */
			busy_s[n] = 0;
		busy_s[cpu] = (double)(user + nice + sys + irq + softirq + steal) * tick;
		if (cpu >= n)
			n = cpu + 1;
	}
	fclose(f);
	return n ? n : -1;
}

/* The value after "key ... :" on the first line of /proc/cpuinfo that starts with key. */
static void cpuinfo_field(const char *key, char *buf, size_t len)
{
	static char line[8192]; /* a flags line is long */
	size_t klen = strlen(key);
	buf[0] = '\0';
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, key, klen) != 0 || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

void rt_plat_cpu_model(char *buf, size_t len)
{
	cpuinfo_field("model name", buf, len);
}

void rt_plat_cpu_flags(char *buf, size_t len)
{
	cpuinfo_field("flags", buf, len);
}

void rt_plat_cpu_microcode(char *buf, size_t len)
{
	cpuinfo_field("microcode", buf, len);
}

/* The first line of a small file into buf; 0 on success. */
static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int read_khz_as_mhz(const char *path)
{
	char b[64];
	return read_line(path, b, sizeof b) ? 0 : atoi(b) / 1000;
}

void rt_plat_cpu_freq(char *governor, size_t len, int *min_mhz, int *max_mhz)
{
	if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", governor, len))
		governor[0] = '\0';
	*min_mhz = read_khz_as_mhz("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq");
	*max_mhz = read_khz_as_mhz("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
}

/* os-release's PRETTY_NAME, its quotes removed. */
void rt_plat_os_name(char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen("/etc/os-release", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "PRETTY_NAME=", 12)) {
			char *v = line + 12;
			v[strcspn(v, "\n")] = '\0';
			if (*v == '"') {
				v++;
				v[strcspn(v, "\"")] = '\0';
			}
			snprintf(buf, len, "%s", v);
		}
	fclose(f);
}

/* Linux says what kinds of cores there are through hwloc's cpukinds, not here. */
int rt_plat_core_kinds(int *performance, int *efficiency)
{
	*performance = *efficiency = -1;
	return -1;
}

int rt_plat_exe_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len);
	if (n <= 0 || (size_t)n >= len) /* len bytes: maybe cut short */
		return -1;
	buf[n] = '\0';
	return 0;
}

int rt_plat_die_with_parent(int sig)
{
	return prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) ? -1 : 0;
}

int rt_plat_wait_signal(const sigset_t *set, pid_t parent)
{
	(void)parent; /* its end comes as the parent-death signal */
	int sig = 0;
	return sigwait(set, &sig) == 0 ? sig : -1;
}

int rt_plat_subreaper(int on)
{
	return prctl(PR_SET_CHILD_SUBREAPER, on ? 1 : 0, 0, 0, 0) ? -1 : 0;
}

/* The parent of process pid from /proc/PID/stat; -1 when it is gone. */
static pid_t parent_of(const char *pid)
{
	char path[300], buf[512];
	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID ...": COMM may hold ')' and spaces, the last ')' ends it */
	const char *close = strrchr(buf, ')');
	char state;
	long ppid;
	if (!close || sscanf(close + 1, " %c %ld", &state, &ppid) != 2)
		return -1;
	return (pid_t)ppid;
}

int rt_plat_children(pid_t parent, pid_t *out, int cap)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	int n = 0;
	struct dirent *de;
	while (n < cap && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) && parent_of(de->d_name) == parent)
			out[n++] = (pid_t)atol(de->d_name);
	closedir(d);
	return n;
}

uint64_t rt_plat_oom_kills(void)
{
	char line[512], path[600];
	uint64_t n = 0;
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return 0;
	path[0] = '\0';
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.events", line + 3);
		}
	fclose(f);
	if (!path[0] || !(f = fopen(path, "r")))
		return 0;
	unsigned long long v;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "oom_kill %llu", &v) == 1)
			n = v;
	fclose(f);
	return n;
}

int rt_plat_cap_memory(uint64_t bytes)
{
	struct rlimit rl = {.rlim_cur = bytes, .rlim_max = bytes};
	return setrlimit(RLIMIT_AS, &rl);
}

int rt_plat_can_cap_memory(void)
{
	return 1;
}

/* statm's second field: resident pages. */
int rt_plat_footprint(pid_t pid, uint64_t *bytes)
{
	char path[64];
	unsigned long long size, rss;
	snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fscanf(f, "%llu %llu", &size, &rss) == 2;
	fclose(f);
	if (!ok)
		return -1;
	*bytes = (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

int rt_plat_memfile(const char *name)
{
	return memfd_create(name, MFD_CLOEXEC);
}

int rt_plat_pipe_cloexec(int fds[2])
{
	return pipe2(fds, O_CLOEXEC);
}

int rt_plat_execvpe(const char *file, char *const argv[], char *const env[])
{
	return execvpe(file, argv, env);
}

int rt_plat_on_procfs(const char *dir)
{
	struct statfs fs;
	return statfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

void rt_plat_sleep_until(double at)
{
	struct timespec ts = {(time_t)at, (long)((at - (double)(time_t)at) * 1e9)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int rt_barrier_init(rt_barrier *b, unsigned n)
{
	return pthread_barrier_init(b, NULL, n);
}

void rt_barrier_wait(rt_barrier *b)
{
	pthread_barrier_wait(b);
}

void rt_barrier_destroy(rt_barrier *b)
{
	pthread_barrier_destroy(b);
}

void rt_sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
               void *ctx)
{
	qsort_r(base, n, size, cmp, ctx);
}
#endif
