#include "backends.h"

#include <string.h>

#include "../workloads/cpu_backend.h"
#include "../workloads/loader.h"

int rt_backend_open_named(const char *name, int dev, const rt_backend_ops **ops,
			  void **handle, char *err, size_t errlen)
{
	*handle = NULL;
	int rc;
	if (strcmp(name, "cpu") == 0)
		*ops = rt_cpu_backend();
	else if ((rc = rt_backend_load(name, ops, handle, err, errlen)))
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
