#include "backends.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../workloads/loader.h"
#include "child.h"

#define PROBE_TIMEOUT_S 60.0

int rt_backend_open_named(const char *name, int dev, const rt_backend_ops **ops,
			  void **handle, char *err, size_t errlen)
{
	int rc = rt_backend_get(name, ops, handle, err, errlen);
	if (rc)
		return rc;
	int ndev = (*ops)->init(err, errlen);
	if (ndev < 0)
		rc = ndev;
	else if (dev < 0 || dev >= ndev)
		rc = rt_fail(err, errlen, RT_EUNAVAIL, "%s has no device %d (%d found)", name,
			     dev, ndev);
	else
		return RT_OK;
	rt_backend_unload(*handle);
	*handle = NULL;
	return rc;
}

void rt_backend_close_named(void *handle)
{
	rt_backend_unload(handle);
}

/* One backend's devices, or why it has none. */
static void probe_one(const char *name, rt_accel *a)
{
	const rt_backend_ops *ops;
	void *handle = NULL;
	snprintf(a->backend, sizeof a->backend, "%.*s", (int)sizeof a->backend - 1, name);
	int rc = rt_backend_get(name, &ops, &handle, a->reason, sizeof a->reason);
	if (rc == RT_OK && ops->visible_devices)
		snprintf(a->visible, sizeof a->visible, "%s", ops->visible_devices);
	if (rc == RT_OK && ops->framework_device)
		snprintf(a->framework_device, sizeof a->framework_device, "%s",
			 ops->framework_device);
	int ndev = rc ? rc : ops->init(a->reason, sizeof a->reason);
	if (ndev > 0) {
		a->available = 1;
		a->ndevices = ndev < RT_MAX_DEVICES ? ndev : RT_MAX_DEVICES;
		for (int d = 0; d < a->ndevices; d++) {
			rt_device_info info = {0};
			if (ops->device_info(d, &info) == 0)
				a->dev[d] = info; /* a device that fails its info stays empty */
		}
	} else if (ndev == 0) {
		snprintf(a->reason, sizeof a->reason, "no %s device", name);
	}
	rt_backend_unload(handle);
}

/* Why a probe child gave no answer, for its backend's reason. */
static void explain_probe(int status, int timed_out, rt_accel *a)
{
	if (timed_out)
		snprintf(a->reason, sizeof a->reason, "the device probe did not answer in %.0f s",
			 PROBE_TIMEOUT_S);
	else if (WIFSIGNALED(status))
		snprintf(a->reason, sizeof a->reason, "the device probe crashed: %s",
			 strsignal(WTERMSIG(status)));
	else
		snprintf(a->reason, sizeof a->reason, "the device probe exited with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/*
 * Probes one backend in a forked child with a deadline: a runtime that
 * crashes or hangs in its init (or a plugin whose constructor aborts) costs
 * that backend alone its devices, never rigtune or the other backends.
 */
static void probe_in_child(const char *name, rt_accel *a)
{
	int fds[2];
	memset(a, 0, sizeof *a);
	snprintf(a->backend, sizeof a->backend, "%.*s", (int)sizeof a->backend - 1, name);
	if (pipe(fds)) {
		snprintf(a->reason, sizeof a->reason, "pipe: %s", strerror(errno));
		return;
	}
	fflush(NULL);
	pid_t self = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		rt_child_begin(self);
		close(fds[0]);
		static rt_accel acc;
		probe_one(name, &acc);
		_exit(rt_write_all(fds[1], &acc, sizeof acc) ? 1 : 0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		snprintf(a->reason, sizeof a->reason, "fork: %s", strerror(errno));
		return;
	}
	int timed_out = 0;
	rt_accel got;
	int ok = rt_read_until(fds[0], &got, sizeof got, rt_now() + PROBE_TIMEOUT_S, &timed_out) == 0;
	int status = rt_child_finish(pid, fds[0], timed_out ? 0 : rt_now() + PROBE_TIMEOUT_S, NULL);
	if (ok)
		*a = got;
	else
		explain_probe(status, timed_out, a);
}

void rt_probe_accelerators(rt_machine *m)
{
	char names[RT_MAX_ACCEL][RT_BACKEND_NAMELEN];
	int n = rt_backend_list(names, RT_MAX_ACCEL);
	for (int i = 0; i < n; i++) {
		probe_in_child(names[i], &m->accel[i]);
		if (m->accel[i].framework_device[0]) /* its table was read */
			rt_backend_note_framework_device(names[i], m->accel[i].framework_device);
	}
	m->naccel = n;
}
