/*
 * procfs.h: what the kernel says about a process tree and the machine, read
 * without stopping anything. procfs.c keeps which pids belong to the tree;
 * what it asks of the system (procfs_os.h) is procfs_linux.c's (/proc) or
 * procfs_darwin.c's (libproc, the Mach host's ticks): every read of `watch`
 * is behind this interface.
 *
 *   rt_proc_tree t; rt_proc_tree_init(&t, root, 1);
 *   rt_proc_snap s = {0};
 *   while (...) { rt_proc_snapshot(&t, &s); ... }
 *   rt_proc_snap_free(&s); rt_proc_tree_free(&t);
 */
#ifndef RT_WATCH_PROCFS_H
#define RT_WATCH_PROCFS_H

#include <stdint.h>
#include <sys/types.h>

/* One thread of the tree at the moment of a snapshot. */
typedef struct rt_proc_thread {
	int pid;
	/*
	 * Which thread, stable while it lives: Linux's thread id; on macOS its 64-bit
	 * handle (PROC_PIDLISTTHREADS), never its place in that list, which shifts when a
	 * thread before it exits.
	 */
	int64_t tid;
	char comm[16];   /* the thread's name (prctl/pthread_setname_np), as the kernel keeps it */
	char state;      /* R running, S sleeping, D waiting for I/O, ... */
	uint64_t cpu_ns; /* on-CPU time since it started */
	uint64_t wait_ns; /* time runnable but waiting for a CPU (the run queue); 0 when unknown */
} rt_proc_thread;

/* The tree and the machine at one moment. */
typedef struct rt_proc_snap {
	rt_proc_thread *threads;
	int n, cap;
	int nprocs;
	uint64_t rss_bytes;        /* of every process of the tree */
	uint64_t machine_busy_ns;  /* all CPUs, not idle, since boot */
	uint64_t machine_total_ns; /* all CPUs, since boot */
} rt_proc_snap;

/* Which processes belong to the tree: a cache of every pid seen and its parent. */
typedef struct rt_proc_tree {
	pid_t root;
	int root_counts; /* the root itself is watched (--pid), or only what is below it (us) */
	struct rt_proc_known *known;
	int nknown, cap;
	int nknown_before; /* during a listing: how many were known before it (sorted) */
} rt_proc_tree;

/*
 * The tree below root (and root itself when root_counts). A process that
 * leaves its parent stays in the tree when it was seen in it (a
 * subreaper's orphans come back to root anyway).
 */
void rt_proc_tree_init(rt_proc_tree *t, pid_t root, int root_counts);
void rt_proc_tree_free(rt_proc_tree *t);

/* Fills s with the tree's threads now. RT_OK, RT_ENOMEM, RT_EIO when the pids cannot be
 * listed. */
int rt_proc_snapshot(rt_proc_tree *t, rt_proc_snap *s);
void rt_proc_snap_free(rt_proc_snap *s);

/* Whether pid was in the tree at the last snapshot. */
int rt_proc_in_tree(rt_proc_tree *t, pid_t pid);

/* Whether pid exists (not a zombie): for --pid, whose process is not our child. */
int rt_proc_alive(pid_t pid);

/* The CPUs this process may run on. */
int rt_proc_ncpus(void);

#endif
