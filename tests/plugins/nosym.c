/* librigtune_nosym.so: a library that exports the wrong entry point. */
#include "../../workloads/backend.h"

static const rt_backend_ops nosym_ops = { .abi = RT_BACKEND_ABI, .name = "nosym" };

const rt_backend_ops *rigtune_backend_v2(void);

const rt_backend_ops *rigtune_backend_v2(void)
{
	return &nosym_ops;
}
