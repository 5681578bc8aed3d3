/*
 * fleet.h: many nodes at once, through the engines clusters already run.
 *
 * The results store (store.c, store_push.c): PostgreSQL through libpq. tune
 * and check with --store append every trial and every check result to it as
 * it finishes, keyed by node, host, machine fingerprint and time, beside the
 * local journal and check file (never instead of them). rigtune creates the
 * schema and keeps its version (rigtune_schema; a database made by a newer
 * rigtune is refused). Every row has a natural key and is inserted with ON
 * CONFLICT DO NOTHING, so `rigtune store push` of a journal or check file
 * that was partly uploaded already adds only what is missing:
 *
 *   rigtune_machines (node, fingerprint) -> kind, BLAS, kernel, driver...
 *   rigtune_trials   (node, host, started, journal, seq) -> the trial
 *   rigtune_checks   (node, generated, baseline) -> result, worst change
 *   rigtune_check_points, rigtune_check_diffs: its points and machine diff
 *
 * Fleet runs (slurm.c): an sbatch job array, one task a node, exclusive,
 * each task running rigtune (which takes the machine lock) against the
 * store; the submitter waits and shows progress.
 *
 * Fleet answers (fleet_report.c, fleet_check.c): from the store, the page
 * per node kind (recommendation, spread, outliers and what differs on them)
 * and the regressions of the newest checks with what changed.
 */
#ifndef RT_FLEET_H
#define RT_FLEET_H

#include <stdio.h>

#include "../journal.h"
#include "../machine.h"

#define RT_STORE_SCHEMA 1 /* the schema version this rigtune writes and reads */

typedef struct rt_store rt_store;

/*
 * Connects to url (a libpq connection URI or key=value string; a connect
 * timeout of 5 s unless it sets one) and creates or checks the schema.
 * RT_EINVAL for a database whose schema is newer than RT_STORE_SCHEMA,
 * RT_EIO when the server cannot be reached or refuses (libpq's message).
 */
int rt_store_open(const char *url, rt_store **out, char *err, size_t errlen);

/*
 * For cmd's option parsing: -1 when the --store URL holds no password, else
 * the usage error's exit code (the password itself never printed). A
 * command line is anyone's to read on the machine (ps, /proc/PID/cmdline)
 * and fleet writes it into the sbatch script; the password goes in
 * ~/.pgpass, PGPASSFILE or PGPASSWORD, where libpq reads it. A URL libpq
 * cannot parse whole is a usage error too, libpq's reason without the text
 * it quotes: a password in it could not be told.
 */
int rt_store_url_usage(const char *cmd, const char *url);
void rt_store_close(rt_store *s); /* accepts NULL */
/*
 * msg (a buffer of len bytes) without the credentials in url or in msg
 * itself: the user's password in "scheme://user:PASSWORD@host", the value
 * of each "password=", each as spelled, become "***". Every message of the
 * store goes through it (Slurm logs are shared).
 */
void rt_store_redact(char *msg, size_t len, const char *url);

/* The node's machine (its kind and the fields outliers are explained by). */
int rt_store_put_machine(rt_store *s, const char *node, const rt_machine *m,
			 const char *fingerprint, char *err, size_t errlen);

/*
 * One trial of the journal path (its header hdr, its seq-th trial). *added
 * (may be NULL) is 1 when the row is new, 0 when it was there. A lost
 * connection is tried again once (PQreset) before RT_EIO.
 */
int rt_store_put_trial(rt_store *s, const char *node, const rt_journal_header *hdr,
		       const char *path, long seq, const rt_journal_record *rec, int *added,
		       char *err, size_t errlen);

/* What a push added, and what was there already. */
typedef struct rt_store_counts {
	long added, present;
} rt_store_counts;

/*
 * Uploads the file at path: a journal (every trial) or the result of
 * `rigtune check` (the check, its points and machine diff), whichever it is.
 * RT_EINVAL for a file that is neither or does not read (FILE:LINE:COLUMN).
 */
int rt_store_push(rt_store *s, const char *node, const char *path, rt_store_counts *c,
		  char *err, size_t errlen);
/*
 * What a file is from its first bytes (comment and "---" lines skipped, up
 * to the first key): 'j' for a journal, 'c' for a check result, 0 for neither.
 */
int rt_store_sniff(const char *head);

/*
 * tune --store: the live upload. rt_store_live_start connects (a failure is
 * a warning: the journal keeps everything for `store push`) and observes
 * every journal append (journal.h); each trial is uploaded as it finishes,
 * a lost database tried again at the next trial. rt_store_live_finish
 * records the machine, stops observing, says what was uploaded and what is
 * left for `store push`, and closes.
 */
typedef struct rt_store_live {
	rt_store *store;
	const char *url, *node;
	int quiet;
	long uploaded, missed;
	int down;        /* the last upload failed: say so once per outage */
	double retry_at; /* rt_now() from which a lost store is tried again */
} rt_store_live;

void rt_store_live_start(rt_store_live *l, const char *url, const char *node, int quiet);
void rt_store_live_finish(rt_store_live *l, const rt_machine *m, const char *fingerprint,
			  const char *journal);

/* This machine's name: the node a row is recorded under unless --node says otherwise. */
void rt_fleet_default_node(char *buf, size_t len);

/* ---- Slurm ---- */

typedef enum rt_fleet_action { RT_FLEET_TUNE, RT_FLEET_CHECK } rt_fleet_action;

typedef struct rt_fleet_job {
	rt_fleet_action action;
	const char *nodes;      /* a Slurm node list ("node[01-32]"); NULL: partition/constraint */
	const char *partition;  /* NULL: the default */
	const char *constraint; /* node features (--constraint); NULL: none */
	int count;              /* tasks: the nodes in the list, else of the partition and features */
	const char *exclude;    /* nodes of the partition outside the list; NULL: none */
	const char *store;      /* the results store's URL */
	const char *rigtune;    /* the binary each node runs */
	const char *workdir;    /* where the tasks run: configs/ and results/ (shared) */
	const char *time_limit; /* per task ("HH:MM:SS"); NULL: the partition's */
	char **args;            /* passed to tune or check on every node */
	int nargs;
} rt_fleet_job;

/*
 * The sbatch script of job (malloc'd). Every string in its shell part is
 * quoted; the values of #SBATCH lines (which no shell reads) must pass
 * rt_fleet_directive_ok. RT_EINVAL naming a value that does not.
 */
int rt_fleet_script(const rt_fleet_job *job, char **text, char *err, size_t errlen);

/* Whether s can stand in an #SBATCH line: letters, digits and _.,:=[]-&|*!()/ only. */
int rt_fleet_directive_ok(const char *s);

/*
 * Fills job->count (and job->exclude, malloc'd into *exclude) from Slurm:
 * the nodes of job->nodes (scontrol show hostnames), else of the partition
 * and constraint (sinfo). RT_EINVAL when they name no node, RT_EUNAVAIL
 * when Slurm's commands are not there or fail (their message).
 */
int rt_fleet_count_nodes(rt_fleet_job *job, char **exclude, char *err, size_t errlen);

/*
 * Submits script with sbatch and waits until every task has ended, one line
 * on stderr whenever the counts change (done, running, pending, failed; a
 * failed task with its node and reason). *failed gets the tasks that did
 * not succeed; missing (may be NULL, of len bytes) the nodes of job->nodes
 * no task ran on. RT_EUNAVAIL when sbatch or scontrol fail. SIGHUP, SIGINT,
 * SIGQUIT or SIGTERM while it waits cancel the job (scancel: its tasks, each
 * a rigtune, get SIGTERM): RT_ERUNTIME saying so.
 */
int rt_fleet_submit_wait(const rt_fleet_job *job, const char *script, int quiet, int *failed,
			 char *missing, size_t len, char *err, size_t errlen);

/* ---- answers from the store ---- */

/*
 * The fleet page (HTML, malloc'd): one section per node kind, per workload
 * and shape the recommendation (the point best on most of its nodes), the
 * spread of the nodes' best throughput, and the outliers: a node more than
 * threshold (a fraction) below the median of its peers, with what in its
 * machine differs from theirs. From each node's newest tune in the store.
 * *outliers (may be NULL) gets how many nodes were named.
 */
int rt_fleet_report(rt_store *s, double threshold, char **html, size_t *len, int *outliers,
		    char *err, size_t errlen);

/*
 * After an upgrade: each node's newest check in the store (generated at or
 * after since, "" for any), printed to f: which nodes regressed, by how much
 * (the worst point), and what changed on their machine. *regressed gets the
 * count of nodes that did.
 */
int rt_fleet_check_answer(rt_store *s, const char *since, FILE *f, int *regressed, char *err,
			  size_t errlen);

#endif
