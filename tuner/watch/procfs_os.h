/*
 * procfs_os.h: what procfs.c asks of the system (procfs_linux.c: /proc;
 * procfs_darwin.c: libproc), beside rt_proc_alive and rt_proc_ncpus of
 * procfs.h, which each system's file defines too.
 */
#ifndef RT_WATCH_PROCFS_OS_H
#define RT_WATCH_PROCFS_OS_H

#include <sys/types.h>

/* procfs.h's, named here without it: procfs.c, which includes both, is this header's user */
typedef struct rt_proc_snap rt_proc_snap;
typedef struct rt_proc_thread rt_proc_thread;

/* Calls fn for every pid of the machine until it returns nonzero; that, RT_OK, or RT_EIO. */
int rt_proc_os_each_pid(int (*fn)(void *ctx, pid_t pid), void *ctx);

/* The parent of pid; 0 when it is gone. */
pid_t rt_proc_os_parent(pid_t pid);

/* Adds pid's threads to s (rt_proc_add_thread), its resident memory, and 1 to nprocs if any. */
int rt_proc_os_read_process(rt_proc_snap *s, int pid);

/* The machine's busy and total CPU time since boot into s. */
void rt_proc_os_machine(rt_proc_snap *s);

/* Appends th to s's threads; RT_OK or RT_ENOMEM. */
int rt_proc_add_thread(rt_proc_snap *s, const rt_proc_thread *th);

#endif
