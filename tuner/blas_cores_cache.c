/*
 * blas_cores_cache.c: the kernel sets' figures kept between tunes
 * (blas_cores.h). One small YAML file per machine fingerprint in the cache
 * directory; it is data a tune wrote, read back with every value checked,
 * and trusted only while what it was measured on is unchanged.
 */
#include "blas_cores.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../common/rt.h"
#include "output.h"
#include "yamlr.h"
#include "yamlw.h"

#define CACHE_SCHEMA 1
/* A month: long enough for sweeps and checks, short enough to see a BIOS or microcode change. */
#define MAX_AGE_S (30L * 86400)
/* No CPU core's SGEMM comes near this; a larger figure is not one tune wrote. */
#define MAX_GFLOPS 1e5

/* What the figures hold for: the machine as tune compares it, and the library file as it is. */
typedef struct cache_key {
	char fingerprint[17];
	const char *file;
	long long bytes, mtime;
} cache_key;

static void key_of(const rt_machine *m, cache_key *k)
{
	struct stat st;
	rt_machine_fingerprint(m, k->fingerprint);
	k->file = m->blas_file;
	k->bytes = k->mtime = -1;
	if (m->blas_file[0] && !stat(m->blas_file, &st)) {
		k->bytes = (long long)st.st_size;
		k->mtime = (long long)st.st_mtime;
	}
}

/* The cache directory (blas_cores.h). */
int rt_cache_dir(char *buf, size_t len)
{
	const char *own = getenv("RIGTUNE_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (own && own[0])
		n = snprintf(buf, len, "%s", own);
	else if (xdg && xdg[0] == '/') /* the XDG spec: a relative one is ignored */
		n = snprintf(buf, len, "%s/rigtune", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.cache/rigtune", home);
	else
		return RT_EUNAVAIL;
	return n > 0 && (size_t)n < len ? RT_OK : RT_EUNAVAIL;
}

/*
 * The cache file of k (into buf) in the cache directory (into dir, PATH_MAX
 * bytes); RT_EUNAVAIL when there is no cache directory.
 */
static int cache_path(const cache_key *k, char *dir, char *buf, size_t len)
{
	if (rt_cache_dir(dir, PATH_MAX))
		return RT_EUNAVAIL;
	int n = snprintf(buf, len, "%s/blas-kernels-%s.yaml", dir, k->fingerprint);
	return n > 0 && (size_t)n < len ? RT_OK : RT_EUNAVAIL;
}

/* Whether the file's key and candidates are k's and c's, each value in its range. */
static int matches(rt_yr *r, const rt_ynode *root, const cache_key *k, double seconds,
		   const rt_blas_cores *c)
{
	const char *fp, *file;
	long schema, bytes, mtime;
	double secs;
	if (rt_yr_need_int(r, root, "rigtune_blas_kernels", 0, 1000, &schema) ||
	    schema != CACHE_SCHEMA || rt_yr_need_str(r, root, "fingerprint", &fp) ||
	    strcmp(fp, k->fingerprint) || rt_yr_need_str(r, root, "library", &file) ||
	    strcmp(file, k->file) || rt_yr_need_int(r, root, "bytes", -1, LONG_MAX, &bytes) ||
	    bytes != k->bytes || rt_yr_need_int(r, root, "mtime", -1, LONG_MAX, &mtime) ||
	    mtime != k->mtime || rt_yr_need_num(r, root, "seconds", &secs) || secs != seconds)
		return 0;
	const rt_ynode *g;
	if (rt_yr_need(r, root, "gflops", YAML_MAPPING_NODE, &g) || rt_yr_npairs(g) != c->n)
		return 0;
	for (int i = 0; i < c->n; i++) {
		const rt_ynode *key, *value;
		rt_yr_pair(r, g, i, &key, &value);
		const char *name = rt_yr_scalar(key);
		if (!name || strcmp(name, c->core[i]))
			return 0;
	}
	return 1;
}

/* The figures of a matching file into c (measured: its time), 1; else 0, c unchanged. */
static int read_figures(rt_yr *r, const rt_ynode *root, rt_blas_cores *c)
{
	long measured;
	long now = (long)time(NULL);
	double g[RT_BLAS_MAX_CORES];
	if (rt_yr_need_int(r, root, "measured", 0, now + 60, &measured) ||
	    now - measured > MAX_AGE_S)
		return 0;
	const rt_ynode *map = rt_yr_get(r, root, "gflops");
	for (int i = 0; i < c->n; i++) {
		const rt_ynode *key, *value;
		rt_yr_pair(r, map, i, &key, &value);
		if (rt_yr_number(r, value, "gflops", &g[i]) || !(g[i] >= 0 && g[i] <= MAX_GFLOPS))
			return 0;
	}
	memcpy(c->gflops, g, sizeof(double) * (size_t)c->n);
	time_t t = (time_t)measured;
	strftime(c->measured, sizeof c->measured, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	return 1;
}

int rt_blas_cores_load(const rt_machine *m, double seconds, rt_blas_cores *c)
{
	cache_key k;
	char err[RT_ERRLEN];
	rt_yr r;
	key_of(m, &k);
	char dir[PATH_MAX];
	if (cache_path(&k, dir, c->kept, sizeof c->kept))
		return 0;
	struct stat st;
	if (stat(c->kept, &st) || !S_ISREG(st.st_mode) || rt_yr_load_file(&r, c->kept, err, sizeof err))
		return 0; /* none yet, or not one a tune wrote: measured again, written over */
	const rt_ynode *root = rt_yr_root(&r);
	int ok = matches(&r, root, &k, seconds, c) && read_figures(&r, root, c);
	rt_yr_free(&r);
	return ok;
}

/* c's figures as the cache file's text (malloc'd into *text). */
static int cache_text(const cache_key *k, double seconds, const rt_blas_cores *c, char **text,
		      size_t *len, char *err, size_t errlen)
{
	rt_yw w;
	RT_TRY(rt_yw_start_doc(&w, "rigtune_blas_kernels", CACHE_SCHEMA, err, errlen));
	rt_yw_kstr(&w, "fingerprint", k->fingerprint);
	rt_yw_kstr(&w, "library", k->file);
	rt_yw_kint(&w, "bytes", k->bytes);
	rt_yw_kint(&w, "mtime", k->mtime);
	rt_yw_knum(&w, "seconds", seconds, 6);
	rt_yw_kint(&w, "measured", (long long)time(NULL));
	rt_yw_str(&w, "gflops");
	rt_yw_map(&w, 1);
	for (int i = 0; i < c->n; i++)
		rt_yw_knum(&w, c->core[i], c->gflops[i], 6);
	rt_yw_end_map(&w);
	rt_yw_end_map(&w);
	return rt_yw_finish(&w, text, len, err, errlen);
}

void rt_blas_cores_store(const rt_machine *m, double seconds, rt_blas_cores *c)
{
	cache_key k;
	char path[PATH_MAX], dir[PATH_MAX], *text = NULL;
	size_t len;
	char *err = c->not_kept;
	size_t errlen = sizeof c->not_kept;
	key_of(m, &k);
	if (cache_path(&k, dir, path, sizeof path)) {
		rt_fail(err, errlen, RT_EUNAVAIL,
			"no cache directory (RIGTUNE_CACHE_DIR, XDG_CACHE_HOME, HOME)");
		return;
	}
	if (rt_make_dirs(dir, 0700, err, errlen) ||
	    cache_text(&k, seconds, c, &text, &len, err, errlen) ||
	    rt_write_file(path, text, len, err, errlen) ||
	    snprintf(c->kept, sizeof c->kept, "%s", path) >= (int)sizeof c->kept)
		c->kept[0] = '\0';
	free(text);
}
