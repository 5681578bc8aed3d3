/* Uploading files to the store: a journal's trials, a check result; tune's live upload. */
#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check/check_result.h"
#include "../cli.h"
#include "store_sql.h"

/* How far ahead of this machine's clock a file's time may be: a skew, not the future. */
#define CLOCK_SKEW_S 600

/*
 * A file's time (key: when), as the store orders a node's results by it:
 * RT_EINVAL when it is not a UTC time, or later than now and a clock's skew.
 * A time to come would put the file first for good, above every later result
 * of the node in fleet report and fleet check.
 */
static int time_ok(const char *path, const char *key, const char *when, char *err,
		   size_t errlen)
{
	struct tm tm = {0};
	const char *end = when ? strptime(when, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	if (!end || *end)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s: %s: not a UTC time (YYYY-MM-DDTHH:MM:SSZ)", path, key);
	time_t t = timegm(&tm), now = time(NULL);
	char clock[32];
	strftime(clock, sizeof clock, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (t > now + CLOCK_SKEW_S)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s: %s: %s is in the future (this machine's clock says %s): the "
			       "store orders a node's results by it, and it would hide every later "
			       "one; fix the clock that wrote it, or the file",
			       path, key, when, clock);
	return RT_OK;
}

/* Whether two host names are one machine's: the same, or the same up to a first dot. */
static int same_host(const char *a, const char *b)
{
	size_t na = strcspn(a, "."), nb = strcspn(b, ".");
	return !strcmp(a, b) || (na == nb && !strncmp(a, b, na));
}

/*
 * The journal's host against the node it is filed under: the node itself,
 * or this machine (a node that Slurm calls otherwise than its host name
 * pushes its own journals). Anything else is another machine's trials
 * filed under the wrong node: RT_EINVAL.
 */
static int host_ok(const char *path, const char *host, const char *node, char *err,
		   size_t errlen)
{
	char here[64], shown[64];
	rt_fleet_default_node(here, sizeof here);
	if (same_host(host, node) || same_host(host, here))
		return RT_OK;
	rt_printable(shown, sizeof shown, host);
	return rt_fail(err, errlen, RT_EINVAL,
		       "%s: measured on host %s, which is neither the node it would be filed under "
		       "(%s) nor this machine (%s): push it with --node %s, or on %s",
		       path, shown, node, here, shown, shown);
}

static int push_journal(rt_store *s, const char *node, const char *path, rt_store_counts *c,
			char *err, size_t errlen)
{
	rt_journal_record *recs = NULL;
	rt_journal_header hdr;
	size_t n = 0;
	int rc = rt_journal_load(path, &recs, &n, NULL, &hdr, err, errlen);
	if (!rc)
		rc = time_ok(path, "started", hdr.started, err, errlen);
	if (!rc)
		rc = host_ok(path, hdr.host, node, err, errlen);
	for (size_t i = 0; !rc && i < n; i++) {
		int added = 0;
		rc = rt_store_put_trial(s, node, &hdr, path, (long)i, &recs[i], &added, err, errlen);
		*(added ? &c->added : &c->present) += 1;
	}
	rt_journal_records_free(recs, n);
	return rc;
}

/* The point of a check that changed most for the worse: its index, or -1. */
static int worst_point(const rt_checkdoc *d)
{
	int worst = -1;
	for (int i = 0; i < d->npoints; i++) {
		const rt_checkdoc_point *p = &d->points[i];
		if (!rt_verdict_is_regression(p->verdict))
			continue;
		if (worst < 0 || (p->has_ratio && (!d->points[worst].has_ratio ? 0
						   : p->ratio < d->points[worst].ratio)))
			worst = i;
	}
	return worst;
}

/* The check's points and machine diff, beside its row k (node, generated, baseline). */
static int push_check_rows(rt_store *s, const rt_checkdoc *d, const char *const k[3], char *err,
			   size_t errlen)
{
	int rc = RT_OK;
	for (int i = 0; !rc && i < d->npoints; i++) {
		const rt_checkdoc_point *p = &d->points[i];
		char idx[16], point[512], b[32], nw[32], r[32];
		snprintf(idx, sizeof idx, "%d", i);
		snprintf(point, sizeof point, "%s (%s)", p->point, p->curve ? p->curve : p->roles);
		const char *v[] = {k[0], k[1], k[2], idx, p->workload, point, p->unit,
				   rt_store_num(b, sizeof b, p->base_median),
				   rt_store_num(nw, sizeof nw, p->now_median),
				   p->has_ratio ? rt_store_num(r, sizeof r, p->ratio) : NULL,
				   rt_verdict_name(p->verdict),
				   p->reason};
		rc = rt_store_exec(s,
				   "INSERT INTO rigtune_check_points (node, generated, baseline, idx, "
				   "workload, point, unit, base_median, now_median, ratio, verdict, "
				   "reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
				   12, v, NULL, err, errlen);
	}
	for (int i = 0; !rc && i < d->ndiff; i++) {
		const char *v[] = {k[0], k[1], k[2], d->diff[i].field, d->diff[i].before,
				   d->diff[i].after};
		rc = rt_store_exec(s,
				   "INSERT INTO rigtune_check_diffs (node, generated, baseline, field, "
				   "before, after) VALUES ($1, $2, $3, $4, $5, $6)",
				   6, v, NULL, err, errlen);
	}
	return rc;
}

/* One check result in one transaction: its row, and its points and diff if the row is new. */
static int push_check(rt_store *s, const char *node, const char *path, rt_store_counts *c,
		      char *err, size_t errlen)
{
	rt_checkdoc d;
	int rc = rt_checkdoc_load(path, &d, err, errlen);
	if (rc)
		return rc;
	if ((rc = time_ok(path, "generated", d.generated, err, errlen))) {
		rt_checkdoc_free(&d);
		return rc;
	}
	char host[64], regs[16], ratio[32], wpoint[512] = "";
	rt_fleet_default_node(host, sizeof host);
	int w = worst_point(&d);
	snprintf(regs, sizeof regs, "%d", rt_verdict_regressions(d.counts));
	if (w >= 0)
		snprintf(wpoint, sizeof wpoint, "%s %s", d.points[w].workload, d.points[w].point);
	const char *k[] = {node, d.generated, d.baseline};
	const char *v[] = {node, d.generated, d.baseline, host, d.result, regs,
			   w >= 0 && d.points[w].has_ratio
				   ? rt_store_num(ratio, sizeof ratio, d.points[w].ratio)
				   : NULL,
			   w >= 0 ? wpoint : NULL};
	PGresult *r = NULL;
	if (rt_store_reconnect(s))
		rc = rt_store_error(s, err, errlen);
	if (!rc)
		rc = rt_store_exec(s, "BEGIN", 0, NULL, NULL, err, errlen);
	if (!rc)
		rc = rt_store_exec(s,
				   "INSERT INTO rigtune_checks (node, generated, baseline, host, "
				   "result, regressions, worst_ratio, worst_point) VALUES ($1, $2, $3, "
				   "$4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
				   8, v, &r, err, errlen);
	int added = !rc && atoi(PQcmdTuples(r)) > 0;
	PQclear(r);
	if (added)
		rc = push_check_rows(s, &d, k, err, errlen);
	rc = rt_store_end(s, rc, err, errlen);
	if (!rc)
		*(added ? &c->added : &c->present) += 1;
	rt_checkdoc_free(&d);
	return rc;
}

/* What kind of file path is, from its first key (rt_store_sniff). */
static int sniff(const char *path, char *err, size_t errlen, int *kind)
{
	char head[1024];
	int rc = rt_read_head(path, head, sizeof head, err, errlen);
	if (rc)
		return rc == RT_EIO ? RT_EINVAL : rc;
	*kind = rt_store_sniff(head);
	return *kind ? RT_OK
		     : rt_fail(err, errlen, RT_EINVAL,
			       "%s: neither a journal (rigtune_journal:) nor a check result "
			       "(rigtune_check:)", path);
}

int rt_store_sniff(const char *head)
{
	for (const char *line = head; *line;) {
		size_t len = strcspn(line, "\n");
		if (!strncmp(line, "rigtune_journal:", 16))
			return 'j';
		if (!strncmp(line, "rigtune_check:", 14))
			return 'c';
		if ((len != 3 || strncmp(line, "---", 3)) && line[0] != '#')
			return 0;
		line += len + (line[len] == '\n');
	}
	return 0;
}

int rt_store_push(rt_store *s, const char *node, const char *path, rt_store_counts *c,
		  char *err, size_t errlen)
{
	int kind;
	int rc = sniff(path, err, errlen, &kind);
	if (rc)
		return rc;
	return kind == 'j' ? push_journal(s, node, path, c, err, errlen)
			   : push_check(s, node, path, c, err, errlen);
}

/* ---------------------------------------------------------------- tune --store */

/* A lost store is tried again at the next trial that comes this long after the last try. */
#define RETRY_S 10.0

static void live_trial(void *ctx, const rt_journal_header *hdr, const char *path, long seq,
		       const rt_journal_record *rec)
{
	rt_store_live *l = ctx;
	char err[RT_ERRLEN];
	int rc = RT_OK;
	if (l->down && rt_now() < l->retry_at) {
		l->missed++;
		return;
	}
	if (!l->store) /* not reached at the start */
		rc = rt_store_open(l->url, &l->store, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_store_put_trial(l->store, l->node, hdr, path, seq, rec, NULL, err,
					sizeof err);
	if (rc == RT_OK) {
		if (l->down && !l->quiet)
			rt_errorf("tune: store: reachable again; the trials it missed: rigtune "
				  "store push %s", path);
		l->down = 0;
		l->uploaded++;
		return;
	}
	l->missed++;
	if (!l->down && !l->quiet)
		rt_errorf("tune: store: %s; trials stay in %s (rigtune store push uploads them)",
			  err, path);
	l->down = 1;
	l->retry_at = rt_now() + RETRY_S;
}

void rt_store_live_start(rt_store_live *l, const char *url, const char *node, int quiet)
{
	char err[RT_ERRLEN];
	*l = (rt_store_live){.url = url, .node = node, .quiet = quiet};
	if (rt_store_open(url, &l->store, err, sizeof err)) {
		if (!quiet)
			rt_errorf("tune: store: %s; tuning goes on, the journal keeps every trial",
				  err);
		l->down = 1;
		l->retry_at = rt_now() + RETRY_S;
	}
	rt_journal_observe(live_trial, l);
}

void rt_store_live_finish(rt_store_live *l, const rt_machine *m, const char *fingerprint,
			  const char *journal)
{
	char err[RT_ERRLEN];
	rt_journal_observe(NULL, NULL);
	int rc = l->store ? RT_OK : rt_store_open(l->url, &l->store, err, sizeof err);
	if (rc == RT_OK && fingerprint[0]) /* the machine was probed */
		rc = rt_store_put_machine(l->store, l->node, m, fingerprint, err, sizeof err);
	if (!l->quiet && (l->missed || rc))
		rt_errorf("tune: store: %ld trial%s uploaded, %ld not%s%s; to upload the rest: "
			  "rigtune store push --store URL --node %s %s",
			  l->uploaded, l->uploaded == 1 ? "" : "s", l->missed, rc ? "; " : "",
			  rc ? err : "", l->node, journal);
	else if (!l->quiet)
		rt_tprintf(stderr, "rigtune: store: %ld trial%s uploaded as node %s\n", l->uploaded,
			l->uploaded == 1 ? "" : "s", l->node);
	rt_store_close(l->store);
	l->store = NULL;
}
