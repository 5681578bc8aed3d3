/*
 * librigtune_badabi.so: a table from a future ABI. The loader must reject it
 * after reading `abi` only, so everything else stays empty.
 */
#include "../../workloads/backend.h"

static const rt_backend_ops badabi_ops = { .abi = RT_BACKEND_ABI + 5, .name = "badabi" };

const rt_backend_ops *rigtune_backend(void);

const rt_backend_ops *rigtune_backend(void)
{
	return &badabi_ops;
}
