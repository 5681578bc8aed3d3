#include "page.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/rt.h"
#include "../../workloads/knobs.h"
#include "../cli.h"
#include "../html.h"
#include "pagechart.h"
#include "pagewatch.h"

/* Everything the sections share while the page is written. */
typedef struct page_ctx {
	FILE *f;
	const rt_page *pg;
	const char *gnuplot;
	int charts; /* charts drawn so far: their ids get "cN-" */
	char *err;
	size_t errlen;
} page_ctx;

/* ---- text ---- */

static void out(page_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(page_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(c->f, fmt, ap);
	va_end(ap);
}

/* Text as HTML (and XML) character data or attribute value. */
static void text(page_ctx *c, const char *s)
{
	rt_html_text(c->f, s);
}

/* <tag class="cls">s</tag>, s escaped. */
static void elem(page_ctx *c, const char *tag, const char *cls, const char *s)
{
	out(c, "<%s%s%s%s>", tag, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	text(c, s);
	out(c, "</%s>", tag);
}

/* An id from a name: letters, digits and '-' only. */
static void slug(const char *name, char *buf, size_t len)
{
	size_t n = 0;
	for (; *name && n + 1 < len; name++)
		buf[n++] = isalnum((unsigned char)*name) ? (char)tolower((unsigned char)*name) : '-';
	buf[n] = '\0';
}

/* 14,292 / 812.4 / 43.08 / 0.0312: a throughput as people read it. */
static void num(double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", isnan(v) ? "n/a" : v > 0 ? "inf" : "-inf");
	} else if (fabs(v) >= 1000) {
		char digits[64];
		int n = snprintf(digits, sizeof digits, "%.0f", fabs(v)), o = 0;
		if (v < 0 && (size_t)o + 1 < len)
			buf[o++] = '-';
		for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
			if (i && (n - i) % 3 == 0)
				buf[o++] = ',';
			buf[o++] = digits[i];
		}
		buf[o] = '\0';
	} else {
		snprintf(buf, len, "%.*f", fabs(v) >= 100 ? 1 : fabs(v) >= 1 ? 2 : 4, v);
	}
}

/*
 * A point as people read it: the knobs the workload reads, and the swept
 * shape key after the leading ones: "cpu fp32, batch 32, 2 threads, pin compact".
 */
static void point_text(const rt_workload *w, const rt_point *pt, const rt_shape *sh, char *buf,
                       size_t len)
{
	char item[96];
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < RT_NKNOBS; i++)
		if (rt_knob_leads(&rt_knobs[i]) && rt_knob_written(&rt_knobs[i], pt, w)) {
			rt_knob_words(&rt_knobs[i], pt, item, sizeof item);
			rt_list_append(buf, len, " ", item);
		}
	int k = w->knee ? rt_shape_index(w, w->knee) : -1;
	if (k >= 0) {
		snprintf(item, sizeof item, "%s %ld", w->knee, sh->v[k]);
		rt_list_append(buf, len, ", ", item);
	}
	for (int i = 0; i < RT_NKNOBS; i++)
		if (!rt_knob_leads(&rt_knobs[i]) && rt_knob_written(&rt_knobs[i], pt, w)) {
			rt_knob_words(&rt_knobs[i], pt, item, sizeof item);
			rt_list_append(buf, len, ", ", item);
		}
}

/* ---- charts ---- */

/* The page's legend of a chart that has one: a glyph in the series' colour, its label. */
static void legend(page_ctx *c, const rt_pg_svg *svg)
{
	static const char *const glyphs[] = {[RT_GLYPH_LINE] = "line",
	                                     [RT_GLYPH_RING] = "ring",
	                                     [RT_GLYPH_CROSS] = "cross",
	                                     [RT_GLYPH_BOX] = "box"};
	if (!svg->nlegend)
		return;
	out(c, "<ul class=\"legend\">");
	for (int i = 0; i < svg->nlegend; i++) {
		out(c, "<li><span class=\"g %s\" style=\"color:%s\"></span>",
		    glyphs[svg->legend[i].glyph], svg->legend[i].color);
		text(c, svg->legend[i].label);
		out(c, "</li>");
	}
	out(c, "</ul>\n");
}

/* A drawn chart in its figure, or the sentence saying why there is none. */
static int figure(page_ctx *c, const char *name, const char *kind,
                  int (*draw)(const void *, const char *, const char *, rt_pg_svg *, char *,
                              size_t),
                  const void *data)
{
	char prefix[16];
	rt_pg_svg svg = {0};
	snprintf(prefix, sizeof prefix, "c%d-", ++c->charts);
	int rc = draw(data, c->gnuplot, prefix, &svg, c->err, c->errlen);
	if (rc)
		return rc;
	if (!svg.svg) {
		out(c, "<p class=\"nochart\" id=\"nochart-%s\">", name);
		text(c, svg.why);
		out(c, "</p>\n");
		return RT_OK;
	}
	out(c, "<figure class=\"chart\" id=\"chart-%s\" data-chart=\"%s\">\n", name, kind);
	fwrite(svg.svg, 1, svg.len, c->f);
	legend(c, &svg);
	out(c, "</figure>\n");
	free(svg.svg);
	return RT_OK;
}

/* The chart functions under one signature, for figure(). */
static int draw_throughput(const void *d, const char *g, const char *p, rt_pg_svg *o, char *e,
                           size_t n)
{
	return rt_pagechart_throughput(d, g, p, o, e, n);
}

static int draw_phases(const void *d, const char *g, const char *p, rt_pg_svg *o, char *e, size_t n)
{
	return rt_pagechart_phases(d, g, p, o, e, n);
}

static int draw_crossover(const void *d, const char *g, const char *p, rt_pg_svg *o, char *e,
                          size_t n)
{
	return rt_pagechart_crossover(d, g, p, o, e, n);
}

static int draw_threads(const void *d, const char *g, const char *p, rt_pg_svg *o, char *e,
                        size_t n)
{
	return rt_pagechart_threads(d, g, p, o, e, n);
}

static int draw_check(const void *d, const char *g, const char *p, rt_pg_svg *o, char *e, size_t n)
{
	return rt_pagechart_check(d, g, p, o, e, n);
}

/* ---- head ---- */

static const char css[] =
    ":root{--ink:#1f2328;--muted:#59636e;--line:#d8dee4;--bg:#f4f6f8;--card:#ffffff;"
    "--accent:#4e79a7;--good:#2ca02c;--bad:#d62728;--warn:#e8a33d}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,"
    "'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}\n"
    "header.top{background:#1f2d3d;color:#fff;padding:22px 0 18px}\n"
    ".wrap{max-width:1200px;margin:0 auto;padding:0 24px}\n"
    "header.top h1{margin:0;font-size:26px;font-weight:650;letter-spacing:.2px}\n"
    "header.top h1 .host{color:#9ecbff}\n"
    "header.top p{margin:6px 0 0;color:#c9d4df;font-size:14px}\n"
    "nav{margin-top:12px;display:flex;flex-wrap:wrap;gap:6px}\n"
    "nav a{color:#fff;text-decoration:none;background:rgba(255,255,255,.12);padding:3px 10px;"
    "border-radius:12px;font-size:13px}\n"
    "main.wrap{padding-top:18px;padding-bottom:12px}\n"
    "section.card{background:var(--card);border:1px solid var(--line);border-radius:10px;"
    "padding:18px 22px;margin:0 0 18px}\n"
    "h2{margin:0 0 12px;font-size:21px}h2 "
    "small{color:var(--muted);font-weight:400;font-size:15px}\n"
    "h3{margin:18px 0 8px;font-size:16px}h4{margin:14px 0 4px;font-size:13px;color:var(--muted);"
    "text-transform:uppercase;letter-spacing:.5px}\n"
    ".notes{margin:0 0 18px;padding:10px 16px;background:#fff8e1;border:1px solid #f0d98c;"
    "border-radius:8px;font-size:14px}\n"
    ".notes p{margin:2px 0}\n"
    ".summary{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:12px;"
    "margin:0 0 18px}\n"
    ".tile{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--accent);"
    "border-radius:8px;padding:10px 14px}\n"
    ".tile .name{font-weight:650}.tile .big{font-size:22px;font-weight:650}\n"
    ".tile .unit,.muted{color:var(--muted)}.tile p{margin:2px 0;font-size:13px}\n"
    ".split{display:grid;grid-template-columns:minmax(0,1fr) 330px;gap:20px;align-items:start}\n"
    "@media (max-width:1000px){.split{grid-template-columns:1fr}}\n"
    "figure.chart{margin:0}\n"
    "svg.chart{max-width:100%;height:auto;display:block}\n"
    "figcaption{color:var(--muted);font-size:13px;margin-top:4px}\n"
    ".nochart{padding:22px;border:1px dashed var(--line);border-radius:8px;color:var(--muted);"
    "background:#fafbfc}\n"
    "aside.rec,aside.side{background:#f7f9fb;border:1px solid "
    "var(--line);border-radius:8px;padding:12px 16px;"
    "font-size:14px}\n"
    "aside.rec .big{font-size:28px;font-weight:700;margin:0}\n"
    "aside.rec .big span{font-size:14px;font-weight:400;color:var(--muted)}\n"
    ".chips{display:flex;flex-wrap:wrap;gap:4px;margin:6px 0}\n"
    ".chip{background:#e8eef5;border-radius:10px;padding:1px 8px;font-size:13px}\n"
    "pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}\n"
    "pre{background:#eef1f4;border-radius:6px;padding:8px 10px;margin:4px 0;white-space:pre-wrap}\n"
    "ul.hints{margin:2px 0;padding-left:18px}ul.hints code{overflow-wrap:anywhere}\n"
    "ul.legend{list-style:none;margin:4px 0 0 48px;padding:0;display:flex;flex-wrap:wrap;"
    "gap:2px 18px;font-size:13px;color:#333}\n"
    "ul.legend li{display:flex;align-items:center;gap:6px}\n"
    ".g{display:inline-block;width:24px;height:14px;position:relative;flex:none}\n"
    ".g::before,.g::after{content:\"\";position:absolute}\n"
    ".g.line::before{left:0;right:0;top:6px;height:2px;background:currentColor}\n"
    ".g.line::after{left:8px;top:3px;width:8px;height:8px;border-radius:50%;background:"
    "currentColor}\n"
    ".g.ring::after{left:5px;top:0;width:14px;height:14px;border:2px solid currentColor;"
    "border-radius:50%;box-sizing:border-box}\n"
    ".g.cross::before,.g.cross::after{left:11px;top:-1px;width:2px;height:16px;"
    "background:currentColor;transform:rotate(45deg)}\n"
    ".g.cross::after{transform:rotate(-45deg)}\n"
    ".g.box::before{left:4px;top:0;width:16px;height:14px;background:currentColor}\n"
    "table{border-collapse:collapse;width:100%;font-size:14px}\n"
    "th,td{text-align:left;padding:5px 8px;border-bottom:1px solid "
    "var(--line);vertical-align:top}\n"
    "th{color:var(--muted);font-weight:600;font-size:13px}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.kv th{width:130px}\n"
    ".machine{display:grid;grid-template-columns:minmax(0,1.3fr) minmax(0,1fr);gap:22px}\n"
    "@media (max-width:1000px){.machine{grid-template-columns:1fr}}\n"
    ".cores{display:flex;flex-wrap:wrap;gap:4px;margin:4px 0 10px}\n"
    ".core{width:26px;height:26px;border-radius:5px;background:#4e79a7;color:#fff;font-size:10px;"
    "display:flex;align-items:center;justify-content:center}\n"
    ".core.efficiency{background:#76b7b2}\n"
    ".pill{display:inline-block;border-radius:10px;padding:0 8px;font-size:12.5px;font-weight:600;"
    "color:#fff;background:#8a939c}\n"
    ".pill.ok{background:var(--good)}.pill.bad{background:var(--bad)}.pill.warn{background:var(--"
    "warn)}\n"
    "ul.bad{margin:4px 0;padding-left:18px}ul.bad li{margin:2px 0}\n"
    ".flag{color:var(--bad);font-weight:600}\n"
    "details{margin-top:8px}summary{cursor:pointer;color:var(--accent)}\n"
    ".verdict{font-size:18px;font-weight:700;padding:8px 14px;border-radius:8px;color:#fff;"
    "display:inline-block}\n"
    "footer{color:var(--muted);font-size:13px;padding:0 0 30px}\n";

static void head(page_ctx *c)
{
	const rt_page *pg = c->pg;
	/* no script of any kind runs, whatever a string of the inputs holds: only the
	 * page's own style and inline SVG, nothing fetched */
	out(c, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	       RT_HTML_CSP_META
	       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
	       "<title>rigtune report: ");
	text(c, pg->host[0] ? pg->host : "unknown host");
	out(c, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

static size_t trial_count(const rt_page *pg)
{
	size_t n = 0;
	for (int j = 0; j < pg->njournals; j++)
		n += pg->journals[j].n;
	return n;
}

static void banner(page_ctx *c)
{
	const rt_page *pg = c->pg;
	out(c, "<header class=\"top\"><div class=\"wrap\">\n<h1>rigtune report: <span "
	       "class=\"host\">");
	text(c, pg->host[0] ? pg->host : "unknown host");
	out(c, "</span></h1>\n<p>");
	if (pg->config_path) {
		out(c, "Configuration ");
		elem(c, "code", NULL, pg->config_path);
		if (pg->generated) {
			out(c, ", tuned ");
			text(c, pg->generated);
		}
		out(c, ". ");
	}
	out(c, "%zu trial%s from %d journal%s", trial_count(pg), trial_count(pg) == 1 ? "" : "s",
	    pg->njournals, pg->njournals == 1 ? "" : "s");
	for (int j = 0; j < pg->njournals && j < 3; j++) {
		out(c, "%s", j ? ", " : ": ");
		elem(c, "code", NULL, pg->journals[j].path);
	}
	out(c, "%s.</p>\n<nav>", pg->njournals > 3 ? ", ..." : "");
	out(c, "<a href=\"#machine\">machine</a>");
	for (int i = 0; i < pg->nwl; i++) {
		char id[64];
		slug(pg->wl[i].name, id, sizeof id);
		out(c, "<a href=\"#workload-%s\">", id);
		text(c, pg->wl[i].name);
		out(c, "</a>");
	}
	out(c, "<a href=\"#crossover\">crossover</a>%s</nav>\n</div></header>\n",
	    pg->check ? "<a href=\"#check\">check</a>" : "");
}

static void notes(page_ctx *c)
{
	const rt_page *pg = c->pg;
	if (!pg->partial && !pg->nnotes && pg->config_path)
		return;
	out(c, "<div class=\"notes\">\n");
	if (pg->partial)
		out(c, "<p><strong>Partial:</strong> the tuning was interrupted; this is the best "
		       "it found before the signal.</p>\n");
	if (!pg->config_path)
		out(c,
		    "<p>No configuration was given: the page shows the journals' trials, without "
		    "a recommendation or a description of the machine.</p>\n");
	for (int i = 0; i < pg->nnotes; i++)
		elem(c, "p", NULL, pg->notes[i]);
	out(c, "</div>\n");
}

/* ---- summary ---- */

static void summary(page_ctx *c)
{
	const rt_page *pg = c->pg;
	out(c, "<div class=\"summary\">\n");
	for (int i = 0; i < pg->nwl; i++) {
		const rt_pg_workload *wl = &pg->wl[i];
		char v[32], pt[256];
		out(c, "<div class=\"tile\"><div class=\"name\">");
		text(c, wl->name);
		out(c, "</div>\n");
		if (wl->rec.set) {
			num(wl->rec.median, v, sizeof v);
			point_text(wl->w, &wl->rec.pt, &wl->rec.sh, pt, sizeof pt);
			out(c, "<div><span class=\"big\">%s</span> <span class=\"unit\">", v);
			text(c, wl->w->unit);
			out(c, "</span></div>\n");
			elem(c, "p", NULL, pt);
		} else if (wl->cfg && wl->cfg->none) {
			elem(c, "p", NULL, wl->cfg->none);
		} else if (wl->cfg) {
			num(wl->cfg->recommended.median, v, sizeof v);
			out(c, "<div><span class=\"big\">%s</span> <span class=\"unit\">", v);
			text(c, wl->cfg->recommended.unit);
			out(c, "</span></div>\n");
		} else {
			out(c, "<p>%zu trial%s, no recommendation given</p>\n", wl->ntrials,
			    wl->ntrials == 1 ? "" : "s");
		}
		out(c, "</div>\n");
	}
	out(c, "</div>\n");
}

/* ---- the machine ---- */

static void cores(page_ctx *c, const rt_pg_machine *m)
{
	for (int k = 0; k < m->nkinds; k++) {
		const rt_pg_kind *kd = &m->kinds[k];
		int smt = kd->cores ? kd->pus / kd->cores : 1;
		out(c, "<div class=\"muted\">%d ", kd->cores);
		text(c, kd->role);
		out(c, " core%s", kd->cores == 1 ? "" : "s");
		if (kd->label[0]) {
			out(c, " (");
			text(c, kd->label);
			out(c, ")");
		}
		if (smt > 1)
			out(c, ", %d PUs each", smt);
		out(c, "</div>\n<div class=\"cores\">");
		char cls[sizeof kd->role];
		slug(kd->role, cls, sizeof cls);
		for (int i = 0; i < kd->cores && i < 512; i++)
			out(c, "<span class=\"core %s\">%d</span>", cls, i);
		out(c, "</div>\n");
	}
}

static void accelerators(page_ctx *c, const rt_pg_machine *m)
{
	out(c, "<h3>Backends</h3>\n<table>\n<tr><th>backend</th><th>status</th><th>devices, or why "
	       "none</th></tr>\n");
	for (int i = 0; i < m->naccel; i++) {
		const rt_pg_accel *a = &m->accel[i];
		out(c, "<tr><td><code>");
		text(c, a->backend);
		out(c, "</code></td><td><span class=\"pill %s\">%s</span></td><td>",
		    a->available ? "ok" : "", a->available ? "available" : "unavailable");
		text(c, a->detail);
		out(c, "</td></tr>\n");
	}
	out(c, "</table>\n");
}

static void machine(page_ctx *c)
{
	const rt_pg_machine *m = &c->pg->machine;
	out(c, "<section class=\"card\" id=\"machine\">\n<h2>The machine</h2>\n");
	if (m->problem[0]) {
		out(c, "<p class=\"muted\">The configuration's machine section cannot be read: ");
		elem(c, "code", NULL, m->problem);
		out(c, "</p>\n</section>\n");
		return;
	}
	if (!m->known) {
		out(c, "<p class=\"muted\">Known only by its fingerprint, ");
		elem(c, "code", NULL, c->pg->fingerprint[0] ? c->pg->fingerprint : "none");
		out(c, ": give the configuration (<code>--config FILE</code>) to describe it.</p>\n"
		       "</section>\n");
		return;
	}
	out(c, "<div class=\"machine\"><div>\n<table class=\"kv\">\n");
	for (int i = 0; i < m->nrows; i++) {
		out(c, "<tr><th>");
		text(c, m->rows[i].label);
		out(c, "</th><td>");
		text(c, m->rows[i].value);
		out(c, "</td></tr>\n");
	}
	out(c, "</table>\n</div>\n<div>\n<h3>Cores</h3>\n");
	cores(c, m);
	accelerators(c, m);
	out(c, "</div></div>\n</section>\n");
}

/* ---- a workload ---- */

static void chips(page_ctx *c, const rt_config_kvs *kvs)
{
	out(c, "<div class=\"chips\">");
	for (int i = 0; i < kvs->n; i++) {
		out(c, "<span class=\"chip\">");
		text(c, kvs->kv[i].key);
		out(c, " ");
		text(c, kvs->kv[i].value);
		out(c, "</span>");
	}
	out(c, "</div>\n");
}

static void recommendation(page_ctx *c, const rt_pg_workload *wl)
{
	const rt_config_rec *rec = wl->cfg;
	out(c, "<aside class=\"rec\">\n");
	if (!rec) {
		out(c,
		    "<h4>Recommendation</h4><p>None: no configuration was given.</p>\n</aside>\n");
		return;
	}
	if (rec->none) {
		out(c, "<h4>Recommendation</h4><p><strong>None.</strong> ");
		text(c, rec->none);
		out(c, "</p>\n</aside>\n");
		return;
	}
	char v[32], lo[32], hi[32];
	num(rec->recommended.median, v, sizeof v);
	num(rec->recommended.ci_lo, lo, sizeof lo);
	num(rec->recommended.ci_hi, hi, sizeof hi);
	out(c, "<h4>Recommended</h4>\n<p class=\"big\">%s <span>", v);
	text(c, rec->recommended.unit);
	out(c, "</span></p>\n<div class=\"muted\">95%% CI %s to %s</div>\n", lo, hi);
	chips(c, &rec->recommended.point);
	elem(c, "p", NULL, rec->reason);
	if (rec->fastest.median != rec->recommended.median) {
		num(rec->fastest.median, v, sizeof v);
		out(c, "<h4>Fastest</h4>\n<p>%s ", v);
		text(c, rec->fastest.unit);
		out(c, " (%+.1f%%)</p>\n",
		    100 * (rec->fastest.median / rec->recommended.median - 1));
		chips(c, &rec->fastest.point);
	}
	out(c, "<h4>Export</h4>\n<pre>");
	for (int i = 0; i < rec->env.n; i++) {
		text(c, rec->env.kv[i].key);
		out(c, "=");
		text(c, rec->env.kv[i].value);
		out(c, "\n");
	}
	out(c, "</pre>\n");
	static const char *const frameworks[2] = {"PyTorch", "JAX"};
	for (int f = 0; f < 2; f++) {
		if (!wl->nhints[f])
			continue;
		out(c, "<h4>%s</h4>\n<ul class=\"hints\">", frameworks[f]);
		for (int i = 0; i < wl->nhints[f]; i++) {
			out(c, "<li><code>");
			text(c, wl->hints[f][i]);
			out(c, "</code></li>");
		}
		out(c, "</ul>\n");
	}
	out(c, "</aside>\n");
}

/* One sentence per bar of the phase chart: where the time goes, what a monitor reads. */
static void phase_words(page_ctx *c, const rt_pg_workload *wl)
{
	const rt_journal_record *rows[2];
	const char *labels[2];
	int n = rt_pg_phase_rows(wl, rows, labels);
	for (int i = 0; i < n; i++) {
		double share[RT_NPHASE_KIND], busy = rt_pg_phase_split(wl->w, &rows[i]->m, share);
		char pt[256];
		int gpu = !rt_backend_on_host(rows[i]->point.backend);
		point_text(wl->w, &rows[i]->point, &rows[i]->shape, pt, sizeof pt);
		out(c, "<p><strong>");
		text(c, labels[i]);
		out(c, "</strong> (");
		text(c, pt);
		if (busy > 0.995) {
			out(c, "): every step is compute and update; %s 100%% busy.</p>\n",
			    gpu ? "a GPU utilization monitor reads it"
			        : "were it on a GPU, a utilization monitor would read it");
			continue;
		}
		out(c,
		    "): %.0f%% of each step is data preparation or environment steps on the CPU, "
		    "%.0f%% transfers; ",
		    100 * share[RT_PHASE_HOST], 100 * share[RT_PHASE_TRANSFER]);
		if (gpu)
			out(c,
			    "a GPU utilization monitor reads it <strong>%.0f%% "
			    "busy</strong>.</p>\n",
			    100 * busy);
		else
			out(c,
			    "the other %.0f%% is compute and update, which is what a utilization "
			    "monitor would read busy were they on a GPU.</p>\n",
			    100 * busy);
	}
	if (!wl->naive_known)
		out(c,
		    "<p class=\"muted\">The naive default is unknown without the machine's usable "
		    "cores (give the configuration) or a journal that marks its trial.</p>\n");
	else if (!wl->naive_trial || !wl->naive_trial->m.feasible) {
		char pt[256];
		point_text(wl->w, &wl->naive_pt, &wl->naive_sh, pt, sizeof pt);
		out(c, "<p class=\"muted\">The naive default, an untuned run (");
		text(c, pt);
		out(c, "), %s.</p>\n",
		    wl->naive_trial ? "was infeasible" : "has no trial in the journals read");
	}
}

static void trial_row(page_ctx *c, const rt_pg_workload *wl, const rt_journal_record *r)
{
	char label[160], v[32], lo[32], hi[32];
	rt_pagechart_series_label(wl, &r->point, label, sizeof label);
	out(c, "<tr><td>");
	text(c, label);
	out(c, "</td><td class=\"n\">%ld</td>", rt_pg_x(wl, &r->point, &r->shape));
	if (!r->m.feasible) {
		out(c, "<td colspan=\"3\"><span class=\"flag\">infeasible (%s)</span> ",
		    rt_cause_name(r->m.cause));
		text(c, r->m.reason);
		out(c, "</td></tr>\n");
		return;
	}
	num(r->m.median, v, sizeof v);
	num(r->m.ci_lo, lo, sizeof lo);
	num(r->m.ci_hi, hi, sizeof hi);
	out(c,
	    "<td class=\"n\">%s</td><td class=\"n\">%s to %s</td><td class=\"n\">%.1f%%%s%s</td>"
	    "</tr>\n",
	    v, lo, hi, 100 * r->m.cv, r->m.unstable ? " <span class=\"flag\">unstable</span>" : "",
	    r->m.contended ? " <span class=\"flag\">busy machine</span>" : "");
}

static void trials(page_ctx *c, const rt_pg_workload *wl)
{
	size_t bad = 0, unstable = 0;
	for (size_t i = 0; i < wl->ntrials; i++) {
		bad += !wl->trials[i]->m.feasible;
		unstable += wl->trials[i]->m.feasible && wl->trials[i]->m.unstable;
	}
	out(c, "<h3>Trials</h3>\n<p>%zu point%s measured", wl->ntrials,
	    wl->ntrials == 1 ? "" : "s");
	if (unstable)
		out(c,
		    "; <span class=\"flag\">%zu unstable</span> (their samples vary by more than "
		    "5%%: "
		    "the machine was busy or the clock moved)",
		    unstable);
	if (wl->other_shape)
		out(c, "; %zu more at other model shapes, not shown", wl->other_shape);
	out(c, ".</p>\n");
	if (bad) {
		out(c, "<p>Infeasible:</p>\n<ul class=\"bad\">\n");
		for (size_t i = 0; i < wl->ntrials; i++) {
			const rt_journal_record *r = wl->trials[i];
			char label[160];
			if (r->m.feasible)
				continue;
			rt_pagechart_series_label(wl, &r->point, label, sizeof label);
			out(c, "<li>");
			text(c, wl->xkey);
			out(c, " %ld, ", rt_pg_x(wl, &r->point, &r->shape));
			text(c, label);
			out(c, ": <strong>%s</strong>: ", rt_cause_name(r->m.cause));
			text(c, r->m.reason);
			out(c, "</li>\n");
		}
		out(c, "</ul>\n");
	}
	if (!wl->ntrials)
		return;
	out(c, "<details><summary>All %zu trials</summary>\n<table>\n<tr><th>setting</th><th>",
	    wl->ntrials);
	text(c, wl->xkey);
	out(c, "</th><th>");
	text(c, wl->w->unit);
	out(c, "</th><th>95%% CI</th><th>cv</th></tr>\n");
	for (size_t i = 0; i < wl->ntrials; i++)
		trial_row(c, wl, wl->trials[i]);
	out(c, "</table>\n</details>\n");
}

/* The workload's section: its charts and words on the left, the recommendation beside. */
static int workload(page_ctx *c, const rt_pg_workload *wl)
{
	char id[64], name[96];
	slug(wl->name, id, sizeof id);
	out(c, "<section class=\"card\" id=\"workload-%s\">\n<h2>", id);
	text(c, wl->name);
	if (wl->w) {
		out(c, " <small>");
		text(c, wl->w->unit);
		out(c, " against ");
		text(c, wl->xkey);
		out(c, "</small>");
	}
	out(c, "</h2>\n<div class=\"split\">\n<div>\n");
	snprintf(name, sizeof name, "%s-throughput", id);
	int rc = figure(c, name, "throughput", draw_throughput, wl);
	if (rc == RT_OK && wl->w) {
		out(c, "<h3>Where each step's time goes</h3>\n");
		snprintf(name, sizeof name, "%s-phases", id);
		rc = figure(c, name, "phases", draw_phases, wl);
		phase_words(c, wl);
	}
	out(c, "</div>\n");
	recommendation(c, wl);
	out(c, "</div>\n");
	if (rc == RT_OK && wl->w)
		trials(c, wl);
	out(c, "</section>\n");
	return rc;
}

/* ---- the crossover ---- */

static void no_gpu_words(page_ctx *c)
{
	const rt_pg_machine *m = &c->pg->machine;
	int gpus = 0;
	for (int i = 0; i < m->naccel; i++)
		gpus += m->accel[i].available && !rt_backend_on_host(m->accel[i].backend);
	if (gpus || !m->known)
		return;
	out(c, "<p>No GPU backend is available on this machine");
	for (int i = 0, first = 1; i < m->naccel; i++)
		if (!rt_backend_on_host(m->accel[i].backend)) {
			out(c, "%s", first ? " (" : "; ");
			text(c, m->accel[i].backend);
			out(c, ": ");
			text(c, m->accel[i].detail);
			first = 0;
		}
	out(c, "): there is no CPU/GPU crossover to find. The curves compare the CPU's thread "
	       "counts.</p>\n");
}

static void crossover_words(page_ctx *c, const rt_pg_crossover *xo)
{
	out(c, "<p>Each curve is t = c + a n<sup>b</sup>, fitted with a robust loss to the time of "
	       "one n x n x n GEMM; the fits come from ");
	text(c, xo->source);
	out(c, ".</p>\n");
	if (xo->obs_note[0])
		elem(c, "p", "muted", xo->obs_note);
	size_t nobs = 0;
	for (int i = 0; i < xo->ncurves; i++)
		nobs += xo->curves[i].obs ? xo->curves[i].obs->count : 0;
	if (nobs) {
		out(c, "<p class=\"observations\">The dots are the sweep's %zu observations, from ",
		    nobs);
		text(c, xo->obs_file);
		out(c, ".</p>\n");
	}
	if (xo->npairs) {
		out(c, "<h4>Where one backend takes over</h4>\n<ul>\n");
		for (int i = 0; i < xo->npairs; i++) {
			const rt_pg_pair *p = &xo->pairs[i];
			out(c, "<li>");
			text(c, p->error ? p->error : p->summary);
			if (isfinite(p->ci_lo))
				out(c, " (bootstrap 95%% CI of n*: %.0f to %.0f)", p->ci_lo,
				    p->ci_hi);
			out(c, "</li>\n");
		}
		out(c, "</ul>\n");
	}
	if (!xo->nthreads)
		return;
	out(c, "<h4>Threads</h4>\n<ul>\n");
	for (int i = 0; i < xo->nthreads; i++) {
		const rt_pg_threads *t = &xo->threads[i];
		out(c, "<li>");
		text(c, t->backend);
		out(c, " ");
		text(c, t->precision);
		out(c, ": ");
		text(c, t->error ? t->error : t->summary);
		for (int k = 0; k < t->nbest; k++)
			out(c, "%s%d thread%s from n = %.0f to %.0f",
			    k ? "; " : ". Fastest: ", t->best[k].threads,
			    t->best[k].threads == 1 ? "" : "s", t->best[k].n_lo, t->best[k].n_hi);
		out(c, ".</li>\n");
	}
	out(c, "</ul>\n");
}

static int crossover(page_ctx *c)
{
	const rt_pg_crossover *xo = &c->pg->xo;
	out(c, "<section class=\"card\" id=\"crossover\">\n<h2>The crossover <small>GEMM time "
	       "against size, per backend</small></h2>\n");
	no_gpu_words(c);
	int rc = RT_OK;
	if (!xo->present) {
		out(c,
		    "<p class=\"nochart\" id=\"nochart-crossover\">No crossover was measured for "
		    "these inputs (a tune with <code>--no-crossover</code>, or one whose budget "
		    "ran "
		    "out first). <code>rigtune crossover --save xo.csv</code> measures one; "
		    "<code>rigtune report --crossover xo.csv</code> shows it.</p>\n");
	} else {
		out(c, "<div class=\"split\">\n<div>\n");
		rc = figure(c, "crossover", "crossover", draw_crossover, xo);
		if (rc == RT_OK) {
			out(c, "<h3>Threads</h3>\n");
			rc = figure(c, "threads", "threads", draw_threads, xo);
		}
		out(c, "</div>\n<aside class=\"side\">\n");
		crossover_words(c, xo);
		out(c, "</aside>\n</div>\n");
	}
	out(c, "</section>\n");
	return rc;
}

/* ---- a check ---- */

static void check_side(page_ctx *c, const rt_checkdoc_point *p, double median, long n)
{
	char v[32];
	num(median, v, sizeof v);
	out(c, "<td class=\"n\">");
	if (isnan(median)) {
		out(c, "<span class=\"flag\">did not run</span>%s", p->cause ? " (" : "");
		text(c, p->cause);
		out(c, "%s", p->cause ? ")" : "");
	} else {
		out(c, "%s ", v);
		text(c, p->unit);
		out(c, " <span class=\"muted\">(n=%ld)</span>", n);
	}
	out(c, "</td>");
}

static void check_table(page_ctx *c, const rt_checkdoc *d)
{
	out(c, "<table>\n<tr><th>workload</th><th>point</th><th>baseline</th><th>now</th>"
	       "<th>change (95%% CI)</th><th>p</th><th>verdict</th></tr>\n");
	for (int i = 0; i < d->npoints; i++) {
		const rt_checkdoc_point *p = &d->points[i];
		out(c, "<tr><td>");
		text(c, p->workload);
		out(c, " <span class=\"muted\">");
		text(c, p->curve ? p->curve : p->roles);
		out(c, "</span></td><td><code>");
		text(c, p->point);
		out(c, "</code></td>");
		check_side(c, p, p->base_median, p->base_n);
		check_side(c, p, p->now_median, p->now_n);
		if (p->has_ratio)
			out(c,
			    "<td class=\"n\">%+.1f%% (%+.1f to %+.1f)</td><td "
			    "class=\"n\">%.2g</td>",
			    100 * (p->ratio - 1), 100 * (p->ci_lo - 1), 100 * (p->ci_hi - 1), p->p);
		else
			out(c, "<td></td><td></td>");
		out(c, "<td><span class=\"pill\" style=\"background:%s\">%s</span> ",
		    rt_pagechart_verdict_color(p->verdict), rt_verdict_name(p->verdict));
		text(c, p->reason);
		out(c, "</td></tr>\n");
	}
	out(c, "</table>\n");
}

static void check_machine(page_ctx *c, const rt_checkdoc *d)
{
	out(c, "<h3>What changed on the machine</h3>\n");
	if (!d->ndiff) {
		out(c, "<p>No probed field changed.</p>\n");
	} else {
		out(c, "<table>\n<tr><th>field</th><th>before</th><th>after</th></tr>\n");
		for (int i = 0; i < d->ndiff; i++) {
			out(c, "<tr><td><code>");
			text(c, d->diff[i].field);
			out(c, "</code></td><td>");
			text(c, d->diff[i].before ? d->diff[i].before : "(absent)");
			out(c, "</td><td>");
			text(c, d->diff[i].after ? d->diff[i].after : "(absent)");
			out(c, "</td></tr>\n");
		}
		out(c, "</table>\n");
	}
	for (int i = 0; i < d->nsuggestions; i++)
		elem(c, "p", NULL, d->suggestions[i]);
	for (int i = 0; i < d->nnotes; i++)
		elem(c, "p", "muted", d->notes[i]);
}

static int check(page_ctx *c)
{
	const rt_checkdoc *d = c->pg->check;
	if (!d)
		return RT_OK;
	int bad = strcmp(d->result, "pass") != 0;
	out(c,
	    "<section class=\"card\" id=\"check\">\n<h2>Check against the baseline</h2>\n"
	    "<p><span class=\"verdict\" style=\"background:%s\">",
	    rt_pagechart_verdict_color(bad ? RT_VERDICT_REGRESSION : RT_VERDICT_IMPROVEMENT));
	text(c, d->result);
	out(c, "</span>");
	for (int v = 0; v < RT_NVERDICT; v++)
		if (d->counts[v])
			out(c, " &#160; %d %s", d->counts[v], rt_verdict_name((rt_verdict)v));
	out(c, "</p>\n<p>Baseline ");
	elem(c, "code", NULL, d->baseline);
	if (d->generated) {
		out(c, ", checked ");
		text(c, d->generated);
	}
	out(c,
	    ". A change counts when it is significant (Mann-Whitney U, alpha %g) and past "
	    "%g%%.</p>\n",
	    d->alpha, 100 * d->threshold);
	check_machine(c, d);
	out(c, "<h3>The points measured again</h3>\n");
	int rc = figure(c, "check", "check", draw_check, d);
	check_table(c, d);
	out(c, "</section>\n");
	return rc;
}

/* ---- the page ---- */

static void footer(page_ctx *c, const char *command)
{
	char when[32];
	time_t now = time(NULL);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
	out(c, "<footer><div class=\"wrap\">Made by rigtune %s on %s", RT_VERSION, when);
	if (command) {
		out(c, " with <code>");
		text(c, command);
		out(c, "</code>");
	}
	out(c, "; charts drawn by gnuplot. One file: no script, nothing fetched.</div></footer>\n");
}

int rt_page_render(const rt_page *pg, const char *gnuplot, const char *command, char **html,
                   size_t *len, char *err, size_t errlen)
{
	page_ctx c = {.pg = pg, .gnuplot = gnuplot, .err = err, .errlen = errlen};
	*html = NULL;
	if (!(c.f = open_memstream(html, len)))
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory for the page");
	head(&c);
	int rc = RT_OK, watch_only = pg->watch && !pg->has_config && !pg->njournals;
	if (watch_only) {
		out(&c, "<header class=\"top\"><div class=\"wrap\">\n<h1>rigtune report: "
			"<span class=\"host\">watch</span></h1>\n</div></header>\n");
		out(&c, "<main class=\"wrap\">\n");
	} else {
		banner(&c);
		out(&c, "<main class=\"wrap\">\n");
		notes(&c);
		summary(&c);
		machine(&c);
		for (int i = 0; i < pg->nwl && rc == RT_OK; i++)
			rc = workload(&c, &pg->wl[i]);
		if (rc == RT_OK)
			rc = crossover(&c);
		if (rc == RT_OK)
			rc = check(&c);
	}
	if (rc == RT_OK && pg->watch)
		rt_pg_watch(c.f, pg->watch);
	out(&c, "</main>\n");
	footer(&c, command);
	out(&c, "</body>\n</html>\n");
	int bad = ferror(c.f);
	if (fclose(c.f) || bad)
		rc = rc ? rc : rt_fail(err, errlen, RT_ENOMEM, "out of memory for the page");
	if (rc) {
		free(*html);
		*html = NULL;
	}
	return rc;
}
