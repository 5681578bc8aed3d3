/* librigtune_partial.so: the right ABI, but a table without its GEMMs. */
#include "../../workloads/backend.h"

static int partial_init(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return 1;
}

static const rt_backend_ops partial_ops = {
	.abi = RT_BACKEND_ABI, .name = "partial", .init = partial_init,
};

const rt_backend_ops *rigtune_backend(void);

const rt_backend_ops *rigtune_backend(void)
{
	return &partial_ops;
}
