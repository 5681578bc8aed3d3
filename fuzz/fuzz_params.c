/*
 * KEY=VALUE arguments (bench) and --shape lists (tune, crossover): the input
 * split as those options split it (rt_arglist_split), each item applied to
 * every workload as a point or shape key.
 */
#include <stdlib.h>

#include "../tuner/params.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	if (!text)
		return 0;
	int n;
	const rt_workload *const *all = rt_workload_list(&n);
	char err[512];
	rt_arglist l;
	if (rt_arglist_split(text, "--shape", RT_ARGLIST_MAX_ITEMS, &l, err, sizeof err))
		l.n = 0;
	for (int k = 0; k < l.n; k++)
		for (int i = 0; i < n; i++) {
			rt_point pt;
			rt_shape sh;
			rt_point_default(&pt);
			rt_shape_default(all[i], &sh);
			rt_params_apply(all[i], l.item[k], &pt, &sh, err, sizeof err);
			rt_params_apply_shape(all[i], l.item[k], &sh, err, sizeof err);
		}
	free(text);
	return 0;
}
