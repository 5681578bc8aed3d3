/* Space files (--space FILE) for every workload of the registry. */
#include <stdlib.h>

#include "../tuner/spacefile.h"
#include "../workloads/workload.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int n;
	const rt_workload *const *all = rt_workload_list(&n);
	for (int i = 0; i < n; i++) {
		rt_space *s = NULL;
		char wl[64], err[512];
		if (rt_spacefile_parse((const char *)data, size, "fuzz.yaml", all[i], 8, &s, wl,
				       sizeof wl, err, sizeof err) == 0)
			rt_space_destroy(s);
	}
	return 0;
}
