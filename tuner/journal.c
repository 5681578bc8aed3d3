#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "../workloads/knobs.h"
#include "contention.h"
#include "params.h"
#include "measure_yaml.h"
#include "yamlr.h"
#include "cli.h"
#include "output.h"

#define JOURNAL_VERSION "1"

struct rt_journal {
	int fd;
	off_t size; /* bytes of complete documents: where a failed append cuts back to */
	char fingerprint[17];
	rt_journal_header hdr; /* for the observer: the run the trials belong to */
	long ntrials;          /* trials in the file: the next one's seq */
	char path[];
};

/* The observer of appended trials (rt_journal_observe); NULL: none. */
static rt_journal_observer observer;
static void *observer_ctx;

void rt_journal_observe(rt_journal_observer fn, void *ctx)
{
	observer = fn;
	observer_ctx = ctx;
}

/* Tells the observer about the trial just appended, then counts it. */
static void observed(rt_journal *j, const rt_journal_record *rec)
{
	if (observer)
		observer(observer_ctx, &j->hdr, j->path, j->ntrials, rec);
	j->ntrials++;
}

/* ---------------------------------------------------------------- writing */

/*
 * Writes one document ("---", text, "...") with a single write() where the
 * kernel takes it whole, then fsync. Any failure cuts the file back to its
 * last complete document, so that a later append does not follow a torn one.
 */
static int append_doc(rt_journal *j, const char *text, size_t len, char *err, size_t errlen)
{
	int nl = len && text[len - 1] == '\n';
	size_t total = 4 + len + (nl ? 0 : 1) + 4;
	char *buf = malloc(total);
	if (!buf)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	memcpy(buf, "---\n", 4);
	memcpy(buf + 4, text, len);
	if (!nl)
		buf[4 + len] = '\n';
	memcpy(buf + total - 4, "...\n", 4);

	if (rt_drill_at("journal-append")) { /* die with half the document on disk */
		(void)!rt_write_all(j->fd, buf, total / 2);
		raise(SIGKILL);
	}
	int bad = rt_write_all(j->fd, buf, total) || fsync(j->fd);
	int saved = errno;
	free(buf);
	if (bad) {
		if (ftruncate(j->fd, j->size) == 0)
			fsync(j->fd);
		return rt_fail(err, errlen, RT_EIO, "cannot append to %s: %s", j->path,
			       strerror(saved));
	}
	j->size += (off_t)total;
	return RT_OK;
}

static int emit_header(rt_yw *y, const char *fingerprint, const char *host,
		       const rt_machine *machine, const char *started, const char *cmdline,
		       char **text, size_t *len, char *err, size_t errlen)
{
	int rc = rt_yw_init(y);
	if (rc) {
		rt_yw_discard(y);
		return rt_fail(err, errlen, rc, "cannot start the YAML emitter");
	}
	rt_yw_map(y, 0);
	rt_yw_kint(y, "rigtune_journal", 1);
	rt_yw_kstr(y, "fingerprint", fingerprint);
	rt_yw_kstr(y, "host", host);
	rt_yw_kstr(y, "started", started);
	rt_yw_kstr(y, "command", cmdline ? cmdline : "");
	if (machine) {
		rt_yw_str(y, "machine");
		rt_machine_emit(y, machine);
	}
	rt_yw_end_map(y);
	return rt_yw_finish(y, text, len, err, errlen);
}

/*
 * A journal on fd (which it now owns) named path, of the run hdr, with
 * ntrials trials already; NULL when out of memory.
 */
static rt_journal *journal_new(int fd, const char *path, const char *fingerprint, off_t size,
			       const rt_journal_header *hdr, long ntrials)
{
	rt_journal *j = malloc(sizeof *j + strlen(path) + 1);
	if (!j)
		return NULL;
	j->fd = fd;
	j->size = size;
	j->hdr = *hdr;
	j->ntrials = ntrials;
	snprintf(j->fingerprint, sizeof j->fingerprint, "%s", fingerprint);
	strcpy(j->path, path);
	return j;
}

/*
 * Opens a new file dir/host-STAMP.yaml, or dir/host-STAMP-N.yaml when an
 * earlier journal took that second, into *path (malloc'd).
 */
static int create_file(const char *dir, const char *host, const char *stamp, char **path,
		       int *fd, char *err, size_t errlen)
{
	size_t n = strlen(dir) + strlen(host) + strlen(stamp) + 32;
	char *p = malloc(n);
	if (!p)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	for (int seq = 1; seq < 1000; seq++) {
		if (seq == 1)
			snprintf(p, n, "%s/%s-%s.yaml", dir, host, stamp);
		else
			snprintf(p, n, "%s/%s-%s-%d.yaml", dir, host, stamp, seq);
		int rc = rt_open_append(p, RT_APPEND_NEW, fd, err, errlen);
		if (rc || *fd >= 0) {
			if (rc == RT_OK)
				*path = p;
			else
				free(p);
			return rc;
		}
	}
	int rc = rt_fail(err, errlen, RT_EIO, "cannot create %s: 999 journals of that second", p);
	free(p);
	return rc;
}

int rt_journal_create(const char *dir, const char *host, const char *fingerprint,
		      const rt_machine *machine, const char *cmdline, rt_journal **out, char *err,
		      size_t errlen)
{
	*out = NULL;
	if (!*host || strchr(host, '/'))
		return rt_fail(err, errlen, RT_EINVAL, "'%s' cannot name a journal file", host);
	int rc = rt_make_dirs(dir, 0755, err, errlen);
	if (rc)
		return rc;
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	char stamp[32], started[32];
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);

	rt_yw y;
	char *text = NULL, *path = NULL;
	size_t len = 0;
	int fd = -1;
	rc = emit_header(&y, fingerprint, host, machine, started, cmdline, &text, &len, err,
			 errlen);
	if (rc)
		return rc;
	rc = create_file(dir, host, stamp, &path, &fd, err, errlen);
	if (rc)
		goto out_text;
	rt_journal_header hdr = {0};
	snprintf(hdr.fingerprint, sizeof hdr.fingerprint, "%s", fingerprint);
	snprintf(hdr.host, sizeof hdr.host, "%s", host);
	snprintf(hdr.started, sizeof hdr.started, "%s", started);
	snprintf(hdr.command, sizeof hdr.command, "%s", cmdline ? cmdline : "");
	rt_journal *j = journal_new(fd, path, fingerprint, 0, &hdr, 0);
	if (!j) {
		close(fd);
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		goto out_unlink;
	}
	rc = append_doc(j, text, len, err, errlen);
	if (rc) {
		rt_journal_close(j);
		goto out_unlink;
	}
	rt_drill("journal-header");
	/* The new name itself must survive a crash too. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	*out = j;
	goto out_path;
out_unlink:
	unlink(path);
out_path:
	free(path);
out_text:
	free(text);
	return rc;
}

const char *rt_journal_path(const rt_journal *j)
{
	return j->path;
}

/* Starts a trial's document: the emitter, its mapping and the fingerprint. */
static int trial_start(rt_yw *y, const rt_journal *j, char *err, size_t errlen)
{
	int rc = rt_yw_init(y);
	if (rc) {
		rt_yw_discard(y);
		return rt_fail(err, errlen, rc, "cannot start the YAML emitter");
	}
	rt_yw_map(y, 0);
	rt_yw_kstr(y, "fingerprint", j->fingerprint);
	return RT_OK;
}

/* Ends the trial's document and appends it. */
static int trial_finish(rt_yw *y, rt_journal *j, char *err, size_t errlen)
{
	char *text;
	size_t len;
	rt_yw_end_map(y);
	int rc = rt_yw_finish(y, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = append_doc(j, text, len, err, errlen);
	free(text);
	return rc;
}

/* The role: values of a journal, by rt_trial_role; a search's trial is written without one. */
static const char *const role_names[] = {[RT_TRIAL_SEARCH] = "search", [RT_TRIAL_NAIVE] = "naive",
					 [RT_TRIAL_AGAIN] = "again"};

const char *rt_trial_role_name(rt_trial_role role)
{
	RT_BUG_ON((size_t)role >= RT_COUNT(role_names));
	return role_names[role];
}

#define EXACT 17 /* digits that read back bit for bit */

/* A command's trial: the command, its knobs, what its metric gave. */
static void emit_command_trial(rt_yw *y, const rt_journal_trial *t)
{
	const rt_measurement *m = t->m;
	rt_yw_str(y, "command");
	rt_yw_map(y, 1);
	rt_yw_kstr(y, "hash", t->hash);
	rt_yw_kstr(y, "name", t->name);
	rt_yw_end_map(y);
	rt_yw_str(y, "knobs");
	rt_cmd_point_emit(y, t->knobs, 0);
	if (m->feasible) {
		rt_emit_throughput(y, t->unit, m->median, m->ci_lo, m->ci_hi, m->cv, 1);
		rt_yw_knum(y, "contention", m->contention, EXACT);
		rt_yw_knums(y, "samples", m->samples, (size_t)m->nsamples, EXACT);
	} else {
		rt_yw_kstr(y, "infeasible", m->reason);
		rt_yw_kstr(y, "cause", rt_cause_name(m->cause));
	}
	rt_yw_knum(y, "seconds", m->seconds, EXACT);
}

/* The trial as the journal's load reads it back, for its observer. */
static rt_journal_record record_of(const rt_journal *j, const rt_journal_trial *t)
{
	rt_journal_record rec = {.workload = t->w, .role = t->role, .m = *t->m};
	if (t->w) {
		rec.point = *t->pt;
		rec.shape = *t->sh;
	} else {
		rec.knobs = *t->knobs;
		snprintf(rec.command, sizeof rec.command, "%s", t->hash);
	}
	snprintf(rec.fingerprint, sizeof rec.fingerprint, "%s", j->fingerprint);
	return rec;
}

int rt_journal_append(rt_journal *j, const rt_journal_trial *t, char *err, size_t errlen)
{
	rt_yw y;
	int rc = trial_start(&y, j, err, errlen);
	if (rc)
		return rc;
	RT_BUG_ON((size_t)t->role >= RT_COUNT(role_names) || (!t->w && t->role != RT_TRIAL_SEARCH));
	if (t->role != RT_TRIAL_SEARCH)
		rt_yw_kstr(&y, "role", role_names[t->role]);
	if (t->w)
		rt_emit_measurement_fields(&y, t->w, t->pt, t->sh, t->m, 1, 0);
	else
		emit_command_trial(&y, t);
	rc = trial_finish(&y, j, err, errlen);
	if (rc == RT_OK) {
		rt_journal_record rec = record_of(j, t);
		observed(j, &rec);
	}
	return rc;
}

void rt_journal_close(rt_journal *j)
{
	if (!j)
		return;
	close(j->fd);
	free(j);
}

/* ---------------------------------------------------------------- reading */

/*
 * Each document is read through a tuner/yamlr view: messages are
 * "FILE:LINE:COLUMN: problem" from the one error-location helper there.
 */
typedef rt_yr reader;

/* One key: value through rt_params_set: the journal checks keys and ranges as the CLI does. */
static int apply(const reader *r, const rt_workload *w, const char *what, const rt_ynode *kn,
		 const rt_ynode *vn, rt_point *pt, rt_shape *sh)
{
	const char *v = rt_yr_scalar(vn);
	if (!v)
		return rt_yr_bad(r, vn, "%s: expected a scalar", what);
	char msg[RT_ERRLEN];
	if (rt_params_set(w, rt_yr_scalar(kn), v, pt, sh, msg, sizeof msg))
		return rt_yr_bad(r, vn, "%s: %s", what, msg);
	return RT_OK;
}

/*
 * point: the knobs of the table and no other key; a knob that is not there
 * takes its default (device 0 is left out when written, and a journal written
 * before a knob was added has none).
 */
static int decode_point(const reader *r, const rt_workload *w, const rt_ynode *map,
			rt_point *pt, rt_shape *sh)
{
	const char *names[RT_NKNOBS];
	for (int k = 0; k < RT_NKNOBS; k++)
		names[k] = rt_knobs[k].name;
	int rc = rt_yr_only_keys(r, map, "point", names, RT_NKNOBS);
	rt_point_default(pt);
	for (int i = 0; rc == RT_OK && i < rt_yr_npairs(map); i++) {
		const rt_ynode *kn, *vn;
		rt_yr_pair(r, map, i, &kn, &vn);
		rc = apply(r, w, "point", kn, vn, pt, sh);
	}
	return rc;
}

static int decode_shape(const reader *r, const rt_workload *w, const rt_ynode *map,
			rt_point *pt, rt_shape *sh)
{
	for (int i = 0; i < rt_yr_npairs(map); i++) {
		const rt_ynode *kn, *vn;
		rt_yr_pair(r, map, i, &kn, &vn);
		const char *k = rt_yr_scalar(kn);
		if (!k || rt_shape_index(w, k) < 0)
			return rt_yr_bad(r, kn, "shape: %s has no key '%s'", w->name, k ? k : "?");
		int rc = apply(r, w, "shape", kn, vn, pt, sh);
		if (rc)
			return rc;
	}
	for (int i = 0; i < w->nkeys; i++)
		if (!rt_yr_get(r, map, w->keys[i].name))
			return rt_yr_bad(r, map, "shape: missing key '%s'", w->keys[i].name);
	return RT_OK;
}

static const char *const throughput_keys[] = {"median", "ci95", "unit", "cv", "unstable"};

/* throughput: as written, every key and no other (unstable included). */
/* rate: a built-in workload's trial, whose median is above 0. */
static int decode_throughput(const reader *r, const rt_ynode *map, int rate, rt_measurement *m)
{
	rt_throughput t;
	int rc = rt_read_throughput(r, map, rate, &t);
	const rt_ynode *n = rt_yr_get(r, map, "throughput");
	if (rc == RT_OK)
		rc = rt_yr_only_keys(r, n, "throughput", throughput_keys, RT_COUNT(throughput_keys));
	if (rc == RT_OK)
		rc = rt_yr_need_bool(r, n, "unstable", &m->unstable);
	if (rc == RT_OK) {
		m->median = t.median;
		m->ci_lo = t.ci_lo;
		m->ci_hi = t.ci_hi;
		m->cv = t.cv;
	}
	return rc;
}

/*
 * A phase's share of the step: above 1 only where threads time a phase side
 * by side; far beyond that is no measurement (the page draws it as a bar).
 */
#define MAX_PHASE_SHARE 100.0

static int decode_phases(const reader *r, const rt_workload *w, const rt_ynode *map,
			 rt_measurement *m)
{
	const rt_ynode *ph;
	int rc = rt_yr_need(r, map, "phases", YAML_MAPPING_NODE, &ph);
	if (rc == RT_OK)
		rc = rt_yr_only_keys(r, ph, "phases", w->phase_names, (size_t)w->nphases);
	for (int p = 0; rc == RT_OK && p < w->nphases; p++)
		rc = rt_yr_need_num_in(r, ph, w->phase_names[p], 0, MAX_PHASE_SHARE,
				       &m->phase_frac[p]);
	return rc;
}

/*
 * An optional share in [0, 1] under key: *present 1 with its value, 0 when
 * absent (journals written before it was measured, points that have none).
 */
static int decode_share(const reader *r, const rt_ynode *root, const char *key, double *value,
			int *present)
{
	const rt_ynode *n = rt_yr_get(r, root, key);
	*present = n != NULL;
	if (!n)
		return RT_OK;
	int rc = rt_yr_number(r, n, key, value);
	if (rc == RT_OK && !(*value >= 0 && *value <= 1))
		rc = rt_yr_bad(r, n, "%s: expected a share from 0 to 1", key);
	return rc;
}

/* contention, and device_busy where the device was timed (the reason's device verdict). */
static int decode_shares(const reader *r, const rt_ynode *root, rt_measurement *m)
{
	int contention;
	int rc = decode_share(r, root, "contention", &m->contention, &contention);
	m->contended = m->contention > rt_contended_share();
	if (rc == RT_OK)
		rc = decode_share(r, root, "device_busy", &m->device_busy, &m->device_timed);
	return rc;
}

/* samples: the measurements themselves, each a finite number (stats and plots take them). */
static int decode_samples(const reader *r, const rt_ynode *root, rt_measurement *m)
{
	int rc = rt_yr_need_nums(r, root, "samples", &m->samples, &m->nsamples);
	const rt_ynode *seq = rt_yr_get(r, root, "samples");
	for (int i = 0; rc == RT_OK && i < m->nsamples; i++)
		if (!isfinite(m->samples[i]))
			rc = rt_yr_bad(r, rt_yr_item(r, seq, i), "samples: expected finite numbers");
		else
			rc = rt_yr_in_range(r, rt_yr_item(r, seq, i), "samples", -RT_YR_MAX_MEASURE,
					    RT_YR_MAX_MEASURE, m->samples[i]);
	return rc;
}

static int decode_feasible(const reader *r, const rt_workload *w, const rt_ynode *root,
			   rt_measurement *m)
{
	m->feasible = 1;
	int rc = decode_throughput(r, root, 1, m);
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, root, "gflops", 0, RT_YR_MAX_MEASURE, &m->gflops);
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, root, "step_seconds", 0, RT_YR_MAX_MEASURE,
				       &m->step_seconds);
	if (rc == RT_OK)
		rc = decode_phases(r, w, root, m);
	if (rc == RT_OK)
		rc = decode_shares(r, root, m);
	if (rc == RT_OK)
		rc = decode_samples(r, root, m);
	return rc;
}

static const char *const command_trial_keys[] = {
	"fingerprint", "command", "knobs",   "infeasible", "cause",
	"seconds",     "throughput", "samples", "contention"};

static const char *const trial_keys[] = {
	"fingerprint", "role",     "workload", "point",  "shape",   "infeasible",   "cause",
	"seconds",     "throughput", "gflops", "phases", "samples", "step_seconds", "contention",
	"gemm_impl",   "device_busy", "device_busy_sampled", "monitor"};

/* role: of a trial; absent for a search's trial (and in journals written before roles). */
static int decode_role(const reader *r, const rt_ynode *root, rt_trial_role *role)
{
	const rt_ynode *n = rt_yr_get(r, root, "role");
	const char *name = n ? rt_yr_scalar(n) : NULL;
	*role = RT_TRIAL_SEARCH;
	if (!n)
		return RT_OK;
	for (size_t i = 0; name && i < RT_COUNT(role_names); i++)
		if (!strcmp(name, role_names[i])) {
			*role = (rt_trial_role)i;
			return RT_OK;
		}
	return rt_yr_bad(r, n, "role: expected search, naive or again, got '%s'", name ? name : "?");
}

/*
 * The cause of an infeasible trial that a journal written before causes were
 * recorded gives only as text: the reasons those versions wrote for memory
 * ("needs N GiB, M available", "cannot allocate ...") and for a timeout;
 * anything else counts as a crash, which is measured again rather than
 * trusted. The one place that reads a cause from a reason.
 */
static rt_cause cause_of_old_reason(const char *reason)
{
	if (strstr(reason, "needs ") || strstr(reason, "cannot allocate") ||
	    strstr(reason, "out of host memory"))
		return RT_CAUSE_MEMORY;
	if (!strncmp(reason, "timeout:", 8))
		return RT_CAUSE_TIMEOUT;
	return RT_CAUSE_CRASH;
}

/* infeasible: <reason> and its cause: <kind> (absent in older journals). */
static int decode_infeasible(const reader *r, const rt_ynode *root, rt_measurement *m)
{
	const char *reason, *cause;
	int rc = rt_yr_need_str(r, root, "infeasible", &reason);
	if (rc)
		return rc;
	snprintf(m->reason, sizeof m->reason, "%s", reason);
	if (!rt_yr_get(r, root, "cause")) {
		m->cause = cause_of_old_reason(reason);
		return RT_OK;
	}
	rc = rt_yr_need_str(r, root, "cause", &cause);
	int c = rc ? -1 : rt_cause_parse(cause);
	if (rc == RT_OK && c <= RT_CAUSE_NONE)
		rc = rt_yr_bad(r, rt_yr_get(r, root, "cause"),
			       "cause: expected memory, crash, timeout, unavailable or bad_output, "
			       "got '%s'", cause);
	m->cause = (rt_cause)c;
	return rc;
}

static int decode_fingerprint(const reader *r, const rt_ynode *root, char out[17])
{
	const char *fp;
	int rc = rt_yr_need_str(r, root, "fingerprint", &fp);
	if (rc == RT_OK && (!*fp || strlen(fp) > 16))
		rc = rt_yr_bad(r, rt_yr_get(r, root, "fingerprint"),
			       "fingerprint: expected 1 to 16 characters");
	if (rc == RT_OK)
		strcpy(out, fp);
	return rc;
}

/* command: {hash, name} and knobs: {...} of a command's trial into rec's key. */
static int decode_command_key(const reader *r, const rt_ynode *root, rt_journal_record *rec)
{
	const rt_ynode *cmd, *knobs;
	const char *hash;
	int rc = rt_yr_need(r, root, "command", YAML_MAPPING_NODE, &cmd);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, cmd, "hash", &hash);
	if (rc == RT_OK && (!*hash || strlen(hash) > 16))
		rc = rt_yr_bad(r, rt_yr_get(r, cmd, "hash"), "hash: expected 1 to 16 characters");
	if (rc == RT_OK)
		rc = rt_yr_need(r, root, "knobs", YAML_MAPPING_NODE, &knobs);
	if (rc == RT_OK)
		rc = rt_cmd_point_decode(r, knobs, "knobs", &rec->knobs);
	if (rc)
		return rc;
	RT_BUG_ON(strlen(hash) >= sizeof rec->command); /* checked above: 16 at most */
	strcpy(rec->command, hash);
	return RT_OK;
}

/* The rest of a command's trial: what it measured, or why it could not. */
static int decode_command_trial(const reader *r, const rt_ynode *root, rt_journal_record *rec)
{
	rt_measurement *m = &rec->m;
	int rc = rt_yr_only_keys(r, root, "trial", command_trial_keys,
				 RT_COUNT(command_trial_keys));
	if (rc == RT_OK)
		rc = decode_command_key(r, root, rec);
	if (rc == RT_OK && rt_yr_get(r, root, "infeasible")) {
		rc = decode_infeasible(r, root, m);
	} else if (rc == RT_OK) {
		m->feasible = 1;
		rc = decode_throughput(r, root, 0, m);
		if (rc == RT_OK)
			rc = decode_shares(r, root, m);
		if (rc == RT_OK)
			rc = decode_samples(r, root, m);
	}
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, root, "seconds", 0, RT_YR_MAX_MEASURE, &m->seconds);
	if (rc)
		rt_measurement_free(m);
	return rc;
}

/* A trial document into rec; on failure rec owns nothing. */
static int decode_trial(const reader *r, const rt_ynode *root, rt_journal_record *rec)
{
	memset(rec, 0, sizeof *rec);
	rec->line = (int)root->start_mark.line + 1;
	if (root->type != YAML_MAPPING_NODE)
		return rt_yr_bad(r, root, "a trial must be a mapping");
	int rc = decode_fingerprint(r, root, rec->fingerprint);
	if (rc == RT_OK && rt_yr_get(r, root, "command"))
		return decode_command_trial(r, root, rec);
	if (rc == RT_OK)
		rc = rt_yr_only_keys(r, root, "trial", trial_keys, RT_COUNT(trial_keys));
	if (rc == RT_OK)
		rc = decode_role(r, root, &rec->role);
	const char *name = NULL;
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, root, "workload", &name);
	if (rc == RT_OK && !(rec->workload = rt_workload_find(name)))
		rc = rt_yr_bad(r, rt_yr_get(r, root, "workload"), "unknown workload '%s'", name);
	const rt_ynode *pt, *sh;
	if (rc == RT_OK) {
		rt_shape_default(rec->workload, &rec->shape);
		rc = rt_yr_need(r, root, "point", YAML_MAPPING_NODE, &pt);
	}
	if (rc == RT_OK)
		rc = decode_point(r, rec->workload, pt, &rec->point, &rec->shape);
	if (rc == RT_OK)
		rc = rt_yr_need(r, root, "shape", YAML_MAPPING_NODE, &sh);
	if (rc == RT_OK)
		rc = decode_shape(r, rec->workload, sh, &rec->point, &rec->shape);
	if (rc)
		return rc;

	rt_measurement *m = &rec->m;
	m->nphases = rec->workload->nphases;
	if (rt_yr_get(r, root, "infeasible"))
		rc = decode_infeasible(r, root, m);
	else if (rt_yr_get(r, root, "cause"))
		rc = rt_yr_bad(r, rt_yr_get(r, root, "cause"),
			       "cause: only an infeasible trial has one");
	else
		rc = decode_feasible(r, rec->workload, root, m);
	if (rc == RT_OK)
		rc = rt_yr_need_num_in(r, root, "seconds", 0, RT_YR_MAX_MEASURE, &m->seconds);
	if (rc)
		rt_measurement_free(m);
	return rc;
}

/* machine: is read by `rigtune check` (check_baseline.c), not here. */
static const char *const header_keys[] = {"rigtune_journal", "fingerprint", "host",
					  "started", "command", "machine"};

static int decode_header(const reader *r, const rt_ynode *root, rt_journal_header *hdr)
{
	const char *version = root->type == YAML_MAPPING_NODE
				      ? rt_yr_scalar(rt_yr_get(r, root, "rigtune_journal"))
				      : NULL;
	if (!version)
		return rt_yr_bad(r, root,
				 "not a rigtune journal (the first document must hold "
				 "rigtune_journal: " JOURNAL_VERSION ")");
	if (strcmp(version, JOURNAL_VERSION))
		return rt_yr_bad(r, root,
				 "journal version %s; this rigtune reads version " JOURNAL_VERSION,
				 version);
	int rc = rt_yr_only_keys(r, root, "header", header_keys, RT_COUNT(header_keys));
	const char *host, *started, *command;
	if (rc == RT_OK)
		rc = decode_fingerprint(r, root, hdr->fingerprint);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, root, "host", &host);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, root, "started", &started);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, root, "command", &command);
	if (rc == RT_OK) {
		snprintf(hdr->host, sizeof hdr->host, "%s", host);
		snprintf(hdr->started, sizeof hdr->started, "%s", started);
		snprintf(hdr->command, sizeof hdr->command, "%s", command);
	}
	return rc;
}

/*
 * Frees the samples of records [from, to): by index, so that an array that
 * is still NULL (nothing read yet) is never offset.
 */
static void free_measurements(rt_journal_record *records, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		rt_measurement_free(&records[i].m);
}

/* A growing array of records. */
typedef struct recvec {
	rt_journal_record *v;
	size_t n, cap;
} recvec;

static rt_journal_record *recvec_push(recvec *rv)
{
	if (rv->n == rv->cap) {
		size_t cap = rv->cap ? rv->cap * 2 : 16;
		rt_journal_record *v = realloc(rv->v, cap * sizeof *v);
		if (!v)
			return NULL;
		rv->v = v;
		rv->cap = cap;
	}
	return &rv->v[rv->n];
}

/* Whether a line "..." (a document end marker) starts at or after offset from. */
static int has_end_marker(const char *text, size_t len, size_t from)
{
	for (size_t i = from; i + 3 <= len; i++)
		if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, "...", 3) &&
		    (i + 3 == len || text[i + 3] == '\n'))
			return 1;
	return 0;
}

static int only_space(const char *text, size_t len, size_t from)
{
	for (size_t i = from; i < len; i++)
		if (!strchr(" \t\r\n", text[i]))
			return 0;
	return 1;
}

/*
 * Whether text begins as a journal does, or as the part of that beginning
 * that a writer killed while writing the header got out. This tells a torn
 * header (dropped) from a file that is not a journal at all (an error).
 */
static int journal_start(const char *text, size_t len)
{
	static const char start[] = "---\nrigtune_journal: ";
	size_t n = sizeof start - 1;
	return !memcmp(text, start, len < n ? len : n);
}

/* What load_into() found besides the records. */
typedef struct load_result {
	int dropped;      /* a half-written document at the end */
	int has_header;
	size_t valid_len; /* bytes up to the end of the last complete document */
} load_result;

/*
 * Decodes document after document of text. Each must parse and carry its
 * "..." marker; the one exception is a document at the very end of the file,
 * which is what a writer killed mid-append leaves behind.
 */
static int decode_stream(reader *r, const char *text, size_t len, recvec *rv,
			 rt_journal_header *hdr, load_result *res)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return rt_fail(r->err, r->errlen, RT_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = RT_OK;
	if (!journal_start(text, len))
		rc = rt_yr_bad(r, NULL, "not a rigtune journal (it must begin with \"---\" and "
					"rigtune_journal: " JOURNAL_VERSION ")");
	while (rc == RT_OK) {
		yaml_document_t doc;
		if (!yaml_parser_load(&p, &doc)) {
			if (!has_end_marker(text, len, res->valid_len))
				res->dropped = 1;
			else
				rc = rt_yr_parse_error(r, &p);
			break;
		}
		const rt_ynode *root = yaml_document_get_root_node(&doc);
		r->doc = &doc;
		if (!root) {
			/* the end of the stream */
		} else if (doc.end_implicit && only_space(text, len, doc.end_mark.index)) {
			res->dropped = 1;
		} else if (doc.end_implicit) {
			rc = rt_yr_bad_mark(r, doc.start_mark, "document has no end marker '...'");
		} else if (!res->has_header) {
			rc = decode_header(r, root, hdr);
			res->has_header = rc == RT_OK;
		} else {
			rt_journal_record *rec = recvec_push(rv);
			rc = rec ? decode_trial(r, root, rec)
				 : rt_fail(r->err, r->errlen, RT_ENOMEM, "out of memory");
			rv->n += rc == RT_OK;
		}
		if (rc == RT_OK && root && !res->dropped) {
			res->valid_len = doc.end_mark.index;
			if (res->valid_len < len && text[res->valid_len] == '\n')
				res->valid_len++;
		}
		yaml_document_delete(&doc);
		if (!root || res->dropped)
			break;
	}
	yaml_parser_delete(&p);
	return rc;
}

/* Appends the records of path to rv; on failure rv keeps only what it had. */
static int load_into(const char *path, recvec *rv, rt_journal_header *hdr, load_result *res,
		     char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	rt_journal_header unused;
	char *text = NULL;
	size_t len = 0;
	int rc = rt_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	size_t before = rv->n;
	reader r;
	rt_yr_view(&r, path, NULL, err, errlen);
	rc = rt_yr_screen(path, text, len, err, errlen);
	if (rc == RT_OK)
		rc = decode_stream(&r, text, len, rv, hdr ? hdr : &unused, res);
	free(text);
	if (rc) {
		free_measurements(rv->v, before, rv->n);
		rv->n = before;
	}
	return rc;
}

int rt_journal_load(const char *path, rt_journal_record **records, size_t *n, int *dropped,
		    rt_journal_header *hdr, char *err, size_t errlen)
{
	recvec rv = {0};
	load_result res;
	if (hdr)
		memset(hdr, 0, sizeof *hdr);
	int rc = load_into(path, &rv, hdr, &res, err, errlen);
	if (rc) {
		free(rv.v);
		rv.v = NULL;
	}
	*records = rv.v;
	*n = rv.n;
	if (dropped)
		*dropped = res.dropped;
	return rc;
}

int rt_journal_load_host(const char *dir, const char *host, rt_journal_record **records,
			 size_t *n, int *dropped, char *err, size_t errlen)
{
	*records = NULL;
	*n = 0;
	if (dropped)
		*dropped = 0;
	char **paths;
	size_t npaths;
	int rc = rt_journal_list(dir, host, &paths, &npaths, err, errlen);
	if (rc)
		return rc;
	recvec rv = {0};
	for (size_t i = 0; i < npaths && rc == RT_OK; i++) {
		load_result res;
		rc = load_into(paths[i], &rv, NULL, &res, err, errlen);
		if (dropped)
			*dropped += res.dropped;
		/*
		 * One journal that does not read (too large, torn in its middle,
		 * edited) must not stop every later tune of the host: its trials
		 * are not reused, and the user is told which it is.
		 */
		if (rc && rc != RT_ENOMEM) {
			rt_errorf("warning: %s; its trials are not reused (move it out of %s to "
				  "silence this)", err, dir);
			rc = RT_OK;
		}
	}
	rt_journal_list_free(paths, npaths);
	if (rc) {
		rt_journal_records_free(rv.v, rv.n);
		return rc;
	}
	*records = rv.v;
	*n = rv.n;
	return RT_OK;
}

void rt_journal_records_free(rt_journal_record *records, size_t n)
{
	if (!records)
		return;
	free_measurements(records, 0, n);
	free(records);
}

int rt_journal_open(const char *path, const char *fingerprint, rt_journal **out, int *dropped,
		    char *err, size_t errlen)
{
	*out = NULL;
	recvec rv = {0};
	rt_journal_header hdr;
	load_result res;
	int rc = load_into(path, &rv, &hdr, &res, err, errlen);
	rt_journal_records_free(rv.v, rv.n);
	if (rc)
		return rc;
	if (dropped)
		*dropped = res.dropped;
	if (!res.has_header)
		return rt_fail(err, errlen, RT_EINVAL, "%s: no complete journal header", path);
	int fd;
	RT_TRY(rt_open_append(path, 0, &fd, err, errlen));
	/* Cut a torn tail (and anything after the last "..." line) before appending. */
	struct stat st;
	if (fstat(fd, &st) || ((size_t)st.st_size != res.valid_len &&
			       (ftruncate(fd, (off_t)res.valid_len) || fsync(fd)))) {
		rc = rt_fail(err, errlen, RT_EIO, "cannot cut %s back to its last entry: %s",
			     path, strerror(errno));
		close(fd);
		return rc;
	}
	*out = journal_new(fd, path, fingerprint, (off_t)res.valid_len, &hdr, (long)rv.n);
	if (!*out) {
		close(fd);
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	}
	return RT_OK;
}

int rt_journal_record_measurement(const rt_journal_record *rec, rt_measurement *out)
{
	*out = rec->m;
	out->samples = NULL;
	if (rec->m.nsamples > 0) {
		size_t bytes = sizeof *out->samples * (size_t)rec->m.nsamples;
		out->samples = malloc(bytes);
		if (!out->samples)
			return RT_ENOMEM;
		memcpy(out->samples, rec->m.samples, bytes);
	}
	return RT_OK;
}

int rt_journal_is_trial(const rt_journal_record *r, const char *fingerprint, const rt_workload *w,
			const rt_shape *sh, const rt_point *pt)
{
	return r->workload && !strcmp(r->fingerprint, fingerprint) &&
	       !strcmp(r->workload->name, w->name) && rt_shape_equal(&r->shape, sh) &&
	       rt_point_equal(&r->point, pt);
}

int rt_journal_is_command_trial(const rt_journal_record *r, const char *fingerprint,
				const char *hash, const rt_cmd_point *pt)
{
	return !r->workload && !strcmp(r->fingerprint, fingerprint) && !strcmp(r->command, hash) &&
	       rt_cmd_point_equal(&r->knobs, pt);
}

const rt_journal_record *rt_journal_find(const rt_journal_record *records, size_t n,
					 const char *fingerprint, const rt_workload *w,
					 const rt_shape *sh, const rt_point *pt)
{
	for (size_t i = n; i-- > 0;)
		if (records[i].role != RT_TRIAL_AGAIN &&
		    rt_journal_is_trial(&records[i], fingerprint, w, sh, pt))
			return &records[i];
	return NULL;
}

const rt_journal_record *rt_journal_find_knobs(const rt_journal_record *records, size_t n,
					       const char *fingerprint, const char *hash,
					       const rt_cmd_point *pt)
{
	for (size_t i = n; i-- > 0;)
		if (rt_journal_is_command_trial(&records[i], fingerprint, hash, pt))
			return &records[i];
	return NULL;
}
