/* Replay CSVs (crossover --replay FILE.csv). */
#include "../tuner/replay.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	rt_replay *r = NULL;
	if (rt_replay_read(path, &r, err, sizeof err) == 0)
		rt_replay_free(r);
	close(fd);
	return 0;
}
