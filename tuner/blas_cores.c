/* blas_cores.c: OpenBLAS's kernel sets measured against each other (blas_cores.h). */
#include "blas_cores.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/platform.h"
#include "../common/rt.h"
#include "blas_kernels.h"
#include "contention.h"
#include "usercmd.h"
#include "yamlr.h"

/* A candidate must beat the kernels OpenBLAS runs by this much to be recommended. */
#define MIN_GAIN 1.05

/* The bench's stdout, kept whole (a few hundred lines at most). */
typedef struct out_buf {
	char text[65536];
	size_t len;
} out_buf;

static void keep(void *user, int is_err, const char *line)
{
	out_buf *o = user;
	size_t n = strlen(line);
	if (is_err || o->len + n + 2 > sizeof o->text)
		return;
	memcpy(o->text + o->len, line, n);
	o->len += n;
	o->text[o->len++] = '\n';
	o->text[o->len] = '\0';
}

/*
 * The median of throughput in the bench's YAML (0 when it has none) and the
 * share of the cores other processes took while it measured (0 unknown).
 */
static void figures_of(const out_buf *o, double *gflops, double *contention)
{
	rt_yr r;
	char err[256];
	*gflops = *contention = 0;
	if (rt_yr_load(&r, "rigtune bench's output", o->text, o->len, err, sizeof err))
		return;
	const rt_ynode *root = rt_yr_root(&r);
	const rt_ynode *t = rt_yr_get(&r, root, "throughput");
	if (!t || rt_yr_need_num(&r, t, "median", gflops))
		*gflops = 0;
	if (rt_yr_get(&r, root, "contention") && rt_yr_need_num(&r, root, "contention", contention))
		*contention = 0;
	rt_yr_free(&r);
}

/*
 * One-thread SGEMM at bench's default shape under OPENBLAS_CORETYPE=core:
 * GFLOP/s (0 if failed), and the contention it was measured under.
 */
static int bench_core(const char *core, double seconds, const char *lockdir, double *gflops,
		      double *contention, char *err, size_t errlen)
{
	char exe[PATH_MAX], secs[32], coretype[64], lock[PATH_MAX + 32];
	if (rt_plat_exe_path(exe, sizeof exe))
		snprintf(exe, sizeof exe, "rigtune");
	snprintf(secs, sizeof secs, "%g", seconds);
	snprintf(coretype, sizeof coretype, "OPENBLAS_CORETYPE=%s", core);
	snprintf(lock, sizeof lock, "RIGTUNE_LOCK_DIR=%s", lockdir);
	char *argv[] = {exe, "bench", "gemm", "precision=fp32", "threads=1", "--seconds", secs, NULL};
	char *env[] = {coretype, lock, NULL};
	out_buf *o = calloc(1, sizeof *o);
	if (!o)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	rt_usercmd uc = {.argv = argv, .env = env, .pin = RT_PIN_NONE,
			 .timeout_s = 30 + 4 * seconds, .line = keep, .user = o};
	rt_usercmd_exit x;
	int rc = rt_usercmd_run(&uc, &x, err, errlen);
	*gflops = *contention = 0;
	if (rc == RT_OK)
		figures_of(o, gflops, contention);
	free(o);
	return rc;
}

/* The benches' lock directory and what they left in it, removed. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The fastest of the figures, and its ratio to the kernels OpenBLAS runs. */
static void find_best(rt_blas_cores *c)
{
	c->best = 0;
	for (int i = 1; i < c->n; i++)
		if (c->gflops[i] > c->gflops[c->best])
			c->best = i;
	c->ratio = c->gflops[0] > 0 ? c->gflops[c->best] / c->gflops[0] : 0;
}

/* Each candidate measured in a lock directory of the benches' own. */
static int measure_all(rt_blas_cores *c, double seconds, char *err, size_t errlen)
{
	char lockdir[] = "/tmp/rigtune-blas-XXXXXX";
	if (!mkdtemp(lockdir))
		return rt_fail(err, errlen, RT_ERUNTIME, "cannot make a directory in /tmp: %s",
			       strerror(errno));
	int rc = RT_OK;
	for (int i = 0; i < c->n && !rc; i++) {
		double contention;
		rc = bench_core(c->core[i], seconds, lockdir, &c->gflops[i], &contention, err,
				errlen);
		c->contention = fmax(c->contention, contention);
	}
	remove_dir(lockdir);
	return rc;
}

/*
 * Whether figures measured now may be kept: every set measured, and none
 * while other processes took more of the cores than a trial may lose (a
 * busy moment's figures would stand for a month); else why not, in
 * c->not_kept.
 */
static int keepable(rt_blas_cores *c)
{
	for (int i = 0; i < c->n; i++)
		if (!(c->gflops[i] > 0)) {
			snprintf(c->not_kept, sizeof c->not_kept,
				 "%s's bench gave no figure: measured again next time", c->core[i]);
			return 0;
		}
	if (c->contention > rt_contended_share()) {
		snprintf(c->not_kept, sizeof c->not_kept,
			 "other processes took %.0f%% of the cores while they were measured: "
			 "measured again next time", 100 * c->contention);
		return 0;
	}
	return 1;
}

/* The kernels OpenBLAS runs and the wider ones the CPU allows into c; their count. */
static int candidates(const rt_machine *m, rt_blas_cores *c)
{
	const char *wider[RT_BLAS_MAX_CORES - 1];
	if (strcmp(m->blas_library, "OpenBLAS"))
		return 0;
	int n = rt_blas_kernels_wider(m->blas_core, m->vector_isa, wider, RT_BLAS_MAX_CORES - 1);
	if (!n)
		return 0;
	snprintf(c->core[0], sizeof c->core[0], "%s", m->blas_core);
	for (int i = 0; i < n; i++)
		snprintf(c->core[i + 1], sizeof c->core[0], "%s", wider[i]);
	return c->n = n + 1;
}

int rt_blas_cores_get(const rt_machine *m, double seconds, rt_blas_cores *c, char *err,
		      size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (!candidates(m, c))
		return RT_OK;
	if (!rt_blas_cores_load(m, seconds, c)) {
		RT_TRY(measure_all(c, seconds, err, errlen));
		if (keepable(c))
			rt_blas_cores_store(m, seconds, c);
	}
	find_best(c);
	return RT_OK;
}

const char *rt_blas_cores_pick(const rt_blas_cores *c)
{
	return c->n && c->best > 0 && c->ratio >= MIN_GAIN ? c->core[c->best] : "";
}
