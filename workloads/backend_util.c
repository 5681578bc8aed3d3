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

int rt_backend_open_checked(const rt_backend_ops *be, int dev, int threads, rt_precision p,
			    uint64_t need, rt_ctx **ctx, char *err, size_t errlen)
{
	uint64_t total = 0, avail = 0;
	*ctx = NULL;
	int rc = rt_backend_require_precision(be, dev, p, err, errlen);
	if (rc == RT_OK)
		rc = be->open(dev, threads, ctx, err, errlen);
	if (rc)
		return rc;
	rc = be->mem_info(*ctx, &total, &avail);
	if (rc)
		rc = rt_fail(err, errlen, rc, "cannot read the memory of %s device %d%s%s", be->name,
			     dev, *rt_backend_why(be, *ctx) ? ": " : "", rt_backend_why(be, *ctx));
	else if (need > avail)
		rc = rt_fail(err, errlen, RT_EINFEASIBLE, "needs %.2f GiB, %.2f GiB available",
			     need / 1073741824.0, avail / 1073741824.0);
	if (rc) {
		be->close(*ctx);
		*ctx = NULL;
	}
	return rc;
}

const char *rt_backend_why(const rt_backend_ops *be, rt_ctx *ctx)
{
	const char *why = be->last_error ? be->last_error(ctx) : NULL;
	return why ? why : "";
}
