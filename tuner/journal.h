/*
 * journal.h: the results journal. `rigtune tune` appends every finished trial
 * to results/<host>-<YYYYmmdd-HHMMSS>.yaml (UTC; "-N" is added before .yaml
 * when that second is taken) and reads journals back to resume a killed run
 * and to reuse trials measured before on the same machine.
 *
 * The file is a YAML stream. Every document starts with "---" and ends with
 * "..." on a line of its own. The first is the header:
 *
 *   rigtune_journal: 1
 *   fingerprint: 3f9a...      (rt_machine_fingerprint)
 *   host: gpu-box
 *   started: 2025-01-31T12:00:00Z
 *   command: rigtune tune --budget 60
 *   machine: {...}            (the whole probe, rt_machine_emit; older
 *                              journals have none)
 *
 * each later one a trial: `fingerprint:`, `role: naive` for the naive
 * default measured beside the search (naive.h; a search's trial has no
 * role), and the fields of rt_emit_measurement_fields(), every number with
 * 17 significant digits so that samples read back bit for bit. A trial of the user's command (tune
 * --cmd) has instead `command: {hash, name}` (the hash of what makes its
 * figures comparable: rt_tune_cmd_hash) and `knobs: {name: value, ...}`,
 * then throughput, samples, contention and seconds; an infeasible trial has its reason and
 * its `cause:` (journals written before causes were recorded are read too:
 * the cause then comes from the reason's words). An append is one write() of the whole
 * document on an O_APPEND descriptor, then fsync: a process killed mid-write
 * leaves at most one half-written document, at the end. Reading drops it
 * (never merges it) and counts it; a bad document anywhere before the end is
 * an error naming FILE:LINE:COLUMN.
 */
#ifndef RT_JOURNAL_H
#define RT_JOURNAL_H

#include <stddef.h>

#include "cmdpoint.h"
#include "machine.h"
#include "measure.h"

typedef struct rt_journal rt_journal;

/*
 * Creates dir (and its parents) if missing and a new journal in it, writes
 * the header and syncs it. cmdline is recorded as given (may be NULL);
 * machine, when not NULL, is kept in the header (what `rigtune check`
 * diffs a journal baseline against).
 * RT_EINVAL for a host name with '/' or nothing in it, RT_EIO when the
 * directory or the file cannot be made.
 */
int rt_journal_create(const char *dir, const char *host, const char *fingerprint,
		      const rt_machine *machine, const char *cmdline, rt_journal **out, char *err,
		      size_t errlen);

/*
 * Opens an existing journal to append to it (--resume). The file is read
 * first: a bad document is RT_EINVAL as in rt_journal_load(); a half-written
 * one at the end is cut off (ftruncate) so that new entries do not land
 * after it, and *dropped (may be NULL) says whether that happened. Trials
 * appended from now on carry `fingerprint` (this machine's now: the header
 * keeps the one of the run that created the file, and lookups go by the
 * fingerprint of each trial). RT_EINVAL when the file has no complete header.
 */
int rt_journal_open(const char *path, const char *fingerprint, rt_journal **out, int *dropped,
		    char *err, size_t errlen);

/* The file the journal writes to; valid until rt_journal_close(). */
const char *rt_journal_path(const rt_journal *j);

/* Why a trial of a workload was measured. */
typedef enum rt_trial_role {
	RT_TRIAL_SEARCH = 0, /* a point of the search: what tune ranks and recommends */
	RT_TRIAL_NAIVE,      /* the naive default (naive.h), for comparison: never ranked */
	RT_TRIAL_AGAIN,      /* measured again at the tune's end for a check's baseline
				(tune_baseline.h): pooled by check, never ranked */
} rt_trial_role;

/* "search", "naive", "again": the journal's word for a role. */
const char *rt_trial_role_name(rt_trial_role role);

/*
 * A finished trial to append: a built-in workload's point and shape, or,
 * with w NULL, a user's command's (its hash and name, its knobs, its
 * metric's unit; role RT_TRIAL_SEARCH).
 */
typedef struct rt_journal_trial {
	rt_trial_role role;
	const rt_workload *w;
	const rt_point *pt;
	const rt_shape *sh;
	const char *hash, *name, *unit;
	const rt_cmd_point *knobs;
	const rt_measurement *m;
} rt_journal_trial;

/*
 * Appends one finished trial (feasible or not) and syncs it to disk. On a
 * failed write the file is cut back to where it was, so the journal stays
 * readable; RT_EIO then.
 */
int rt_journal_append(rt_journal *j, const rt_journal_trial *t, char *err, size_t errlen);

void rt_journal_close(rt_journal *j); /* accepts NULL */

/* One finished trial as read back. */
typedef struct rt_journal_record {
	char fingerprint[17];
	const rt_workload *workload; /* from the registry; NULL for a command's trial */
	char command[17];            /* a command's trial: the command's hash */
	rt_cmd_point knobs;          /* and its point */
	rt_trial_role role;          /* RT_TRIAL_SEARCH for a command's trial */
	rt_point point;
	rt_shape shape;              /* every key of the workload, in its order */
	rt_measurement m;            /* as written; m.samples owned by the record */
	int line;                    /* 1-based line where the trial's mapping starts */
} rt_journal_record;

/* The header of a journal. */
typedef struct rt_journal_header {
	char fingerprint[17];
	char host[64];
	char started[32];
	char command[1024]; /* cut at 1023 bytes */
} rt_journal_header;

/*
 * A watcher of every trial this process appends to any journal (the results
 * store's live upload, fleet/fleet.h): called once the trial is on disk,
 * with the journal's header, its file, seq (the trial's 0-based place among
 * the file's trials, as rt_journal_load returns them) and the trial as that
 * load reads it back (samples borrowed for the call; a command's trial has
 * no workload). Observing is the caller's business: a failed upload leaves
 * the journal as it is. fn NULL stops observing.
 */
typedef void (*rt_journal_observer)(void *ctx, const rt_journal_header *hdr, const char *path,
				    long seq, const rt_journal_record *rec);
void rt_journal_observe(rt_journal_observer fn, void *ctx);

/*
 * Reads every complete trial of the journal at path into a new array
 * (*records, *n; free with rt_journal_records_free). *dropped (may be NULL)
 * gets 1 when the file ends in a half-written document (no "..." marker, or
 * a parse error with no complete document after it), else 0. hdr may be NULL.
 *
 * RT_EINVAL, with "FILE:LINE:COLUMN: problem", for a header that is not
 * `rigtune_journal: 1`, a document that does not parse followed by complete
 * ones, or a complete document with a missing, unknown or malformed field
 * (an unknown workload or shape key included). RT_EIO if the file cannot be
 * read. A file with no complete document at all loads as empty.
 */
int rt_journal_load(const char *path, rt_journal_record **records, size_t *n, int *dropped,
		    rt_journal_header *hdr, char *err, size_t errlen);

/*
 * rt_journal_load() for every journal of host in dir (rt_journal_list), the
 * records of all of them in one array, oldest journal first; *dropped counts
 * the half-written documents of all of them. A dir that does not exist has
 * no journals. A journal that does not read (over RT_READ_MAX_BYTES,
 * malformed) is skipped with a warning on stderr naming it and why: the
 * others load, and the tune goes on.
 */
int rt_journal_load_host(const char *dir, const char *host, rt_journal_record **records,
			 size_t *n, int *dropped, char *err, size_t errlen);

void rt_journal_records_free(rt_journal_record *records, size_t n); /* accepts NULL */

/*
 * A copy of the record's measurement that the caller owns (its own samples;
 * free with rt_measurement_free). RT_ENOMEM if the copy cannot be made.
 */
int rt_journal_record_measurement(const rt_journal_record *rec, rt_measurement *out);

/*
 * Whether r is a trial of workload w with exactly this fingerprint, shape
 * (every value) and point (every field); or of the command of hash at pt.
 */
int rt_journal_is_trial(const rt_journal_record *r, const char *fingerprint, const rt_workload *w,
			const rt_shape *sh, const rt_point *pt);
int rt_journal_is_command_trial(const rt_journal_record *r, const char *fingerprint,
				const char *hash, const rt_cmd_point *pt);

/*
 * The finished trial of records with exactly this fingerprint, workload,
 * shape (every value) and point (every field), or NULL. Where several
 * match, the last one: the newest when records are in the order they were
 * written (as rt_journal_load_host returns them). A trial measured again for
 * a check (role again) is not the point's trial: the search's is.
 */
const rt_journal_record *rt_journal_find(const rt_journal_record *records, size_t n,
					 const char *fingerprint, const rt_workload *w,
					 const rt_shape *sh, const rt_point *pt);

/* The same for a trial of a command: this fingerprint, command hash and point. */
const rt_journal_record *rt_journal_find_knobs(const rt_journal_record *records, size_t n,
					       const char *fingerprint, const char *hash,
					       const rt_cmd_point *pt);
/*
 * The journals of host in dir (journal_list.c), oldest first (by the time
 * in their name, then by the -N suffix): *paths is a new array of *n
 * "dir/name" strings; free with rt_journal_list_free. A missing dir gives
 * none. RT_EIO if dir cannot be read.
 */
int rt_journal_list(const char *dir, const char *host, char ***paths, size_t *n, char *err,
		    size_t errlen);
void rt_journal_list_free(char **paths, size_t n); /* accepts NULL */

/*
 * Where the crossover sweep of the run that wrote journal is saved, beside
 * it, in the replay format (replay.h): JOURNAL-crossover.csv for
 * JOURNAL.yaml; JOURNAL-crossover-SEQ.csv for seq > 1, when the name before
 * is taken (a resumed run sweeps again). RT_EINVAL when journal does not end
 * in .yaml or the name does not fit in len.
 */
int rt_journal_sweep_path(const char *journal, int seq, char *buf, size_t len);

/*
 * The newest journal of host in dir into path_out (for --resume).
 * RT_EINVAL "no journal of HOST in DIR" when there is none; RT_EINVAL too
 * if the path does not fit in len.
 */
int rt_journal_latest(const char *dir, const char *host, char *path_out, size_t len,
		      char *err, size_t errlen);

#endif
