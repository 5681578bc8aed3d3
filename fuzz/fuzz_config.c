/* Configurations (exec, env, check, sweep and report read configs/<host>.yaml). */
#include "../tuner/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	static rt_config c; /* large: not on the stack */
	if (rt_config_load(path, &c, err, sizeof err) == 0) {
		for (int i = 0; i < c.nrecs; i++) {
			const rt_workload *w = rt_workload_find(c.recs[i].name);
			rt_point pt;
			rt_shape sh;
			if (w && !c.recs[i].none)
				rt_config_point_decode(&c, &c.recs[i].fastest, w, &pt, &sh, err,
						       sizeof err);
		}
		rt_config_free(&c);
	}
	close(fd);
	return 0;
}
