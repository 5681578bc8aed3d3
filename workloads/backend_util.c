/* Helpers every workload uses on a backend: checks and its own words on a failure. */
#include <stdio.h>
#include <string.h>

#include "backend.h"

int rt_backend_require_precision(const rt_backend_ops *be, int dev, rt_precision p, char *err,
				 size_t errlen)
{
	rt_device_info info;
	memset(&info, 0, sizeof info);
	int rc = be->device_info(dev, &info);
	if (rc)
		return rt_fail(err, errlen, rc, "cannot query %s device %d", be->name, dev);
	if (!(info.precisions & RT_PREC_BIT(p)))
		return rt_fail(err, errlen, RT_EUNAVAIL, "%s device %d does not offer %s GEMMs",
			       be->name, dev, rt_precision_name(p));
	return RT_OK;
}

const char *rt_backend_why(const rt_backend_ops *be, rt_ctx *ctx)
{
	const char *why = be->last_error ? be->last_error(ctx) : NULL;
	return why ? why : "";
}
