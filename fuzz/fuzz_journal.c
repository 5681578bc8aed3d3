/* Results journals, as tune --resume and the reuse of trials read them. */
#include "../tuner/journal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	rt_journal_record *recs = NULL;
	size_t n = 0;
	int dropped;
	rt_journal_header hdr;
	rt_journal_load(path, &recs, &n, &dropped, &hdr, err, sizeof err);
	rt_journal_records_free(recs, n);
	close(fd);
	return 0;
}
