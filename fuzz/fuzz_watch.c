/*
 * A watch result as report --watch takes it: read back (rt_watch_load), then
 * drawn (rt_pg_watch), whose loops and sizes follow the file's times and
 * counts: a value read must bound what it makes the page do (issue 47).
 */
#include "../tuner/page/pagewatch.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	char path[64], err[512];
	if (!sink && !(sink = fopen("/dev/null", "w")))
		return 0;
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	rt_watch_run r;
	if (rt_watch_load(path, &r, err, sizeof err) == 0) {
		rt_pg_watch(sink, &r);
		rt_watch_free(&r);
	}
	close(fd);
	return 0;
}
