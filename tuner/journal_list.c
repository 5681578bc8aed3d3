/*
 * journal_list.c: the journals of a host in a results directory, by name
 * (host-YYYYmmdd-HHMMSS[-N].yaml), oldest first, the newest one, and the
 * name of the crossover sweep saved beside one (journal.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

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

int rt_journal_sweep_path(const char *journal, int seq, char *buf, size_t len)
{
	size_t n = strlen(journal);
	if (n < 5 || strcmp(journal + n - 5, ".yaml"))
		return RT_EINVAL;
	int w = seq > 1 ? snprintf(buf, len, "%.*s-crossover-%d.csv", (int)(n - 5), journal, seq)
			: snprintf(buf, len, "%.*s-crossover.csv", (int)(n - 5), journal);
	return w < 0 || (size_t)w >= len ? RT_EINVAL : RT_OK;
}
