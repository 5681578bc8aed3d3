/*
 * What `rigtune store push` reads before it writes a row: the first bytes
 * sniffed for the kind of file, then the journal or the check result parsed
 * whole (a node's files are anyone's: a pushed check reaches every reader
 * of the store).
 */
#include "../tuner/check/check_result.h"
#include "../tuner/fleet/fleet.h"
#include "../tuner/journal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512], head[1024];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	if (rt_read_head(path, head, sizeof head, err, sizeof err) == 0) {
		int kind = rt_store_sniff(head);
		rt_journal_record *recs;
		size_t n;
		rt_journal_header hdr;
		rt_checkdoc d;
		if (kind == 'j' && rt_journal_load(path, &recs, &n, NULL, &hdr, err, sizeof err) == 0)
			rt_journal_records_free(recs, n);
		if (kind == 'c' && rt_checkdoc_load(path, &d, err, sizeof err) == 0)
			rt_checkdoc_free(&d);
	}
	close(fd);
	return 0;
}
