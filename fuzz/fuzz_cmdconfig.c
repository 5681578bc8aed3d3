/*
 * A baseline as `rigtune check --baseline` reads it, above all the
 * configuration of a user's command (tune --cmd): its command, metric, hash
 * and knobs. What a file says is compared, never run: nothing here starts a
 * process whatever the input.
 */
#include "../tuner/check/check_baseline.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	static rt_baseline b; /* large: not on the stack */
	rt_baseline_load(path, &b, err, sizeof err);
	rt_baseline_free(&b);
	close(fd);
	return 0;
}
