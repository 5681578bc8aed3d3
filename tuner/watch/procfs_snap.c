/*
 * procfs_snap.c: a snapshot's list of threads, which each system's side
 * (procfs_linux.c, procfs_darwin.c) fills: apart from procfs.c, which calls
 * those sides, so that no two files call each other.
 */
#include "procfs.h"
#include "procfs_os.h"

#include "../../common/rt.h"

int rt_proc_add_thread(rt_proc_snap *s, const rt_proc_thread *th)
{
	if (rt_grow(&s->threads, &s->cap, s->n, sizeof *s->threads, 64))
		return RT_ENOMEM;
	s->threads[s->n++] = *th;
	return RT_OK;
}
