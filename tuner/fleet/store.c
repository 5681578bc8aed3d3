/* The results store: the connection, the schema and its version, a trial, a machine. */
#include <libpq-fe.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fleet.h"
#include "../../workloads/knobs.h"
#include "../cli.h"
#include "store_sql.h"
#include "../../workloads/backend.h"

/*
 * The schema, one step per version: steps[v - 1] takes a database from
 * version v - 1 to v. A later rigtune appends a step; it never edits one.
 */
static const char *const steps[RT_STORE_SCHEMA] = {
	"CREATE TABLE rigtune_machines ("
	" node text NOT NULL, fingerprint text NOT NULL, kind text NOT NULL,"
	" cpu_model text, cores integer, blas_core text, blas text, kernel text,"
	" governor text, microcode text, accelerators text,"
	" recorded timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (node, fingerprint));"
	"CREATE TABLE rigtune_trials ("
	" node text NOT NULL, host text NOT NULL, fingerprint text NOT NULL,"
	" started timestamptz NOT NULL, journal text NOT NULL, seq integer NOT NULL,"
	" workload text NOT NULL, role text NOT NULL, point text NOT NULL, shape text NOT NULL,"
	" unit text, feasible boolean NOT NULL, median float8, ci_lo float8, ci_hi float8,"
	" cv float8, nsamples integer, cause text, reason text,"
	" recorded timestamptz NOT NULL DEFAULT now(),"
	" PRIMARY KEY (node, host, started, journal, seq));"
	"CREATE TABLE rigtune_checks ("
	" node text NOT NULL, generated timestamptz NOT NULL, baseline text NOT NULL,"
	" host text NOT NULL, result text NOT NULL, regressions integer NOT NULL,"
	" worst_ratio float8, worst_point text, recorded timestamptz NOT NULL DEFAULT now(),"
	" PRIMARY KEY (node, generated, baseline));"
	"CREATE TABLE rigtune_check_points ("
	" node text NOT NULL, generated timestamptz NOT NULL, baseline text NOT NULL,"
	" idx integer NOT NULL, workload text NOT NULL, point text NOT NULL, unit text,"
	" base_median float8, now_median float8, ratio float8, verdict text NOT NULL,"
	" reason text, PRIMARY KEY (node, generated, baseline, idx),"
	" FOREIGN KEY (node, generated, baseline) REFERENCES rigtune_checks);"
	"CREATE TABLE rigtune_check_diffs ("
	" node text NOT NULL, generated timestamptz NOT NULL, baseline text NOT NULL,"
	" field text NOT NULL, before text, after text,"
	" PRIMARY KEY (node, generated, baseline, field),"
	" FOREIGN KEY (node, generated, baseline) REFERENCES rigtune_checks);",
};

struct rt_store {
	PGconn *conn;
	char *url; /* what the user gave: the secrets to keep out of messages */
};

/* Replaces every occurrence of secret (n bytes, not inside msg) in msg with "***". */
static void redact_secret(char *msg, size_t len, const char *secret, size_t n)
{
	if (!n)
		return;
	for (char *p = msg; (p = memmem(p, strlen(p), secret, n));) {
		size_t room = len - (size_t)(p - msg); /* from p to the end of the buffer */
		size_t tail = strlen(p + n) + 1;
		if (room < 4) {
			*p = '\0';
			return;
		}
		if (3 + tail > room)
			tail = room - 3; /* cut at the end of the buffer */
		memmove(p + 3, p + n, tail);
		memcpy(p, "***", 3);
		msg[len - 1] = '\0';
		p += 3;
	}
}

/*
 * Each value that follows key in text (up to one of the bytes in stop)
 * redacted from msg: "password=" in a URL's query or a conninfo string.
 */
static void redact_values(char *msg, size_t len, const char *text, const char *key,
			  const char *stop)
{
	for (const char *p = text; (p = strstr(p, key)); p++) {
		const char *v = p + strlen(key);
		char quote[2] = {*v == '\'' || *v == '"' ? *v : '\0', '\0'};
		v += quote[0] != '\0'; /* a quoted value ends at its quote: 'a b' */
		char value[RT_ERRLEN]; /* a copy: text may be msg itself */
		snprintf(value, sizeof value, "%.*s", (int)strcspn(v, quote[0] ? quote : stop), v);
		if (strcmp(value, "***"))
			redact_secret(msg, len, value, strlen(value));
	}
}

/*
 * msg without a credential: the password of the URL's user ("scheme://user:
 * PASSWORD@host"), a password= parameter's value, as the URL spells them
 * (libpq quotes the text it could not decode), and any such forms in msg.
 */
void rt_store_redact(char *msg, size_t len, const char *url)
{
	const char *auth = url ? strstr(url, "://") : NULL;
	if (auth) {
		auth += 3;
		size_t span = strcspn(auth, "?");
		const char *at = NULL; /* the last '@' of the authority (no memrchr on macOS) */
		for (size_t i = span; i-- > 0 && !at;)
			if (auth[i] == '@')
				at = auth + i;
		const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
		if (colon)
			redact_secret(msg, len, colon + 1, (size_t)(at - colon - 1));
	}
	if (url)
		redact_values(msg, len, url, "password=", "& ");
	redact_values(msg, len, msg, "password=", "& \"'");
}

/* "what: MESSAGE": libpq's message on one line, without credentials. */
static int store_fail(const rt_store *s, char *err, size_t errlen, int code, const char *what,
		      const char *message)
{
	char line[RT_ERRLEN];
	snprintf(line, sizeof line, "%.*s", (int)strcspn(message, "\n"), message);
	rt_store_redact(line, sizeof line, s->url);
	return rt_fail(err, errlen, code, "%s: %s", what, line);
}

int rt_store_error(rt_store *s, char *err, size_t errlen)
{
	return store_fail(s, err, errlen, RT_EIO, "the store", PQerrorMessage(s->conn));
}

PGconn *rt_store_conn(rt_store *s)
{
	return s->conn;
}

int rt_store_exec(rt_store *s, const char *sql, int n, const char *const *values,
		  PGresult **out, char *err, size_t errlen)
{
	/* without parameters, PQexec: a schema step is several statements */
	PGresult *r = n ? PQexecParams(s->conn, sql, n, NULL, values, NULL, NULL, 0)
			: PQexec(s->conn, sql);
	ExecStatusType st = PQresultStatus(r);
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		if (out)
			*out = r;
		else
			PQclear(r);
		return RT_OK;
	}
	int rc = store_fail(s, err, errlen, RT_EIO, "the store",
			    r ? PQresultErrorMessage(r) : PQerrorMessage(s->conn));
	PQclear(r);
	return rc;
}

int rt_store_end(rt_store *s, int rc, char *err, size_t errlen)
{
	if (rc == RT_OK)
		return rt_store_exec(s, "COMMIT", 0, NULL, NULL, err, errlen);
	rt_store_exec(s, "ROLLBACK", 0, NULL, NULL, NULL, 0); /* err keeps the first failure */
	return rc;
}

/*
 * A store that another session locks or that answers slowly must not stall
 * a node: a statement waits this long for a lock, runs this long at most,
 * and the store's failure is then a warning (tuning goes on, the journal
 * keeps every trial).
 */
static const char timeouts_sql[] = "SET lock_timeout = '5s'; SET statement_timeout = '60s'";

/* The schema's lock: one session at a time creates or migrates the tables. */
#define SCHEMA_LOCK "2025112401"
/* Tries for it this many times, 100 ms apart. */
#define SCHEMA_LOCK_TRIES 50

/*
 * The schema's advisory lock inside the open transaction, tried without
 * waiting, again for SCHEMA_LOCK_TRIES tenths of a second: a session that
 * holds it for good (or a signal) ends the wait with RT_EIO, never a hang.
 */
static int schema_lock(rt_store *s, char *err, size_t errlen)
{
	for (int i = 0; i < SCHEMA_LOCK_TRIES; i++) {
		PGresult *r;
		RT_TRY(rt_store_exec(s, "SELECT pg_try_advisory_xact_lock(" SCHEMA_LOCK ")", 0,
				     NULL, &r, err, errlen));
		int got = !strcmp(PQgetvalue(r, 0, 0), "t");
		PQclear(r);
		if (got)
			return RT_OK;
		struct timespec tenth = {0, 100000000};
		if (nanosleep(&tenth, NULL) && errno == EINTR)
			break; /* SIGTERM, Ctrl-C: the command is ending */
	}
	return rt_fail(err, errlen, RT_EIO,
		       "the store: another session holds the schema's lock (advisory lock "
		       SCHEMA_LOCK ")");
}

/* The schema's version, 0 when there is none yet (or it cannot be read). */
static int schema_version(rt_store *s)
{
	PGresult *r;
	if (rt_store_exec(s, "SELECT coalesce(max(version), 0) FROM rigtune_schema", 0, NULL, &r,
			  NULL, 0))
		return 0;
	int v = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return v;
}

/*
 * Creates the schema or brings it to RT_STORE_SCHEMA, in one transaction
 * under an advisory lock, so that nodes starting together do it once; a
 * store already at RT_STORE_SCHEMA takes no lock.
 */
static int migrate(rt_store *s, char *err, size_t errlen)
{
	if (schema_version(s) == RT_STORE_SCHEMA)
		return RT_OK;
	PGresult *r = NULL;
	int rc = rt_store_exec(s, "BEGIN", 0, NULL, NULL, err, errlen);
	if (!rc)
		rc = schema_lock(s, err, errlen);
	if (!rc)
		rc = rt_store_exec(s, "CREATE TABLE IF NOT EXISTS rigtune_schema (version integer "
				      "NOT NULL)", 0, NULL, NULL, err, errlen);
	if (!rc)
		rc = rt_store_exec(s, "SELECT coalesce(max(version), 0) FROM rigtune_schema", 0,
				   NULL, &r, err, errlen);
	int version = rc ? 0 : atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (!rc && version > RT_STORE_SCHEMA)
		rc = rt_fail(err, errlen, RT_EINVAL,
			     "the store's schema is version %d, made by a newer rigtune (this one "
			     "knows %d)", version, RT_STORE_SCHEMA);
	for (int v = version + 1; !rc && v <= RT_STORE_SCHEMA; v++) {
		char n[16];
		const char *vals[] = {n};
		snprintf(n, sizeof n, "%d", v);
		rc = rt_store_exec(s, steps[v - 1], 0, NULL, NULL, err, errlen);
		if (!rc)
			rc = rt_store_exec(s, "DELETE FROM rigtune_schema", 0, NULL, NULL, err, errlen);
		if (!rc)
			rc = rt_store_exec(s, "INSERT INTO rigtune_schema VALUES ($1)", 1, vals, NULL,
					   err, errlen);
	}
	rc = rt_store_end(s, rc, err, errlen);
	return rc;
}

/* The server's notices ("relation already exists, skipping") are not the user's business. */
static void quiet_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/*
 * A URL libpq cannot read whole (a misspelt parameter, a bad % escape) is
 * refused: what it would hold is unknown, a password among it (issue 47),
 * and connecting fails on it anyway. libpq's reason is given without what it
 * quotes of the URL (the password may be spelt so that no redaction finds it).
 */
static int unreadable_url(const char *cmd, const char *why)
{
	char reason[200];
	snprintf(reason, sizeof reason, "%.*s", (int)strcspn(why ? why : "", ":\"\n"),
		 why ? why : "");
	return rt_usage_error(cmd, "--store URL: libpq cannot read it (%s); nothing of it is "
				   "shown, as it may hold a password",
			      reason[0] ? reason : "no reason given");
}

int rt_store_url_usage(const char *cmd, const char *url)
{
	char *why = NULL;
	PQconninfoOption *opts = PQconninfoParse(url, &why);
	int has_password = 0;
	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		has_password |= !strcmp(o->keyword, "password") && o->val && o->val[0];
	PQconninfoFree(opts);
	if (!opts) {
		int rc = unreadable_url(cmd, why);
		PQfreemem(why);
		return rc;
	}
	PQfreemem(why);
	if (!has_password)
		return -1;
	return rt_usage_error(cmd,
			      "--store URL holds a password, which every user of this machine can "
			      "read in its command line (ps, /proc/PID/cmdline) and fleet would "
			      "write into the sbatch script: leave it out of the URL and put it in "
			      "~/.pgpass or the file PGPASSFILE names (host:port:db:user:password, "
			      "mode 0600), or in PGPASSWORD");
}

int rt_store_open(const char *url, rt_store **out, char *err, size_t errlen)
{
	*out = NULL;
	rt_store *s = calloc(1, sizeof *s);
	if (!s || !(s->url = strdup(url))) {
		free(s);
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	}
	/* a node must not hang on a dead server: 5 s unless the URL says otherwise */
	const char *keys[] = {"connect_timeout", "application_name", "dbname", NULL};
	const char *vals[] = {"5", "rigtune", url, NULL};
	s->conn = PQconnectdbParams(keys, vals, 1);
	if (PQstatus(s->conn) != CONNECTION_OK) {
		int rc = store_fail(s, err, errlen, RT_EIO, "cannot reach the store",
				    PQerrorMessage(s->conn));
		rt_store_close(s);
		return rc;
	}
	PQsetNoticeProcessor(s->conn, quiet_notice, NULL);
	int rc = rt_store_exec(s, timeouts_sql, 0, NULL, NULL, err, errlen);
	if (!rc)
		rc = migrate(s, err, errlen);
	if (rc) {
		rt_store_close(s);
		return rc;
	}
	*out = s;
	return RT_OK;
}

void rt_store_close(rt_store *s)
{
	if (!s)
		return;
	PQfinish(s->conn);
	free(s->url);
	free(s);
}

int rt_store_reconnect(rt_store *s)
{
	if (PQstatus(s->conn) == CONNECTION_OK)
		return 0;
	PQreset(s->conn);
	return PQstatus(s->conn) == CONNECTION_OK ? 0 : -1;
}

/* ---------------------------------------------------------------- rows */

/* "NVIDIA H100 x8"-like: the hardware that makes nodes of one kind comparable. */
static void kind_of(const rt_machine *m, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s, %d cores", m->cpu_model, m->cores);
	for (int i = 0; i < m->naccel && n < len; i++)
		if (m->accel[i].available && m->accel[i].ndevices &&
		    !rt_backend_on_host(m->accel[i].backend))
			n += (size_t)snprintf(buf + n, len - n, ", %s x%d", m->accel[i].dev[0].name,
					      m->accel[i].ndevices);
}

/* The machine's accelerators: "cuda: NVIDIA H100 (driver 550.54, GEMM on cuBLAS 12.4)". */
static void accelerators_of(const rt_machine *m, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < m->naccel && n < len; i++) {
		const rt_accel *a = &m->accel[i];
		if (!a->available || !a->ndevices || rt_backend_on_host(a->backend))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s: %s (%s%s%sGEMM on %s)", n ? "; " : "",
				      a->backend, a->dev[0].name, a->dev[0].driver[0] ? "driver " : "",
				      a->dev[0].driver, a->dev[0].driver[0] ? ", " : "",
				      a->dev[0].gemm_impl);
	}
}

int rt_store_put_machine(rt_store *s, const char *node, const rt_machine *m,
			 const char *fingerprint, char *err, size_t errlen)
{
	char kind[256], cores[16], blas[80], accel[512];
	kind_of(m, kind, sizeof kind);
	accelerators_of(m, accel, sizeof accel);
	snprintf(cores, sizeof cores, "%d", m->cores);
	snprintf(blas, sizeof blas, "%s %s", m->blas_library, m->blas_version);
	const char *v[] = {node,	 fingerprint, kind,	  m->cpu_model, cores, m->blas_core,
			   blas,	 m->kernel,   m->governor, m->microcode, accel};
	if (rt_store_reconnect(s))
		return rt_store_error(s, err, errlen);
	return rt_store_exec(s,
			     "INSERT INTO rigtune_machines (node, fingerprint, kind, cpu_model, "
			     "cores, blas_core, blas, kernel, governor, microcode, accelerators) "
			     "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
			     "ON CONFLICT DO NOTHING",
			     11, v, NULL, err, errlen);
}

/*
 * "backend=cpu precision=fp32 batch=32 threads=2 workers=0 pin=compact" (the
 * knobs the workload has), or a command's knobs.
 */
static void point_text(const rt_journal_record *rec, char *buf, size_t len)
{
	if (rec->workload)
		rt_point_text(&rec->point, rec->workload, " ", buf, len);
	else
		rt_cmd_point_text(&rec->knobs, " ", buf, len);
}

static void shape_text(const rt_journal_record *rec, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; rec->workload && i < rec->workload->nkeys && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%ld", n ? " " : "",
				      rec->workload->keys[i].name, rec->shape.v[i]);
}

const char *rt_store_num(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		return NULL;
	snprintf(buf, len, "%.17g", v);
	return buf;
}

int rt_store_put_trial(rt_store *s, const char *node, const rt_journal_header *hdr,
		       const char *path, long seq, const rt_journal_record *rec, int *added,
		       char *err, size_t errlen)
{
	char point[RT_CMD_POINT_TEXT], shape[256], seqs[24], workload[64], med[32], lo[32],
		hi[32], cv[32], ns[16];
	const rt_measurement *m = &rec->m;
	const char *base = strrchr(path, '/');
	point_text(rec, point, sizeof point);
	shape_text(rec, shape, sizeof shape);
	snprintf(seqs, sizeof seqs, "%ld", seq);
	snprintf(ns, sizeof ns, "%d", m->feasible ? m->nsamples : 0);
	if (rec->workload)
		snprintf(workload, sizeof workload, "%s", rec->workload->name);
	else
		snprintf(workload, sizeof workload, "command:%s", rec->command);
	const char *v[] = {
		node,
		hdr->host,
		rec->fingerprint,
		hdr->started,
		base ? base + 1 : path,
		seqs,
		workload,
		rt_trial_role_name(rec->role),
		point,
		shape,
		rec->workload ? rec->workload->unit : NULL,
		m->feasible ? "true" : "false",
		m->feasible ? rt_store_num(med, sizeof med, m->median) : NULL,
		m->feasible ? rt_store_num(lo, sizeof lo, m->ci_lo) : NULL,
		m->feasible ? rt_store_num(hi, sizeof hi, m->ci_hi) : NULL,
		m->feasible ? rt_store_num(cv, sizeof cv, m->cv) : NULL,
		ns,
		m->feasible ? NULL : rt_cause_name(m->cause),
		m->feasible ? NULL : m->reason,
	};
	if (rt_store_reconnect(s))
		return rt_store_error(s, err, errlen);
	PGresult *r;
	int rc = rt_store_exec(
		s,
		"INSERT INTO rigtune_trials (node, host, fingerprint, started, journal, seq, "
		"workload, role, point, shape, unit, feasible, median, ci_lo, ci_hi, cv, nsamples, "
		"cause, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
		"$14, $15, $16, $17, $18, $19) ON CONFLICT DO NOTHING",
		19, v, &r, err, errlen);
	if (rc)
		return rc;
	if (added)
		*added = atoi(PQcmdTuples(r)) > 0;
	PQclear(r);
	return RT_OK;
}

void rt_fleet_default_node(char *buf, size_t len)
{
	if (gethostname(buf, len) || !buf[0])
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
}
