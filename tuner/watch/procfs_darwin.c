/*
 * procfs_darwin.c: procfs_os.h on macOS, from libproc: every pid from
 * proc_listallpids, a parent from PROC_PIDTBSDINFO, a process's threads
 * from PROC_PIDLISTTHREADS and PROC_PIDTHREADINFO (times in nanoseconds),
 * its resident memory from PROC_PIDTASKINFO, the machine's CPU time from
 * the Mach host's load ticks. macOS counts no time a thread waits for a
 * CPU: wait_ns stays 0 (procfs.h: unknown).
 */
#ifdef __APPLE__
#include <errno.h>
#include <libproc.h>
#include <mach/mach.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/proc.h>
#include <unistd.h>

#include "../../common/platform.h"
#include "../../common/rt.h"
#include "procfs.h"
#include "procfs_os.h"

int rt_proc_os_each_pid(int (*fn)(void *ctx, pid_t pid), void *ctx)
{
	int guess = proc_listallpids(NULL, 0);
	if (guess <= 0)
		return RT_EIO;
	size_t cap = (size_t)guess + 256; /* room for what starts meanwhile */
	pid_t *pids = malloc(cap * sizeof *pids);
	if (!pids)
		return RT_ENOMEM;
	int n = proc_listallpids(pids, (int)(cap * sizeof *pids));
	int rc = n < 0 ? RT_EIO : RT_OK;
	for (int i = 0; rc == RT_OK && i < n; i++)
		if (pids[i] > 0)
			rc = fn(ctx, pids[i]);
	free(pids);
	return rc;
}

pid_t rt_proc_os_parent(pid_t pid)
{
	struct proc_bsdinfo bi;
	if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, sizeof bi) != (int)sizeof bi)
		return 0;
	return (pid_t)bi.pbi_ppid;
}

/* Mach's run states as the letters of Linux's stat. */
static char state_letter(int run_state)
{
	switch (run_state) {
	case TH_STATE_RUNNING:
		return 'R';
	case TH_STATE_STOPPED:
		return 'T';
	case TH_STATE_UNINTERRUPTIBLE:
		return 'D';
	default:
		return 'S';
	}
}

/*
 * One thread by its handle: 0 when it is gone meanwhile. The handle is its id: stable
 * while the thread lives, as a Linux tid is (its place in the list shifts when one
 * before it exits, and its CPU time would land on another).
 */
static int read_thread(int pid, uint64_t handle, rt_proc_thread *th)
{
	struct proc_threadinfo ti;
	if (proc_pidinfo(pid, PROC_PIDTHREADINFO, handle, &ti, sizeof ti) != (int)sizeof ti)
		return 0;
	th->pid = pid;
	th->tid = (int64_t)(handle & INT64_MAX); /* a user address: the top bit is never set */
	rt_printable(th->comm, sizeof th->comm, ti.pth_name);
	th->state = state_letter(ti.pth_run_state);
	th->cpu_ns = ti.pth_user_time + ti.pth_system_time;
	th->wait_ns = 0;
	return 1;
}

int rt_proc_os_read_process(rt_proc_snap *s, int pid)
{
	struct proc_taskinfo task;
	if (proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &task, sizeof task) != (int)sizeof task)
		return RT_OK; /* gone, or not ours to read */
	int cap = task.pti_threadnum + 16;
	uint64_t *handles = calloc((size_t)cap, sizeof *handles);
	if (!handles)
		return RT_ENOMEM;
	int bytes = proc_pidinfo(pid, PROC_PIDLISTTHREADS, 0, handles, cap * (int)sizeof *handles);
	int n = bytes > 0 ? bytes / (int)sizeof *handles : 0, rc = RT_OK, any = 0;
	for (int i = 0; rc == RT_OK && i < n; i++) {
		rt_proc_thread th = {0};
		if (read_thread(pid, handles[i], &th)) {
			rc = rt_proc_add_thread(s, &th);
			any = 1;
		}
	}
	free(handles);
	if (any)
		s->rss_bytes += task.pti_resident_size;
	s->nprocs += any;
	return rc;
}

void rt_proc_os_machine(rt_proc_snap *s)
{
	host_cpu_load_info_data_t load;
	mach_msg_type_number_t count = HOST_CPU_LOAD_INFO_COUNT;
	s->machine_busy_ns = s->machine_total_ns = 0;
	if (host_statistics(mach_host_self(), HOST_CPU_LOAD_INFO, (host_info_t)&load, &count) !=
	    KERN_SUCCESS)
		return;
	uint64_t tick_ns = (uint64_t)(rt_plat_cpu_tick_s() * 1e9);
	uint64_t busy = (uint64_t)load.cpu_ticks[CPU_STATE_USER] +
	                load.cpu_ticks[CPU_STATE_SYSTEM] + load.cpu_ticks[CPU_STATE_NICE];
	s->machine_busy_ns = busy * tick_ns;
	s->machine_total_ns = (busy + load.cpu_ticks[CPU_STATE_IDLE]) * tick_ns;
}

int rt_proc_alive(pid_t pid)
{
	struct proc_bsdinfo bi;
	return proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, sizeof bi) == (int)sizeof bi &&
	       bi.pbi_status != SZOMB;
}

int rt_proc_ncpus(void)
{
	rt_cpuset s;
	return rt_plat_cpus_allowed(&s) ? 1 : rt_cpuset_count(&s);
}
#endif
