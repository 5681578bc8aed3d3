#include "pagedata.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../crossover.h"
#include "../naive.h"
#include "../params.h"
#include "../../workloads/knobs.h"

/* ---- small helpers ---- */

static void note(rt_page *pg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(rt_page *pg, const char *fmt, ...)
{
	if (pg->nnotes == RT_PG_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pg->notes[pg->nnotes++], sizeof pg->notes[0], fmt, ap);
	va_end(ap);
}

/* Appends to buf (a row's value) what fits. */
static void cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* An input file that cannot be read is the user's to fix: RT_EINVAL naming it. */
static int readable(const char *path, const char *what, char *err, size_t errlen)
{
	if (access(path, R_OK) == 0)
		return RT_OK;
	return rt_fail(err, errlen, RT_EINVAL, "%s: cannot read %s: %s", path, what,
	               strerror(errno));
}

/* "48 KiB", "1 MiB", "32 MiB" */
static void kib_text(double kib, char *buf, size_t len)
{
	if (kib >= 1024 && fmod(kib, 1024) == 0)
		snprintf(buf, len, "%.0f MiB", kib / 1024);
	else if (kib >= 1024)
		snprintf(buf, len, "%.1f MiB", kib / 1024);
	else
		snprintf(buf, len, "%.0f KiB", kib);
}

/* ---- the machine ---- */

static rt_pg_row *add_row(rt_pg_machine *m, const char *label)
{
	if (m->nrows == RT_PG_MAX_ROWS)
		return NULL;
	rt_pg_row *row = &m->rows[m->nrows++];
	snprintf(row->label, sizeof row->label, "%s", label);
	row->value[0] = '\0';
	return row;
}

/* The text of a field, "unknown" where the document has none. */
static const char *or_unknown(const char *s)
{
	return s[0] ? s : "unknown";
}

static void machine_topology(const rt_machine *mc, rt_pg_machine *m)
{
	rt_pg_row *row = add_row(m, "Topology");
	int pk = mc->packages, co = mc->cores, pu = mc->pus, nn = mc->numa_nodes;
	if (!co && !pu) { /* no machine has none: the document has no cpu: section */
		cat(row->value, sizeof row->value, "unknown");
		return;
	}
	cat(row->value, sizeof row->value, "%d package%s, %d cores, %d PUs (%s), %d NUMA node%s",
	    pk, pk == 1 ? "" : "s", co, pu, pu > co ? "SMT" : "no SMT", nn, nn == 1 ? "" : "s");
	for (int i = 0; i < nn; i++)
		cat(row->value, sizeof row->value, "%s%.1f GiB%s", i ? ", " : " (",
		    rt_machine_gib(mc->numa_mem[i]), i == nn - 1 ? ")" : "");
}

static void machine_kinds(const rt_machine *mc, const rt_machine_said *said, rt_pg_machine *m)
{
	rt_pg_row *row = add_row(m, "Core kinds");
	for (int i = 0; i < mc->nkinds; i++) {
		const rt_cpukind *k = &mc->kinds[i];
		rt_pg_kind *kd = &m->kinds[m->nkinds++];
		const char *type = k->core_type;
		int freq = k->freq_max_mhz;
		snprintf(kd->role, sizeof kd->role, "%s", said->role[i][0] ? said->role[i] : "uniform");
		kd->cores = k->cores;
		kd->pus = k->pus;
		snprintf(kd->label, sizeof kd->label, "%s%s", type, type[0] && freq > 0 ? ", " : "");
		if (freq > 0)
			cat(kd->label, sizeof kd->label, "%.1f GHz", freq / 1000.0);
		if (row)
			cat(row->value, sizeof row->value, "%s%d %s%s%s%s", i ? " + " : "",
			    kd->cores, kd->role, kd->label[0] ? " (" : "", kd->label,
			    kd->label[0] ? ")" : "");
	}
	if (row)
		cat(row->value, sizeof row->value, "; %d usable for compute", m->usable_cores);
}

static void machine_caches(const rt_machine *mc, rt_pg_machine *m)
{
	static const char *const names[] = {"L1d", "L2", "L3"};
	const uint64_t bytes[] = {mc->l1d, mc->l2, mc->l3};
	rt_pg_row *row = add_row(m, "Caches");
	for (size_t i = 0; row && i < RT_COUNT(names); i++) {
		char size[32];
		if (bytes[i]) {
			kib_text((double)bytes[i] / 1024, size, sizeof size);
			cat(row->value, sizeof row->value, "%s%s %s", row->value[0] ? ", " : "",
			    names[i], size);
		}
	}
	if (row)
		cat(row->value, sizeof row->value, "%s",
		    row->value[0] ? " (each)" : "none reported");
}

static void machine_cpu(const rt_machine *mc, const rt_machine_said *said, rt_pg_machine *m)
{
	const char *arch = mc->arch;
	rt_pg_row *row = add_row(m, "CPU");
	snprintf(row->value, sizeof row->value, "%s%s%s%s", or_unknown(mc->cpu_model),
	         arch[0] ? " (" : "", arch, arch[0] ? ")" : "");
	m->usable_cores = said->usable_cores;
	machine_topology(mc, m);
	machine_kinds(mc, said, m);
	machine_caches(mc, m);
	if ((row = add_row(m, "Frequency"))) {
		cat(row->value, sizeof row->value, "governor %s", or_unknown(mc->governor));
		if (mc->freq_max_mhz > 0)
			cat(row->value, sizeof row->value, ", %d to %d MHz", mc->freq_min_mhz,
			    mc->freq_max_mhz);
	}
}

/* Whether the document says anything of the BLAS (rigtune always writes its library). */
static int has_blas(const rt_machine *mc)
{
	return mc->blas_library[0] || mc->blas_version[0] || mc->blas_core[0] ||
	       mc->blas_threading[0] || mc->blas_precisions;
}

static void machine_blas(const rt_machine *mc, const rt_machine_said *said, rt_pg_machine *m)
{
	rt_pg_row *row = has_blas(mc) ? add_row(m, "BLAS") : NULL;
	if (!row)
		return;
	char prec[128];
	rt_machine_precisions_text(mc->blas_precisions, ", ", prec, sizeof prec);
	cat(row->value, sizeof row->value, "%s %s", or_unknown(mc->blas_library), mc->blas_version);
	if (mc->blas_core[0])
		cat(row->value, sizeof row->value, ", %s kernels", mc->blas_core);
	if (mc->blas_threading[0])
		cat(row->value, sizeof row->value, ", %s threading", mc->blas_threading);
	if (prec[0])
		cat(row->value, sizeof row->value, "; GEMM in %s", prec);
	if (said->bf16[0])
		cat(row->value, sizeof row->value, "; bf16 %s", said->bf16);
}

static void machine_accels(const rt_machine *mc, rt_pg_machine *m)
{
	for (int i = 0; i < mc->naccel; i++) {
		const rt_accel *a = &mc->accel[i];
		rt_pg_accel *pa = &m->accel[m->naccel++];
		snprintf(pa->backend, sizeof pa->backend, "%s", a->backend[0] ? a->backend : "?");
		pa->available = a->available;
		snprintf(pa->detail, sizeof pa->detail, "%s", pa->available ? "" : a->reason);
		for (int d = 0; pa->available && d < a->ndevices; d++) {
			const rt_device_info *dv = &a->dev[d];
			char prec[128];
			rt_machine_precisions_text(dv->precisions, " ", prec, sizeof prec);
			cat(pa->detail, sizeof pa->detail,
			    "%s%s: %.1f GiB, %d compute units, %s%s%s", d ? "; " : "",
			    dv->name[0] ? dv->name : "device", rt_machine_gib(dv->mem_total),
			    dv->compute_units, prec, dv->driver[0] ? "; " : "", dv->driver);
		}
	}
}

/* The rows after the CPU's: OS, memory, BLAS, the accelerators, the fingerprint. */
static void machine_rest(const rt_machine *mc, const rt_machine_said *said, const rt_page *pg,
                         rt_pg_machine *m)
{
	rt_pg_row *row = add_row(m, "OS");
	if (row)
		snprintf(row->value, sizeof row->value, "%s, kernel %s", or_unknown(mc->os_name),
		         or_unknown(mc->kernel));
	if ((row = add_row(m, "Memory")) && !mc->mem_total) { /* the document does not say */
		cat(row->value, sizeof row->value, "unknown");
	} else if (row) {
		cat(row->value, sizeof row->value, "%.1f GiB", rt_machine_gib(mc->mem_total));
		if (mc->mem_available)
			cat(row->value, sizeof row->value, ", %.1f GiB available when tuned",
			    rt_machine_gib(mc->mem_available));
	}
	machine_blas(mc, said, m);
	machine_accels(mc, m);
	const char *src = mc->source;
	int other = src[0] && strcmp(src, "live");
	if ((row = add_row(m, "Fingerprint")))
		snprintf(row->value, sizeof row->value, "%s%s%s", pg->fingerprint,
		         other ? ", topology from " : "", other ? src : "");
}

/*
 * The machine's rows, from the configuration's machine: section as the
 * machine's reader reads it. A section it refuses leaves the machine
 * unknown, its problem in m->problem for the page to say where the machine
 * would be: the rest of the page does not need it. RT_ENOMEM.
 */
static int read_machine(rt_page *pg, char *err, size_t errlen)
{
	rt_pg_machine *m = &pg->machine;
	rt_yr view = rt_yr_with_err(&pg->config.yr, m->problem, sizeof m->problem);
	rt_machine *mc = malloc(sizeof *mc);
	rt_machine_said said;
	if (!mc)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	if (rt_machine_read(&view, pg->config.machine, mc, &said) == RT_OK) {
		m->known = 1;
		machine_cpu(mc, &said, m);
		machine_rest(mc, &said, pg, m);
	}
	free(mc);
	return RT_OK;
}

/* ---- the workloads of the configuration ---- */

/* The key the workload's chart sweeps: the knee's (batch, num_envs), else threads. */
static const char *axis_key(const rt_workload *w)
{
	const rt_knob *k = w->knee ? rt_knob_find(w->knee) : NULL;
	if (w->knee && (rt_shape_index(w, w->knee) >= 0 || (k && rt_workload_reads(w, k))))
		return w->knee;
	return "threads";
}

long rt_pg_x(const rt_pg_workload *wl, const rt_point *pt, const rt_shape *sh)
{
	int k = rt_shape_index(wl->w, wl->xkey);
	if (k >= 0)
		return sh->v[k];
	return rt_knob_get(rt_knob_find(wl->xkey), pt);
}

static int decode_mark(const rt_config *c, const rt_config_point *p, const rt_workload *w,
                       rt_pg_mark *m, char *err, size_t errlen)
{
	m->set = 1;
	m->median = p->median;
	m->ci_lo = p->ci_lo;
	m->ci_hi = p->ci_hi;
	return rt_config_point_decode(c, p, w, &m->pt, &m->sh, err, errlen);
}

static void read_hints(const rt_config *c, const rt_config_rec *rec, rt_pg_workload *wl)
{
	static const char *const frameworks[2] = {"pytorch", "jax"};
	for (int f = 0; f < 2; f++)
		wl->nhints[f] = rt_config_hints(c, rec, frameworks[f], wl->hints[f], RT_PG_MAX_HINTS);
}

static int read_entry(rt_page *pg, const rt_config_rec *rec, rt_pg_workload *wl, char *err,
                      size_t errlen)
{
	const rt_config *c = &pg->config;
	wl->name = rec->name;
	wl->cfg = rec;
	if (!(wl->w = rt_workload_find(rec->name)))
		return RT_OK; /* a user's command (tune --cmd): its card only */
	wl->xkey = axis_key(wl->w);
	int rc = RT_OK;
	if (rec->none) {
		rc = rt_config_entry_shape(c, rec, wl->w, &wl->shape, err, errlen);
	} else {
		rc = decode_mark(c, &rec->recommended, wl->w, &wl->rec, err, errlen);
		if (rc == RT_OK)
			rc = decode_mark(c, &rec->fastest, wl->w, &wl->fastest, err, errlen);
		wl->shape = wl->rec.sh;
		read_hints(c, rec, wl);
	}
	if (rc == RT_OK && pg->machine.usable_cores > 0) {
		wl->naive_known = 1;
		rt_naive_point(wl->w, &wl->shape, pg->machine.usable_cores, &wl->naive_pt,
		               &wl->naive_sh);
	}
	return rc;
}

/* Whether path reads as a results journal (given where a configuration was expected). */
static int is_journal(const char *path)
{
	rt_journal_record *records;
	size_t n;
	if (rt_journal_load(path, &records, &n, NULL, NULL, NULL, 0))
		return 0;
	rt_journal_records_free(records, n);
	return 1;
}

static int read_config(rt_page *pg, const char *path, char *err, size_t errlen)
{
	int rc = readable(path, "the configuration", err, errlen);
	if (rc == RT_OK)
		rc = rt_config_load(path, &pg->config, err, errlen);
	if (rc == RT_EINVAL && is_journal(path))
		rc = rt_fail(err, errlen, rc,
		             "%s: not a configuration but a results journal: give it with "
		             "--journal %s",
		             path, path);
	if (rc)
		return rc;
	pg->has_config = 1;
	const rt_config *c = &pg->config;
	pg->config_path = c->path;
	snprintf(pg->host, sizeof pg->host, "%s", c->hostname);
	snprintf(pg->fingerprint, sizeof pg->fingerprint, "%s", c->fingerprint);
	pg->partial = c->partial;
	pg->generated = rt_config_scalar(c, "generated");
	pg->unavailable = rt_config_scalar(c, "unavailable");
	rc = read_machine(pg, err, errlen);
	for (int i = 0; i < c->nrecs && rc == RT_OK; i++)
		rc = read_entry(pg, &c->recs[i], &pg->wl[pg->nwl++], err, errlen);
	return rc;
}

/* ---- journals ---- */

static int load_journal(rt_page *pg, const char *path, char *err, size_t errlen)
{
	if (pg->njournals == RT_PG_MAX_JOURNALS)
		return rt_fail(err, errlen, RT_EINVAL, "%s: more than %d journals", path,
		               RT_PG_MAX_JOURNALS);
	rt_pg_journal *j = &pg->journals[pg->njournals];
	int dropped = 0;
	rt_journal_header hdr;
	int rc = readable(path, "the journal", err, errlen);
	if (rc == RT_OK)
		rc = rt_journal_load(path, &j->records, &j->n, &dropped, &hdr, err, errlen);
	if (rc)
		return rc;
	snprintf(j->path, sizeof j->path, "%s", path);
	pg->njournals++;
	if (dropped)
		note(pg,
		     "%s ends in a half-written trial (its run was killed while writing): left out",
		     path);
	if (!pg->host[0])
		snprintf(pg->host, sizeof pg->host, "%s", hdr.host);
	return RT_OK;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/*
 * The configuration's journal, and before it the older journals of its host
 * in the same directory (the run reused their trials), at most
 * RT_PG_MAX_JOURNALS in all.
 */
static int load_config_journals(rt_page *pg, char *err, size_t errlen)
{
	const rt_config *c = &pg->config;
	if (!c->journal) {
		note(pg, "%s names no journal (search.journal): the charts show only its points",
		     c->path);
		return RT_OK;
	}
	char journal[2200];
	if (!rt_config_locate(c, c->journal, journal, sizeof journal))
		snprintf(journal, sizeof journal, "%s", c->journal);
	if (access(journal, R_OK))
		return rt_config_bad(c, "search.journal", err, errlen,
		                     "cannot read %s: %s (name the journal with --journal FILE)",
		                     journal, strerror(errno));
	char *dup = strdup(journal), **paths = NULL;
	size_t n = 0, upto = 0;
	if (!dup)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	int rc = rt_journal_list(dirname(dup), c->hostname, &paths, &n, err, errlen);
	while (rc == RT_OK && upto < n && strcmp(base_name(paths[upto]), base_name(journal)))
		upto++;
	if (rc == RT_OK && upto < n) {
		size_t from = upto + 1 > RT_PG_MAX_JOURNALS ? upto + 1 - RT_PG_MAX_JOURNALS : 0;
		for (size_t i = from; i <= upto && rc == RT_OK; i++)
			rc = load_journal(pg, paths[i], err, errlen);
	} else if (rc == RT_OK) {
		rc = load_journal(pg, journal, err, errlen);
	}
	rt_journal_list_free(paths, n);
	free(dup);
	return rc;
}

/* The newest trial of any journal at exactly this fingerprint, workload, shape and point. */
static const rt_journal_record *find_trial(const rt_page *pg, const char *fingerprint,
                                           const rt_workload *w, const rt_shape *sh,
                                           const rt_point *pt)
{
	for (int j = pg->njournals; j-- > 0;) {
		const rt_journal_record *r = rt_journal_find(
		    pg->journals[j].records, pg->journals[j].n, fingerprint, w, sh, pt);
		if (r)
			return r;
	}
	return NULL;
}

/* Same shape but for the key the chart sweeps. */
static int same_model(const rt_pg_workload *wl, const rt_shape *sh)
{
	int skip = rt_shape_index(wl->w, wl->xkey);
	for (int i = 0; i < sh->n && i < wl->shape.n; i++)
		if (i != skip && sh->v[i] != wl->shape.v[i])
			return 0;
	return sh->n == wl->shape.n;
}

/* The card of built-in workload w; NULL for a command's trial (no workload: no chart). */
static rt_pg_workload *workload_of(rt_page *pg, const rt_workload *w)
{
	for (int i = 0; w && i < pg->nwl; i++)
		if (pg->wl[i].w == w)
			return &pg->wl[i];
	return NULL;
}

/* Without a configuration: a workload per workload measured, at its newest trial's shape. */
static void workloads_from_journals(rt_page *pg)
{
	for (int j = pg->njournals; j-- > 0;)
		for (size_t i = pg->journals[j].n; i-- > 0;) {
			const rt_journal_record *r = &pg->journals[j].records[i];
			if (!pg->fingerprint[0])
				snprintf(pg->fingerprint, sizeof pg->fingerprint, "%s",
				         r->fingerprint);
			/* a command's trial (tune --cmd) has no workload to chart */
			if (!r->workload || workload_of(pg, r->workload) ||
			    pg->nwl == RT_CONFIG_MAX_RECS)
				continue;
			rt_pg_workload *wl = &pg->wl[pg->nwl++];
			wl->name = r->workload->name;
			wl->w = r->workload;
			wl->xkey = axis_key(wl->w);
			wl->shape = r->shape;
		}
}

/*
 * Without a configuration the usable cores, and so the naive point, are
 * unknown: the trial a journal marks as the naive default (role: naive),
 * the newest, stands for it.
 */
static void marked_naive(rt_pg_workload *wl)
{
	for (size_t i = wl->ntrials; i-- > 0 && !wl->naive_known;)
		if (wl->trials[i]->role == RT_TRIAL_NAIVE) {
			wl->naive_known = 1;
			wl->naive_pt = wl->trials[i]->point;
			wl->naive_sh = wl->trials[i]->shape;
		}
}

static int assign_trials(rt_page *pg, char *err, size_t errlen)
{
	size_t other_machine = 0;
	for (int j = 0; j < pg->njournals; j++)
		for (size_t i = 0; i < pg->journals[j].n; i++) {
			const rt_journal_record *r = &pg->journals[j].records[i];
			rt_pg_workload *wl = workload_of(pg, r->workload);
			if (!wl || r->role == RT_TRIAL_AGAIN) /* the page shows the search's trials */
				continue;
			if (strcmp(r->fingerprint, pg->fingerprint)) {
				other_machine++;
			} else if (!same_model(wl, &r->shape)) {
				wl->other_shape++;
			} else if (find_trial(pg, r->fingerprint, r->workload, &r->shape,
			                      &r->point) == r) {
				const rt_journal_record **v =
				    realloc(wl->trials, (wl->ntrials + 1) * sizeof *v);
				if (!v)
					return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
				wl->trials = v;
				wl->trials[wl->ntrials++] = r;
			}
		}
	if (other_machine)
		note(pg,
		     "%zu trial%s measured on another machine or setup (another fingerprint "
		     "than %s): left out",
		     other_machine, other_machine == 1 ? "" : "s", pg->fingerprint);
	for (int i = 0; i < pg->nwl; i++) {
		rt_pg_workload *wl = &pg->wl[i];
		if (wl->w && wl->rec.set)
			wl->rec_trial =
			    find_trial(pg, pg->fingerprint, wl->w, &wl->rec.sh, &wl->rec.pt);
		if (wl->w && !wl->naive_known)
			marked_naive(wl);
		if (wl->w && wl->naive_known)
			wl->naive_trial =
			    find_trial(pg, pg->fingerprint, wl->w, &wl->naive_sh, &wl->naive_pt);
	}
	return RT_OK;
}

/* ---- the crossover ---- */

/*
 * The configuration's analysis (config.c read it) into the page's: each
 * curve labelled backend/precision, its outliers moved over.
 */
static void analysis_of(rt_crossover_doc *xo, rt_pg_crossover *x)
{
	for (int i = 0; i < xo->ncurves; i++) {
		rt_crossover_doc_curve *c = &xo->curves[i];
		rt_pg_curve *pc = &x->curves[x->ncurves++];
		snprintf(pc->label, sizeof pc->label, "%s/%s", c->label, c->precision);
		pc->name = c->label;
		pc->id = c->id;
		pc->precision = c->precision;
		pc->fit = c->fit;
		pc->noutliers = c->noutliers;
		pc->outliers = c->outliers;
		c->outliers = NULL;
	}
	for (int i = 0; i < xo->npairs; i++)
		x->pairs[x->npairs++] = xo->pairs[i];
	for (int i = 0; i < xo->nthreads; i++)
		x->threads[x->nthreads++] = xo->threads[i];
	x->present = 1;
}

/* Gives each curve its observations from pg->replay. */
static void attach_observations(rt_page *pg)
{
	for (int i = 0; i < pg->xo.ncurves; i++) {
		rt_pg_curve *c = &pg->xo.curves[i];
		long k = rt_replay_find(pg->replay, c->name, c->precision);
		c->obs = k >= 0 ? &pg->replay->curves[k] : NULL;
	}
}

/* The page's curves of an analysis: the fits, each with its outliers as (n, seconds). */
static int curves_of(const rt_crossover_fits *f, rt_pg_crossover *x, char *err, size_t errlen)
{
	for (size_t i = 0; i < f->r->ncurves; i++) {
		const rt_replay_curve *c = &f->r->curves[i];
		rt_pg_curve *pc = &x->curves[x->ncurves++];
		RT_BUG_ON(x->ncurves > RT_PG_MAX_CURVES);
		snprintf(pc->label, sizeof pc->label, "%s", f->name[i]);
		pc->name = c->backend;
		pc->id = c->id;
		pc->precision = c->precision;
		pc->fit = f->fit[i];
		for (size_t k = 0; k < c->count; k++)
			pc->noutliers += f->outlier[i][k];
		if (pc->noutliers &&
		    !(pc->outliers = calloc(2 * (size_t)pc->noutliers, sizeof(double))))
			return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		for (size_t k = 0, o = 0; k < c->count; k++)
			if (f->outlier[i][k]) {
				pc->outliers[o++] = c->n[k];
				pc->outliers[o++] = c->seconds[k];
			}
	}
	return RT_OK;
}

static void pair_of(const rt_crossover_analysis *a, const rt_crossover_pair *p, rt_pg_pair *pp)
{
	*pp = (rt_pg_pair){a->square.name[p->i], a->square.name[p->j], NULL, NULL, NULL,
	                   NAN, NAN, NAN};
	if (!p->solved) {
		pp->error = p->error;
		return;
	}
	pp->kind = rt_crossover_kind_name(p->cx.kind);
	pp->summary = p->summary;
	pp->n_star = p->n_star;
	if (p->has_ci) {
		pp->ci_lo = p->ci.lo;
		pp->ci_hi = p->ci.hi;
	}
}

static void threads_of(const rt_crossover_threads *t, rt_pg_threads *pt)
{
	*pt = (rt_pg_threads){.backend = t->backend, .precision = t->precision,
	                      .threads = t->threads, .pays_from = NAN};
	if (!t->solved) {
		pt->error = t->error;
		return;
	}
	pt->summary = t->summary;
	if (!isinf(t->pays_from))
		pt->pays_from = t->pays_from;
	for (size_t k = 0; t->has_best && k < t->nbest && pt->nbest < RT_CROSSOVER_DOC_MAX_RANGES;
	     k++)
		pt->best[pt->nbest++] = t->best[k];
}

/*
 * The fits of a replay CSV, made here as `crossover --replay` makes them
 * (rt_crossover_fit), taken from the analysis itself.
 */
static int fit_replay(rt_page *pg, const char *path, char *err, size_t errlen)
{
	int rc = readable(path, "the crossover observations", err, errlen);
	if (rc == RT_OK)
		rc = rt_replay_read(path, &pg->replay, err, errlen);
	if (rc)
		return rc;
	char why[RT_ERRLEN];
	rt_crossover_data d = {.square = pg->replay};
	rt_crossover_shape shape = {0};
	rt_crossover_analysis *a = &pg->xo_fit;
	if ((rc = rt_crossover_fit(&d, &shape, a, why, sizeof why)))
		return rt_fail(err, errlen, rc, "%s: %s", path, why);
	if (a->square.r->ncurves > RT_PG_MAX_CURVES || a->npairs > RT_PG_MAX_PAIRS ||
	    a->nthreads > RT_PG_MAX_PAIRS)
		return rt_fail(err, errlen, RT_EINVAL,
		               "%s: more curves than a page draws (%d at most)", path,
		               RT_PG_MAX_CURVES);
	rt_pg_crossover *x = &pg->xo;
	rc = curves_of(&a->square, x, err, errlen);
	for (size_t i = 0; rc == RT_OK && i < a->npairs; i++)
		pair_of(a, &a->pairs[i], &x->pairs[x->npairs++]);
	for (size_t i = 0; rc == RT_OK && i < a->nthreads; i++)
		threads_of(&a->threads[i], &x->threads[x->nthreads++]);
	x->present = rc == RT_OK;
	snprintf(x->source, sizeof x->source, "the observations in %s, fitted here", path);
	snprintf(x->obs_file, sizeof x->obs_file, "%s", path);
	return rc;
}

/*
 * The configuration's analysis; its observations from the CSV it names
 * (crossover.replay), if that can still be read: without it the fits alone.
 */
static int config_crossover(rt_page *pg, char *err, size_t errlen)
{
	const rt_config *c = &pg->config;
	rt_yr view = rt_yr_with_err(&c->yr, err, errlen);
	rt_crossover_doc xo;
	int rc = rt_crossover_read(&view, c->crossover, &xo);
	if (rc == RT_OK)
		analysis_of(&xo, &pg->xo);
	rt_crossover_doc_free(&xo);
	if (rc)
		return rc;
	snprintf(pg->xo.source, sizeof pg->xo.source, "the analysis in %s", c->path);
	char csv[sizeof pg->xo.obs_file];
	if (!c->crossover_replay) {
		snprintf(pg->xo.obs_note, sizeof pg->xo.obs_note,
		         "%s does not record the sweep's observations: the fitted curves alone",
		         c->path);
		return RT_OK;
	}
	if (!rt_config_locate(c, c->crossover_replay, csv, sizeof csv))
		snprintf(csv, sizeof csv, "%s", c->crossover_replay);
	if (access(csv, R_OK)) {
		snprintf(
		    pg->xo.obs_note, sizeof pg->xo.obs_note,
		    "the sweep's observations (%s) cannot be read (%s): the fitted curves alone",
		    csv, strerror(errno));
		return RT_OK;
	}
	snprintf(pg->xo.obs_file, sizeof pg->xo.obs_file, "%s", csv);
	return rt_replay_read(csv, &pg->replay, err, errlen);
}

static int read_crossover(rt_page *pg, const char *csv, char *err, size_t errlen)
{
	int rc = RT_OK;
	if (csv)
		rc = fit_replay(pg, csv, err, errlen);
	else if (pg->has_config && pg->config.crossover)
		rc = config_crossover(pg, err, errlen);
	if (rc == RT_OK && pg->replay)
		attach_observations(pg);
	return rc;
}

/* ---- phases ---- */

static const struct {
	const char *name;
	rt_phase_kind kind;
} phase_kinds[] = {
    {"gemm", RT_PHASE_COMPUTE},
    {"attention", RT_PHASE_COMPUTE},
    {"elementwise", RT_PHASE_COMPUTE},
    {"policy", RT_PHASE_COMPUTE},
    {"optimizer", RT_PHASE_UPDATE},
    {"update", RT_PHASE_UPDATE},
    {"transfer", RT_PHASE_TRANSFER},
    {"data", RT_PHASE_HOST},
    {"env", RT_PHASE_HOST},
};

rt_phase_kind rt_phase_kind_of(const char *phase_name)
{
	for (size_t i = 0; i < RT_COUNT(phase_kinds); i++)
		if (!strcmp(phase_kinds[i].name, phase_name))
			return phase_kinds[i].kind;
	return RT_PHASE_COMPUTE; /* a new workload's own kernels */
}

const char *rt_phase_kind_name(rt_phase_kind k)
{
	static const char *const names[RT_NPHASE_KIND] = {
	    [RT_PHASE_COMPUTE] = "compute",
	    [RT_PHASE_UPDATE] = "update",
	    [RT_PHASE_TRANSFER] = "transfer",
	    [RT_PHASE_HOST] = "data / env",
	};
	return k < RT_NPHASE_KIND ? names[k] : "?";
}

double rt_pg_phase_split(const rt_workload *w, const rt_measurement *m,
                         double share[RT_NPHASE_KIND])
{
	double total = 0;
	memset(share, 0, sizeof(double) * RT_NPHASE_KIND);
	for (int p = 0; p < m->nphases && p < w->nphases; p++) {
		share[rt_phase_kind_of(w->phase_names[p])] += m->phase_frac[p];
		total += m->phase_frac[p];
	}
	if (!(total > 0))
		return 0;
	for (int k = 0; k < RT_NPHASE_KIND; k++)
		share[k] /= total;
	return share[RT_PHASE_COMPUTE] + share[RT_PHASE_UPDATE];
}

static const rt_journal_record *fastest_trial(const rt_pg_workload *wl)
{
	const rt_journal_record *best = NULL;
	for (size_t i = 0; i < wl->ntrials; i++)
		if (wl->trials[i]->m.feasible && wl->trials[i]->role == RT_TRIAL_SEARCH &&
		    (!best || wl->trials[i]->m.median > best->m.median))
			best = wl->trials[i];
	return best;
}

int rt_pg_phase_rows(const rt_pg_workload *wl, const rt_journal_record *rows[2],
                     const char *labels[2])
{
	int n = 0;
	const rt_journal_record *top = wl->cfg ? wl->rec_trial : fastest_trial(wl);
	if (top && top->m.feasible) {
		labels[n] = wl->cfg ? "recommended" : "fastest measured";
		rows[n++] = top;
	}
	if (wl->naive_trial && wl->naive_trial->m.feasible && wl->naive_trial != top) {
		labels[n] = "naive default";
		rows[n++] = wl->naive_trial;
	}
	return n;
}

/* ---- the whole page ---- */

int rt_page_load(rt_page *pg, const rt_page_inputs *in, char *err, size_t errlen)
{
	memset(pg, 0, sizeof *pg);
	int rc = RT_OK;
	if (in->watch) {
		rc = readable(in->watch, "the watch result", err, errlen);
		if (rc == RT_OK)
			rc = rt_watch_load(in->watch, &pg->watchrun, err, errlen);
		if (rc)
			return rc;
		pg->has_watch = 1;
		pg->watch = &pg->watchrun;
		if (!in->config && !in->njournals)
			return RT_OK; /* a page of the watch alone */
	}
	if (!in->config && !in->njournals)
		return rt_fail(err, errlen, RT_EINVAL,
		               "no configuration and no journal to report on");
	if (in->config)
		rc = read_config(pg, in->config, err, errlen);
	for (int i = 0; i < in->njournals && rc == RT_OK; i++)
		rc = load_journal(pg, in->journals[i], err, errlen);
	if (rc == RT_OK && !in->njournals)
		rc = load_config_journals(pg, err, errlen);
	if (rc == RT_OK && !pg->has_config)
		workloads_from_journals(pg);
	if (rc == RT_OK)
		rc = assign_trials(pg, err, errlen);
	if (rc == RT_OK)
		rc = read_crossover(pg, in->crossover, err, errlen);
	if (rc == RT_OK && in->check &&
	    (rc = readable(in->check, "the check result", err, errlen)) == RT_OK &&
	    (rc = rt_checkdoc_load(in->check, &pg->checkdoc, err, errlen)) == RT_OK) {
		pg->has_check = 1;
		pg->check = &pg->checkdoc;
	}
	if (rc)
		rt_page_free(pg);
	return rc;
}

void rt_page_free(rt_page *pg)
{
	for (int i = 0; i < pg->nwl; i++)
		free(pg->wl[i].trials);
	for (int i = 0; i < pg->xo.ncurves; i++)
		free(pg->xo.curves[i].outliers);
	for (int j = 0; j < pg->njournals; j++)
		rt_journal_records_free(pg->journals[j].records, pg->journals[j].n);
	if (pg->has_config)
		rt_config_free(&pg->config);
	if (pg->has_check)
		rt_checkdoc_free(&pg->checkdoc);
	if (pg->has_watch)
		rt_watch_free(&pg->watchrun);
	rt_crossover_analysis_free(&pg->xo_fit);
	rt_replay_free(pg->replay);
	memset(pg, 0, sizeof *pg);
}
