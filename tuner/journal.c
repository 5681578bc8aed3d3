#include "journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "params.h"
#include "report.h"

#define JOURNAL_VERSION "1"

struct rt_journal {
	int fd;
	off_t size; /* bytes of complete documents: where a failed append cuts back to */
	char fingerprint[17];
	char path[];
};

/* ---------------------------------------------------------------- writing */

/* mkdir -p: creates every missing directory of path. */
static int make_dirs(const char *path, char *err, size_t errlen)
{
	char *copy = strdup(path);
	if (!copy)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	for (char *s = copy + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(copy, 0755);
		*s = '/';
	}
	int rc = RT_OK;
	if (mkdir(copy, 0755) && errno != EEXIST)
		rc = rt_fail(err, errlen, RT_EIO, "cannot create directory %s: %s", path,
			     strerror(errno));
	free(copy);
	return rc;
}

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

/* A journal on fd (which it now owns) named path; NULL when out of memory. */
static rt_journal *journal_new(int fd, const char *path, const char *fingerprint, off_t size)
{
	rt_journal *j = malloc(sizeof *j + strlen(path) + 1);
	if (!j)
		return NULL;
	j->fd = fd;
	j->size = size;
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
		*fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (*fd >= 0) {
			*path = p;
			return RT_OK;
		}
		if (errno != EEXIST)
			break;
	}
	int rc = rt_fail(err, errlen, RT_EIO, "cannot create %s: %s", p, strerror(errno));
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
	int rc = make_dirs(dir, err, errlen);
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
	rt_journal *j = journal_new(fd, path, fingerprint, 0);
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

int rt_journal_append(rt_journal *j, const rt_workload *w, const rt_point *pt,
		      const rt_shape *sh, const rt_measurement *m, char *err, size_t errlen)
{
	rt_yw y;
	int rc = rt_yw_init(&y);
	if (rc) {
		rt_yw_discard(&y);
		return rt_fail(err, errlen, rc, "cannot start the YAML emitter");
	}
	rt_yw_map(&y, 0);
	rt_yw_kstr(&y, "fingerprint", j->fingerprint);
	rt_emit_measurement_fields(&y, w, pt, sh, m, 1);
	rt_yw_end_map(&y);
	char *text;
	size_t len;
	rc = rt_yw_finish(&y, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = append_doc(j, text, len, err, errlen);
	free(text);
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

/* Where a document is decoded, for messages "FILE:LINE:COLUMN: ...". */
typedef struct reader {
	const char *path;
	yaml_document_t *doc;
	char *err;
	size_t errlen;
} reader;

static int bad_at(const reader *r, yaml_mark_t mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad_at(const reader *r, yaml_mark_t mark, const char *fmt, ...)
{
	char msg[RT_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return rt_fail(r->err, r->errlen, RT_EINVAL, "%s:%zu:%zu: %s", r->path, mark.line + 1,
		       mark.column + 1, msg);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *lookup(const reader *r, const yaml_node_t *map, const char *key)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(yaml_document_get_node(r->doc, p->key));
		if (k && !strcmp(k, key))
			return yaml_document_get_node(r->doc, p->value);
	}
	return NULL;
}

/* Every key of map is a scalar among the n names of allowed. */
static int only_keys(const reader *r, const yaml_node_t *map, const char *what,
		     const char *const *allowed, size_t n)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = yaml_document_get_node(r->doc, p->key);
		const char *k = scalar(kn);
		if (!k)
			return bad_at(r, kn->start_mark, "%s: a key must be a plain name", what);
		size_t i = 0;
		while (i < n && strcmp(allowed[i], k))
			i++;
		if (i == n)
			return bad_at(r, kn->start_mark, "%s: unknown key '%s'", what, k);
	}
	return RT_OK;
}

static const char *const type_names[] = {
	[YAML_SCALAR_NODE] = "a scalar",
	[YAML_SEQUENCE_NODE] = "a sequence",
	[YAML_MAPPING_NODE] = "a mapping",
};

/* The value of key in map, which must be there and of the given type. */
static int need(const reader *r, const yaml_node_t *map, const char *key,
		yaml_node_type_t type, yaml_node_t **out)
{
	*out = lookup(r, map, key);
	if (!*out)
		return bad_at(r, map->start_mark, "missing key '%s'", key);
	if ((*out)->type != type)
		return bad_at(r, (*out)->start_mark, "%s: expected %s", key, type_names[type]);
	return RT_OK;
}

static int need_str(const reader *r, const yaml_node_t *map, const char *key, const char **s)
{
	yaml_node_t *n;
	int rc = need(r, map, key, YAML_SCALAR_NODE, &n);
	if (rc == RT_OK)
		*s = scalar(n);
	return rc;
}

/* A number as rt_yw_num writes it, the YAML names of NaN and the infinities included. */
static int number(const reader *r, const yaml_node_t *n, const char *what, double *v)
{
	const char *s = scalar(n);
	if (s && !strcmp(s, ".nan"))
		*v = NAN;
	else if (s && (!strcmp(s, ".inf") || !strcmp(s, "-.inf")))
		*v = s[0] == '-' ? -INFINITY : INFINITY;
	else if (!s || rt_parse_double(s, v))
		return bad_at(r, n->start_mark, "%s: expected a number", what);
	return RT_OK;
}

static int need_num(const reader *r, const yaml_node_t *map, const char *key, double *v)
{
	yaml_node_t *n = lookup(r, map, key);
	if (!n)
		return bad_at(r, map->start_mark, "missing key '%s'", key);
	return number(r, n, key, v);
}

static int need_bool(const reader *r, const yaml_node_t *map, const char *key, int *v)
{
	const char *s;
	int rc = need_str(r, map, key, &s);
	if (rc)
		return rc;
	if (strcmp(s, "true") && strcmp(s, "false"))
		return bad_at(r, lookup(r, map, key)->start_mark, "%s: expected true or false",
			      key);
	*v = s[0] == 't';
	return RT_OK;
}

/* The numbers of the sequence at key into a new array (NULL when empty). */
static int need_nums(const reader *r, const yaml_node_t *map, const char *key, double **v,
		     int *n)
{
	yaml_node_t *seq;
	int rc = need(r, map, key, YAML_SEQUENCE_NODE, &seq);
	if (rc)
		return rc;
	yaml_node_item_t *it = seq->data.sequence.items.start;
	*n = (int)(seq->data.sequence.items.top - it);
	*v = NULL;
	if (*n == 0)
		return RT_OK;
	*v = malloc(sizeof **v * (size_t)*n);
	if (!*v)
		return rt_fail(r->err, r->errlen, RT_ENOMEM, "out of memory");
	for (int i = 0; i < *n && rc == RT_OK; i++)
		rc = number(r, yaml_document_get_node(r->doc, it[i]), key, &(*v)[i]);
	if (rc) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return rc;
}

/* One KEY=VALUE through rt_params_apply: the journal checks keys and ranges as the CLI does. */
static int apply(const reader *r, const rt_workload *w, const char *what, yaml_node_t *kn,
		 yaml_node_t *vn, rt_point *pt, rt_shape *sh)
{
	const char *v = scalar(vn);
	if (!v)
		return bad_at(r, vn->start_mark, "%s: expected a scalar", what);
	char arg[128], msg[RT_ERRLEN];
	if ((size_t)snprintf(arg, sizeof arg, "%s=%s", scalar(kn), v) >= sizeof arg)
		return bad_at(r, vn->start_mark, "%s: value too long", what);
	if (rt_params_apply(w, arg, pt, sh, msg, sizeof msg))
		return bad_at(r, vn->start_mark, "%s: %s", what, msg);
	return RT_OK;
}

static const char *const point_keys[] = {"backend", "device",  "precision", "batch",
					 "threads", "workers", "pin"};

static int decode_point(const reader *r, const rt_workload *w, const yaml_node_t *map,
			rt_point *pt, rt_shape *sh)
{
	int rc = only_keys(r, map, "point", point_keys, RT_COUNT(point_keys));
	rt_point_default(pt);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     rc == RT_OK && p < map->data.mapping.pairs.top; p++)
		rc = apply(r, w, "point", yaml_document_get_node(r->doc, p->key),
			   yaml_document_get_node(r->doc, p->value), pt, sh);
	/* device 0 is left out when written; everything else must be there. */
	for (size_t k = 0; rc == RT_OK && k < RT_COUNT(point_keys); k++)
		if (strcmp(point_keys[k], "device") && !lookup(r, map, point_keys[k]))
			rc = bad_at(r, map->start_mark, "point: missing key '%s'", point_keys[k]);
	return rc;
}

static int decode_shape(const reader *r, const rt_workload *w, const yaml_node_t *map,
			rt_point *pt, rt_shape *sh)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = yaml_document_get_node(r->doc, p->key);
		const char *k = scalar(kn);
		if (!k || rt_shape_index(w, k) < 0)
			return bad_at(r, kn->start_mark, "shape: %s has no key '%s'", w->name,
				      k ? k : "?");
		int rc = apply(r, w, "shape", kn, yaml_document_get_node(r->doc, p->value),
			       pt, sh);
		if (rc)
			return rc;
	}
	for (int i = 0; i < w->nkeys; i++)
		if (!lookup(r, map, w->keys[i].name))
			return bad_at(r, map->start_mark, "shape: missing key '%s'",
				      w->keys[i].name);
	return RT_OK;
}

static const char *const throughput_keys[] = {"median", "ci95", "unit", "cv", "unstable"};

static int decode_throughput(const reader *r, const yaml_node_t *map, rt_measurement *m)
{
	yaml_node_t *t;
	const char *unit;
	double *ci = NULL;
	int nci = 0;
	int rc = need(r, map, "throughput", YAML_MAPPING_NODE, &t);
	if (rc == RT_OK)
		rc = only_keys(r, t, "throughput", throughput_keys, RT_COUNT(throughput_keys));
	if (rc == RT_OK)
		rc = need_num(r, t, "median", &m->median);
	if (rc == RT_OK)
		rc = need_nums(r, t, "ci95", &ci, &nci);
	if (rc == RT_OK && nci != 2)
		rc = bad_at(r, lookup(r, t, "ci95")->start_mark, "ci95: expected [low, high]");
	if (rc == RT_OK) {
		m->ci_lo = ci[0];
		m->ci_hi = ci[1];
		rc = need_str(r, t, "unit", &unit);
	}
	if (rc == RT_OK)
		rc = need_num(r, t, "cv", &m->cv);
	if (rc == RT_OK)
		rc = need_bool(r, t, "unstable", &m->unstable);
	free(ci);
	return rc;
}

static int decode_phases(const reader *r, const rt_workload *w, const yaml_node_t *map,
			 rt_measurement *m)
{
	yaml_node_t *ph;
	int rc = need(r, map, "phases", YAML_MAPPING_NODE, &ph);
	if (rc == RT_OK)
		rc = only_keys(r, ph, "phases", w->phase_names, (size_t)w->nphases);
	for (int p = 0; rc == RT_OK && p < w->nphases; p++)
		rc = need_num(r, ph, w->phase_names[p], &m->phase_frac[p]);
	return rc;
}

/* The measured part of a feasible trial; m->samples is set only on success. */
static int decode_feasible(const reader *r, const rt_workload *w, const yaml_node_t *root,
			   rt_measurement *m)
{
	m->feasible = 1;
	int rc = decode_throughput(r, root, m);
	if (rc == RT_OK)
		rc = need_num(r, root, "gflops", &m->gflops);
	if (rc == RT_OK)
		rc = need_num(r, root, "step_seconds", &m->step_seconds);
	if (rc == RT_OK)
		rc = decode_phases(r, w, root, m);
	if (rc == RT_OK)
		rc = need_nums(r, root, "samples", &m->samples, &m->nsamples);
	return rc;
}

static const char *const trial_keys[] = {
	"fingerprint", "workload", "point",  "shape",   "infeasible", "seconds",
	"throughput",  "gflops",   "phases", "samples", "step_seconds"};

static int decode_fingerprint(const reader *r, const yaml_node_t *root, char out[17])
{
	const char *fp;
	int rc = need_str(r, root, "fingerprint", &fp);
	if (rc == RT_OK && (!*fp || strlen(fp) > 16))
		rc = bad_at(r, lookup(r, root, "fingerprint")->start_mark,
			    "fingerprint: expected 1 to 16 characters");
	if (rc == RT_OK)
		strcpy(out, fp);
	return rc;
}

/* A trial document into rec; on failure rec owns nothing. */
static int decode_trial(const reader *r, const yaml_node_t *root, rt_journal_record *rec)
{
	memset(rec, 0, sizeof *rec);
	rec->line = (int)root->start_mark.line + 1;
	if (root->type != YAML_MAPPING_NODE)
		return bad_at(r, root->start_mark, "a trial must be a mapping");
	int rc = only_keys(r, root, "trial", trial_keys, RT_COUNT(trial_keys));
	if (rc == RT_OK)
		rc = decode_fingerprint(r, root, rec->fingerprint);
	const char *name = NULL;
	if (rc == RT_OK)
		rc = need_str(r, root, "workload", &name);
	if (rc == RT_OK && !(rec->workload = rt_workload_find(name)))
		rc = bad_at(r, lookup(r, root, "workload")->start_mark, "unknown workload '%s'",
			    name);
	yaml_node_t *pt, *sh;
	if (rc == RT_OK) {
		rt_shape_default(rec->workload, &rec->shape);
		rc = need(r, root, "point", YAML_MAPPING_NODE, &pt);
	}
	if (rc == RT_OK)
		rc = decode_point(r, rec->workload, pt, &rec->point, &rec->shape);
	if (rc == RT_OK)
		rc = need(r, root, "shape", YAML_MAPPING_NODE, &sh);
	if (rc == RT_OK)
		rc = decode_shape(r, rec->workload, sh, &rec->point, &rec->shape);
	if (rc)
		return rc;

	rt_measurement *m = &rec->m;
	m->nphases = rec->workload->nphases;
	const char *reason;
	if (lookup(r, root, "infeasible")) {
		rc = need_str(r, root, "infeasible", &reason);
		if (rc == RT_OK)
			snprintf(m->reason, sizeof m->reason, "%s", reason);
	} else {
		rc = decode_feasible(r, rec->workload, root, m);
	}
	if (rc == RT_OK)
		rc = need_num(r, root, "seconds", &m->seconds);
	if (rc)
		rt_measurement_free(m);
	return rc;
}

/* machine: is read by `rigtune check` (check_baseline.c), not here. */
static const char *const header_keys[] = {"rigtune_journal", "fingerprint", "host",
					  "started", "command", "machine"};

static int decode_header(const reader *r, const yaml_node_t *root, rt_journal_header *hdr)
{
	const char *version = root->type == YAML_MAPPING_NODE
				      ? scalar(lookup(r, root, "rigtune_journal"))
				      : NULL;
	if (!version)
		return bad_at(r, root->start_mark,
			      "not a rigtune journal (the first document must hold "
			      "rigtune_journal: " JOURNAL_VERSION ")");
	if (strcmp(version, JOURNAL_VERSION))
		return bad_at(r, root->start_mark,
			      "journal version %s; this rigtune reads version " JOURNAL_VERSION,
			      version);
	int rc = only_keys(r, root, "header", header_keys, RT_COUNT(header_keys));
	const char *host, *started, *command;
	if (rc == RT_OK)
		rc = decode_fingerprint(r, root, hdr->fingerprint);
	if (rc == RT_OK)
		rc = need_str(r, root, "host", &host);
	if (rc == RT_OK)
		rc = need_str(r, root, "started", &started);
	if (rc == RT_OK)
		rc = need_str(r, root, "command", &command);
	if (rc == RT_OK) {
		snprintf(hdr->host, sizeof hdr->host, "%s", host);
		snprintf(hdr->started, sizeof hdr->started, "%s", started);
		snprintf(hdr->command, sizeof hdr->command, "%s", command);
	}
	return rc;
}

static void free_measurements(rt_journal_record *records, size_t n)
{
	for (size_t i = 0; i < n; i++)
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

static int read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		int rc = rt_fail(err, errlen, RT_EIO, "cannot read %s: %s", path,
				 strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	}
	/* Read what is there now, even if a writer is appending. */
	for (;;) {
		ssize_t got = read(fd, buf + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int rc = rt_fail(err, errlen, RT_EIO, "cannot read %s: %s", path,
					 strerror(errno));
			free(buf);
			close(fd);
			return rc;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n == cap - 1)
			break;
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return RT_OK;
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
	if (!journal_start(text, len)) {
		yaml_mark_t start = {0, 0, 0};
		rc = bad_at(r, start, "not a rigtune journal (it must begin with \"---\" and "
				      "rigtune_journal: " JOURNAL_VERSION ")");
	}
	while (rc == RT_OK) {
		yaml_document_t doc;
		if (!yaml_parser_load(&p, &doc)) {
			if (!has_end_marker(text, len, res->valid_len))
				res->dropped = 1;
			else
				rc = bad_at(r, p.problem_mark, "%s%s%s",
					    p.context ? p.context : "", p.context ? ": " : "",
					    p.problem ? p.problem : "malformed YAML");
			break;
		}
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		r->doc = &doc;
		if (!root) {
			/* the end of the stream */
		} else if (doc.end_implicit && only_space(text, len, doc.end_mark.index)) {
			res->dropped = 1;
		} else if (doc.end_implicit) {
			rc = bad_at(r, doc.start_mark, "document has no end marker '...'");
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
	int rc = read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	size_t before = rv->n;
	reader r = {path, NULL, err, errlen};
	rc = decode_stream(&r, text, len, rv, hdr ? hdr : &unused, res);
	free(text);
	if (rc) {
		free_measurements(rv->v + before, rv->n - before);
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
	free_measurements(records, n);
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
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return rt_fail(err, errlen, RT_EIO, "cannot open %s: %s", path, strerror(errno));
	/* Cut a torn tail (and anything after the last "..." line) before appending. */
	struct stat st;
	if (fstat(fd, &st) || ((size_t)st.st_size != res.valid_len &&
			       (ftruncate(fd, (off_t)res.valid_len) || fsync(fd)))) {
		rc = rt_fail(err, errlen, RT_EIO, "cannot cut %s back to its last entry: %s",
			     path, strerror(errno));
		close(fd);
		return rc;
	}
	*out = journal_new(fd, path, fingerprint, (off_t)res.valid_len);
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

static int same_point(const rt_point *a, const rt_point *b)
{
	return !strcmp(a->backend, b->backend) && a->device == b->device &&
	       a->precision == b->precision && a->batch == b->batch &&
	       a->threads == b->threads && a->workers == b->workers && a->pin == b->pin;
}

static int same_shape(const rt_shape *a, const rt_shape *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->v[i] != b->v[i])
			return 0;
	return 1;
}

const rt_journal_record *rt_journal_find(const rt_journal_record *records, size_t n,
					 const char *fingerprint, const rt_workload *w,
					 const rt_shape *sh, const rt_point *pt)
{
	for (size_t i = n; i-- > 0;) {
		const rt_journal_record *r = &records[i];
		if (!strcmp(r->fingerprint, fingerprint) && !strcmp(r->workload->name, w->name) &&
		    same_shape(&r->shape, sh) && same_point(&r->point, pt))
			return r;
	}
	return NULL;
}

/* ---------------------------------------------------------------- listing */

typedef struct entry {
	char stamp[16]; /* YYYYmmdd-HHMMSS */
	long seq;       /* 1 for no -N suffix */
	char *path;
} entry;

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return n > 0;
}

/* Whether name is host-YYYYmmdd-HHMMSS[-N].yaml; fills the sort key of e if so. */
static int parse_name(const char *name, const char *host, entry *e)
{
	size_t h = strlen(host);
	if (strncmp(name, host, h) || name[h] != '-')
		return 0;
	const char *s = name + h + 1;
	if (!all_digits(s, 8) || s[8] != '-' || !all_digits(s + 9, 6))
		return 0;
	memcpy(e->stamp, s, 15);
	e->stamp[15] = '\0';
	s += 15;
	e->seq = 1;
	if (*s == '-') {
		size_t d = strspn(s + 1, "0123456789");
		if (d == 0 || d > 6)
			return 0;
		e->seq = strtol(s + 1, NULL, 10);
		s += 1 + d;
	}
	return !strcmp(s, ".yaml");
}

static int entry_cmp(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	int c = strcmp(x->stamp, y->stamp);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* The matching entries of dir, unsorted, each with its malloc'd path. */
static int scan_dir(DIR *d, const char *dir, const char *host, entry **out, size_t *n,
		    char *err, size_t errlen)
{
	entry *v = NULL;
	size_t cap = 0;
	*n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		entry e;
		if (!parse_name(de->d_name, host, &e))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			entry *nv = realloc(v, cap * sizeof *nv);
			if (!nv)
				goto nomem;
			v = nv;
		}
		if (asprintf(&e.path, "%s/%s", dir, de->d_name) < 0)
			goto nomem;
		v[(*n)++] = e;
	}
	*out = v;
	return RT_OK;
nomem:
	for (size_t i = 0; i < *n; i++)
		free(v[i].path);
	free(v);
	return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
}

int rt_journal_list(const char *dir, const char *host, char ***paths, size_t *n, char *err,
		    size_t errlen)
{
	*paths = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d && errno == ENOENT)
		return RT_OK;
	if (!d)
		return rt_fail(err, errlen, RT_EIO, "cannot read %s: %s", dir, strerror(errno));
	entry *v = NULL;
	size_t count = 0;
	int rc = scan_dir(d, dir, host, &v, &count, err, errlen);
	closedir(d);
	if (rc || count == 0) {
		free(v);
		return rc;
	}
	qsort(v, count, sizeof *v, entry_cmp);
	char **p = malloc(count * sizeof *p);
	if (!p) {
		for (size_t i = 0; i < count; i++)
			free(v[i].path);
		free(v);
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < count; i++)
		p[i] = v[i].path;
	free(v);
	*paths = p;
	*n = count;
	return RT_OK;
}

void rt_journal_list_free(char **paths, size_t n)
{
	if (!paths)
		return;
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

int rt_journal_latest(const char *dir, const char *host, char *path_out, size_t len,
		      char *err, size_t errlen)
{
	char **paths;
	size_t n;
	int rc = rt_journal_list(dir, host, &paths, &n, err, errlen);
	if (rc)
		return rc;
	if (n == 0)
		rc = rt_fail(err, errlen, RT_EINVAL, "no journal of %s in %s", host, dir);
	else if ((size_t)snprintf(path_out, len, "%s", paths[n - 1]) >= len)
		rc = rt_fail(err, errlen, RT_EINVAL, "journal path too long: %s", paths[n - 1]);
	rt_journal_list_free(paths, n);
	return rc;
}
