/* A check's result (report --check reads what `rigtune check -o FILE` wrote). */
#include "../tuner/check/check_result.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	rt_checkdoc d;
	if (rt_checkdoc_load(path, &d, err, sizeof err) == 0)
		rt_checkdoc_free(&d);
	close(fd);
	return 0;
}
