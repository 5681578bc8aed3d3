#include "check_baseline.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../search/stats.h"
#include "../../workloads/knobs.h"
#include "../crossover.h"
#include "../journal.h"
#include "../replay.h"
#include "../usercmd.h"
#include "../usercmd_knobs.h"

/* Every failure to use a baseline is the user's to fix: bad input, never "I/O error". */
static int as_input(int rc)
{
	return rc == RT_EIO ? RT_EINVAL : rc;
}

static int same_point(const rt_base_point *a, const rt_base_point *b)
{
	if (a->w || b->w)
		return a->w == b->w && rt_point_equal(&a->pt, &b->pt) &&
		       rt_shape_equal(&a->sh, &b->sh);
	return a->cmd == b->cmd && rt_cmd_point_equal(&a->knobs, &b->knobs);
}

/*
 * Adds the point described by p (its samples copied), or, when the same
 * point is there already (recommended and fastest, a sweep size that is the
 * gemm recommendation), gives that one p's role too and keeps its samples.
 */
static int add_point(rt_baseline *b, const rt_base_point *p)
{
	for (int i = 0; i < b->npoints; i++) {
		rt_base_point *q = &b->points[i];
		if (same_point(q, p)) {
			q->roles |= p->roles;
			if (!q->curve[0])
				memcpy(q->curve, p->curve, sizeof q->curve);
			return RT_OK;
		}
	}
	if (b->npoints == b->cap) {
		int cap = b->cap ? 2 * b->cap : 8;
		rt_base_point *v = realloc(b->points, (size_t)cap * sizeof *v);
		if (!v)
			return RT_ENOMEM;
		b->points = v;
		b->cap = cap;
	}
	rt_base_point *q = &b->points[b->npoints];
	*q = *p;
	q->samples = malloc(sizeof(double) * (size_t)(p->nsamples ? p->nsamples : 1));
	q->trial_n = malloc(sizeof(int) * (size_t)(p->trials ? p->trials : 1));
	if (!q->samples || !q->trial_n) {
		free(q->samples);
		free(q->trial_n);
		return RT_ENOMEM;
	}
	if (p->nsamples) /* an A/B point has no baseline samples (and no array) */
		memcpy(q->samples, p->samples, sizeof(double) * (size_t)p->nsamples);
	if (p->trials)
		memcpy(q->trial_n, p->trial_n, sizeof(int) * (size_t)p->trials);
	b->npoints++;
	return RT_OK;
}

/* ---- the GEMM sweep ---- */

/* The observations of one curve of square GEMMs: (n, throughput) pairs. */
typedef struct sweep_curve {
	char label[48];
	rt_point pt;
	rt_shape sh; /* n is set per size */
	double *n, *v;
	size_t count, cap;
} sweep_curve;

typedef struct sweep_set {
	sweep_curve *c;
	size_t n, cap;
} sweep_set;

static void sweep_set_free(sweep_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->c[i].n);
		free(s->c[i].v);
	}
	free(s->c);
}

static sweep_curve *sweep_curve_new(sweep_set *s, const char *label, const rt_point *pt,
				    const rt_shape *sh)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		sweep_curve *c = realloc(s->c, cap * sizeof *c);
		if (!c)
			return NULL;
		s->c = c;
		s->cap = cap;
	}
	sweep_curve *c = &s->c[s->n++];
	*c = (sweep_curve){.pt = *pt, .sh = *sh};
	snprintf(c->label, sizeof c->label, "%s", label);
	return c;
}

static int sweep_add(sweep_curve *c, double n, double v)
{
	if (c->count == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		double *nn = realloc(c->n, cap * sizeof *nn);
		if (nn)
			c->n = nn;
		double *vv = nn ? realloc(c->v, cap * sizeof *vv) : NULL;
		if (!vv)
			return RT_ENOMEM;
		c->v = vv;
		c->cap = cap;
	}
	c->n[c->count] = n;
	c->v[c->count++] = v;
	return RT_OK;
}

/*
 * The smallest, middle and largest size of a curve become points with their
 * samples, when it has at least min_sizes sizes; *used says whether it had.
 */
static int add_curve_points(rt_baseline *b, const sweep_curve *c, size_t min_sizes, int *used)
{
	const rt_workload *gemm = rt_workload_builtin(RT_GEMM_WORKLOAD);
	double sizes[RT_REPLAY_CHECK_SIZES];
	size_t picked, distinct;
	double *samples = malloc((c->count ? c->count : 1) * sizeof *samples);
	int *run_n = malloc((c->count ? c->count : 1) * sizeof *run_n);
	int rc = samples && run_n
			 ? rt_replay_check_sizes(c->n, c->count, sizes, &picked, &distinct)
			 : RT_ENOMEM;
	*used = rc == RT_OK && distinct > 0 && distinct >= min_sizes;
	for (size_t s = 0; rc == RT_OK && *used && s < picked; s++) {
		double n = sizes[s];
		int ns = 0, runs = 0;
		for (size_t i = 0; i < c->count; i++) {
			if (c->n[i] != n)
				continue;
			samples[ns++] = c->v[i];
			/* rows of one size in a row are one run of it; the tune's baseline
			   rounds (tune_baseline.h) add others after the sweep's */
			if (i == 0 || c->n[i - 1] != n)
				run_n[runs++] = 0;
			run_n[runs - 1]++;
		}
		rt_base_point p = {.name = gemm->name, .unit = gemm->unit, .w = gemm, .pt = c->pt,
				   .sh = c->sh, .roles = RT_BASE_SWEEP, .samples = samples,
				   .nsamples = ns, .trials = runs, .trial_n = run_n};
		p.sh.v[rt_shape_known(gemm, "m")] = p.sh.v[rt_shape_known(gemm, "n")] = (long)n;
		p.sh.v[rt_shape_known(gemm, "k")] = (long)n;
		snprintf(p.curve, sizeof p.curve, "%s %s", c->label,
			 rt_precision_name(c->pt.precision));
		rc = add_point(b, &p);
	}
	free(samples);
	free(run_n);
	return rc;
}

/*
 * The saved sweep into b->sweep: the one a configuration names
 * (crossover.replay), else JOURNAL-crossover.csv for JOURNAL.yaml; 0 when
 * there is none.
 */
static int sweep_csv_path(rt_baseline *b)
{
	const char *named = b->cfg ? b->cfg->crossover_replay : NULL;
	if (named && rt_config_locate(b->cfg, named, b->sweep, sizeof b->sweep))
		return 1;
	if (rt_journal_sweep_path(b->journal, 1, b->sweep, sizeof b->sweep) == RT_OK &&
	    access(b->sweep, F_OK) == 0)
		return 1;
	b->sweep[0] = '\0';
	return 0;
}

/* The saved sweep's curves: every row is one sample, seconds of one n^3 GEMM. */
static int curves_from_csv(const char *csv, sweep_set *set, char *err, size_t errlen)
{
	rt_replay *r;
	int rc = rt_replay_read(csv, &r, err, errlen);
	if (rc)
		return as_input(rc);
	for (size_t i = 0; rc == RT_OK && i < r->ncurves; i++) {
		const rt_replay_curve *cur = &r->curves[i];
		rt_point pt;
		rt_shape sh;
		char why[RT_ERRLEN];
		rc = rt_crossover_curve_point(cur, 1, &pt, &sh, why, sizeof why);
		if (rc) {
			rc = rt_fail(err, errlen, RT_EINVAL, "%s:%ld: %s", csv, cur->first_line,
				     why);
			break;
		}
		sweep_curve *c = sweep_curve_new(set, cur->backend, &pt, &sh);
		rc = c ? RT_OK : RT_ENOMEM;
		for (size_t k = 0; rc == RT_OK && k < cur->count; k++) {
			double n = cur->n[k];
			rc = sweep_add(c, n, 2e-9 * n * n * n / cur->seconds[k]);
		}
	}
	rt_replay_free(r);
	return rc;
}

/*
 * The curve of a journal's gemm trial, as the sweep makes its curves: the
 * host's at its threads (and its pin, when not compact), a device's with or
 * without the transfers.
 */
static rt_curve trial_curve(const rt_journal_record *r)
{
	rt_curve c = {0};
	snprintf(c.backend, sizeof c.backend, "%s", r->point.backend);
	if (rt_backend_on_host(r->point.backend)) {
		c.threads = r->point.threads;
		if (r->point.pin != RT_PIN_COMPACT)
			snprintf(c.pin, sizeof c.pin, "%s", rt_pin_name(r->point.pin));
	} else {
		c.xfer = r->shape.v[rt_shape_known(r->workload, "transfer")] != 0;
	}
	return c;
}

/*
 * The journal's feasible gemm trials of the search at m = n = k, one curve
 * per point and transfer.
 */
static int curves_from_journal(const rt_journal_record *recs, size_t n, sweep_set *set)
{
	const rt_workload *gemm = rt_workload_builtin(RT_GEMM_WORKLOAD);
	int im = rt_shape_known(gemm, "m"), in = rt_shape_known(gemm, "n");
	int ik = rt_shape_known(gemm, "k"), ix = rt_shape_known(gemm, "transfer");
	int rc = RT_OK;
	for (size_t i = 0; rc == RT_OK && i < n; i++) {
		const rt_journal_record *r = &recs[i];
		const long *v = r->shape.v;
		if (r->workload != gemm || !r->m.feasible || r->role != RT_TRIAL_SEARCH ||
		    v[im] != v[in] || v[in] != v[ik])
			continue;
		sweep_curve *c = NULL;
		for (size_t k = 0; k < set->n && !c; k++)
			if (rt_point_equal(&set->c[k].pt, &r->point) && set->c[k].sh.v[ix] == v[ix])
				c = &set->c[k];
		char label[48];
		rt_curve id = trial_curve(r);
		rt_curve_label(&id, label, sizeof label);
		if (!c && !(c = sweep_curve_new(set, label, &r->point, &r->shape)))
			return RT_ENOMEM;
		for (int s = 0; rc == RT_OK && s < r->m.nsamples; s++)
			rc = sweep_add(c, (double)v[in], r->m.samples[s]);
	}
	return rc;
}

/* Whether a built-in workload is checked (a command's configuration has no GEMM sweep). */
static int has_workload_point(const rt_baseline *b)
{
	for (int i = 0; i < b->npoints; i++)
		if (b->points[i].w)
			return 1;
	return 0;
}

/*
 * The sweep's points: from the saved sweep, else from the journal's square
 * gemm trials where a curve has RT_REPLAY_CHECK_SIZES sizes; else a note of what the
 * baseline would need.
 */
static int add_sweep(rt_baseline *b, const rt_journal_record *recs, size_t n, char *err,
		     size_t errlen)
{
	sweep_set set = {0};
	int csv = sweep_csv_path(b);
	int rc = csv ? curves_from_csv(b->sweep, &set, err, errlen)
		     : curves_from_journal(recs, n, &set);
	int used = 0;
	for (size_t i = 0; rc == RT_OK && i < set.n; i++) {
		int u;
		/* a saved sweep's every curve; of a journal's, those that look like a sweep */
		rc = add_curve_points(b, &set.c[i], csv ? 1 : RT_REPLAY_CHECK_SIZES, &u);
		used += u;
	}
	sweep_set_free(&set);
	if (rc == RT_OK && !used && has_workload_point(b))
		snprintf(b->sweep_note, sizeof b->sweep_note,
			 "GEMM sweep: not comparable: the baseline has no GEMM observations at %d "
			 "or more square sizes per backend and precision; it needs its crossover "
			 "sweep saved beside the journal as %.*s-crossover.csv (columns "
			 "backend,precision,n,seconds: what `rigtune crossover --save` writes)",
			 RT_REPLAY_CHECK_SIZES, (int)(strlen(b->journal) - 5), b->journal);
	if (rc == RT_ENOMEM)
		rt_fail(err, errlen, rc, "out of memory");
	return rc;
}

/* ---- a configuration ---- */

/* The journal that search.journal names (rt_config_locate). */
static int resolve_journal(rt_baseline *b, char *err, size_t errlen)
{
	const char *j = b->cfg->journal;
	if (!j)
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s: no search.journal: a baseline needs the journal with the "
			       "samples (a configuration written by `rigtune tune` names it)",
			       b->path);
	if (rt_config_locate(b->cfg, j, b->journal, sizeof b->journal) || j[0] == '/')
		return RT_OK;
	return rt_fail(err, errlen, RT_EINVAL,
		       "%s: its journal %s is not there (nor at %s): the samples to compare "
		       "with are in it",
		       b->path, j, b->journal);
}

/* The trial behind a configuration's point: in its journal, else in the host's others. */
typedef struct trial_source {
	rt_journal_record *recs, *host_recs;
	size_t n, host_n;
	int host_loaded, dropped;
} trial_source;

/*
 * Which trial a point is: a workload's point and shape, or a command's
 * knobs, measured on the machine of fingerprint (its entry's: a
 * configuration keeps the entries of earlier tunes, config.h).
 */
typedef struct trial_key {
	const char *fingerprint;
	const rt_workload *w;
	const rt_point *pt;
	const rt_shape *sh;
	const char *hash;
	const rt_cmd_point *knobs;
} trial_key;

static int key_matches(const rt_journal_record *r, const trial_key *k)
{
	return k->w ? rt_journal_is_trial(r, k->fingerprint, k->w, k->sh, k->pt)
		    : rt_journal_is_command_trial(r, k->fingerprint, k->hash, k->knobs);
}

/* The newest trial of k in recs, or NULL. */
static const rt_journal_record *find_in(const rt_journal_record *recs, size_t n,
					const trial_key *k)
{
	for (size_t i = n; i-- > 0;)
		if (key_matches(&recs[i], k))
			return &recs[i];
	return NULL;
}

/*
 * The trials of k: the journal's, else the host's other journals beside it;
 * *recs and *n are the set they were found in (0 when none).
 */
static int find_trials(rt_baseline *b, trial_source *src, const trial_key *k,
		       const rt_journal_record **recs, size_t *n, char *err, size_t errlen)
{
	*recs = src->recs;
	*n = src->n;
	if (find_in(*recs, *n, k))
		return RT_OK;
	if (!src->host_loaded) {
		char dir[sizeof b->journal];
		snprintf(dir, sizeof dir, "%s", b->journal);
		int rc = rt_journal_load_host(dirname(dir), b->host, &src->host_recs, &src->host_n,
					      NULL, err, errlen);
		if (rc)
			return as_input(rc);
		src->host_loaded = 1;
	}
	*recs = src->host_recs;
	*n = find_in(src->host_recs, src->host_n, k) ? src->host_n : 0;
	return RT_OK;
}

/* Whether r counts toward its point's baseline: it ran, and, unless none did, uncontended. */
static int pooled(const rt_journal_record *r, int any_clear)
{
	return r->m.feasible && r->m.nsamples > 0 && !(any_clear && r->m.contended);
}

/*
 * Every trial of k in recs that counts (pooled()), oldest first, into p:
 * its samples, how many trials, the newest one's length and contention. A
 * tune measures the points a check compares again at its end
 * (tune_baseline.h), so that a baseline is several draws of the machine's
 * state over the tune, not one (on a VM a 2-thread rate moves by a fifth
 * for seconds at a time). NULL samples: none ran (the newest's cause stands).
 */
static int pool_trials(const rt_journal_record *recs, size_t n, const trial_key *k,
		       rt_base_point *p)
{
	int any_clear = 0, total = 0;
	for (size_t i = 0; i < n; i++)
		if (key_matches(&recs[i], k) && recs[i].m.feasible) {
			any_clear |= !recs[i].m.contended;
			total += recs[i].m.nsamples;
		}
	p->samples = total ? malloc(sizeof(double) * (size_t)total) : NULL;
	p->trial_n = total ? malloc(sizeof(int) * n) : NULL;
	if (total && (!p->samples || !p->trial_n))
		return RT_ENOMEM;
	p->nsamples = p->trials = 0;
	for (size_t i = 0; i < n; i++) {
		const rt_journal_record *r = &recs[i];
		if (!key_matches(r, k) || !pooled(r, any_clear))
			continue;
		memcpy(p->samples + p->nsamples, r->m.samples, sizeof(double) * (size_t)r->m.nsamples);
		p->nsamples += r->m.nsamples;
		p->trial_n[p->trials++] = r->m.nsamples;
		p->trial_s = r->m.seconds;
		p->contention = r->m.contention;
	}
	return RT_OK;
}

/*
 * The point of k with the samples of all its trials (pool_trials), added
 * to b; *found says whether the journals have a trial of it at all (one
 * that never ran is not added: it has nothing to compare with).
 */
static int add_trials(rt_baseline *b, trial_source *src, const trial_key *k, rt_base_point *p,
		      int *found, char *err, size_t errlen)
{
	const rt_journal_record *recs;
	size_t n;
	int rc = find_trials(b, src, k, &recs, &n, err, errlen);
	*found = rc == RT_OK && n > 0;
	if (rc == RT_OK && *found)
		rc = pool_trials(recs, n, k, p);
	if (rc == RT_OK && p->samples)
		rc = add_point(b, p);
	free(p->samples);
	free(p->trial_n);
	p->samples = NULL;
	p->trial_n = NULL;
	return rc == RT_ENOMEM ? rt_fail(err, errlen, rc, "out of memory") : rc;
}

/* RT_EINVAL: the configuration's point is in no journal. */
static int not_in_journals(const rt_baseline *b, const trial_source *src, const char *role,
			   const char *name, char *err, size_t errlen)
{
	return rt_fail(err, errlen, RT_EINVAL,
		       "%s: the %s point of %s is in none of the journals of %s beside %s%s",
		       b->path, role, name, b->host, b->journal,
		       src->dropped ? " (which ends in a half-written trial)" : "");
}

/* A journal's trial r as a point, with the samples of every trial of it (add_trials). */
static int add_record(rt_baseline *b, trial_source *src, const rt_journal_record *r,
		      unsigned role, char *err, size_t errlen)
{
	rt_base_point p = {.name = r->workload->name, .unit = r->workload->unit,
			   .w = r->workload, .pt = r->point, .sh = r->shape, .roles = role};
	trial_key k = {.fingerprint = r->fingerprint, .w = r->workload, .pt = &p.pt, .sh = &p.sh};
	int found;
	return add_trials(b, src, &k, &p, &found, err, errlen);
}

static int add_config_point(rt_baseline *b, trial_source *src, const rt_config_rec *rec,
			    const rt_workload *w, int fastest, char *err, size_t errlen)
{
	const rt_config_point *cp = fastest ? &rec->fastest : &rec->recommended;
	const char *role = fastest ? "fastest" : "recommended";
	rt_base_point p = {.name = w->name, .unit = w->unit, .w = w,
			   .roles = fastest ? RT_BASE_FASTEST : RT_BASE_RECOMMENDED};
	int found = 0;
	int rc = rt_config_point_decode(b->cfg, cp, w, &p.pt, &p.sh, err, errlen);
	trial_key k = {.fingerprint = rec->fingerprint, .w = w, .pt = &p.pt, .sh = &p.sh};
	if (rc == RT_OK)
		rc = add_trials(b, src, &k, &p, &found, err, errlen);
	if (rc == RT_OK && !found)
		rc = not_in_journals(b, src, role, w->name, err, errlen);
	return rc;
}

/* ---- a user's command (tune --cmd) ---- */

/* How the configuration says the command ran and was read; reads in b->cfg's document. */
static int decode_command(const rt_baseline *b, const rt_config_rec *rec, rt_base_command *c)
{
	const rt_yr *r = &b->cfg->yr;
	const rt_ynode *metric;
	const char *unit;
	long warmup = 0;
	*c = (rt_base_command){.name = rec->name};
	int rc = rt_yr_need_str(r, rec->node, "command", &c->text);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, rec->node, "hash", &c->hash);
	if (rc == RT_OK && rt_yr_get(r, rec->node, "shell"))
		rc = rt_yr_need_bool(r, rec->node, "shell", &c->shell);
	if (rc == RT_OK)
		rc = rt_yr_need(r, rec->node, "metric", YAML_MAPPING_NODE, &metric);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, metric, "regex", &c->regex);
	if (rc == RT_OK)
		rc = rt_yr_need_str(r, metric, "unit", &unit);
	if (rc == RT_OK)
		rc = rt_yr_need_bool(r, metric, "minimize", &c->minimize);
	if (rc == RT_OK)
		rc = rt_yr_need_int(r, metric, "warmup", 0, 1L << 20, &warmup);
	c->warmup = (int)warmup;
	if (rc == RT_OK)
		snprintf(c->unit, sizeof c->unit, "%s%s", c->minimize ? "1/" : "", unit);
	return rc;
}

int rt_baseline_accept_command(rt_baseline *b, const char *text, int shell, char *err,
			       size_t errlen)
{
	rt_cmd_template tpl;
	char hash[17], theirs[512] = "";
	int matched = 0;
	int rc = rt_cmd_template_parse(text, shell, &tpl, err, errlen);
	for (int i = 0; rc == RT_OK && i < b->ncmds; i++) {
		rt_base_command *c = &b->cmds[i];
		rt_cmd_template_hash(&tpl, c->regex, c->warmup, c->minimize, hash);
		rt_list_append(theirs, sizeof theirs, ", ", c->hash);
		if (strcmp(hash, c->hash))
			continue;
		c->run = text;
		c->run_shell = shell;
		matched++;
	}
	rt_cmd_template_free(&tpl);
	if (rc == RT_OK && !b->ncmds)
		return rt_fail(err, errlen, RT_EINVAL,
			       "--cmd: %s has no configuration of a command (tune --cmd) to run it for",
			       b->path);
	if (rc == RT_OK && !matched)
		rc = rt_fail(err, errlen, RT_EINVAL,
			     "--cmd is not the command %s was tuned with (its hash %s, the file's %s): "
			     "give tune's --cmd word for word, and --shell if tune had it",
			     b->path, hash, theirs);
	return rc;
}

/* The knobs of a point: {knob: value, ...} (a runner-up's too), each a row's value. */
static int decode_knobs(const rt_baseline *b, const rt_ynode *map, rt_base_point *p)
{
	const rt_yr *r = &b->cfg->yr;
	int rc = rt_yr_expect(r, map, YAML_MAPPING_NODE, "point");
	p->knobs.n = 0;
	for (int i = 0; rc == RT_OK && i < rt_yr_npairs(map); i++) {
		const rt_ynode *k, *v;
		char why[RT_ERRLEN];
		rt_yr_pair(r, map, i, &k, &v);
		const char *name = rt_yr_scalar(k), *value = rt_yr_scalar(v);
		const char *bad = name ? rt_cmdknobs_name_bad(name) : NULL;
		if (!name || !value)
			rc = rt_yr_bad(r, v, "point: expected knob: value");
		else if (bad)
			rc = rt_yr_bad(r, k, "point: %s cannot name a knob: %s", name, bad);
		else if (rt_cmd_point_add(&p->knobs, name, value, why, sizeof why))
			rc = rt_yr_bad(r, k, "point: %s", why);
	}
	return rc;
}

/* A minimized metric (a time) compared as its inverse: higher is better everywhere. */
static void invert(double *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = v[i] != 0 ? 1 / v[i] : 0;
}

/* The point of the command at map (a point: mapping), with the samples of its trials. */
static int add_command_point(rt_baseline *b, trial_source *src, const rt_config_rec *rec,
			     const rt_base_command *c, const rt_ynode *map, unsigned role,
			     const char *what, char *err, size_t errlen)
{
	rt_base_point p = {.name = c->name, .unit = c->unit, .cmd = c, .roles = role};
	int found = 0, had = b->npoints;
	int rc = decode_knobs(b, map, &p);
	trial_key k = {.fingerprint = rec->fingerprint, .hash = c->hash, .knobs = &p.knobs};
	if (rc == RT_OK)
		rc = add_trials(b, src, &k, &p, &found, err, errlen);
	if (rc == RT_OK && !found)
		rc = not_in_journals(b, src, what, c->name, err, errlen);
	/* a runner-up that failed then has nothing to compare with, and is not added */
	if (rc == RT_OK && c->minimize && b->npoints > had)
		invert(b->points[b->npoints - 1].samples, b->points[b->npoints - 1].nsamples);
	return rc;
}

/* Its recommended and fastest points and its runner-ups. */
static int add_command(rt_baseline *b, trial_source *src, const rt_config_rec *rec, char *err,
		       size_t errlen)
{
	const rt_yr *r = &b->cfg->yr;
	rt_base_command *c = &b->cmds[b->ncmds];
	int rc = decode_command(b, rec, c);
	if (rc == RT_OK)
		b->ncmds++;
	if (rc == RT_OK)
		rc = add_command_point(b, src, rec, c, rt_yr_get(r, rec->recommended.node, "point"),
				       RT_BASE_RECOMMENDED,
				       "recommended", err, errlen);
	if (rc == RT_OK)
		rc = add_command_point(b, src, rec, c, rt_yr_get(r, rec->fastest.node, "point"),
				       RT_BASE_FASTEST,
				       "fastest", err, errlen);
	const rt_ynode *ups = rt_yr_get(r, rec->node, "runner_ups");
	for (int i = 0; rc == RT_OK && ups && i < rt_yr_nitems(ups); i++) {
		const rt_ynode *point = rt_yr_get(r, rt_yr_item(r, ups, i), "point");
		rc = point ? add_command_point(b, src, rec, c, point, RT_BASE_RUNNER_UP, "runner-up",
					       err, errlen)
			   : rt_yr_bad(r, rt_yr_item(r, ups, i), "runner_ups: no point");
	}
	return rc;
}

static int load_config(rt_baseline *b, trial_source *src, char *err, size_t errlen)
{
	if (!(b->cfg = calloc(1, sizeof *b->cfg)))
		return RT_ENOMEM;
	int rc = rt_config_load(b->path, b->cfg, err, errlen);
	if (rc)
		return as_input(rc);
	b->mr = &b->cfg->yr;
	b->machine = b->cfg->machine;
	snprintf(b->fingerprint, sizeof b->fingerprint, "%s", b->cfg->fingerprint);
	snprintf(b->host, sizeof b->host, "%s", b->cfg->hostname);
	const rt_ynode *secs = rt_yr_at(&b->cfg->yr, rt_yr_root(&b->cfg->yr), "search.seconds");
	if (secs && rt_yr_number(&b->cfg->yr, secs, "search.seconds", &b->tune_s))
		b->tune_s = 0;
	rc = resolve_journal(b, err, errlen);
	if (rc == RT_OK)
		rc = as_input(rt_journal_load(b->journal, &src->recs, &src->n, &src->dropped, NULL,
					      err, errlen));
	/* the document's own messages go to err while its entries are read */
	b->cfg->yr.err = err;
	b->cfg->yr.errlen = errlen;
	for (int i = 0; rc == RT_OK && i < b->cfg->nrecs; i++) {
		const rt_config_rec *rec = &b->cfg->recs[i];
		const rt_workload *w = rt_workload_find(rec->name);
		if (rec->none)
			continue;
		if (!w) {
			rc = add_command(b, src, rec, err, errlen);
			continue;
		}
		rc = add_config_point(b, src, rec, w, 0, err, errlen);
		if (rc == RT_OK)
			rc = add_config_point(b, src, rec, w, 1, err, errlen);
	}
	b->cfg->yr.err = NULL;
	b->cfg->yr.errlen = 0;
	if (rc == RT_OK && b->npoints == 0)
		rc = rt_fail(err, errlen, RT_EINVAL,
			     "%s: no workload has a recommendation to check", b->path);
	return rc;
}

/* ---- a journal ---- */

static int is_journal(const char *path)
{
	static const char start[] = "---\nrigtune_journal:";
	char head[sizeof start] = "";
	/* what cannot be read is not a journal: reading it as a configuration says why */
	return !rt_read_head(path, head, sizeof head, NULL, 0) && !strcmp(head, start);
}

/*
 * The header, the first document of the stream, read on its own for the
 * machine it may keep (journals from before the header had one have none).
 */
static int load_header(rt_baseline *b, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc = rt_read_file(b->path, &text, &len, err, errlen);
	if (rc)
		return as_input(rc);
	char *end = strstr(text, "\n...\n");
	if (end)
		rc = rt_yr_load(&b->header, b->path, text, (size_t)(end - text) + 5, err, errlen);
	free(text);
	if (rc == RT_OK && end) {
		b->mr = &b->header;
		b->machine = rt_yr_get(&b->header, rt_yr_root(&b->header), "machine");
	}
	return rc;
}

/* Each workload and shape's fastest feasible trial of the search (not the naive default). */
static const rt_journal_record *fastest_of_kind(const rt_journal_record *recs, size_t n,
						const rt_journal_record *r)
{
	const rt_journal_record *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const rt_journal_record *o = &recs[i];
		if (o->m.feasible && o->role == RT_TRIAL_SEARCH && o->workload == r->workload &&
		    rt_shape_equal(&o->shape, &r->shape) && (!best || o->m.median > best->m.median))
			best = o;
	}
	return best;
}

static int load_journal(rt_baseline *b, trial_source *src, char *err, size_t errlen)
{
	rt_journal_header hdr;
	snprintf(b->journal, sizeof b->journal, "%s", b->path);
	b->is_journal = 1;
	int rc = as_input(rt_journal_load(b->path, &src->recs, &src->n, &src->dropped, &hdr, err,
					  errlen));
	if (rc == RT_OK && (src->dropped || !hdr.fingerprint[0]))
		rc = rt_fail(err, errlen, RT_EINVAL,
			     "%s: truncated: it ends in a half-written document (a baseline must "
			     "be complete: use the configuration of that run, or finish the run "
			     "with `rigtune tune --resume`)",
			     b->path);
	if (rc)
		return rc;
	snprintf(b->fingerprint, sizeof b->fingerprint, "%s", hdr.fingerprint);
	snprintf(b->host, sizeof b->host, "%s", hdr.host);
	rc = load_header(b, err, errlen);
	for (size_t i = 0; rc == RT_OK && i < src->n; i++) { /* a tuned command's trials: not here */
		const rt_journal_record *r = &src->recs[i];
		if (r->workload && fastest_of_kind(src->recs, src->n, r) == r)
			rc = add_record(b, src, r, RT_BASE_FASTEST, err, errlen);
	}
	if (rc == RT_OK && b->npoints == 0)
		rc = rt_fail(err, errlen, RT_EINVAL, "%s: no feasible trial to compare with",
			     b->path);
	return rc;
}

/* The canary the tune kept beside the journal, when there is one (canary.h). */
static int load_canary(rt_baseline *b, char *err, size_t errlen)
{
	if (rt_canary_path(b->journal, b->canary_file, sizeof b->canary_file) ||
	    access(b->canary_file, F_OK)) {
		b->canary_file[0] = '\0';
		return RT_OK;
	}
	return as_input(rt_canary_read(b->canary_file, &b->canary, &b->ncanary, &b->canary_older,
				       err, errlen));
}

int rt_baseline_load(const char *path, rt_baseline *b, char *err, size_t errlen)
{
	memset(b, 0, sizeof *b);
	if ((size_t)snprintf(b->path, sizeof b->path, "%s", path) >= sizeof b->path)
		return rt_fail(err, errlen, RT_EINVAL, "path too long: %s", path);
	trial_source src = {0};
	int rc = is_journal(path) ? load_journal(b, &src, err, errlen)
				  : load_config(b, &src, err, errlen);
	if (rc == RT_OK)
		rc = add_sweep(b, src.recs, src.n, err, errlen);
	if (rc == RT_OK)
		rc = load_canary(b, err, errlen);
	if (rc == RT_ENOMEM)
		rt_fail(err, errlen, rc, "out of memory");
	rt_journal_records_free(src.recs, src.n);
	rt_journal_records_free(src.host_recs, src.host_n);
	return rc;
}

/* gemm at its default shape on the CPU: what an A/B check measures without a baseline. */
static int default_points(rt_baseline *b, int threads)
{
	const rt_workload *gemm = rt_workload_builtin(RT_GEMM_WORKLOAD);
	rt_base_point p = {.name = gemm->name, .unit = gemm->unit, .w = gemm,
			   .roles = RT_BASE_RECOMMENDED};
	rt_point_default(&p.pt);
	rt_shape_default(gemm, &p.sh);
	p.pt.threads = threads;
	snprintf(b->path, sizeof b->path, "(gemm at its default shape, %d threads)", threads);
	return add_point(b, &p);
}

int rt_baseline_load_points(const char *path, int threads, rt_baseline *b, char *err,
			    size_t errlen)
{
	int rc;
	if (path) {
		rc = rt_baseline_load(path, b, err, errlen);
	} else {
		memset(b, 0, sizeof *b);
		rc = default_points(b, threads);
	}
	for (int i = 0; rc == RT_OK && i < b->npoints; i++) {
		b->points[i].nsamples = b->points[i].trials = 0;
		b->points[i].contention = 0;
	}
	if (rc == RT_ENOMEM)
		rt_fail(err, errlen, rc, "out of memory");
	return rc;
}

void rt_baseline_free(rt_baseline *b)
{
	for (int i = 0; i < b->npoints; i++) {
		free(b->points[i].samples);
		free(b->points[i].trial_n);
	}
	free(b->points);
	free(b->canary);
	if (b->cfg)
		rt_config_free(b->cfg);
	free(b->cfg);
	rt_yr_free(&b->header);
	memset(b, 0, sizeof *b);
}

double rt_base_point_median(const rt_base_point *b)
{
	return b->nsamples ? rt_median(b->samples, (size_t)b->nsamples) : NAN;
}

/* " (rec+fast)", " (sweep)", " (runner-up)": the roles of a point in a few letters. */
static void label_roles(const rt_base_point *b, char *buf, size_t len)
{
	int rec = b->roles & RT_BASE_RECOMMENDED, fast = b->roles & RT_BASE_FASTEST;
	snprintf(buf, len, " (%s%s%s)", rec ? "rec" : "", rec && fast ? "+" : "",
		 fast				  ? "fast"
		 : b->roles & RT_BASE_SWEEP	  ? "sweep"
		 : b->roles & RT_BASE_RUNNER_UP ? "runner-up"
						  : "");
}

/* "fake batch=32 opt=adam (rec+fast)" */
static void label_command(const rt_base_point *b, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", b->name);
	for (int i = 0; i < b->knobs.n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s=%s", b->knobs.k[i].name,
				      b->knobs.k[i].text);
	if (n < len)
		label_roles(b, buf + n, len - n);
}

void rt_base_point_label(const rt_base_point *b, char *buf, size_t len)
{
	if (b->cmd) {
		label_command(b, buf, len);
		return;
	}
	rt_shape def;
	rt_shape_default(b->w, &def);
	char point[160];
	rt_point_label(&b->pt, b->w, point, sizeof point);
	size_t n = (size_t)snprintf(buf, len, "%s %s", b->w->name, point);
	for (int i = 0; i < b->w->nkeys && n < len; i++)
		if (b->sh.v[i] != def.v[i])
			n += (size_t)snprintf(buf + n, len - n, " %s=%ld", b->w->keys[i].name,
					      b->sh.v[i]);
	if (n < len)
		label_roles(b, buf + n, len - n);
}
