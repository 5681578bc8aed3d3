#include "backends.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../workloads/loader.h"

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
	snprintf(a->backend, sizeof a->backend, "%s", name);
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
	int fds[2];
	m->naccel = 0;
	if (pipe(fds))
		return;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		static rt_accel acc[RT_NBACKENDS];
		for (int i = 0; i < RT_NBACKENDS; i++)
			probe_one(rt_backend_names[i], &acc[i]);
		ssize_t n = write(fds[1], acc, sizeof acc);
		_exit(n == (ssize_t)sizeof acc ? 0 : 1);
	}
	close(fds[1]);
	if (pid > 0) {
		size_t got = 0, want = sizeof(rt_accel) * RT_NBACKENDS;
		char *p = (char *)m->accel;
		ssize_t k;
		while (got < want && (k = read(fds[0], p + got, want - got)) != 0)
			if (k > 0)
				got += (size_t)k;
			else if (errno != EINTR)
				break;
		if (got == want)
			m->naccel = RT_NBACKENDS;
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
}
