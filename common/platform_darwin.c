/*
 * platform_darwin.c: platform.h on macOS: sysctl, Mach host statistics,
 * libproc, QoS classes. macOS binds no thread to a CPU, has no subreapers,
 * no parent-death signal, no memfd and no RLIMIT_AS that holds: each call
 * says so (-1, errno ENOSYS) where there is no equivalent, and the callers
 * go on without it.
 */
#ifdef __APPLE__
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <libproc.h>
#include <limits.h>
#include <mach-o/dyld.h>
#include <mach/mach.h>
#include <pthread/qos.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/event.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <time.h>
#include <unistd.h>

int rt_plat_cpus_allowed(rt_cpuset *s)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	rt_cpuset_zero(s);
	for (long c = 0; c < n; c++)
		rt_cpuset_add(s, (int)c);
	return n > 0 ? 0 : -1;
}

int rt_plat_can_bind(void)
{
	return 0;
}

int rt_plat_bind(const rt_cpuset *s)
{
	(void)s;
	errno = ENOSYS;
	return -1;
}

/* The class rt_plat_steer chose, which rt_plat_thread_attr gives the threads started after. */
static qos_class_t steered = QOS_CLASS_UNSPECIFIED;

/*
 * P-cores: the user-interactive class, which the scheduler runs on them
 * first; E-cores: the background class, and the whole process in the
 * background band, which it keeps on them (what `taskpolicy -b` does: the
 * one process-wide lever, so the libraries' own threads follow); any: the
 * default class.
 */
int rt_plat_steer(rt_steer s)
{
	qos_class_t cls = s == RT_STEER_PERFORMANCE  ? QOS_CLASS_USER_INTERACTIVE
	                  : s == RT_STEER_EFFICIENCY ? QOS_CLASS_BACKGROUND
	                                             : QOS_CLASS_DEFAULT;
	if (s == RT_STEER_EFFICIENCY && setpriority(PRIO_DARWIN_PROCESS, 0, PRIO_DARWIN_BG))
		return -1;
	errno = pthread_set_qos_class_self_np(cls, 0);
	if (errno)
		return -1;
	steered = cls;
	return 0;
}

int rt_plat_thread_attr(pthread_attr_t *attr)
{
	return steered == QOS_CLASS_UNSPECIFIED ? 0 : pthread_attr_set_qos_class_np(attr, steered, 0);
}

void rt_plat_thread_place(const char **qos, int *cpu)
{
	size_t n;
	switch (qos_class_self()) {
	case QOS_CLASS_USER_INTERACTIVE:
		*qos = "user-interactive";
		break;
	case QOS_CLASS_USER_INITIATED:
		*qos = "user-initiated";
		break;
	case QOS_CLASS_DEFAULT:
		*qos = "default";
		break;
	case QOS_CLASS_UTILITY:
		*qos = "utility";
		break;
	case QOS_CLASS_BACKGROUND:
		*qos = "background";
		break;
	default:
		*qos = "unspecified";
		break;
	}
	*cpu = pthread_cpu_number_np(&n) ? -1 : (int)n;
}

/* A sysctl integer by name; fallback where it does not exist. */
static int64_t sysctl_int(const char *name, int64_t fallback)
{
	int64_t v64 = 0;
	size_t len = sizeof v64;
	if (sysctlbyname(name, &v64, &len, NULL, 0))
		return fallback;
	if (len == sizeof(int32_t)) {
		int32_t v32;
		memcpy(&v32, &v64, sizeof v32);
		return v32;
	}
	return v64;
}

/* A sysctl string by name into buf; "" where it does not exist. */
static void sysctl_str(const char *name, char *buf, size_t len)
{
	size_t n = len;
	if (sysctlbyname(name, buf, &n, NULL, 0) || n == 0)
		buf[0] = '\0';
	buf[len - 1] = '\0';
}

/* Available: free, inactive and purgeable pages, which the kernel hands out without swapping. */
int rt_plat_memory(uint64_t *total, uint64_t *available)
{
	vm_statistics64_data_t vm;
	mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
	int64_t mem = sysctl_int("hw.memsize", 0);
	if (mem <= 0 || host_statistics64(mach_host_self(), HOST_VM_INFO64, (host_info64_t)&vm,
	                                  &count) != KERN_SUCCESS)
		return -1;
	*total = (uint64_t)mem;
	*available = ((uint64_t)vm.free_count + vm.inactive_count + vm.purgeable_count) *
	             (uint64_t)vm_page_size;
	return 0;
}

double rt_plat_cpu_tick_s(void)
{
	return 1.0 / (double)sysconf(_SC_CLK_TCK);
}

/* The Mach host's per-processor ticks: user, system and nice are busy. */
int rt_plat_cpu_busy(double *busy_s, int cap)
{
	natural_t ncpu;
	processor_info_array_t info;
	mach_msg_type_number_t count;
	if (host_processor_info(mach_host_self(), PROCESSOR_CPU_LOAD_INFO, &ncpu, &info, &count) !=
	    KERN_SUCCESS)
		return -1;
	const processor_cpu_load_info_data_t *load = (const processor_cpu_load_info_data_t *)info;
	double tick = rt_plat_cpu_tick_s();
	int n = (int)ncpu < cap ? (int)ncpu : cap;
	for (int c = 0; c < n; c++)
		busy_s[c] = (double)((uint64_t)load[c].cpu_ticks[CPU_STATE_USER] +
		                     load[c].cpu_ticks[CPU_STATE_SYSTEM] +
		                     load[c].cpu_ticks[CPU_STATE_NICE]) *
		            tick;
	vm_deallocate(mach_task_self(), (vm_address_t)info, count * sizeof *info);
	return n ? n : -1;
}

void rt_plat_cpu_model(char *buf, size_t len)
{
	sysctl_str("machdep.cpu.brand_string", buf, len);
}

/* The Arm features that decide a kernel's choice, named as Linux's /proc/cpuinfo names them. */
void rt_plat_cpu_flags(char *buf, size_t len)
{
	static const struct {
		const char *sysctl, *flag;
	} feats[] = {
	    {"hw.optional.arm.FEAT_FP16", "fphp"}, {"hw.optional.arm.FEAT_BF16", "bf16"},
	    {"hw.optional.arm.FEAT_I8MM", "i8mm"}, {"hw.optional.arm.FEAT_DotProd", "asimddp"},
	    {"hw.optional.arm.FEAT_SME", "sme"},   {"hw.optional.arm.FEAT_SME2", "sme2"},
	};
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++)
		if (sysctl_int(feats[i].sysctl, 0) == 1 && used < len) {
			int k = snprintf(buf + used, len - used, "%s%s", used ? " " : "",
			                 feats[i].flag);
			used += k > 0 ? (size_t)k : 0;
		}
}

void rt_plat_cpu_microcode(char *buf, size_t len)
{
	(void)len;
	buf[0] = '\0';
}

/* Apple Silicon says neither a governor nor a frequency range. */
void rt_plat_cpu_freq(char *governor, size_t len, int *min_mhz, int *max_mhz)
{
	(void)len;
	governor[0] = '\0';
	*min_mhz = (int)(sysctl_int("hw.cpufrequency_min", 0) / 1000000);
	*max_mhz = (int)(sysctl_int("hw.cpufrequency_max", 0) / 1000000);
}

void rt_plat_os_name(char *buf, size_t len)
{
	char v[64];
	sysctl_str("kern.osproductversion", v, sizeof v);
	snprintf(buf, len, "%s%s", v[0] ? "macOS " : "", v);
}

/* hw.perflevel0 is the fastest kind (P-cores), hw.perflevel1 the next (E-cores). */
int rt_plat_core_kinds(int *performance, int *efficiency)
{
	int64_t levels = sysctl_int("hw.nperflevels", 0);
	*performance = *efficiency = -1;
	if (levels < 1)
		return -1;
	*performance = (int)sysctl_int("hw.perflevel0.physicalcpu", -1);
	*efficiency = levels > 1 ? (int)sysctl_int("hw.perflevel1.physicalcpu", -1) : 0;
	return *performance < 0 ? -1 : 0;
}

int rt_plat_exe_path(char *buf, size_t len)
{
	char raw[PATH_MAX], real[PATH_MAX];
	uint32_t n = sizeof raw;
	if (_NSGetExecutablePath(raw, &n) || !realpath(raw, real) || strlen(real) >= len)
		return -1;
	snprintf(buf, len, "%s", real);
	return 0;
}

int rt_plat_die_with_parent(int sig)
{
	(void)sig;
	errno = ENOSYS;
	return -1;
}

/* The first signal of set that is pending now; 0 when none. */
static int pending_of(const sigset_t *set)
{
	sigset_t p;
	sigpending(&p);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(set, s) && sigismember(&p, s))
			return s;
	return 0;
}

/*
 * kqueue hears a blocked signal (EVFILT_SIGNAL) and parent's exit
 * (EVFILT_PROC): a signal heard is still pending, and sigwait takes it. One
 * pending before the queue was made is found by the look first.
 */
int rt_plat_wait_signal(const sigset_t *set, pid_t parent)
{
	int sig = pending_of(set), kq = sig ? -1 : kqueue();
	if (!sig && kq < 0)
		return -1;
	struct kevent ev[NSIG + 1];
	int n = 0;
	for (int s = 1; !sig && s < NSIG; s++)
		if (sigismember(set, s))
			EV_SET(&ev[n++], (uintptr_t)s, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	if (!sig)
		EV_SET(&ev[n++], (uintptr_t)parent, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	struct kevent got;
	/* a parent already gone fails to register (ESRCH): that is its end */
	int r = sig ? 0 : kevent(kq, ev, n, NULL, 0, NULL);
	if (!sig && r < 0)
		sig = errno == ESRCH ? SIGTERM : -1;
	while (!sig && (r = kevent(kq, NULL, 0, &got, 1, NULL)) < 0 && errno == EINTR)
		;
	if (!sig)
		sig = r < 0 ? -1 : got.filter == EVFILT_PROC ? SIGTERM : (int)got.ident;
	if (kq >= 0)
		close(kq);
	if (sig > 0 && sigismember(set, sig) && pending_of(set) == sig)
		sigwait(set, &sig); /* take it: it stays pending while blocked */
	return sig;
}

int rt_plat_subreaper(int on)
{
	(void)on;
	errno = ENOSYS;
	return -1;
}

int rt_plat_children(pid_t parent, pid_t *out, int cap)
{
	int bytes = proc_listpids(PROC_PPID_ONLY, (uint32_t)parent, out, cap * (int)sizeof *out);
	return bytes > 0 ? bytes / (int)sizeof *out : 0;
}

uint64_t rt_plat_oom_kills(void)
{
	return 0;
}

/* macOS accepts RLIMIT_AS and does not enforce it: no cap is better than one that lies. */
int rt_plat_cap_memory(uint64_t bytes)
{
	(void)bytes;
	errno = ENOSYS;
	return -1;
}

int rt_plat_can_cap_memory(void)
{
	return 0;
}

/* The footprint Activity Monitor shows: what the process costs the machine's memory. */
int rt_plat_footprint(pid_t pid, uint64_t *bytes)
{
	struct rusage_info_v2 ri;
	if (proc_pid_rusage(pid, RUSAGE_INFO_V2, (rusage_info_t *)&ri))
		return -1;
	*bytes = ri.ri_phys_footprint;
	return 0;
}

/* No memfd: a temporary file unlinked at once, which no one else can open. */
int rt_plat_memfile(const char *name)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s.XXXXXX", dir && *dir ? dir : "/tmp", name);
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* No pipe2: both ends marked close-on-exec right after (rigtune forks from one thread). */
int rt_plat_pipe_cloexec(int fds[2])
{
	if (pipe(fds))
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

int rt_plat_execvpe(const char *file, char *const argv[], char *const env[])
{
	return rt_execvpe_search(getenv("PATH"), file, argv, env);
}

int rt_plat_on_procfs(const char *dir)
{
	(void)dir;
	return 0;
}

/* No clock_nanosleep: nanosleep for what is left, again after each interruption. */
void rt_plat_sleep_until(double at)
{
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double left = at - ((double)now.tv_sec + 1e-9 * (double)now.tv_nsec);
		if (left <= 0)
			return;
		struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
		if (nanosleep(&ts, NULL) == 0)
			return;
	}
}

int rt_barrier_init(rt_barrier *b, unsigned n)
{
	if (n == 0)
		return EINVAL;
	b->n = n;
	b->waiting = b->round = 0;
	int rc = pthread_mutex_init(&b->lock, NULL);
	if (rc)
		return rc;
	if ((rc = pthread_cond_init(&b->turn, NULL)))
		pthread_mutex_destroy(&b->lock);
	return rc;
}

/* The last to arrive starts the next round and wakes the others. */
void rt_barrier_wait(rt_barrier *b)
{
	pthread_mutex_lock(&b->lock);
	unsigned round = b->round;
	if (++b->waiting == b->n) {
		b->waiting = 0;
		b->round++;
		pthread_cond_broadcast(&b->turn);
	} else {
		while (round == b->round)
			pthread_cond_wait(&b->turn, &b->lock);
	}
	pthread_mutex_unlock(&b->lock);
}

void rt_barrier_destroy(rt_barrier *b)
{
	pthread_cond_destroy(&b->turn);
	pthread_mutex_destroy(&b->lock);
}

/* BSD's qsort_r passes the context first: a trampoline puts it third. */
typedef struct sort_ctx {
	int (*cmp)(const void *, const void *, void *);
	void *ctx;
} sort_ctx;

static int sort_trampoline(void *thunk, const void *a, const void *b)
{
	const sort_ctx *s = thunk;
	return s->cmp(a, b, s->ctx);
}

void rt_sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
               void *ctx)
{
	sort_ctx s = {cmp, ctx};
	qsort_r(base, n, size, &s, sort_trampoline);
}
#endif
