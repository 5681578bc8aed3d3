/*
 * test_page.c: the pieces of `rigtune report` below the page: SVG inlining,
 * log tics, gnuplot runs, the phase split, the naive default, the check
 * reader and the page's data from the fixtures of tests/data/report (made by
 * gen_report.py; run from the repository root, as tests/run.sh does).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/page/chart.h"
#include "../tuner/page/pagechart.h"
#include "../tuner/check/check.h"
#include "../tuner/gnuplot.h"
#include "../tuner/naive.h"
#include "../tuner/page/pagedata.h"

#define D "tests/data/report/"

static const char gnuplot_like[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
    "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
    "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
    "<svg \n width=\"600\" height=\"400\"\n viewBox=\"0 0 600 400\"\n"
    " xmlns=\"http://www.w3.org/2000/svg\"\n xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n>\n"
    "<title>Gnuplot</title>\n<g id=\"gnuplot_canvas\">\n"
    "<defs><circle id='gpPt5' r='1'/><filter id='textbox'/></defs>\n"
    "<use xlink:href='#gpPt5' filter='url(#textbox)'/>\n"
    "<g id=\"gnuplot_plot_1\"></g><g id=\"gnuplot_plot_1\"></g>\n"
    "</g>\n</svg>\n\n";

static void svg_inline_makes_an_element(void **state)
{
	(void)state;
	char *out, err[RT_ERRLEN];
	size_t len;
	assert_int_equal(
	    rt_svg_inline(gnuplot_like, strlen(gnuplot_like), "c3-", &out, &len, err, sizeof err),
	    RT_OK);
	assert_int_equal(strlen(out), len);
	const char *head = "<svg class=\"chart\" role=\"img\" width=\"600\" height=\"400\" "
	                   "viewBox=\"0 0 600 400\">";
	assert_memory_equal(out, head, strlen(head));
	assert_null(strstr(out, "<?xml"));
	assert_null(strstr(out, "DOCTYPE"));
	assert_null(strstr(out, "http"));
	assert_null(strstr(out, "xlink"));
	assert_null(strstr(out, "Gnuplot</title>"));
	assert_non_null(strstr(out, "<g id=\"c3-gnuplot_canvas\">"));
	assert_non_null(strstr(out, "<circle id='c3-gpPt5'"));
	assert_non_null(strstr(out, "<use href='#c3-gpPt5' filter='url(#c3-textbox)'/>"));
	/* the id gnuplot wrote twice is made unique */
	assert_non_null(
	    strstr(out, "<g id=\"c3-gnuplot_plot_1\"></g><g id=\"c3-gnuplot_plot_1-2\">"));
	assert_string_equal(out + len - 7, "</svg>\n");
	free(out);
}

static void svg_inline_needs_an_svg(void **state)
{
	(void)state;
	char *out = NULL, err[RT_ERRLEN];
	size_t len;
	assert_int_equal(rt_svg_inline("<html/>", 7, "x-", &out, &len, err, sizeof err), RT_EINVAL);
	assert_null(out);
	assert_non_null(strstr(err, "no <svg>"));
}

static void log_tics_label_every_range(void **state)
{
	(void)state;
	double t[16];
	/* two decades: 1-2-5 */
	assert_int_equal(rt_chart_log_tics(10, 1000, t, 16), 7);
	double want[] = {10, 20, 50, 100, 200, 500, 1000};
	for (int i = 0; i < 7; i++)
		assert_float_equal(t[i], want[i], 1e-9);
	/* seven decades do not fit 9 labels at 1-2-5: decades alone */
	assert_int_equal(rt_chart_log_tics(1e-6, 1, t, 9), 7);
	assert_float_equal(t[0], 1e-6, 1e-15);
	assert_float_equal(t[6], 1, 1e-9);
	/* a narrow range still gets round labels inside it */
	int n = rt_chart_log_tics(43, 45, t, 16);
	assert_int_equal(n, 5);
	assert_float_equal(t[0], 43, 1e-9);
	assert_float_equal(t[1], 43.5, 1e-9);
	assert_float_equal(t[4], 45, 1e-9);
	assert_int_equal(rt_chart_log_tics(-1, 10, t, 16), 0);
}

static void chart_draws_or_says_why(void **state)
{
	(void)state;
	char exe[4096], err[RT_ERRLEN], *svg = NULL;
	size_t len;
	if (!rt_gnuplot_find(exe, sizeof exe))
		skip(); /* gnuplot is a test dependency: install-deps.sh test */
	rt_chart c;
	assert_int_equal(rt_chart_begin(&c, 300, 200, err, sizeof err), RT_OK);
	int b = rt_chart_block(&c);
	rt_chart_printf(&c, "1 1\n2 4\n3 9\n");
	rt_chart_end_block(&c);
	rt_chart_printf(&c, "set ytics (");
	rt_chart_tic(&c, "50%", 5);
	rt_chart_printf(&c, ")\nplot $d%d using 1:2 with lines title ", b);
	rt_chart_quoted(&c, "it's");
	rt_chart_printf(&c, "\n");
	assert_int_equal(rt_chart_draw(&c, exe, "t-", &svg, &len, err, sizeof err), RT_OK);
	assert_non_null(
	    strstr(svg, "<svg class=\"chart\" role=\"img\" width=\"300\" height=\"200\""));
	assert_non_null(strstr(svg, ">it's<"));
	assert_non_null(strstr(svg, ">50%<"));
	free(svg);
	svg = NULL;
	/* gnuplot's own complaint comes back */
	assert_int_equal(rt_chart_begin(&c, 300, 200, err, sizeof err), RT_OK);
	rt_chart_printf(&c, "plot $nothing using 1:2\n");
	assert_int_equal(rt_chart_draw(&c, exe, "t-", &svg, &len, err, sizeof err), RT_ERUNTIME);
	assert_null(svg);
	assert_non_null(strstr(err, "gnuplot failed"));
	assert_non_null(strstr(err, "no datablock named $nothing"));
}

static void phase_split_reads_a_monitor(void **state)
{
	(void)state;
	const rt_workload *ppo = rt_workload_find("ppo"), *tr = rt_workload_find("transformer");
	rt_measurement m = {.feasible = 1, .nphases = 4, .phase_frac = {0.62, 0.14, 0.08, 0.16}};
	double share[RT_NPHASE_KIND];
	assert_float_equal(rt_pg_phase_split(ppo, &m, share), 0.30, 1e-12);
	assert_float_equal(share[RT_PHASE_HOST], 0.62, 1e-12);
	assert_float_equal(share[RT_PHASE_TRANSFER], 0.08, 1e-12);
	assert_float_equal(share[RT_PHASE_UPDATE], 0.16, 1e-12);
	/* transformer: gemm, attention, elementwise, optimizer, data */
	rt_measurement t = {
	    .feasible = 1, .nphases = 5, .phase_frac = {0.38, 0.14, 0.12, 0.08, 0.28}};
	assert_float_equal(rt_pg_phase_split(tr, &t, share), 0.72, 1e-12);
	assert_float_equal(share[RT_PHASE_COMPUTE], 0.64, 1e-12);
	assert_float_equal(share[RT_PHASE_HOST], 0.28, 1e-12);
	/* shares that do not sum to 1 are shares of their total */
	rt_measurement h = {.feasible = 1, .nphases = 4, .phase_frac = {1, 0, 0, 1}};
	assert_float_equal(rt_pg_phase_split(ppo, &h, share), 0.5, 1e-12);
	assert_int_equal(rt_phase_kind_of("a_new_kernel"), RT_PHASE_COMPUTE);
	assert_string_equal(rt_phase_kind_name(RT_PHASE_HOST), "data / env");
}

static void naive_point_is_an_untuned_run(void **state)
{
	(void)state;
	const rt_workload *ppo = rt_workload_find("ppo");
	rt_shape model, sh;
	rt_point pt;
	rt_shape_default(ppo, &model);
	int envs = rt_shape_index(ppo, "num_envs"), stocks = rt_shape_index(ppo, "stocks");
	long def_envs = model.v[envs];
	model.v[envs] = 256;
	model.v[stocks] = 7;
	rt_naive_point(ppo, &model, 8, &pt, &sh);
	assert_string_equal(pt.backend, "cpu");
	assert_int_equal(pt.precision, RT_FP32);
	assert_int_equal(pt.threads, 8);
	assert_int_equal(pt.workers, 0);
	assert_int_equal(pt.pin, RT_PIN_NONE);
	assert_int_equal(sh.v[envs], def_envs); /* the knee's key back to its default */
	assert_int_equal(sh.v[stocks], 7);      /* the user's model kept */
	rt_naive_point(rt_workload_find("transformer"), NULL, 0, &pt, &sh);
	assert_int_equal(pt.threads, 1);
	assert_int_equal(pt.batch, 32);
}

static void checkdoc_reads_every_verdict(void **state)
{
	(void)state;
	rt_checkdoc d;
	char err[RT_ERRLEN];
	assert_int_equal(rt_checkdoc_load(D "check.yaml", &d, err, sizeof err), RT_OK);
	assert_string_equal(d.result, "regression");
	assert_string_equal(d.baseline, "configs/gpubox.yaml");
	assert_float_equal(d.threshold, 0.05, 0);
	assert_float_equal(d.alpha, 0.01, 0);
	assert_int_equal(d.ndiff, 3);
	assert_string_equal(d.diff[0].field, "blas.core");
	assert_string_equal(d.diff[0].after, "SkylakeX");
	assert_null(d.diff[2].before); /* null: the field was absent */
	assert_int_equal(d.nsuggestions, 1);
	assert_int_equal(d.nnotes, 1);
	assert_int_equal(d.npoints, 6);
	for (int v = 0; v < RT_NVERDICT; v++) /* a point of each verdict but not_run */
		assert_int_equal(d.counts[v], v != RT_VERDICT_NOT_RUN);
	const rt_checkdoc_point *p = d.points;
	assert_string_equal(p[0].point,
	                    "backend=cuda precision=bf16 batch=64 threads=1 workers=2 pin=compact");
	assert_string_equal(p[0].roles, "recommended");
	assert_int_equal(p[0].verdict, RT_VERDICT_REGRESSION);
	assert_true(p[0].has_ratio);
	assert_float_equal(p[0].ratio, 0.923, 1e-12);
	assert_float_equal(p[0].ci_lo, 0.914, 1e-12);
	assert_int_equal(p[0].now_trials, 3);
	assert_string_equal(p[2].roles, "recommended, fastest");
	assert_int_equal(p[3].verdict, RT_VERDICT_INCONCLUSIVE);
	assert_int_equal(p[3].more_samples, 12);
	assert_int_equal(p[4].verdict, RT_VERDICT_INFEASIBLE);
	assert_false(p[4].has_ratio);
	assert_true(isnan(p[4].now_median));
	assert_string_equal(p[4].curve, "cuda fp32");
	assert_string_equal(p[4].cause, "memory");
	assert_int_equal(p[5].verdict, RT_VERDICT_LIKELY_REGRESSION);
	assert_int_equal(p[5].more_samples, 8);
	assert_float_equal(p[5].ratio, 0.12, 1e-12);
	rt_checkdoc_free(&d);
	/* a configuration is named as one */
	assert_int_equal(rt_checkdoc_load(D "single.yaml", &d, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "single.yaml:1:1: not a check result (it is a configuration"));
}

static void page_data_from_the_gpubox_fixture(void **state)
{
	(void)state;
	rt_page *pg = malloc(sizeof *pg);
	char err[RT_ERRLEN];
	rt_page_inputs in = {.config = D "gpubox.yaml"};
	assert_non_null(pg);
	assert_int_equal(rt_page_load(pg, &in, err, sizeof err), RT_OK);
	assert_string_equal(pg->host, "gpubox");
	assert_int_equal(pg->njournals, 2); /* the older journal whose trials were reused, too */
	assert_int_equal(pg->nnotes, 1);    /* the trial of another fingerprint */
	assert_non_null(strstr(pg->notes[0], "1 trial measured on another machine"));
	assert_int_equal(pg->machine.usable_cores, 8);
	assert_int_equal(pg->machine.nkinds, 2);
	assert_int_equal(pg->machine.naccel, 3);
	assert_true(pg->machine.accel[1].available);
	/* the machine as the document says it: an older rigtune's bf16 words, sizes as written */
	assert_string_equal(pg->machine.rows[6].label, "Memory");
	assert_string_equal(pg->machine.rows[6].value, "62.6 GiB, 58.1 GiB available when tuned");
	assert_string_equal(pg->machine.rows[7].value,
	                    "OpenBLAS 0.3.21, Haswell kernels, pthreads threading; GEMM in fp64, fp32; "
	                    "bf16 unavailable: this OpenBLAS does not export cblas_sbgemm");
	assert_string_equal(pg->machine.accel[1].detail,
	                    "NVIDIA GeForce RTX 4090: 24.0 GiB, 128 compute units, fp64 fp32 tf32 bf16 "
	                    "fp16; 550.54.14");
	assert_string_equal(pg->machine.problem, "");
	assert_int_equal(pg->nwl, 3);
	const rt_pg_workload *gemm = &pg->wl[0], *tr = &pg->wl[1], *ppo = &pg->wl[2];
	assert_string_equal(gemm->xkey, "threads");
	assert_int_equal(gemm->ntrials, 6);
	assert_string_equal(tr->xkey, "batch");
	assert_int_equal(tr->ntrials, 21);
	assert_int_equal(tr->rec.pt.batch, 64);
	assert_non_null(tr->rec_trial);
	assert_int_equal(tr->rec_trial->point.batch, 64);
	assert_non_null(tr->naive_trial);
	assert_int_equal(tr->naive_trial->point.pin, RT_PIN_NONE);
	assert_int_equal(tr->naive_trial->point.threads, 8);
	assert_string_equal(ppo->xkey, "num_envs");
	assert_int_equal(rt_pg_x(ppo, &ppo->rec.pt, &ppo->rec.sh), 256);
	assert_int_equal(ppo->ntrials, 13);
	const rt_journal_record *rows[2];
	const char *labels[2];
	assert_int_equal(rt_pg_phase_rows(ppo, rows, labels), 2);
	assert_string_equal(labels[1], "naive default");
	/* a line's label from the knob table: the knobs read but the axis, pin where it varies */
	char line[128];
	rt_pagechart_series_label(gemm, &gemm->trials[gemm->ntrials - 1]->point, line, sizeof line);
	assert_string_equal(line, "cuda tf32, compact");
	rt_pagechart_series_label(tr, &tr->naive_trial->point, line, sizeof line);
	assert_string_equal(line, "cpu fp32, 8 threads, 0 workers, none");
	rt_pagechart_series_label(ppo, &ppo->trials[ppo->ntrials - 1]->point, line, sizeof line);
	assert_string_equal(line, "cuda fp32, 1 thread, 6 workers, compact");
	/* the configuration's crossover, its observations from the CSV it names */
	assert_true(pg->xo.present);
	assert_int_equal(pg->xo.ncurves, 3);
	assert_string_equal(pg->xo.curves[0].label, "cpu:8t/fp32");
	assert_non_null(pg->xo.curves[0].obs);
	assert_int_equal(pg->xo.curves[0].obs->count, 39);
	assert_int_equal(pg->xo.curves[2].noutliers, 1);
	assert_int_equal(pg->xo.npairs, 1);
	assert_float_equal(pg->xo.pairs[0].n_star, 258.75, 1e-9);
	assert_float_equal(pg->xo.pairs[0].ci_lo, 256.56, 1e-9);
	assert_int_equal(pg->xo.nthreads, 1);
	assert_float_equal(pg->xo.threads[0].pays_from, 80.089, 1e-9);
	assert_int_equal(pg->xo.threads[0].nbest, 2);
	rt_page_free(pg);
	free(pg);
}

/*
 * A configuration whose machine: the machine's reader refuses (cores: many)
 * still makes a page: the machine is unknown, and the page says the
 * section's problem at its place where the machine would be.
 */
static void page_of_an_unreadable_machine(void **state)
{
	(void)state;
	char dir[] = "/tmp/rt-page-XXXXXX", cfg[64], want[256], err[RT_ERRLEN], *text;
	size_t len;
	assert_non_null(mkdtemp(dir));
	snprintf(cfg, sizeof cfg, "%s/tiny.yaml", dir);
	assert_int_equal(rt_read_file(D "tiny.yaml", &text, &len, err, sizeof err), RT_OK);
	char *at = strstr(text, "    cores: 2\n"); /* line 11 */
	assert_non_null(at);
	FILE *f = fopen(cfg, "w");
	assert_non_null(f);
	fprintf(f, "%.*s    cores: many\n%s", (int)(at - text), text, at + strlen("    cores: 2\n"));
	fclose(f);
	free(text);
	rt_page *pg = malloc(sizeof *pg);
	rt_page_inputs in = {.config = cfg};
	assert_non_null(pg);
	assert_int_equal(rt_page_load(pg, &in, err, sizeof err), RT_OK);
	assert_false(pg->machine.known);
	snprintf(want, sizeof want,
		 "%s:11:12: machine: cores: expected a whole number from -1 to 16777216", cfg);
	assert_string_equal(pg->machine.problem, want);
	assert_int_equal(pg->machine.nrows, 0);
	assert_int_equal(pg->nwl, 1); /* the rest of the page as before */
	assert_false(pg->wl[0].naive_known); /* its usable cores are not known */
	rt_page_free(pg);
	free(pg);
	unlink(cfg);
	rmdir(dir);
}

/* A machine section without cpu: (the sweep's fixture): its topology is unknown, not 0 cores. */
static void page_of_a_machine_without_its_cpu(void **state)
{
	(void)state;
	char err[RT_ERRLEN];
	rt_page *pg = malloc(sizeof *pg);
	rt_page_inputs in = {.config = "tests/data/sweep/config.yaml"};
	assert_non_null(pg);
	assert_int_equal(rt_page_load(pg, &in, err, sizeof err), RT_OK);
	assert_true(pg->machine.known);
	int topology = -1, memory = -1;
	for (int i = 0; i < pg->machine.nrows; i++) {
		if (!strcmp(pg->machine.rows[i].label, "Topology"))
			topology = i;
		if (!strcmp(pg->machine.rows[i].label, "Memory"))
			memory = i;
	}
	assert_true(topology >= 0 && memory >= 0);
	assert_string_equal(pg->machine.rows[topology].value, "unknown");
	assert_string_equal(pg->machine.rows[memory].value, "16.0 GiB, 12.0 GiB available when tuned");
	rt_page_free(pg);
	free(pg);
}

/*
 * --crossover FILE.csv: the page takes its fits from the analysis itself
 * (rt_crossover_fit), not from YAML written for it; they are the figures the
 * configuration's analysis of the same CSV holds (5 significant digits), and
 * rt_crossover_emit writes them.
 */
static void page_fits_a_replay_csv_from_the_analysis(void **state)
{
	(void)state;
	rt_page *pg = malloc(sizeof *pg);
	char err[RT_ERRLEN];
	rt_page_inputs in = {.config = D "gpubox.yaml",
	                     .crossover = D "gpubox-20260101-120000-crossover.csv"};
	assert_non_null(pg);
	assert_int_equal(rt_page_load(pg, &in, err, sizeof err), RT_OK);
	assert_true(pg->xo.present);
	assert_non_null(strstr(pg->xo.source, "fitted here"));
	assert_int_equal(pg->xo.ncurves, 3);
	assert_string_equal(pg->xo.curves[2].label, "cuda/fp32");
	assert_int_equal(pg->xo.curves[2].noutliers, 1);
	assert_float_equal(pg->xo.curves[2].outliers[0], 64, 1e-9);
	assert_non_null(pg->xo.curves[0].obs);
	assert_int_equal(pg->xo.npairs, 1);
	assert_string_equal(pg->xo.pairs[0].a, "cpu:8t/fp32");
	assert_string_equal(pg->xo.pairs[0].b, "cuda/fp32");
	assert_string_equal(pg->xo.pairs[0].kind, "in_range");
	assert_float_equal(pg->xo.pairs[0].n_star, 258.75, 0.005);
	assert_float_equal(pg->xo.pairs[0].ci_lo, 256.56, 0.005);
	assert_float_equal(pg->xo.pairs[0].ci_hi, 260.81, 0.005);
	assert_int_equal(pg->xo.nthreads, 1);
	assert_string_equal(pg->xo.threads[0].backend, "cpu");
	assert_int_equal(pg->xo.threads[0].threads, 8);
	assert_float_equal(pg->xo.threads[0].pays_from, 80.089, 0.0005);
	assert_int_equal(pg->xo.threads[0].nbest, 2);
	assert_int_equal(pg->xo.threads[0].best[1].threads, 8);

	/* the same analysis as YAML: what a configuration keeps */
	rt_yw w;
	char *text;
	size_t len;
	rt_crossover_data d = {.square = pg->replay};
	rt_crossover_shape shape = {0};
	assert_int_equal(rt_yw_init(&w), RT_OK);
	rt_yw_map(&w, 0);
	rt_yw_str(&w, "crossover");
	rt_crossover_emit(&w, &pg->xo_fit, &d, &shape);
	rt_yw_end_map(&w);
	assert_int_equal(rt_yw_finish(&w, &text, &len, err, sizeof err), RT_OK);
	assert_non_null(strstr(text, "n_star: 258.75"));
	assert_non_null(strstr(text, "ci95: [256.56, 260.81]"));
	assert_non_null(strstr(text, "summary: 8 threads beat 1 thread from n=80"));
	free(text);
	rt_page_free(pg);
	free(pg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(svg_inline_makes_an_element),
	    cmocka_unit_test(svg_inline_needs_an_svg),
	    cmocka_unit_test(log_tics_label_every_range),
	    cmocka_unit_test(chart_draws_or_says_why),
	    cmocka_unit_test(phase_split_reads_a_monitor),
	    cmocka_unit_test(naive_point_is_an_untuned_run),
	    cmocka_unit_test(checkdoc_reads_every_verdict),
	    cmocka_unit_test(page_data_from_the_gpubox_fixture),
	    cmocka_unit_test(page_of_an_unreadable_machine),
	    cmocka_unit_test(page_of_a_machine_without_its_cpu),
	    cmocka_unit_test(page_fits_a_replay_csv_from_the_analysis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
