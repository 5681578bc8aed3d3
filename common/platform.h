/*
 * platform.h: every call rigtune makes that one operating system has and
 * another has not, behind one small interface. platform_linux.c is Linux's
 * side (/proc, /sys, sched_setaffinity, prctl, memfd), platform_darwin.c
 * macOS's (sysctl, libproc, QoS classes); platform.c holds what both share.
 * Nothing outside these files (and tuner/watch/procfs_*.c, watch's sampler)
 * includes a Linux-only header or reads /proc or /sys: scripts/check-portable.sh
 * says so in make test.
 */
#ifndef RT_PLATFORM_H
#define RT_PLATFORM_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- a set of CPUs (rigtune's own: macOS has no cpu_set_t) ---- */

#define RT_CPUSET_MAX 1024

typedef struct rt_cpuset {
	uint64_t bits[RT_CPUSET_MAX / 64];
} rt_cpuset;

void rt_cpuset_zero(rt_cpuset *s);
/* Adds cpu; a cpu outside [0, RT_CPUSET_MAX) is ignored. */
void rt_cpuset_add(rt_cpuset *s, int cpu);
int rt_cpuset_has(const rt_cpuset *s, int cpu);
int rt_cpuset_count(const rt_cpuset *s);

/*
 * The CPUs this process may run on: its affinity on Linux, every online CPU
 * where a process has none (macOS). 0, or -1 (errno).
 */
int rt_plat_cpus_allowed(rt_cpuset *s);

/* ---- binding and steering ---- */

/*
 * Whether this system binds a process to chosen CPUs (Linux). Where it does
 * not (macOS), the pin knob steers by QoS class instead (rt_plat_steer).
 */
int rt_plat_can_bind(void);

/*
 * Binds the calling thread to s, and the threads it starts after: the whole
 * process when called before it starts any (a trial between fork and exec),
 * one thread when a thread calls it (the canary's). Async-signal-safe. 0 or
 * -1 (errno).
 */
int rt_plat_bind(const rt_cpuset *s);

/* Which cores the scheduler should prefer for this process: what a QoS class asks for. */
typedef enum rt_steer { RT_STEER_ANY, RT_STEER_PERFORMANCE, RT_STEER_EFFICIENCY } rt_steer;

/*
 * Steers the calling process (and what it starts) toward a kind of core:
 * macOS's QoS classes (user-interactive: P-cores, background: E-cores,
 * default: either). 0, or -1 (errno ENOSYS where there are no QoS classes).
 * The class is the calling thread's, and every thread rt_pool_thread_start
 * (workloads/pool.h) starts after takes it; E-cores also put the whole process, the threads of
 * its libraries included, in the background band. A library's thread that
 * started earlier or on its own keeps its class (P-cores cannot be asked for
 * process-wide): Accelerate's run on GCD, which runs work at the class of the
 * thread that submitted it.
 */
int rt_plat_steer(rt_steer s);

/*
 * Readies attr for a thread that does a trial's work (rt_pool_thread_start): on macOS the
 * QoS class rt_plat_steer chose (pthread_attr_set_qos_class_np), elsewhere nothing.
 * 0 or an errno.
 */
int rt_plat_thread_attr(pthread_attr_t *attr);

/*
 * Where the calling thread is: its QoS class's name ("user-interactive", ...;
 * "none" where there are none) and the CPU it ran on at the call (-1 unknown).
 */
void rt_plat_thread_place(const char **qos, int *cpu);

/* ---- memory, CPU times, the CPU ---- */

/* The machine's memory and what can be had without swapping. 0, or -1. */
int rt_plat_memory(uint64_t *total, uint64_t *available);

/* Seconds each CPU has been busy since boot (not idle), for up to cap CPUs; how many, or -1. */
int rt_plat_cpu_busy(double *busy_s, int cap);

/* Seconds of one tick of rt_plat_cpu_busy's counting (its resolution). */
double rt_plat_cpu_tick_s(void);

/* The CPU's marketing name ("Apple M4 Max"); "" where the system does not say. */
void rt_plat_cpu_model(char *buf, size_t len);

/* The CPU's feature flags, lower case and space-separated as /proc/cpuinfo writes them; "" where
 * none. */
void rt_plat_cpu_flags(char *buf, size_t len);

/* The microcode revision ("0x1000065"); "" where none. */
void rt_plat_cpu_microcode(char *buf, size_t len);

/* The frequency governor and range (MHz) of CPU 0; "" and 0 where not known. */
void rt_plat_cpu_freq(char *governor, size_t len, int *min_mhz, int *max_mhz);

/* The OS's name ("Debian GNU/Linux 12 (bookworm)", "macOS 15.1"); "" where not known. */
void rt_plat_os_name(char *buf, size_t len);

/* Performance and efficiency core counts where the system says (hw.perflevelN); -1 where not. */
int rt_plat_core_kinds(int *performance, int *efficiency);

/* ---- processes ---- */

/* The running binary's absolute path. 0, or -1. */
int rt_plat_exe_path(char *buf, size_t len);

/*
 * Delivers sig to the calling process when its parent ends (Linux:
 * PR_SET_PDEATHSIG). Async-signal-safe. 0, or -1 where the system cannot
 * (macOS: the child's guard watches rigtune instead).
 */
int rt_plat_die_with_parent(int sig);

/*
 * Waits for one of the signals of set, which the caller has blocked, or for
 * process parent's end, which comes as SIGTERM (what the parent-death signal
 * of rt_plat_die_with_parent delivers where there is one: Linux's sigwait;
 * macOS watches parent with kqueue). The signal, or -1 (errno).
 */
int rt_plat_wait_signal(const sigset_t *set, pid_t parent);

/*
 * While on, orphans below this process are reparented to it
 * (PR_SET_CHILD_SUBREAPER). 0, or -1 (errno ENOSYS where there are none: macOS).
 */
int rt_plat_subreaper(int on);

/* Up to cap children of process parent into out; how many. */
int rt_plat_children(pid_t parent, pid_t *out, int cap);

/* OOM kills of this process's cgroup so far (Linux cgroup v2); 0 where none is counted. */
uint64_t rt_plat_oom_kills(void);

/* Caps the calling process's memory at bytes (RLIMIT_AS where it holds). 0 or -1 (errno). */
int rt_plat_cap_memory(uint64_t bytes);

/* Whether rt_plat_cap_memory holds here (Linux); where not (macOS) a watchdog must (memwatch.h). */
int rt_plat_can_cap_memory(void);

/* The memory process pid holds now: its resident set (Linux), its footprint (macOS). 0 or -1. */
int rt_plat_footprint(pid_t pid, uint64_t *bytes);

/* ---- files, pipes, exec ---- */

/* A file that lives in memory only (close-on-exec, read/write, at offset 0); fd or -1. */
int rt_plat_memfile(const char *name);

/* A pipe whose ends are both close-on-exec, made at once where the system can. 0 or -1. */
int rt_plat_pipe_cloexec(int fds[2]);

/* execvp with env as the environment. Async-signal-safe where the system's is. Returns only on
 * failure. */
int rt_plat_execvpe(const char *file, char *const argv[], char *const env[]);

/*
 * execve of file, looked up in path (a PATH value; NULL: "/usr/bin:/bin")
 * as execvp does: a file with a slash runs as it is; each directory in
 * turn ("" is the current one); one where it is missing or not allowed
 * leads to the next. What rt_plat_execvpe is made of where the system has
 * no execvpe (macOS). No allocation: safe between fork and exec. Returns
 * only on failure: -1, errno EACCES if some file was there but not
 * executable, else the last directory's error.
 */
int rt_execvpe_search(const char *path, const char *file, char *const argv[], char *const env[]);

/* Whether the directory dir is on procfs (Linux's /proc; never elsewhere). */
int rt_plat_on_procfs(const char *dir);

/* Sleeps until the monotonic time at (seconds, rt_now()'s clock), a signal's interruption included.
 */
void rt_plat_sleep_until(double at);

/* ---- threads and sorting ---- */

/* A barrier of n threads: pthread_barrier_t where the system has it, a lock and a condition where
 * not. */
#ifdef __APPLE__
typedef struct rt_barrier {
	pthread_mutex_t lock;
	pthread_cond_t turn;
	unsigned n, waiting, round;
} rt_barrier;
#else
typedef pthread_barrier_t rt_barrier;
#endif

int rt_barrier_init(rt_barrier *b, unsigned n);
void rt_barrier_wait(rt_barrier *b);
void rt_barrier_destroy(rt_barrier *b);

/* qsort with a context argument passed to cmp as its third (glibc's order, on every system). */
void rt_sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
               void *ctx);

/*
 * What a shared library's file name ends with (a backend plugin's), and the
 * variable whose folders the dynamic loader searches first (check's lib:DIR).
 */
#ifdef __APPLE__
#define RT_DYLIB_SUFFIX ".dylib"
#define RT_LIBRARY_PATH_VAR "DYLD_LIBRARY_PATH"
#else
#define RT_DYLIB_SUFFIX ".so"
#define RT_LIBRARY_PATH_VAR "LD_LIBRARY_PATH"
#endif

/* ---- files embedded in the binary ---- */

/*
 * Embeds FILE (a path from the top of the tree, where make runs) in the
 * read-only data as the NUL-terminated string SYM; declare it with
 * `extern const char SYM[]`. The Makefile lists FILE as a prerequisite of
 * the object: -MMD cannot see it. ELF and Mach-O name sections and symbols
 * differently (Mach-O: a leading underscore).
 */
#ifdef __APPLE__
#define RT_EMBED(sym, file)                                                                        \
	__asm__(".section __TEXT,__const\n.globl _" #sym "\n_" #sym ":\n.incbin \"" file           \
	        "\"\n.byte 0\n.text\n")
#else
#define RT_EMBED(sym, file)                                                                        \
	__asm__(".section .rodata\n.global " #sym "\n.type " #sym ", @object\n" #sym               \
	        ":\n.incbin \"" file "\"\n.byte 0\n.previous\n")
#endif

#endif
