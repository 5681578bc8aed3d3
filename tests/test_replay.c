/*
 * test_replay.c: the replay CSV reader and writer, and the plot files.
 * Fixtures come from tests/data/gen_replays.py (run from the repository
 * root, as tests/run.sh does); other files go to a fresh temporary folder.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/rt.h"
#include "../search/fit.h"
#include "../tuner/gnuplot.h"
#include "../tuner/plot.h"
#include "../tuner/replay.h"

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/rt_test_replay_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	(void)state;
	DIR *d = opendir(tmpdir);
	if (!d)
		return -1;
	struct dirent *e;
	char path[512];
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
			unlink(path);
		}
	closedir(d);
	return rmdir(tmpdir);
}

/* tmpdir/name, written with text when text is not NULL. */
static const char *tmpfile_with(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	if (text) {
		FILE *fp = fopen(path, "w");
		assert_non_null(fp);
		fputs(text, fp);
		assert_int_equal(fclose(fp), 0);
	}
	return path;
}

/* The whole file as a string (caller frees). */
static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	char *buf = calloc(1, 1 << 20);
	assert_non_null(buf);
	size_t got = fread(buf, 1, (1 << 20) - 1, fp);
	(void)got;
	fclose(fp);
	return buf;
}

static void reads_fixture(void **state)
{
	(void)state;
	rt_replay *r = NULL;
	char err[RT_ERRLEN];
	int rc = rt_replay_read("tests/data/replay_cross.csv", &r, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(r->ncurves, 2);
	assert_string_equal(r->curves[0].backend, "cpu");
	assert_string_equal(r->curves[0].precision, "fp32");
	assert_string_equal(r->curves[1].backend, "gpu");
	/* 15 sizes x 3 repeats; first rows on lines 3 and 4 (after comment and header). */
	assert_int_equal(r->curves[0].count, 45);
	assert_int_equal(r->curves[1].count, 45);
	assert_int_equal(r->curves[0].first_line, 3);
	assert_int_equal(r->curves[1].first_line, 4);
	assert_true(r->curves[0].n[0] == 32 && r->curves[0].seconds[0] == 2.695464e-06);
	assert_true(r->curves[1].seconds[0] == 4.738737e-04);
	assert_int_equal(rt_replay_find(r, "gpu", "fp32"), 1);
	assert_int_equal(rt_replay_find(r, "gpu", "fp16"), -1);
	rt_series s = rt_replay_series(&r->curves[1]);
	assert_true(s.count == 45 && s.n == r->curves[1].n);
	rt_replay_free(r);
}

static void columns_any_order_comments_blanks(void **state)
{
	(void)state;
	const char *path = tmpfile_with("order.csv",
					"# a comment\n"
					"\n"
					" seconds , n ,precision,backend\r\n"
					"1e-3,64,fp32,cpu\r\n"
					"   # indented comment\n"
					"2e-3, 128 ,fp32,cpu\n"
					"\n"
					"4e-3,256,fp32,cpu\n"
					"5e-4,64,fp16,gpu\n"
					"6e-4,128,fp16,gpu\n"
					"7e-4,256,fp16,gpu\n"
					"8e-4,256,fp16,gpu\n");
	rt_replay *r = NULL;
	char err[RT_ERRLEN];
	int rc = rt_replay_read(path, &r, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(r->ncurves, 2);
	assert_string_equal(r->curves[1].backend, "gpu");
	assert_string_equal(r->curves[1].precision, "fp16");
	assert_int_equal(r->curves[0].count, 3);
	assert_int_equal(r->curves[1].count, 4);
	assert_true(r->curves[0].n[1] == 128 && r->curves[0].seconds[1] == 2e-3);
	assert_true(r->curves[1].n[3] == 256 && r->curves[1].seconds[3] == 8e-4);
	assert_int_equal(r->curves[0].first_line, 4);
	assert_int_equal(r->curves[1].first_line, 9);
	rt_replay_free(r);
}

/* Reads path, expects RT_EINVAL and a message "path:line: ...want...". */
static void expect_error(const char *path, long line, const char *want)
{
	rt_replay *r = NULL;
	char err[RT_ERRLEN] = "", prefix[600];
	assert_int_equal(rt_replay_read(path, &r, err, sizeof err), RT_EINVAL);
	assert_null(r);
	print_message("# %s\n", err);
	snprintf(prefix, sizeof prefix, "%s:%ld: ", path, line);
	if (strncmp(err, prefix, strlen(prefix)))
		fail_msg("'%s' does not start with '%s'", err, prefix);
	if (!strstr(err, want))
		fail_msg("'%s' does not say '%s'", err, want);
}

static void bad_fixtures_name_the_line(void **state)
{
	(void)state;
	expect_error("tests/data/bad_missing_column.csv", 2, "missing column 'seconds'");
	expect_error("tests/data/bad_nonnumeric.csv", 7, "seconds is not a decimal number");
	expect_error("tests/data/bad_negative_time.csv", 5, "seconds must be > 0");
	expect_error("tests/data/bad_zero_time.csv", 9, "seconds must be > 0");
	expect_error("tests/data/bad_single_point.csv", 3, "curve cpu/fp32");
	expect_error("tests/data/bad_single_point.csv", 3, "has 1 distinct n");
}

/* A good file of three rows, then row (line 5): expects the error want at line 5. */
static void expect_bad_row(const char *name, const char *row, const char *want)
{
	char text[512];
	snprintf(text, sizeof text,
		 "backend,precision,n,seconds\ncpu,fp32,64,1e-3\ncpu,fp32,128,2e-3\n"
		 "cpu,fp32,256,4e-3\n%s\n",
		 row);
	expect_error(tmpfile_with(name, text), 5, want);
}

static void bad_inline_files(void **state)
{
	(void)state;
	const char *rows = "cpu,fp32,64,1e-3\ncpu,fp32,128,2e-3\ncpu,fp32,256,4e-3\n";
	char text[512];
	snprintf(text, sizeof text, "backend,precision,n,seconds,gflops\n%s", rows);
	expect_error(tmpfile_with("unknown.csv", text), 1,
		     "not a replay header: column 5 is none of backend,precision,n,seconds");
	snprintf(text, sizeof text, "backend,n,precision,n,seconds\n%s", rows);
	expect_error(tmpfile_with("dup.csv", text), 1, "column 'n' appears twice");
	expect_bad_row("fields.csv", "cpu,fp32,512", "expected 4 fields, found 3");
	expect_bad_row("nzero.csv", "gpu,fp32,0,1e-3", "n must be > 0");
	expect_bad_row("inf.csv", "gpu,fp32,64,inf", "seconds is not a decimal number");
	expect_bad_row("huge.csv", "gpu,fp32,1e400,1e-3",
		       "n must be > 0 and at most 1e+12, found inf");
	/* finite, but an axis and an extrapolated n* past what a configuration may say */
	expect_bad_row("e300.csv", "gpu,fp32,1e300,1e-3",
		       "n must be > 0 and at most 1e+12, found 1e+300");
	expect_bad_row("slow.csv", "gpu,fp32,64,2e12",
		       "seconds must be > 0 and at most 1e+12, found 2e+12");
	expect_bad_row("label.csv", ",fp32,64,1e-3", "empty backend");
	snprintf(text, sizeof text, "backend,precision,n,seconds\n%s\n# the end\n", rows);
	expect_error(tmpfile_with("one.csv", text), 6, "1 curve");
	expect_error(tmpfile_with("empty.csv", "# nothing\n\n"), 2, "no header line");
	/* Two distinct n in the second curve: it is named, at its first row. */
	snprintf(text, sizeof text,
		 "backend,precision,n,seconds\n%sgpu,fp16,64,1e-3\ngpu,fp16,128,1e-3\n"
		 "gpu,fp16,128,1e-3\n", rows);
	expect_error(tmpfile_with("two.csv", text), 5, "curve gpu/fp16 (first row here) has 2 distinct n");

	rt_replay *r = NULL;
	assert_int_equal(rt_replay_read(tmpfile_with("absent.csv", NULL), &r, NULL, 0), RT_EINVAL); /* missing input is bad input */
}

/*
 * Each row's curve is found by a scan of the curves: the count of curves is
 * bounded, so that a file of many distinct ones is refused at the first one
 * too many (named, with its line) instead of being read in quadratic time.
 */
static void curves_are_bounded(void **state)
{
	(void)state;
	size_t cap = 64 * (RT_REPLAY_MAX_CURVES + 2), len = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	len += (size_t)snprintf(text, cap, "backend,precision,n,seconds\n");
	for (int i = 0; i <= RT_REPLAY_MAX_CURVES; i++)
		len += (size_t)snprintf(text + len, cap - len, "b%d,fp32,64,1e-3\n", i);
	char want[128];
	snprintf(want, sizeof want, "a new curve b%d/fp32: a replay has at most %d curves",
		 RT_REPLAY_MAX_CURVES, RT_REPLAY_MAX_CURVES);
	expect_error(tmpfile_with("many.csv", text), RT_REPLAY_MAX_CURVES + 2, want);
	free(text);

	rt_replay *r = rt_replay_new();
	char err[RT_ERRLEN];
	for (int i = 0; i < RT_REPLAY_MAX_CURVES; i++) {
		char b[16];
		snprintf(b, sizeof b, "b%d", i);
		assert_int_equal(rt_replay_add(r, b, "fp32", 64, 1e-3, err, sizeof err), RT_OK);
	}
	assert_int_equal(rt_replay_add(r, "b0", "fp32", 128, 1e-3, err, sizeof err), RT_OK);
	assert_int_equal(rt_replay_add(r, "new", "fp32", 64, 1e-3, err, sizeof err), RT_EINVAL);
	assert_int_equal(r->ncurves, RT_REPLAY_MAX_CURVES);
	assert_int_equal(r->curves[0].count, 2);
	rt_replay_free(r);
}


/*
 * A config may name any file as crossover.replay: the error of one that is
 * no replay says so without showing a byte of it (report and check quoted
 * the first line of /etc/shadow).
 */
static void not_a_replay_is_not_quoted(void **state)
{
	(void)state;
	const char *secret = "root:$6$s3cr3t:19000:0:99999:7:::\n";
	const char *path = tmpfile_with("secret", secret);
	rt_replay *r = NULL;
	char err[RT_ERRLEN] = "";
	assert_int_equal(rt_replay_read(path, &r, err, sizeof err), RT_EINVAL);
	assert_null(strstr(err, "s3cr3t"));
	assert_null(strstr(err, "root"));
	assert_non_null(strstr(err, ":1: not a replay header"));
	/* two columns and a number that is no number: neither is quoted */
	path = tmpfile_with("secret2", "backend,precision,n,seconds\ncpu,fp32,64,hunter2\n");
	assert_int_equal(rt_replay_read(path, &r, err, sizeof err), RT_EINVAL);
	assert_null(strstr(err, "hunter2"));
}

/* strtod takes hex, and getline read past a NUL: a replay is decimal text. */
static void hex_nul_and_bytes_refused(void **state)
{
	(void)state;
	expect_bad_row("hex.csv", "gpu,fp32,0x40,1e-3", "n is not a decimal number");
	expect_bad_row("hexf.csv", "gpu,fp32,64,0x1p-10", "seconds is not a decimal number");
	expect_bad_row("latin1.csv", "gpu\xe9,fp32,64,1e-3", "the backend is not UTF-8 text");
	expect_bad_row("esc.csv", "gpu,fp\x1b[2J,64,1e-3", "the precision has a control character");
	/* a NUL at line 3; the file is written with it */
	static const char nul[] = "backend,precision,n,seconds\ncpu,fp32,64,1e-3\ncpu,fp32\0,128,2e-3\n";
	char path[] = "/tmp/rt-replay-nul-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(rt_write_all(fd, nul, sizeof nul - 1), 0);
	close(fd);
	expect_error(path, 3, "a NUL byte; a replay is text");
	unlink(path);
}

static void write_reads_back_exactly(void **state)
{
	(void)state;
	rt_replay *r = rt_replay_new();
	assert_non_null(r);
	const double n[] = {64, 128, 256, 64};
	const double t[] = {0.1, 1e-7 / 3, 2.5e-3, M_PI * 1e-4};
	char err[RT_ERRLEN] = "";
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rt_replay_add(r, "cpu", "fp64", n[i], t[i], err, sizeof err), 0);
		assert_int_equal(rt_replay_add(r, "cuda", "bf16", n[i], 2 * t[i], err, sizeof err), 0);
	}
	assert_int_equal(rt_replay_add(r, "cpu,x", "fp64", 1, 1, err, sizeof err), RT_EINVAL);
	assert_int_equal(rt_replay_add(r, "cpu", "fp64", 64, 0, err, sizeof err), RT_EINVAL);
	assert_int_equal(rt_replay_add(r, "cpu", "fp64", NAN, 1, err, sizeof err), RT_EINVAL);

	const char *path = tmpfile_with("saved.csv", NULL);
	int rc = rt_replay_write(path, r, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	char *text = slurp(path);
	assert_true(!strncmp(text, "backend,precision,n,seconds\ncpu,fp64,64,0.1\n", 44));
	free(text);

	rt_replay *back = NULL;
	rc = rt_replay_read(path, &back, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(back->ncurves, 2);
	for (size_t c = 0; c < 2; c++) {
		assert_string_equal(back->curves[c].backend, r->curves[c].backend);
		assert_int_equal(back->curves[c].count, 4);
		for (size_t i = 0; i < 4; i++) {
			assert_true(back->curves[c].n[i] == r->curves[c].n[i]);
			assert_true(back->curves[c].seconds[i] == r->curves[c].seconds[i]);
		}
	}
	rt_replay_free(back);
	assert_int_equal(rt_replay_write("/nonexistent-dir/x.csv", r, err, sizeof err), RT_EIO);
	rt_replay_free(r);
}

/*
 * rt_replay_check: what rt_replay_read demands of the curves, for
 * observations that are not read from a file (tune checks a sweep so before
 * saving it): the same sentences without a place.
 */
static void check_without_a_file(void **state)
{
	(void)state;
	rt_replay *r = rt_replay_new();
	char err[RT_ERRLEN] = "";
	assert_non_null(r);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rt_replay_add(r, "cpu:1t", "fp32", 32 << i, 1e-5 * (i + 1), err,
					       sizeof err), 0);
	assert_int_equal(rt_replay_check(r, err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "1 curve (backend,precision), a crossover needs at least 2");
	for (int i = 0; i < 2; i++)
		assert_int_equal(rt_replay_add(r, "cpu:2t", "fp32", 32 << i, 1e-5, err, sizeof err),
				 0);
	assert_int_equal(rt_replay_check(r, err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "curve cpu:2t/fp32 has 2 distinct n, at least 3 are needed to "
				 "fit c + a*n^b");
	assert_int_equal(rt_replay_add(r, "cpu:2t", "fp32", 128, 1e-5, err, sizeof err), 0);
	assert_int_equal(rt_replay_check(r, err, sizeof err), RT_OK);
	rt_replay_free(r);
}

/*
 * A curve's label is what its struct says, made in one place; a label read
 * from a file says backend, threads, transfers and pin once, when its curve
 * is made, and a curve made here keeps its struct as given.
 */
static void curve_labels(void **state)
{
	(void)state;
	char label[96], err[RT_ERRLEN];
	rt_curve host = {.backend = "cpu", .threads = 2};
	rt_curve dev = {.backend = "cuda", .xfer = 1};
	rt_curve pinned = {.backend = "cpu", .threads = 4, .pin = "spread"};
	rt_curve_label(&host, label, sizeof label);
	assert_string_equal(label, "cpu:2t");
	rt_curve_label(&dev, label, sizeof label);
	assert_string_equal(label, "cuda+xfer");
	rt_curve_label(&pinned, label, sizeof label);
	assert_string_equal(label, "cpu:4t pin=spread");
	rt_curve back = rt_curve_of_label(label);
	assert_true(rt_curve_equal(&back, &pinned));
	assert_false(rt_curve_equal(&back, &host));
	rt_replay *r = rt_replay_new();
	assert_non_null(r);
	assert_int_equal(rt_replay_add(r, "cpu:8t", "fp32", 64, 1e-3, err, sizeof err), 0);
	assert_int_equal(rt_replay_add(r, "hip+xfer", "fp32", 64, 1e-3, err, sizeof err), 0);
	assert_int_equal(rt_replay_add(r, "a100", "fp32", 64, 1e-3, err, sizeof err), 0);
	assert_int_equal(rt_replay_add_curve(r, &pinned, "fp64", 64, 1e-3, err, sizeof err), 0);
	assert_int_equal(rt_replay_add_curve(r, &pinned, "fp64", 128, 1e-3, err, sizeof err), 0);
	assert_int_equal(r->ncurves, 4);
	assert_string_equal(r->curves[0].id.backend, "cpu");
	assert_int_equal(r->curves[0].id.threads, 8);
	assert_false(r->curves[0].id.xfer);
	assert_string_equal(r->curves[1].id.backend, "hip");
	assert_int_equal(r->curves[1].id.threads, 0);
	assert_true(r->curves[1].id.xfer);
	assert_string_equal(r->curves[2].id.backend, "a100");
	assert_string_equal(r->curves[3].backend, "cpu:4t pin=spread");
	assert_string_equal(r->curves[3].id.pin, "spread");
	assert_int_equal(r->curves[3].count, 2);
	rt_replay_free(r);
}

/* Lines of text that start with a digit: the rows of the data blocks. */
static int data_lines(const char *text)
{
	int k = 0;
	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		k += *p >= '0' && *p <= '9';
		if (!strchr(p, '\n'))
			break;
	}
	return k;
}

/* Two curves, one with an outlier, n* marked: the plot of test_fit's case. */
static int plot_case(const char *svg, rt_plot_outcome *outcome, char *err)
{
	static const double n[] = {32, 64, 128, 256, 512};
	static const double cpu[] = {1e-6, 6e-6, 4.4e-5, 3.4e-4, 2.7e-3};
	static const double gpu[] = {5e-4, 5e-4, 5e-3, 5e-4, 5.3e-4};
	static const bool gpu_out[] = {false, false, true, false, false};
	static const rt_fit fc = {.a = 2e-11, .b = 3, .c = 2e-6, .n_min = 32, .n_max = 512};
	static const rt_fit fg = {.a = 2e-13, .b = 3, .c = 5e-4, .n_min = 32, .n_max = 512};
	rt_plot_curve curves[2] = {
		{"cpu/fp32", {n, cpu, 5}, NULL, &fc},
		{"gpu's fp32", {n, gpu, 5}, gpu_out, &fg},
	};
	rt_plot_mark mark = {293.0, 280.0, 305.0, "n* = 293"};
	return rt_plot_write(svg, "crossover", curves, 2, &mark, 1, outcome, err, RT_ERRLEN);
}

static void plot_writes_script_without_gnuplot(void **state)
{
	(void)state;
	char *old_path = strdup(getenv("PATH") ? getenv("PATH") : "");
	char svg[512], gp[512], err[RT_ERRLEN] = "";
	snprintf(svg, sizeof svg, "%s/cross.svg", tmpdir);
	assert_int_equal(rt_plot_script_path(svg, gp, sizeof gp, NULL, 0), 0);
	assert_non_null(strstr(gp, "/cross.gp"));

	setenv("PATH", tmpdir, 1); /* no gnuplot in there */
	rt_plot_outcome outcome = RT_PLOT_DRAWN;
	int rc = plot_case(svg, &outcome, err);
	setenv("PATH", old_path, 1);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(outcome, RT_PLOT_NO_GNUPLOT);
	char dat[600];
	snprintf(dat, sizeof dat, "%s/cross.dat", tmpdir);
	assert_int_equal(access(dat, F_OK), -1); /* the data is inside the script */

	char *g = slurp(gp), want[700];
	/* 5 + 4 points, 1 outlier, 2 fits of RT_PLOT_FIT_SAMPLES; 5 blocks. */
	assert_int_equal(data_lines(g), 10 + 2 * RT_PLOT_FIT_SAMPLES);
	assert_non_null(strstr(g, "$d3 << EOD\n128 0.005\nEOD\n"));
	assert_non_null(strstr(g, "# fit: t = 2e-06 + 2e-11 * n^3.0000\n$d1 << EOD\n32 "));
	assert_non_null(strstr(g, "\n512 0.0026863546\n"));
	assert_non_null(strstr(g, "set terminal svg"));
	snprintf(want, sizeof want, "set output '%s'\n", svg);
	assert_non_null(strstr(g, want));
	assert_non_null(strstr(g, "set logscale xy\n"));
	assert_non_null(strstr(g, "set arrow from 293, graph 0 to 293, graph 1 nohead"));
	assert_non_null(strstr(g, "set label 'n* = 293' at 293, graph"));
	assert_non_null(strstr(g, "set object rect from 280, graph 0 to 305, graph 1"));
	assert_non_null(strstr(g, "plot $d0 with points"));
	/* Blocks (none empty): cpu points 0, cpu fit 1, gpu points 2, outliers 3, fit 4. */
	assert_non_null(strstr(g, "$d1 with lines linewidth 2 linecolor 1 title 'cpu/fp32 fit'"));
	assert_non_null(strstr(g, "$d2 with points pointtype 7 linecolor 2 title 'gpu'.\"'\".'s fp32'"));
	assert_non_null(strstr(g, "$d3 with points pointtype 6 pointsize 2 linecolor 2 "
				  "title 'gpu'.\"'\".'s fp32 outliers'"));
	assert_non_null(strstr(g, "$d4 with lines"));
	assert_null(strstr(g, "$d5"));
	free(g);
	free(old_path);
}

/* A stand-in gnuplot: records its arguments and its script, prints an svg, exits with `code`. */
static void fake_gnuplot(int code)
{
	char text[700];
	snprintf(text, sizeof text,
		 "#!/bin/sh\necho \"$*\" > '%s/ran'\n/bin/cat > '%s/script'\necho '<svg/>'\nexit %d\n",
		 tmpdir, tmpdir, code);
	const char *path = tmpfile_with("gnuplot", text);
	assert_int_equal(chmod(path, 0755), 0);
}

static void plot_runs_gnuplot_in_memory(void **state)
{
	(void)state;
	char *old_path = strdup(getenv("PATH") ? getenv("PATH") : "");
	char svg[512], err[RT_ERRLEN] = "", gp[600];
	snprintf(svg, sizeof svg, "%s/run.svg", tmpdir);
	rt_plot_outcome outcome = RT_PLOT_NO_GNUPLOT;

	fake_gnuplot(0);
	setenv("PATH", tmpdir, 1);
	int rc = plot_case(svg, &outcome, err);
	setenv("PATH", old_path, 1);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(outcome, RT_PLOT_DRAWN);
	/* -d: a user's ~/.gnuplot does not restyle the plot; the script on stdin */
	char *ran = slurp(tmpfile_with("ran", NULL));
	assert_string_equal(ran, "-d\n");
	free(ran);
	char *script = slurp(tmpfile_with("script", NULL));
	assert_non_null(strstr(script, "plot $d0 with points"));
	assert_null(strstr(script, "set output")); /* gnuplot's stdout, back in memory */
	free(script);
	char *drawn = slurp(svg);
	assert_string_equal(drawn, "<svg/>\n");
	free(drawn);
	snprintf(gp, sizeof gp, "%s/run.gp", tmpdir);
	assert_int_equal(access(gp, F_OK), -1); /* no script on disk */

	fake_gnuplot(3);
	setenv("PATH", tmpdir, 1);
	rc = plot_case(svg, &outcome, err);
	setenv("PATH", old_path, 1);
	assert_int_equal(rc, RT_ERUNTIME);
	assert_non_null(strstr(err, "exit status 3"));
	free(old_path);
}

/* label as gnuplot's svg terminal writes it: & and < as entities, a line break a space. */
static void svg_text(const char *label, char *buf, size_t len)
{
	size_t n = 0;
	for (; *label && n + 6 < len; label++) {
		const char *e = *label == '&' ? "&amp;" : *label == '<' ? "&lt;" : NULL;
		if (e) {
			memcpy(buf + n, e, strlen(e));
			n += strlen(e);
		} else {
			buf[n++] = *label == '\n' || *label == '\r' ? ' ' : *label;
		}
	}
	buf[n] = '\0';
}

/*
 * The real gnuplot reads every label as text: quotes, backquotes (its
 * command substitution), @macros, markup come out in the SVG as written,
 * and nothing runs.
 */
static void plot_labels_are_text(void **state)
{
	(void)state;
	char canary[600], svg[600], err[RT_ERRLEN] = "";
	snprintf(canary, sizeof canary, "%s/pwned", tmpdir); /* not "ran": the fake gnuplot's */
	snprintf(svg, sizeof svg, "%s/labels.svg", tmpdir);
	char labels[6][700];
	snprintf(labels[0], sizeof labels[0], "a'b`touch %s`", canary);
	snprintf(labels[1], sizeof labels[1], "@x $(touch %s) %%s \\ \"", canary);
	snprintf(labels[2], sizeof labels[2], "</text><script>alert(1)</script>&amp;");
	snprintf(labels[3], sizeof labels[3], "x\nsystem('touch %s')\n", canary);
	snprintf(labels[4], sizeof labels[4], "'\r'; system \"touch %s\"; '", canary);
	snprintf(labels[5], sizeof labels[5], "\xe2\x80\xa8 caf\xc3\xa9 EOD");
	static const double n[] = {32, 64, 128};
	static const double t[] = {1e-5, 2e-5, 4e-5};
	rt_plot_curve curves[6];
	for (int i = 0; i < 6; i++)
		curves[i] = (rt_plot_curve){labels[i], {n, t, 3}, NULL, NULL};
	rt_plot_mark mark = {64, NAN, NAN, labels[3]};
	rt_plot_outcome outcome;
	char exe[4096];
	if (!rt_gnuplot_find(exe, sizeof exe))
		skip(); /* gnuplot is an optional dependency */
	int rc = rt_plot_write(svg, labels[1], curves, 6, &mark, 1, &outcome, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(outcome, RT_PLOT_DRAWN);
	char *drawn = slurp(svg), want[2000];
	for (int i = 0; i < 6; i++) {
		svg_text(labels[i], want, sizeof want);
		if (!strstr(drawn, want))
			fail_msg("label %d is not in the svg as '%s'", i, want);
	}
	assert_null(strstr(drawn, "<script"));
	free(drawn);
	assert_int_equal(access(canary, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_fixture),
		cmocka_unit_test(columns_any_order_comments_blanks),
		cmocka_unit_test(bad_fixtures_name_the_line),
		cmocka_unit_test(bad_inline_files),
		cmocka_unit_test(not_a_replay_is_not_quoted),
		cmocka_unit_test(hex_nul_and_bytes_refused),
		cmocka_unit_test(curves_are_bounded),
		cmocka_unit_test(write_reads_back_exactly),
		cmocka_unit_test(check_without_a_file),
		cmocka_unit_test(plot_writes_script_without_gnuplot),
		cmocka_unit_test(plot_runs_gnuplot_in_memory),
		cmocka_unit_test(plot_labels_are_text),
		cmocka_unit_test(curve_labels),
	};
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
