/*
 * config.c: the configuration, `rigtune tune`'s document (configs/<host>.yaml),
 * in one module: its reader (rt_config_load and the lookups, first) and its
 * writer (rt_config_emit, at the end), so that the two cannot drift apart.
 * The layout is docs/formats/configuration.md.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contention.h"
#include "hints.h"
#include "settings.h"
#include "params.h"
#include "measure_yaml.h"
#include "tune_run.h"
#include "usercmd_knobs.h"

extern char **environ; /* POSIX: the program declares it (macOS's unistd.h does not) */

/* A mapping of scalars into kvs (point: {...}, env: {...}). */
static int decode_kvs(const rt_yr *r, const rt_ynode *map, const char *what, rt_config_kvs *kvs)
{
	int rc = rt_yr_expect(r, map, YAML_MAPPING_NODE, what);
	kvs->n = 0;
	for (int i = 0; rc == RT_OK && i < rt_yr_npairs(map); i++) {
		const rt_ynode *k, *v;
		rt_yr_pair(r, map, i, &k, &v);
		if (!rt_yr_scalar(k) || !rt_yr_scalar(v))
			return rt_yr_bad(r, k, "%s: expected key: value pairs of scalars", what);
		if (kvs->n == RT_CONFIG_MAX_KV)
			return rt_yr_bad(r, k, "%s: more than %d keys", what, RT_CONFIG_MAX_KV);
		kvs->kv[kvs->n++] = (rt_config_kv){rt_yr_scalar(k), rt_yr_scalar(v), v};
	}
	return rc;
}

/* rate: a built-in workload's point (it has a shape), whose median is above 0. */
static int decode_throughput(const rt_yr *r, const rt_ynode *map, int rate, rt_config_point *p)
{
	rt_throughput t;
	int rc = rt_read_throughput(r, map, rate, &t);
	if (rc == RT_OK) {
		p->median = t.median;
		p->ci_lo = t.ci_lo;
		p->ci_hi = t.ci_hi;
		p->cv = t.cv;
		p->unit = t.unit;
	}
	return rc;
}

/* recommended: or fastest: of an entry. */
static int decode_point(const rt_yr *r, const rt_ynode *rec, const char *key, rt_config_point *p)
{
	const rt_ynode *n, *pt;
	int rc = rt_yr_need(r, rec, key, YAML_MAPPING_NODE, &n);
	p->node = n;
	if (rc == RT_OK)
		rc = rt_yr_need(r, n, "point", YAML_MAPPING_NODE, &pt);
	if (rc == RT_OK)
		rc = decode_kvs(r, pt, "point", &p->point);
	/* a user's command has no shape; a built-in workload always writes one */
	const rt_ynode *sh = rt_yr_get(r, n, "shape");
	p->shape.n = 0;
	if (rc == RT_OK && sh)
		rc = decode_kvs(r, sh, "shape", &p->shape);
	if (rc == RT_OK)
		rc = decode_throughput(r, n, sh != NULL, p);
	return rc;
}

static int decode_rec(const rt_yr *r, const rt_ynode *name, const rt_ynode *map,
		      rt_config_rec *rec)
{
	memset(rec, 0, sizeof *rec);
	rec->name = rt_yr_scalar(name);
	rec->node = map;
	if (!rec->name)
		return rt_yr_bad(r, name, "recommendations: a key must be a name");
	int rc = rt_yr_expect(r, map, YAML_MAPPING_NODE, rec->name);
	if (rc)
		return rc;
	const rt_ynode *none = rt_yr_get(r, map, "none");
	if (none) {
		rec->none = rt_yr_scalar(none);
		return rec->none ? RT_OK : rt_yr_bad(r, none, "none: expected a sentence");
	}
	const rt_ynode *env;
	rc = decode_point(r, map, "recommended", &rec->recommended);
	if (rc == RT_OK)
		rc = decode_point(r, map, "fastest", &rec->fastest);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, map, "reason", &rec->reason);
	if (rc == RT_OK)
		rc = rt_yr_need(r, map, "env", YAML_MAPPING_NODE, &env);
	if (rc == RT_OK)
		rc = decode_kvs(r, env, "env", &rec->env);
	return rc;
}

/*
 * tuned: {at, fingerprint, journal} of an entry, each a string where
 * present; the document's own where the entry has no tuned:.
 */
static int decode_tuned(const rt_yr *r, const rt_config *c, rt_config_rec *rec)
{
	const rt_ynode *t = rt_yr_get(r, rec->node, "tuned");
	rec->tuned_at = rt_config_scalar(c, "generated");
	rec->fingerprint = c->fingerprint;
	rec->journal = c->journal;
	if (!t)
		return RT_OK;
	int rc = rt_yr_expect(r, t, YAML_MAPPING_NODE, "tuned");
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, t, "at", &rec->tuned_at);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, t, "fingerprint", &rec->fingerprint);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, t, "journal", &rec->journal);
	return rc;
}

static int decode_recs(const rt_yr *r, const rt_ynode *root, rt_config *c)
{
	const rt_ynode *recs;
	int rc = rt_yr_need(r, root, "recommendations", YAML_MAPPING_NODE, &recs);
	for (int i = 0; rc == RT_OK && i < rt_yr_npairs(recs); i++) {
		const rt_ynode *k, *v;
		rt_yr_pair(r, recs, i, &k, &v);
		if (c->nrecs == RT_CONFIG_MAX_RECS)
			return rt_yr_bad(r, k, "recommendations: more than %d entries",
					 RT_CONFIG_MAX_RECS);
		rc = decode_rec(r, k, v, &c->recs[c->nrecs++]);
	}
	return rc;
}

static int decode_all_tuned(const rt_yr *r, rt_config *c)
{
	int rc = RT_OK;
	for (int i = 0; rc == RT_OK && i < c->nrecs; i++)
		rc = decode_tuned(r, c, &c->recs[i]);
	return rc;
}

/* crossover.replay: where tune saved the sweep's observations, when it did. */
static int decode_replay(const rt_yr *r, rt_config *c)
{
	const rt_ynode *n = c->crossover ? rt_yr_get(r, c->crossover, "replay") : NULL;
	if (!n)
		return RT_OK;
	c->crossover_replay = rt_yr_scalar(n);
	if (!c->crossover_replay || !c->crossover_replay[0])
		return rt_yr_bad(r, n, "crossover.replay: expected the name of a CSV file");
	return RT_OK;
}

static int decode_config(rt_config *c)
{
	const rt_yr *r = &c->yr;
	const rt_ynode *root = rt_yr_root(r);
	int rc = rt_yr_need_schema(r, root, "rigtune", RT_CONFIG_SCHEMA, "a rigtune configuration",
				   "rigtune tune");
	if (rc == RT_OK)
		rc = rt_yr_need(r, root, "machine", YAML_MAPPING_NODE, &c->machine);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, c->machine, "hostname", &c->hostname);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, c->machine, "fingerprint", &c->fingerprint);
	if (rc == RT_OK)
		rc = decode_recs(r, root, c);
	if (rc)
		return rc;
	c->partial = rt_yr_get(r, root, "partial") != NULL;
	c->crossover = rt_yr_get(r, root, "crossover");
	if (rt_yr_is_null(c->crossover))
		c->crossover = NULL;
	c->journal = rt_yr_scalar(rt_yr_at(r, root, "search.journal"));
	rc = decode_all_tuned(r, c);
	return rc ? rc : decode_replay(r, c);
}

int rt_config_load(const char *path, rt_config *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if ((size_t)snprintf(c->path, sizeof c->path, "%s", path) >= sizeof c->path)
		return rt_fail(err, errlen, RT_EINVAL, "path too long: %s", path);
	int rc = rt_yr_load_file(&c->yr, c->path, err, errlen);
	if (rc == RT_OK)
		rc = decode_config(c);
	if (rc)
		rt_config_free(c);
	/* the caller's buffer is gone after this call: later reads get their own */
	c->yr.err = NULL;
	c->yr.errlen = 0;
	return rc;
}

void rt_config_free(rt_config *c)
{
	rt_yr_free(&c->yr);
	c->nrecs = 0;
}

int rt_config_locate(const rt_config *c, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s", name);
	if (access(out, F_OK) == 0 || name[0] == '/')
		return access(out, F_OK) == 0;
	char dir[sizeof c->path];
	snprintf(dir, sizeof dir, "%s", c->path);
	char *slash = strrchr(dir, '/');
	const char *cfgdir = slash ? (*slash = '\0', dir) : ".";
	static const char *const up[] = {"", "/.."};
	for (size_t i = 0; i < RT_COUNT(up); i++) {
		snprintf(out, len, "%s%s/%s", cfgdir, up[i], name);
		if (access(out, F_OK) == 0)
			return 1;
	}
	return 0;
}

const rt_config_rec *rt_config_find(const rt_config *c, const char *name)
{
	for (int i = 0; i < c->nrecs; i++)
		if (!strcmp(c->recs[i].name, name))
			return &c->recs[i];
	return NULL;
}

const char *rt_config_kv_get(const rt_config_kvs *kvs, const char *key)
{
	for (int i = 0; i < kvs->n; i++)
		if (!strcmp(kvs->kv[i].key, key))
			return kvs->kv[i].value;
	return NULL;
}

int rt_config_default_path(char *buf, size_t len)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	if ((size_t)snprintf(buf, len, "configs/%s.yaml", host) >= len)
		return RT_EINVAL;
	return RT_OK;
}

static int apply_kvs(const rt_yr *r, const rt_config_kvs *kvs, const rt_workload *w,
		     rt_point *pt, rt_shape *sh)
{
	for (int i = 0; i < kvs->n; i++) {
		char why[RT_ERRLEN];
		if (rt_params_set(w, kvs->kv[i].key, kvs->kv[i].value, pt, sh, why, sizeof why))
			return rt_yr_bad(r, kvs->kv[i].node, "%s", why);
	}
	return RT_OK;
}

int rt_config_point_decode(const rt_config *c, const rt_config_point *p, const rt_workload *w,
			   rt_point *pt, rt_shape *sh, char *err, size_t errlen)
{
	rt_yr r = rt_yr_with_err(&c->yr, err, errlen);
	rt_point_default(pt);
	rt_shape_default(w, sh);
	int rc = apply_kvs(&r, &p->point, w, pt, sh);
	if (rc == RT_OK)
		rc = apply_kvs(&r, &p->shape, w, pt, sh);
	return rc;
}

int rt_config_command_point(const rt_config *c, const rt_config_point *p, rt_cmd_point *pt,
			    char *err, size_t errlen)
{
	rt_yr r = rt_yr_with_err(&c->yr, err, errlen);
	return rt_cmd_point_decode(&r, rt_yr_get(&r, p->node, "point"), "point", pt);
}

/* ---- what consumers read beyond the fields every one relies on ---- */

const char *rt_config_scalar(const rt_config *c, const char *path)
{
	return rt_yr_scalar(rt_yr_at(&c->yr, rt_yr_root(&c->yr), path));
}

int rt_config_hints(const rt_config *c, const rt_config_rec *rec, const char *framework,
		    const char **lines, int max)
{
	char key[64];
	snprintf(key, sizeof key, "hints.%s", framework);
	const rt_ynode *seq = rt_yr_at(&c->yr, rec->node, key);
	if (seq && seq->type == YAML_MAPPING_NODE) /* {for, lines, ...}, as rt_hints_emit writes */
		seq = rt_yr_get(&c->yr, seq, "lines");
	int n = 0;
	for (int i = 0; i < rt_yr_nitems(seq) && n < max; i++) {
		const char *s = rt_yr_scalar(rt_yr_item(&c->yr, seq, i));
		if (s)
			lines[n++] = s;
	}
	return n;
}

int rt_config_entry_shape(const rt_config *c, const rt_config_rec *rec, const rt_workload *w,
			  rt_shape *sh, char *err, size_t errlen)
{
	rt_yr r = rt_yr_with_err(&c->yr, err, errlen);
	const rt_ynode *map = rt_yr_get(&r, rec->node, "shape");
	rt_shape_default(w, sh);
	for (int i = 0; i < rt_yr_npairs(map); i++) {
		const rt_ynode *k, *v;
		char arg[160], why[RT_ERRLEN];
		rt_yr_pair(&r, map, i, &k, &v);
		snprintf(arg, sizeof arg, "%s=%s", rt_yr_scalar(k) ? rt_yr_scalar(k) : "?",
			 rt_yr_scalar(v) ? rt_yr_scalar(v) : "?");
		if (rt_params_apply_shape(w, arg, sh, why, sizeof why))
			return rt_yr_bad(&r, k, "shape: %s", why);
	}
	return RT_OK;
}

int rt_config_bad(const rt_config *c, const char *path, char *err, size_t errlen,
		  const char *fmt, ...)
{
	char msg[RT_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rt_yr r = rt_yr_with_err(&c->yr, err, errlen);
	const rt_ynode *n = rt_yr_at(&r, rt_yr_root(&r), path);
	if (!n)
		return rt_fail(err, errlen, RT_EINVAL, "%s: %s: %s", c->path, path, msg);
	return rt_yr_bad(&r, n, "%s: %s", path, msg);
}

/* ---- the writer: what `rigtune tune` found, as the document the reader above reads ---- */

#define RUNNER_UPS 3

/*
 * point: {...} and shape values the search varied (num_envs) are in
 * `shape`; a command's point is its knobs, and it has no shape.
 */
static void emit_config(rt_yw *w, const rt_tune_workload *twl, const rt_tune_trial *t)
{
	rt_yw_map(w, 0);
	rt_yw_str(w, "point");
	if (twl->w) {
		rt_emit_point(w, &t->pt, twl->w);
		rt_yw_str(w, "shape");
		rt_emit_shape(w, twl->w, &t->sh);
	} else {
		rt_cmd_point knobs;
		rt_cmd_point_at(twl->space, t->idx, &knobs);
		rt_cmd_point_emit(w, &knobs, 1); /* numbers as numbers, names as names */
	}
	rt_emit_throughput(w, twl->unit, t->median, t->ci_lo, t->ci_hi, t->cv, 0);
	rt_yw_end_map(w);
}

/*
 * The OpenBLAS kernel sets measured (blas_cores.h), where they were:
 * blas_kernels:
 *   runs: Haswell
 *   chosen: Cooperlake
 *   ratio: 1.61
 *   gflops: {Haswell: 75.8, SkylakeX: 120.2, Cooperlake: 121.9}
 *   measured: 2026-11-28T23:47:10Z
 * chosen is null where none was faster by 5%; the env gives it otherwise.
 * measured is there where the figures are an earlier tune's, reused.
 */
static void emit_blas_kernels(rt_yw *w, const rt_blas_cores *c)
{
	if (!c->n)
		return;
	const char *pick = rt_blas_cores_pick(c);
	rt_yw_str(w, "blas_kernels");
	rt_yw_map(w, 0);
	rt_yw_kstr(w, "runs", c->core[0]);
	if (pick[0])
		rt_yw_kstr(w, "chosen", pick);
	else {
		rt_yw_str(w, "chosen");
		rt_yw_null(w);
	}
	rt_yw_knum(w, "ratio", c->ratio, 3);
	rt_yw_str(w, "gflops");
	rt_yw_map(w, 1);
	for (int i = 0; i < c->n; i++)
		rt_yw_knum(w, c->core[i], c->gflops[i], 4);
	rt_yw_end_map(w);
	if (c->measured[0])
		rt_yw_kstr(w, "measured", c->measured);
	rt_yw_end_map(w);
}

/*
 * The crossover's fits of backend's device against the host (fwdevice.h):
 * this tune's, else those of the configuration it writes over (the last
 * tune that fitted one, which the new one keeps). 0 when neither has them.
 */
static int device_fits(const rt_tune_run *run, const rt_config *kept, const char *backend,
		       rt_fw_device_fits *dev)
{
	if (run->xo_fitted)
		return rt_fw_device_fits_of(&run->xo, backend, dev, NULL, 0) == RT_OK;
	if (!kept || !kept->crossover)
		return 0;
	static rt_crossover_doc x; /* large: not on the stack */
	char err[RT_ERRLEN];
	rt_yr r = rt_yr_with_err(&kept->yr, err, sizeof err);
	int found = rt_crossover_read(&r, kept->crossover, &x) == RT_OK &&
		    rt_fw_device_fits_of_doc(&x, backend, dev, NULL, 0) == RT_OK;
	rt_crossover_doc_free(&x);
	return found;
}

/*
 * What to export and what to tell each framework, by its threading model
 * (hints.h), an RL library's device from the crossover's fits of the point's
 * device where there are some (device_fits).
 */
static void emit_hints(rt_yw *w, const rt_tune_run *run, const rt_config *kept,
		       const rt_tune_workload *twl, const rt_tune_trial *t)
{
	static rt_hints h; /* large: not on the stack */
	rt_fw_device_fits dev;
	int fitted = device_fits(run, kept, t->pt.backend, &dev);
	rt_hints_for(&run->frameworks, twl->w, &t->pt, &t->sh, fitted ? &dev : NULL, &h);
	const char *core = rt_blas_cores_pick(&run->blas);
	if (core[0] && h.nenv < RT_HINTS_MAX_ENV) {
		snprintf(h.env_name[h.nenv], sizeof h.env_name[0], "OPENBLAS_CORETYPE");
		snprintf(h.env_value[h.nenv++], sizeof h.env_value[0], "%s", core);
	}
	rt_hints_emit(w, &h);
	emit_blas_kernels(w, &run->blas);
}

/* A command's environment at the knee, and the command line it ran. */
static void emit_command_run(rt_yw *w, const rt_tune_run *run, const rt_tune_workload *twl,
			     const rt_tune_trial *t)
{
	rt_usercmd_env env;
	char line[4096];
	rt_tune_command_env(twl->space, t->idx, &run->machine, &env);
	rt_yw_str(w, "env");
	rt_yw_map(w, 0);
	for (int i = 0; i < env.n; i++) {
		char name[RT_CMD_ENV_LEN];
		size_t k = strcspn(env.var[i], "=");
		snprintf(name, sizeof name, "%.*s", (int)k, env.var[i]);
		rt_yw_kstr(w, name, env.var[i] + k + 1);
	}
	const char *core = rt_blas_cores_pick(&run->blas);
	if (core[0])
		rt_yw_kstr(w, "OPENBLAS_CORETYPE", core);
	rt_yw_end_map(w);
	emit_blas_kernels(w, &run->blas);
	if (rt_tune_command_argv(twl->cmd, twl->space, t->idx, line, sizeof line) == RT_OK)
		rt_yw_kstr(w, "run", line);
}

/* A mask of precisions as a flow sequence: [fp32, tf32]. */
static void emit_precision_list(rt_yw *w, const char *key, unsigned mask)
{
	rt_yw_str(w, key);
	rt_yw_seq(w, 1);
	for (int q = 0; q < RT_NPRECISION; q++)
		if (mask & RT_PREC_BIT(q))
			rt_yw_str(w, rt_precision_name((rt_precision)q));
	rt_yw_end_seq(w);
}

/*
 * precisions: per backend measured, what its device offers, what was tried,
 * why the others were not, and each against fp32 (tune_precisions.c):
 *   sim: {offered: [...], tried: [...], not_tried: {fp64: not in the space}, vs_fp32: {...}}
 */
static void emit_precisions(rt_yw *w, const rt_tune_precisions *pr, int n)
{
	rt_yw_str(w, "precisions");
	rt_yw_map(w, 0);
	for (int b = 0; b < n; b++) {
		const rt_tune_precisions *e = &pr[b];
		rt_yw_str(w, e->backend);
		rt_yw_map(w, 1);
		emit_precision_list(w, "offered", e->offered);
		emit_precision_list(w, "tried", e->tried);
		rt_yw_str(w, "not_tried");
		rt_yw_map(w, 1);
		for (int q = 0; q < RT_NPRECISION; q++)
			if (e->why_not[q][0])
				rt_yw_kstr(w, rt_precision_name((rt_precision)q), e->why_not[q]);
		rt_yw_end_map(w);
		rt_yw_str(w, "vs_fp32");
		rt_yw_map(w, 1);
		for (int q = 0; q < RT_NPRECISION; q++)
			if (e->vs_fp32[q] > 0)
				rt_yw_knum(w, rt_precision_name((rt_precision)q), e->vs_fp32[q], 3);
		rt_yw_end_map(w);
		rt_yw_end_map(w);
	}
	rt_yw_end_map(w);
}

/* The runner-ups: the fastest feasible trials after the best, excluding the knee. */
static void emit_runner_ups(rt_yw *w, const rt_tune_workload *twl, const rt_tune_trial *best,
			    const rt_tune_trial *knee)
{
	int skip[2] = {(int)(best - twl->trials), (int)(knee - twl->trials)}, top[RUNNER_UPS];
	RT_BUG_ON(skip[0] < 0 || skip[0] >= twl->ntrials || skip[1] < 0 || skip[1] >= twl->ntrials);
	int n = rt_tune_top_trials(twl, skip, 2, top, RUNNER_UPS);
	rt_yw_str(w, "runner_ups");
	rt_yw_seq(w, 0);
	for (int i = 0; i < n; i++) {
		RT_BUG_ON(top[i] < 0 || top[i] >= twl->ntrials);
		emit_config(w, twl, &twl->trials[top[i]]);
	}
	rt_yw_end_seq(w);
}

/*
 * The knobs the knee brought down from the best point, as "batch=64,
 * threads=2" (knee), "batch=256, threads=16" (best) and "a smaller batch,
 * fewer threads" (how).
 */
typedef struct knee_words {
	char knee[192], best[192], how[192];
} knee_words;

static void describe_knee(const rt_space *s, const int *knee, const int *best, knee_words *kw)
{
	int params[RT_SPACE_MAX_PARAMS], n = rt_knee_params(s, params);
	memset(kw, 0, sizeof *kw);
	for (int i = 0; i < n; i++) {
		int p = params[i];
		const char *name = rt_space_name(s, p);
		char one[64];
		if (knee[p] == best[p])
			continue;
		snprintf(one, sizeof one, "%s=%ld", name, rt_space_int_at(s, p, knee[p]));
		rt_list_append(kw->knee, sizeof kw->knee, ", ", one);
		snprintf(one, sizeof one, "%s=%ld", name, rt_space_int_at(s, p, best[p]));
		rt_list_append(kw->best, sizeof kw->best, ", ", one);
		snprintf(one, sizeof one, rt_space_role(s, p) == RT_ROLE_SATURATING ? "a smaller %s"
										     : "fewer %s",
			 name);
		rt_list_append(kw->how, sizeof kw->how, ", ", one);
	}
}

/*
 * What telling a command's leaders apart did (tune.c), for the reason:
 * "; its 3 leaders measured again in 4 interleaved rounds (10 runs): told
 * apart". Returns the length written (snprintf's).
 */
static size_t leaders_words(const rt_tune_leaders *l, char *buf, size_t len)
{
	char who[48];
	if (!l->done)
		return 0;
	if (!l->rounds)
		return (size_t)(l->separated ? snprintf(buf, len, "; the fastest stood apart after one "
								    "run each (no time to measure it again)")
					     : snprintf(buf, len, "; its %d leaders' CIs overlap and the "
								    "budget had no time to measure them again",
							l->first));
	if (l->first >= 2)
		snprintf(who, sizeof who, "its %d leaders", l->first);
	else
		snprintf(who, sizeof who, "the fastest and the next");
	return (size_t)snprintf(buf, len, "; %s measured again in %d interleaved round%s (%d runs): %s",
				who, l->rounds, l->rounds == 1 ? "" : "s", l->runs,
				l->separated ? "told apart"
					     : "not told apart when the budget ran out (within "
					       "each other's noise)");
}

/*
 * The reason in one sentence: which point, why it rather than the fastest,
 * and what the machine showed (the workload's bottleneck and the device's
 * verdict: a rollout-bound PPO says so, a launch-bound GPU step too).
 */
static void reason(const rt_tune_workload *twl, const rt_tune_trial *best,
		   const rt_tune_trial *knee, int naive_kept, int usable_cores,
		   const rt_tune_precisions *pr, char *buf, size_t len)
{
	const char *unit = twl->unit;
	char where[256];
	size_t n = 0;
	if (naive_kept) {
		rt_space_format(twl->space, best->idx, where, sizeof where);
		n = (size_t)snprintf(buf, len,
				     "the naive default is kept: nothing measured beat its %.3g %s "
				     "beyond the noise (the fastest: %.3g %s at %s)",
				     twl->naive.feasible ? twl->naive.median : knee->median, unit,
				     best->median, unit, where);
	} else if (knee != best) {
		knee_words kw;
		describe_knee(twl->space, knee->idx, best->idx, &kw);
		n = (size_t)snprintf(buf, len,
				     "%s is the knee: %.3g %s, within 5%% of the fastest (%s, %.3g "
				     "%s) with %s",
				     kw.knee, knee->median, unit, kw.best, best->median, unit, kw.how);
	} else {
		rt_space_format(twl->space, best->idx, where, sizeof where);
		n = (size_t)snprintf(buf, len, "the %s point measured: %.3g %s at %s",
				     twl->minimize ? "lowest" : "fastest", best->median, unit, where);
	}
	rt_derived d[RT_MAX_DERIVED];
	char s[512] = "";
	if (twl->w)
		rt_derive(twl->w, &knee->pt, &knee->sh, knee->median, knee->phase_frac,
			  knee->step_seconds, knee->device_timed ? knee->device_busy : -1,
			  usable_cores, d, s, sizeof s);
	if (s[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, "; %s", s);
	double ratio = rt_tune_naive_ratio(twl, knee);
	if (ratio > 0 && !naive_kept && n < len)
		n += (size_t)snprintf(buf + n, len - n,
				      "; %.*fx the naive default (%s %s, %d threads, no pinning: "
				      "%.3g %s%s)",
				      ratio < 10, ratio, twl->naive.pt.backend,
				      rt_precision_name(twl->naive.pt.precision), twl->naive.pt.threads,
				      twl->naive.median, unit, twl->naive.predicted ? ", predicted" : "");
	n += leaders_words(&twl->leaders, buf + (n < len ? n : len), n < len ? len - n : 0);
	if (pr && n < len) { /* what a loop in fp32 leaves unused: said whatever the knee's precision */
		char gain[256];
		rt_tune_precisions_gain(pr, unit, gain, sizeof gain);
		if (gain[0])
			n += (size_t)snprintf(buf + n, len - n, "; %s", gain);
	}
	if (twl->unscreened[0] && n < len) /* tune_workload.c's screening */
		n += (size_t)snprintf(buf + n, len - n, "; not screened: %s", twl->unscreened);
	/* measured once more when contended: still so means the machine stayed busy */
	double busy = knee->contention > best->contention ? knee->contention : best->contention;
	if (busy > rt_contended_share() && n < len)
		snprintf(buf + n, len - n,
			 "; measured on a busy machine (other processes took %.0f%% of the trial's "
			 "CPUs): the figures are low, run tune again on a quiet machine",
			 100 * busy);
}

/* How a command's leaders were told apart (tune.c): leaders: {first: 3, rounds: 4, ...}. */
static void emit_leaders(rt_yw *w, const rt_tune_leaders *l)
{
	rt_yw_str(w, "leaders");
	rt_yw_map(w, 1);
	rt_yw_kint(w, "first", l->first);
	rt_yw_kint(w, "rounds", l->rounds);
	rt_yw_kint(w, "runs", l->runs);
	rt_yw_kbool(w, "separated", l->separated);
	rt_yw_kint(w, "last", l->last);
	rt_yw_end_map(w);
}

/* What a command's entry says of the command: how it ran and how it was read. */
static void emit_command_head(rt_yw *w, const rt_tune_opts *o, const rt_tune_workload *twl)
{
	rt_yw_kstr(w, "command", o->cmd->command);
	if (o->cmd->shell)
		rt_yw_kbool(w, "shell", 1);
	rt_yw_str(w, "metric");
	rt_yw_map(w, 1);
	rt_yw_kstr(w, "regex", o->cmd->metric);
	rt_yw_kstr(w, "unit", twl->unit);
	rt_yw_kbool(w, "minimize", twl->minimize);
	rt_yw_kint(w, "warmup", o->cmd->warmup);
	rt_yw_end_map(w);
	rt_yw_kstr(w, "hash", rt_tune_command_hash(twl->cmd));
}

/* tuned: the tune that wrote an entry: when, on which machine, its journal. */
static void emit_tuned(rt_yw *w, const char *at, const char *fingerprint, const char *journal)
{
	rt_yw_str(w, "tuned");
	rt_yw_map(w, 1);
	rt_yw_kstr(w, "at", at);
	rt_yw_kstr(w, "fingerprint", fingerprint);
	rt_yw_kstr(w, "journal", journal);
	rt_yw_end_map(w);
}

static void emit_workload(rt_yw *w, const rt_tune_run *run, const rt_tune_opts *o,
			  const rt_config *kept, const rt_tune_workload *twl, const char *now)
{
	rt_yw_str(w, twl->name);
	rt_yw_map(w, 0);
	emit_tuned(w, now, run->fingerprint, run->journal_path);
	if (twl->w) {
		rt_yw_str(w, "shape");
		rt_emit_shape(w, twl->w, &twl->shape);
	} else {
		emit_command_head(w, o, twl);
	}
	const rt_tune_trial *best = NULL, *knee = NULL;
	int naive_kept;
	if (rt_tune_pick(twl, &best, &knee, &naive_kept)) {
		rt_yw_kstr(w, "none", twl->note[0] ? twl->note : "no trial finished");
	} else {
		char why[1280];
		rt_yw_str(w, "recommended");
		emit_config(w, twl, knee);
		rt_yw_str(w, "fastest");
		emit_config(w, twl, best);
		rt_tune_precisions pr[RT_MAX_BACKENDS];
		int npr = rt_tune_precisions_of(run, twl, pr, RT_MAX_BACKENDS), k = 0;
		while (k < npr && strcmp(pr[k].backend, knee->pt.backend))
			k++;
		reason(twl, best, knee, naive_kept, run->usable_cores, k < npr ? &pr[k] : NULL, why,
		       sizeof why);
		rt_yw_kstr(w, "reason", why);
		if (npr)
			emit_precisions(w, pr, npr);
		if (twl->grown[0])
			rt_yw_kstr(w, "batch_grown", twl->grown);
		if (twl->w)
			emit_hints(w, run, kept, twl, knee);
		else
			emit_command_run(w, run, twl, knee);
		if (twl->leaders.done)
			emit_leaders(w, &twl->leaders);
		emit_runner_ups(w, twl, best, knee);
	}
	rt_yw_kint(w, "trials", twl->ntrials);
	rt_yw_kint(w, "reused", twl->reused);
	rt_yw_end_map(w);
}

/* The analysis of tune's crossover sweep (fitted there), or null (not measured, or unusable). */
static void emit_crossover(rt_yw *w, const rt_tune_run *run)
{
	rt_yw_str(w, "crossover");
	if (!run->xo_fitted) {
		rt_yw_null(w);
		return;
	}
	rt_crossover_shape shape = {0}; /* tune's sweep is of square GEMMs alone */
	rt_crossover_emit(w, &run->xo, &run->crossover, &shape);
}

/* A kept entry as it was read, with its tuned: (the document's when it had none). */
static void emit_kept(rt_yw *w, const rt_config *kept, const rt_config_rec *rec)
{
	const rt_yr *r = &kept->yr;
	rt_yw_str(w, rec->name);
	rt_yw_map(w, 0);
	if (!rt_yr_get(r, rec->node, "tuned"))
		emit_tuned(w, rec->tuned_at ? rec->tuned_at : "", rec->fingerprint,
			   rec->journal ? rec->journal : "");
	for (int i = 0; i < rt_yr_npairs(rec->node); i++) {
		const rt_ynode *k, *v;
		rt_yr_pair(r, rec->node, i, &k, &v);
		rt_yw_node(w, r->doc, k);
		rt_yw_node(w, r->doc, v);
	}
	rt_yw_end_map(w);
}

/* This run's search called name, NULL if none. */
static const rt_tune_workload *tuned_here(const rt_tune_run *run, const char *name)
{
	for (int i = 0; i < run->nwl; i++)
		if (!strcmp(run->wl[i].name, name))
			return &run->wl[i];
	return NULL;
}

/* The entries: kept's in their order, this run's in place of the same name, then this run's others. */
static void emit_recommendations(rt_yw *w, const rt_tune_run *run, const rt_tune_opts *o,
				 const rt_config *kept, const char *now)
{
	rt_yw_str(w, "recommendations");
	rt_yw_map(w, 0);
	for (int i = 0; kept && i < kept->nrecs; i++) {
		const rt_tune_workload *twl = tuned_here(run, kept->recs[i].name);
		if (twl)
			emit_workload(w, run, o, kept, twl, now);
		else
			emit_kept(w, kept, &kept->recs[i]);
	}
	for (int i = 0; i < run->nwl; i++)
		if (!kept || !rt_config_find(kept, run->wl[i].name))
			emit_workload(w, run, o, kept, &run->wl[i], now);
	rt_yw_end_map(w);
}

/* How many entries the document will hold. */
static int entries_over(const rt_tune_run *run, const rt_config *kept)
{
	int n = kept ? kept->nrecs : 0;
	for (int i = 0; i < run->nwl; i++)
		n += !kept || !rt_config_find(kept, run->wl[i].name);
	return n;
}

int rt_config_emit(const rt_tune_run *run, const rt_tune_opts *o, char **text, size_t *len,
		   char *err, size_t errlen)
{
	return rt_config_emit_over(run, o, NULL, text, len, err, errlen);
}

int rt_config_emit_over(const rt_tune_run *run, const rt_tune_opts *o, const rt_config *kept,
			char **text, size_t *len, char *err, size_t errlen)
{
	rt_yw w;
	char now[32];
	int entries = entries_over(run, kept);
	if (entries > RT_CONFIG_MAX_RECS)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s would hold %d recommendations, more than %d: write this tune "
			       "elsewhere (-o FILE) or alone (--replace)",
			       kept->path, entries, RT_CONFIG_MAX_RECS);
	int rc = rt_yw_start_doc(&w, "rigtune", RT_CONFIG_SCHEMA, err, errlen);
	if (rc)
		return rc;
	rt_yw_utc_now(now, sizeof now);
	if (run->interrupted)
		rt_yw_kstr(&w, "partial", "interrupted: the best found before the signal");
	rt_yw_str(&w, "machine");
	rt_machine_emit(&w, &run->machine);
	if (run->unavailable[0])
		rt_yw_kstr(&w, "unavailable", run->unavailable);
	emit_recommendations(&w, run, o, kept, now);
	rt_yw_str(&w, "frameworks");
	rt_frameworks_emit(&w, &run->frameworks);
	rt_settings_emit(&w, &run->frameworks, environ);
	if (!run->xo_fitted && kept && kept->crossover) {
		rt_yw_str(&w, "crossover"); /* the last tune that fitted one */
		rt_yw_node(&w, kept->yr.doc, kept->crossover);
	} else {
		emit_crossover(&w, run);
	}
	rt_yw_str(&w, "search");
	rt_yw_map(&w, 0);
	rt_yw_kstr(&w, "strategy", run->strategy);
	rt_yw_knum(&w, "budget_s", o->budget_s, 4);
	rt_yw_knum(&w, "seconds", run->seconds, 4);
	int trials = 0;
	for (int i = 0; i < run->nwl; i++)
		trials += run->wl[i].ntrials;
	rt_yw_kint(&w, "trials", trials);
	rt_yw_kstr(&w, "journal", run->journal_path);
	if (run->xo_note[0])
		rt_yw_kstr(&w, "crossover_note", run->xo_note);
	rt_yw_end_map(&w);
	rt_yw_end_map(&w);
	return rt_yw_finish(&w, text, len, err, errlen);
}
