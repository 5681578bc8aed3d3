/*
 * KEY=VALUE arguments (bench) and --shape lists (tune, crossover): the input
 * split at commas, each piece applied to every workload as a point or shape key.
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
	char *save = NULL, err[512];
	for (char *kv = strtok_r(text, ",", &save); kv; kv = strtok_r(NULL, ",", &save))
		for (int i = 0; i < n; i++) {
			rt_point pt;
			rt_shape sh;
			rt_point_default(&pt);
			rt_shape_default(all[i], &sh);
			rt_params_apply(all[i], kv, &pt, &sh, err, sizeof err);
			rt_params_apply_shape(all[i], kv, &sh, err, sizeof err);
		}
	free(text);
	return 0;
}
