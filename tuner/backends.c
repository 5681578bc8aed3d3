#include "backends.h"

#include <stdio.h>
#include <string.h>
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
	int ndev = rc ? rc : ops->init(a->reason, sizeof a->reason);
	if (ndev > 0) {
		a->available = 1;
		a->ndevices = ndev < RT_MAX_DEVICES ? ndev : RT_MAX_DEVICES;
		for (int d = 0; d < a->ndevices; d++) {
			rt_device_info info = {0};
			if (ops->device_info(d, &info))
				continue;
			rt_accel_device *dv = &a->dev[d];
			memcpy(dv->name, info.name, sizeof dv->name);
			memcpy(dv->driver, info.driver, sizeof dv->driver);
			dv->mem_total = info.mem_total;
			dv->compute_units = info.compute_units;
			dv->precisions = info.precisions;
		}
	} else if (ndev == 0) {
		snprintf(a->reason, sizeof a->reason, "no %s device", name);
	}
	rt_backend_unload(handle);
}

void rt_probe_accelerators(rt_machine *m)
{
	char names[RT_MAX_ACCEL][RT_BACKEND_NAMELEN];
	int fds[2], n = rt_backend_list(names, RT_MAX_ACCEL);
	m->naccel = 0;
	if (pipe(fds))
		return;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		rt_child_reset_signals();
		static rt_accel acc[RT_MAX_ACCEL];
		for (int i = 0; i < n; i++)
			probe_one(names[i], &acc[i]);
		_exit(rt_write_all(fds[1], acc, sizeof acc[0] * (size_t)n) ? 1 : 0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return;
	}
	/* A GPU runtime that hangs in its init must not hang rigtune. */
	int timed_out = 0;
	int ok = rt_read_until(fds[0], m->accel, sizeof(rt_accel) * (size_t)n,
			       rt_now() + PROBE_TIMEOUT_S, &timed_out) == 0;
	rt_child_finish(pid, fds[0], timed_out ? 0 : rt_now() + PROBE_TIMEOUT_S, NULL);
	for (int i = 0; !ok && i < n; i++) {
		rt_accel *a = &m->accel[i];
		memset(a, 0, sizeof *a);
		snprintf(a->backend, sizeof a->backend, "%.*s", (int)sizeof a->backend - 1,
		         names[i]);
		if (timed_out)
			snprintf(a->reason, sizeof a->reason,
				 "the device probe did not answer in %.0f s", PROBE_TIMEOUT_S);
		else
			snprintf(a->reason, sizeof a->reason, "the device probe crashed");
	}
	m->naccel = n;
}
