/*
 * The results journal: exact round trip of trials, a torn last entry dropped
 * at every cut point, bad documents in the middle reported with their line,
 * reuse lookup, a writer killed with SIGKILL, resume, and the newest journal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/rng.h"
#include "../tuner/journal.h"
#include "../workloads/knobs.h"

#define FP "0123abcd4567ef89"
#define HOST "box"

static char tmp[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/rt_journal_XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const rt_workload *gemm(void)
{
	const rt_workload *w = rt_workload_find("gemm");
	assert_non_null(w);
	return w;
}

/*
 * Trial i: a point and shape that differ per i, and seeded samples with
 * full-precision values (tiny and huge ones too, to exercise exponents).
 * Every third trial (i % 3 == 2) is infeasible, for each cause in turn.
 */
static void make_trial(int i, rt_point *pt, rt_shape *sh, rt_measurement *m)
{
	rt_point_default(pt);
	pt->batch = 16 + i;
	pt->threads = 1 + i % 2;
	pt->workers = i % 3;
	pt->pin = (rt_pin)(i % RT_NPIN);
	rt_shape_default(gemm(), sh);
	sh->v[0] = 64 + i;
	sh->v[2] = 32 * (i + 1);
	memset(m, 0, sizeof *m);
	m->nphases = gemm()->nphases;
	m->seconds = 1.0 / 3.0 + i;
	if (i % 3 == 2) {
		m->cause = (rt_cause)(RT_CAUSE_MEMORY + i / 3 % (RT_NCAUSE - 1));
		snprintf(m->reason, sizeof m->reason,
			 "infeasible: needs 512.0 GiB, 3.0 GiB available: 'x' #%d", i);
		return;
	}
	rt_rng rng;
	rt_rng_seed(&rng, 1000 + (uint64_t)i);
	m->feasible = 1;
	m->nsamples = 8 + i;
	m->samples = malloc(sizeof *m->samples * (size_t)m->nsamples);
	assert_non_null(m->samples);
	for (int s = 0; s < m->nsamples; s++)
		m->samples[s] = 1234.5 * (1 + 0.05 * rt_rng_normal(&rng));
	m->samples[0] = 1e-300 * (1 + rt_rng_uniform(&rng));
	/* large, but within what a reader takes back (RT_YR_MAX_MEASURE) */
	m->samples[1] = 3e17 * (1 + rt_rng_uniform(&rng));
	rt_measurement_summarize(m);
	m->gflops = m->median * 0.3712345678901;
	m->step_seconds = 1 / m->median;
	m->phase_frac[0] = 0.9876543210987654;
	m->device_timed = i % 2; /* the device's busy share, where it was timed */
	m->device_busy = m->device_timed ? 0.0561234567890123 : 0;
}

static void append_trial(rt_journal *j, int i)
{
	rt_point pt;
	rt_shape sh;
	rt_measurement m;
	char err[RT_ERRLEN] = "";
	make_trial(i, &pt, &sh, &m);
	rt_journal_trial jt = {.role = RT_TRIAL_SEARCH, .w = gemm(), .pt = &pt, .sh = &sh, .m = &m};
	int rc = rt_journal_append(j, &jt, err, sizeof err);
	rt_measurement_free(&m);
	if (rc)
		fail_msg("append: %s", err);
}

/* A journal of trials 0..n-1 in tmp/results; its path into path. */
static void write_journal(int n, char *path, size_t len)
{
	rt_journal *j;
	char err[RT_ERRLEN] = "", dir[128];
	snprintf(dir, sizeof dir, "%s/results", tmp);
	if (rt_journal_create(dir, HOST, FP, NULL, "rigtune tune --budget 60", &j, err, sizeof err))
		fail_msg("create: %s", err);
	for (int i = 0; i < n; i++)
		append_trial(j, i);
	snprintf(path, len, "%s", rt_journal_path(j));
	rt_journal_close(j);
}

/* Every field of rec equals trial i, the samples bit for bit. */
static void assert_trial(const rt_journal_record *rec, int i)
{
	rt_point pt;
	rt_shape sh;
	rt_measurement m;
	make_trial(i, &pt, &sh, &m);
	assert_string_equal(rec->fingerprint, FP);
	assert_ptr_equal(rec->workload, gemm());
	assert_string_equal(rec->point.backend, pt.backend);
	assert_int_equal(rec->point.device, pt.device);
	assert_int_equal(rec->point.precision, pt.precision);
	assert_int_equal(rec->point.batch, pt.batch);
	assert_int_equal(rec->point.threads, pt.threads);
	assert_int_equal(rec->point.workers, pt.workers);
	assert_int_equal(rec->point.pin, pt.pin);
	assert_int_equal(rec->shape.n, sh.n);
	assert_memory_equal(rec->shape.v, sh.v, sizeof sh.v[0] * (size_t)sh.n);
	const rt_measurement *r = &rec->m;
	assert_int_equal(r->feasible, m.feasible);
	assert_true(r->seconds == m.seconds);
	assert_int_equal(r->nphases, gemm()->nphases);
	if (!m.feasible) {
		assert_int_equal(r->cause, m.cause);
		assert_string_equal(r->reason, m.reason);
		assert_int_equal(r->nsamples, 0);
		assert_null(r->samples);
		return;
	}
	assert_int_equal(r->nsamples, m.nsamples);
	assert_memory_equal(r->samples, m.samples, sizeof m.samples[0] * (size_t)m.nsamples);
	assert_true(r->median == m.median);
	assert_true(r->ci_lo == m.ci_lo);
	assert_true(r->ci_hi == m.ci_hi);
	assert_true(r->cv == m.cv);
	assert_int_equal(r->unstable, m.unstable);
	assert_true(r->gflops == m.gflops);
	assert_true(r->step_seconds == m.step_seconds);
	assert_true(r->phase_frac[0] == m.phase_frac[0]);
	assert_int_equal(r->device_timed, m.device_timed);
	assert_true(r->device_busy == m.device_busy);
	rt_measurement_free(&m);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	char *buf = malloc(*len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void test_round_trip(void **state)
{
	(void)state;
	char path[256], err[RT_ERRLEN] = "";
	write_journal(3, path, sizeof path);
	char expect[256];
	snprintf(expect, sizeof expect, "%s/results/" HOST "-", tmp);
	assert_memory_equal(path, expect, strlen(expect));

	size_t len;
	char *text = slurp(path, &len);
	assert_memory_equal(text, "---\nrigtune_journal: 1\n", 23);
	int docs = 0;
	for (const char *s = text; (s = strstr(s, "\n...\n")); s++)
		docs++;
	assert_int_equal(docs, 4);
	assert_memory_equal(text + len - 5, "\n...\n", 5);
	free(text);

	rt_journal_record *recs;
	size_t n;
	int dropped = -1;
	rt_journal_header hdr;
	if (rt_journal_load(path, &recs, &n, &dropped, &hdr, err, sizeof err))
		fail_msg("load: %s", err);
	assert_int_equal(n, 3);
	assert_int_equal(dropped, 0);
	assert_string_equal(hdr.fingerprint, FP);
	assert_string_equal(hdr.host, HOST);
	assert_string_equal(hdr.command, "rigtune tune --budget 60");
	assert_int_equal(strlen(hdr.started), 20);
	for (int i = 0; i < 3; i++)
		assert_trial(&recs[i], i);
	assert_false(recs[0].m.feasible == recs[2].m.feasible);
	assert_true(recs[0].line < recs[1].line && recs[1].line < recs[2].line);

	rt_measurement copy;
	assert_int_equal(rt_journal_record_measurement(&recs[1], &copy), 0);
	assert_ptr_not_equal(copy.samples, recs[1].m.samples);
	assert_memory_equal(copy.samples, recs[1].m.samples,
			    sizeof copy.samples[0] * (size_t)copy.nsamples);
	assert_true(copy.median == recs[1].m.median);
	rt_measurement_free(&copy);
	rt_journal_records_free(recs, n);
	rt_journal_records_free(NULL, 0);
	rt_journal_close(NULL);
}

/* Offset of the "---" line of the last document. */
static size_t last_doc(const char *text)
{
	const char *last = NULL;
	for (const char *s = text; (s = strstr(s, "...\n---\n")); s++)
		last = s;
	assert_non_null(last);
	return (size_t)(last - text) + 4;
}

static void load_expect(const char *path, size_t want_n, int want_dropped)
{
	rt_journal_record *recs;
	size_t n;
	int dropped;
	char err[RT_ERRLEN] = "";
	if (rt_journal_load(path, &recs, &n, &dropped, NULL, err, sizeof err))
		fail_msg("load %s: %s", path, err);
	assert_int_equal(n, want_n);
	assert_int_equal(dropped, want_dropped);
	for (size_t i = 0; i < n; i++)
		assert_trial(&recs[i], (int)i);
	rt_journal_records_free(recs, n);
}

static void test_torn_last_entry(void **state)
{
	(void)state;
	char path[256], cut[300];
	write_journal(3, path, sizeof path);
	snprintf(cut, sizeof cut, "%s/cut.yaml", tmp);
	size_t len;
	char *text = slurp(path, &len);

	spit(cut, text, len - 30);
	load_expect(cut, 2, 1);

	/* Every cut inside the last document drops it, and only it. */
	size_t start = last_doc(text);
	spit(cut, text, start);
	load_expect(cut, 2, 0);
	for (size_t at = start + 1; at < len - 1; at++) {
		spit(cut, text, at);
		load_expect(cut, 2, 1);
	}
	/* "..." without its newline is complete. */
	spit(cut, text, len - 1);
	load_expect(cut, 3, 0);
	/* A torn header: an empty journal with one dropped document. */
	spit(cut, text, 12);
	load_expect(cut, 0, 1);
	free(text);
}

static void test_resume_after_torn(void **state)
{
	(void)state;
	char path[256], err[RT_ERRLEN] = "";
	write_journal(3, path, sizeof path);
	size_t len;
	char *text = slurp(path, &len);
	size_t start = last_doc(text);
	spit(path, text, len - 30);

	rt_journal *j;
	int dropped = -1;
	if (rt_journal_open(path, FP, &j, &dropped, err, sizeof err))
		fail_msg("open: %s", err);
	assert_int_equal(dropped, 1);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, start);
	append_trial(j, 2);
	rt_journal_close(j);
	load_expect(path, 3, 0);

	/* The appended bytes are those a fresh journal wrote. */
	size_t len2;
	char *text2 = slurp(path, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(text2, text, len);
	free(text2);
	free(text);
}

/* A resumed journal on a changed machine: new trials carry the new fingerprint. */
static void test_resume_new_fingerprint(void **state)
{
	(void)state;
	char path[256], err[RT_ERRLEN] = "";
	write_journal(1, path, sizeof path);
	rt_journal *j;
	if (rt_journal_open(path, "feedface00000000", &j, NULL, err, sizeof err))
		fail_msg("open: %s", err);
	append_trial(j, 1);
	rt_journal_close(j);
	rt_journal_record *recs;
	size_t n;
	rt_journal_header hdr;
	if (rt_journal_load(path, &recs, &n, NULL, &hdr, err, sizeof err))
		fail_msg("load: %s", err);
	assert_int_equal(n, 2);
	assert_string_equal(hdr.fingerprint, FP);
	assert_string_equal(recs[0].fingerprint, FP);
	assert_string_equal(recs[1].fingerprint, "feedface00000000");
	assert_ptr_equal(rt_journal_find(recs, n, "feedface00000000", gemm(), &recs[1].shape,
					 &recs[1].point),
			 &recs[1]);
	assert_null(rt_journal_find(recs, n, "feedface00000000", gemm(), &recs[0].shape,
				    &recs[0].point));
	rt_journal_records_free(recs, n);
}

/* Loads path expecting RT_EINVAL with "PATH:LINE:" in the message and want in it. */
static void expect_einval(const char *path, int line, const char *want)
{
	rt_journal_record *recs = NULL;
	size_t n = 99;
	char err[RT_ERRLEN] = "", at[320];
	assert_int_equal(rt_journal_load(path, &recs, &n, NULL, NULL, err, sizeof err),
			 RT_EINVAL);
	assert_null(recs);
	assert_int_equal(n, 0);
	snprintf(at, sizeof at, "%s:%d:", path, line);
	if (strncmp(err, at, strlen(at)) || !strstr(err, want))
		fail_msg("expected '%s...%s', got '%s'", at, want, err);
}

/* Line number (1-based) of offset off in text. */
static int line_of(const char *text, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

/* text with the first occurrence of `find` after `from` replaced by `with`, into path. */
static int splice_at(const char *path, const char *text, size_t from, const char *find,
		  const char *with)
{
	const char *at = strstr(text + from, find);
	assert_non_null(at);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(text, 1, (size_t)(at - text), f);
	fputs(with, f);
	fputs(at + strlen(find), f);
	fclose(f);
	return line_of(text, (size_t)(at - text));
}

static void test_bad_middle(void **state)
{
	(void)state;
	char path[256], bad[300];
	write_journal(3, path, sizeof path);
	snprintf(bad, sizeof bad, "%s/bad.yaml", tmp);
	size_t len;
	char *text = slurp(path, &len);
	size_t second = (size_t)(strstr(strstr(text, "workload:") + 1, "workload:") - text);

	/* Garbage that does not parse, in the second trial. */
	int line = splice_at(bad, text, second, "point:", "]]] garbage {\npoint:");
	expect_einval(bad, line, "");
	/* A value that parses but is wrong, a key nobody knows, an unknown workload. */
	line = splice_at(bad, text, second, "threads: ", "threads: many");
	expect_einval(bad, line, "threads");
	line = splice_at(bad, text, second, "gflops:", "colour: red\ngflops:");
	expect_einval(bad, line, "unknown key 'colour'");
	line = splice_at(bad, text, second, "device_busy: ", "device_busy: 1.5 #");
	expect_einval(bad, line, "device_busy: expected a share from 0 to 1");
	line = splice_at(bad, text, second, "workload: gemm", "workload: fft");
	expect_einval(bad, line, "unknown workload 'fft'");
	line = splice_at(bad, text, second, "unstable: ", "colour: red, unstable: ");
	expect_einval(bad, line, "throughput: unknown key 'colour'");
	size_t tp = (size_t)(strstr(text + second, "throughput:") - text);
	splice_at(bad, text, second, ", unstable: true", "");
	expect_einval(bad, line_of(text, tp), "missing key 'unstable'");
	line = splice_at(bad, text, second, "ci95: [", "ci95: [1, ");
	expect_einval(bad, line, "ci95: expected [low, high]");
	/* numbers a plot or a division would take: a NaN reached gnuplot as exit 3 */
	char median[64];
	const char *m0 = strstr(text + second, "median: ");
	snprintf(median, sizeof median, "%.*s", (int)strcspn(m0, ","), m0);
	line = splice_at(bad, text, second, median, "median: .nan");
	expect_einval(bad, line, "median: expected a finite number");
	line = splice_at(bad, text, second, median, "median: 0");
	expect_einval(bad, line, "median: a throughput must be above 0, found 0");
	line = splice_at(bad, text, second, median, "median: -2.5");
	expect_einval(bad, line, "median: a throughput must be above 0, found -2.5");
	line = splice_at(bad, text, second, "samples: [", "samples: [.nan, ");
	expect_einval(bad, line, "samples: expected finite numbers");
	/* finite but past any measurement: an axis over 1e300 made the report's gnuplot fail */
	static const char *const out_of_range[][3] = {
	    {NULL, "median: 1e300", "median: 1e+300 is out of range [-1e+18, 1e+18]"},
	    {"ci95: [", "ci95: [1, .inf], was: [", "ci95: inf is out of range"},
	    {"samples: [", "samples: [1e300, ", "samples: 1e+300 is out of range"},
	    {"step_seconds: ", "step_seconds: .inf #", "step_seconds: inf is out of range [0,"},
	    {"gflops: ", "gflops: -1 #", "gflops: -1 is out of range [0, 1e+18]"},
	};
	for (size_t i = 0; i < RT_COUNT(out_of_range); i++) {
		const char *from = out_of_range[i][0] ? out_of_range[i][0] : median;
		line = splice_at(bad, text, second, from, out_of_range[i][1]);
		expect_einval(bad, line, out_of_range[i][2]);
	}
	/* an alias in a journal: screened before the stream is loaded */
	line = splice_at(bad, text, second, "samples: [", "x: &a 1\ny: *a\nsamples: [");
	expect_einval(bad, line + 1, "an alias (*a)");
	line = splice_at(bad, text, second, "k: ", "kk: ");
	expect_einval(bad, line, "no key 'kk'");
	line = splice_at(bad, text, second + 1, "\nseconds:", "\ncause: memory\nseconds:");
	expect_einval(bad, line + 1, "only an infeasible trial");
	size_t third = (size_t)(strstr(text + second + 1, "workload:") - text);
	line = splice_at(bad, text, third, "cause: memory", "cause: moody");
	expect_einval(bad, line, "got 'moody'");
	line = splice_at(bad, text, third, "cause: memory", "cause: none");
	expect_einval(bad, line, "got 'none'");
	/* A document missing its end marker, followed by another. */
	line = splice_at(bad, text, second, "\n...\n", "\n");
	expect_einval(bad, line_of(text, second) - 2, "no end marker");

	/* Wrong header; any YAML file that is not a journal. */
	line = splice_at(bad, text, 0, "rigtune_journal: 1", "rigtune_journal: 7");
	expect_einval(bad, line, "version 7");
	spit(bad, "---\nname: x\n...\n", 16);
	expect_einval(bad, 1, "not a rigtune journal");
	spit(bad, "a: 1\nb: [1, 2]\n", 15);
	expect_einval(bad, 1, "not a rigtune journal");
	free(text);
}

/*
 * A journal written before causes were recorded: the cause of an infeasible
 * trial comes from its reason (memory and timeout as those versions worded
 * them; anything else is a crash, measured again rather than trusted).
 */
static void test_old_journal_causes(void **state)
{
	(void)state;
	static const struct {
		const char *reason;
		rt_cause cause;
	} old[] = {
		{"needs 12.50 GiB, 3.10 GiB available", RT_CAUSE_MEMORY},
		{"cannot allocate 2.00 GiB", RT_CAUSE_MEMORY},
		{"timeout: no result after 38 s", RT_CAUSE_TIMEOUT},
		{"crashed: Segmentation fault", RT_CAUSE_CRASH},
		{"cuda device 0 does not offer bf16 GEMMs", RT_CAUSE_CRASH},
	};
	char path[256], old_path[300], err[RT_ERRLEN] = "";
	write_journal(3, path, sizeof path);
	snprintf(old_path, sizeof old_path, "%s/old.yaml", tmp);
	size_t len;
	char *text = slurp(path, &len);
	char *inf = strstr(text, "infeasible: ");
	char *after = strstr(inf, "\nseconds:");
	assert_non_null(after);
	for (size_t i = 0; i < RT_COUNT(old); i++) {
		FILE *f = fopen(old_path, "wb");
		assert_non_null(f);
		fwrite(text, 1, (size_t)(inf - text), f);
		fprintf(f, "infeasible: '%s'", old[i].reason); /* and no cause: line */
		fputs(after, f);
		fclose(f);
		rt_journal_record *recs;
		size_t n;
		if (rt_journal_load(old_path, &recs, &n, NULL, NULL, err, sizeof err))
			fail_msg("load: %s", err);
		assert_int_equal(n, 3);
		assert_false(recs[2].m.feasible);
		assert_string_equal(recs[2].m.reason, old[i].reason);
		assert_int_equal(recs[2].m.cause, old[i].cause);
		rt_journal_records_free(recs, n);
	}
	free(text);
}

/*
 * A journal written before a knob was added has no line for it: the knob
 * takes its default (here workers and pin, as a journal from before them
 * would lack them), while a key that is no knob is still refused.
 */
static void test_old_journal_missing_knobs(void **state)
{
	(void)state;
	static const char old[] = "---\nrigtune_journal: 1\nfingerprint: " FP "\nhost: " HOST
				  "\nstarted: 2026-01-02T10:00:00Z\ncommand: rigtune tune\n...\n"
				  "---\nfingerprint: " FP "\nworkload: gemm\n"
				  "point: {backend: cpu, precision: fp64, threads: 3}\n"
				  "shape: {m: 64, n: 32, k: 16, transfer: 0}\n"
				  "infeasible: 'needs 12.5 GiB, 6.2 available'\ncause: memory\n"
				  "seconds: 1.5\n...\n";
	char path[300], err[RT_ERRLEN] = "";
	snprintf(path, sizeof path, "%s/old.yaml", tmp);
	spit(path, old, sizeof old - 1);
	rt_journal_record *recs;
	size_t n;
	if (rt_journal_load(path, &recs, &n, NULL, NULL, err, sizeof err))
		fail_msg("load: %s", err);
	assert_int_equal(n, 1);
	assert_string_equal(recs[0].point.backend, "cpu");
	assert_int_equal(recs[0].point.precision, RT_FP64);
	assert_int_equal(recs[0].point.threads, 3);
	assert_int_equal(recs[0].point.workers, 0);
	assert_int_equal(recs[0].point.pin, RT_PIN_COMPACT);
	assert_int_equal(recs[0].point.batch, 32);
	rt_journal_records_free(recs, n);

	char *bad = strdup(old);
	memcpy(strstr(bad, "threads: 3"), "thread5: 3", 10);
	spit(path, bad, strlen(bad));
	free(bad);
	expect_einval(path, 11, "point: unknown key 'thread5'");
}

/*
 * Files with no document (issue 12: UBSan found an offset applied to the
 * still-NULL record array when such a file failed to load). An empty file
 * and a torn header load as empty; anything else that is not a journal is
 * RT_EINVAL at 1:1, with no records.
 */
static void test_no_document(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int rc, dropped;
	} files[] = {
		{"", RT_OK, 0},           {"---\n", RT_OK, 1},     {"---\nrigt", RT_OK, 1},
		{"\n", RT_EINVAL, 0},     {"...\n", RT_EINVAL, 0}, {"# note\n", RT_EINVAL, 0},
		{"---\n...\n", RT_EINVAL, 0},
	};
	char path[300], err[RT_ERRLEN];
	snprintf(path, sizeof path, "%s/none.yaml", tmp);
	for (size_t i = 0; i < RT_COUNT(files); i++) {
		rt_journal_record *recs = (rt_journal_record *)path;
		size_t n = 99;
		int dropped = -1;
		spit(path, files[i].text, strlen(files[i].text));
		err[0] = '\0';
		assert_int_equal(rt_journal_load(path, &recs, &n, &dropped, NULL, err, sizeof err),
				 files[i].rc);
		assert_null(recs);
		assert_int_equal(n, 0);
		if (files[i].rc == RT_OK)
			assert_int_equal(dropped, files[i].dropped);
		else
			assert_non_null(strstr(err, "none.yaml:1:1: not a rigtune journal"));
	}
}

static void test_find(void **state)
{
	(void)state;
	char path[256], err[RT_ERRLEN] = "";
	write_journal(3, path, sizeof path);
	rt_journal_record *recs;
	size_t n;
	if (rt_journal_load(path, &recs, &n, NULL, NULL, err, sizeof err))
		fail_msg("load: %s", err);

	rt_point pt;
	rt_shape sh;
	rt_measurement m;
	for (int i = 0; i < 3; i++) {
		make_trial(i, &pt, &sh, &m);
		rt_measurement_free(&m);
		assert_ptr_equal(rt_journal_find(recs, n, FP, gemm(), &sh, &pt), &recs[i]);
	}
	make_trial(1, &pt, &sh, &m);
	rt_measurement_free(&m);
	rt_point p2 = pt;
	p2.workers++;
	assert_null(rt_journal_find(recs, n, FP, gemm(), &sh, &p2));
	p2 = pt;
	p2.precision = pt.precision == RT_FP64 ? RT_FP32 : RT_FP64;
	assert_null(rt_journal_find(recs, n, FP, gemm(), &sh, &p2));
	p2 = pt;
	strcpy(p2.backend, "cuda");
	assert_null(rt_journal_find(recs, n, FP, gemm(), &sh, &p2));
	rt_shape s2 = sh;
	s2.v[2]++;
	assert_null(rt_journal_find(recs, n, FP, gemm(), &s2, &pt));
	assert_null(rt_journal_find(recs, n, "0123abcd4567ef8a", gemm(), &sh, &pt));
	rt_workload other = *gemm();
	other.name = "other";
	assert_null(rt_journal_find(recs, n, FP, &other, &sh, &pt));
	rt_journal_records_free(recs, n);
}

/* Points differ by any one knob, shapes by their count or any one value. */
static void test_point_and_shape_equal(void **state)
{
	(void)state;
	rt_point a, b;
	rt_point_default(&a);
	b = a;
	assert_true(rt_point_equal(&a, &b));
	for (int knob = 0; knob < 7; knob++) {
		b = a;
		switch (knob) {
		case 0: strcpy(b.backend, "cuda"); break;
		case 1: b.device = 1; break;
		case 2: b.precision = RT_FP64; break;
		case 3: b.batch++; break;
		case 4: b.threads++; break;
		case 5: b.workers++; break;
		default: b.pin = RT_PIN_SPREAD; break;
		}
		assert_false(rt_point_equal(&a, &b));
	}
	rt_shape s, t;
	rt_shape_default(gemm(), &s);
	t = s;
	assert_true(rt_shape_equal(&s, &t));
	t.v[s.n - 1]++;
	assert_false(rt_shape_equal(&s, &t));
	t = s;
	t.n--;
	assert_false(rt_shape_equal(&s, &t));
}

/*
 * The naive default's trial carries role: naive (a search's trial no role),
 * reads back as such with every other field as written; a role nobody
 * knows is bad input at its line.
 */
static void test_roles(void **state)
{
	(void)state;
	char dir[128], err[RT_ERRLEN] = "", bad[300];
	rt_journal *j;
	snprintf(dir, sizeof dir, "%s/results", tmp);
	if (rt_journal_create(dir, HOST, FP, NULL, "rigtune tune", &j, err, sizeof err))
		fail_msg("create: %s", err);
	for (int i = 0; i < 3; i++) {
		rt_point pt;
		rt_shape sh;
		rt_measurement m;
		make_trial(i, &pt, &sh, &m);
		rt_trial_role role = i == 1 ? RT_TRIAL_NAIVE : RT_TRIAL_SEARCH;
		rt_journal_trial jt = {.role = role, .w = gemm(), .pt = &pt, .sh = &sh, .m = &m};
		if (rt_journal_append(j, &jt, err, sizeof err))
			fail_msg("append: %s", err);
		rt_measurement_free(&m);
	}
	char path[256];
	snprintf(path, sizeof path, "%s", rt_journal_path(j));
	rt_journal_close(j);

	size_t len;
	char *text = slurp(path, &len);
	const char *naive = strstr(text, "\nrole: naive\n");
	assert_non_null(naive);
	assert_null(strstr(naive + 1, "\nrole:"));
	assert_true(naive > strstr(strstr(text, "workload:") + 1, "...")); /* the second trial's */
	rt_journal_record *recs;
	size_t n;
	if (rt_journal_load(path, &recs, &n, NULL, NULL, err, sizeof err))
		fail_msg("load: %s", err);
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++) {
		assert_trial(&recs[i], i);
		assert_int_equal(recs[i].role, i == 1 ? RT_TRIAL_NAIVE : RT_TRIAL_SEARCH);
	}
	rt_journal_records_free(recs, n);

	snprintf(bad, sizeof bad, "%s/bad.yaml", tmp);
	int line = splice_at(bad, text, 0, "role: naive", "role: fancy");
	expect_einval(bad, line, "role: expected search, naive or again, got 'fancy'");
	free(text);
}

/* The crossover sweep's file beside a journal, and the names after it. */
static void test_sweep_path(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(rt_journal_sweep_path("results/box-20260101-120000.yaml", 1, buf,
					       sizeof buf), RT_OK);
	assert_string_equal(buf, "results/box-20260101-120000-crossover.csv");
	assert_int_equal(rt_journal_sweep_path("results/box-20260101-120000-2.yaml", 3, buf,
					       sizeof buf), RT_OK);
	assert_string_equal(buf, "results/box-20260101-120000-2-crossover-3.csv");
	assert_int_equal(rt_journal_sweep_path("results/box.yml", 1, buf, sizeof buf), RT_EINVAL);
	assert_int_equal(rt_journal_sweep_path("results/box-20260101-120000.yaml", 1, buf, 40),
			 RT_EINVAL);
}

/*
 * A command's trials: written beside a workload's, read back exactly, found
 * by hash and knobs in any order; a workload's lookup never returns them.
 */
static void test_command_trials(void **state)
{
	(void)state;
	char dir[128], err[RT_ERRLEN] = "";
	rt_journal *j;
	snprintf(dir, sizeof dir, "%s/results", tmp);
	if (rt_journal_create(dir, HOST, FP, NULL, "rigtune tune --cmd x", &j, err, sizeof err))
		fail_msg("create: %s", err);
	append_trial(j, 0);
	rt_knob_value kv[] = {{"threads", "1"}, {"batch", "32"}, {"opt", "adam w"}};
	rt_cmd_point pt3, pt2;
	if (rt_cmd_point_of(kv, 3, &pt3, err, sizeof err) ||
	    rt_cmd_point_of(kv, 2, &pt2, err, sizeof err))
		fail_msg("point: %s", err);
	rt_measurement m = {0}, bad = {0};
	double samples[] = {118.25, 1.0 / 3.0, 120.5};
	m.feasible = 1;
	m.samples = samples;
	m.nsamples = 3;
	m.seconds = 12.5;
	m.contention = 0.25;
	rt_measurement_summarize(&m);
	bad.cause = RT_CAUSE_BAD_OUTPUT;
	snprintf(bad.reason, sizeof bad.reason, "no match of the metric");
	rt_journal_trial good = {.hash = "00000000deadbeef", .name = "mine", .unit = "samples/s",
				 .knobs = &pt3, .m = &m};
	rt_journal_trial failed = good;
	failed.knobs = &pt2;
	failed.m = &bad;
	int rc = rt_journal_append(j, &good, err, sizeof err);
	if (rc == RT_OK)
		rc = rt_journal_append(j, &failed, err, sizeof err);
	if (rc)
		fail_msg("append: %s", err);
	char path[256];
	snprintf(path, sizeof path, "%s", rt_journal_path(j));
	rt_journal_close(j);

	rt_journal_record *recs;
	size_t n;
	if (rt_journal_load(path, &recs, &n, NULL, NULL, err, sizeof err))
		fail_msg("load: %s", err);
	assert_int_equal(n, 3);
	assert_null(recs[1].workload);
	assert_string_equal(recs[1].command, "00000000deadbeef");
	char text[256];
	rt_cmd_point_text(&recs[1].knobs, " ", text, sizeof text);
	assert_string_equal(text, "batch=32 opt=adam w threads=1");
	/* read back by their rows: the built-in table's numbers, the user's name */
	assert_int_equal(rt_cmd_point_num(&recs[1].knobs, "threads", 0), 1);
	assert_int_equal(rt_cmd_point_find(&recs[1].knobs, "batch")->row->kind, RT_KNOB_INT);
	assert_int_equal(rt_cmd_point_find(&recs[1].knobs, "opt")->row->kind, RT_KNOB_TEXT);
	assert_true(rt_cmd_point_equal(&recs[1].knobs, &pt3));
	assert_ptr_equal(rt_journal_find_knobs(recs, n, FP, "00000000deadbeef", &pt3), &recs[1]);
	assert_true(recs[1].m.feasible);
	assert_int_equal(recs[1].m.nsamples, 3);
	for (int i = 0; i < 3; i++)
		assert_memory_equal(&recs[1].m.samples[i], &samples[i], sizeof samples[i]);
	assert_true(recs[1].m.median == m.median && recs[1].m.contention == 0.25);
	assert_true(recs[2].m.cause == RT_CAUSE_BAD_OUTPUT && !recs[2].m.feasible);
	rt_knob_value shuffled[] = {{"opt", "adam w"}, {"batch", "32"}, {"threads", "1"}};
	rt_cmd_point other;
	assert_int_equal(rt_cmd_point_of(shuffled, 3, &other, err, sizeof err), RT_OK);
	assert_ptr_equal(rt_journal_find_knobs(recs, n, FP, "00000000deadbeef", &other), &recs[1]);
	assert_ptr_equal(rt_journal_find_knobs(recs, n, FP, "00000000deadbeef", &pt2), &recs[2]);
	assert_null(rt_journal_find_knobs(recs, n, FP, "00000000deadbeee", &pt3));
	shuffled[1].value = "64";
	assert_int_equal(rt_cmd_point_of(shuffled, 3, &other, err, sizeof err), RT_OK);
	assert_null(rt_journal_find_knobs(recs, n, FP, "00000000deadbeef", &other));
	rt_point pt;
	rt_shape sh;
	make_trial(0, &pt, &sh, &m);
	rt_measurement_free(&m);
	assert_ptr_equal(rt_journal_find(recs, n, FP, gemm(), &sh, &pt), &recs[0]);
	rt_journal_records_free(recs, n);
}

/* Two journals of the host: load_host gives both, and find the newer trial. */
static void test_load_host(void **state)
{
	(void)state;
	char p1[256], p2[256], dir[128], err[RT_ERRLEN] = "";
	write_journal(2, p1, sizeof p1);
	write_journal(3, p2, sizeof p2);
	assert_string_not_equal(p1, p2);
	snprintf(dir, sizeof dir, "%s/results", tmp);
	rt_journal_record *recs;
	size_t n;
	int dropped = -1;
	if (rt_journal_load_host(dir, HOST, &recs, &n, &dropped, err, sizeof err))
		fail_msg("load_host: %s", err);
	assert_int_equal(n, 5);
	assert_int_equal(dropped, 0);
	rt_point pt;
	rt_shape sh;
	rt_measurement m;
	make_trial(1, &pt, &sh, &m);
	rt_measurement_free(&m);
	assert_ptr_equal(rt_journal_find(recs, n, FP, gemm(), &sh, &pt), &recs[3]);
	rt_journal_records_free(recs, n);

	char latest[256];
	assert_int_equal(rt_journal_latest(dir, HOST, latest, sizeof latest, err, sizeof err), 0);
	assert_string_equal(latest, p2);
	assert_int_equal(rt_journal_load_host(dir, "nobody", &recs, &n, NULL, err, sizeof err), 0);
	assert_int_equal(n, 0);
	assert_null(recs);
}

/*
 * A journal of the host that does not read (a command printed millions of
 * samples into it before they were bounded: over RT_READ_MAX_BYTES) is
 * skipped, not fatal: every later tune of the host read it and exited 2.
 */
static void test_load_host_skips_unreadable(void **state)
{
	(void)state;
	char p1[256], p2[256], dir[128], err[RT_ERRLEN] = "";
	write_journal(2, p1, sizeof p1);
	write_journal(1, p2, sizeof p2);
	assert_int_equal(truncate(p2, (off_t)RT_READ_MAX_BYTES + 1), 0);
	snprintf(dir, sizeof dir, "%s/results", tmp);
	rt_journal_record *recs;
	size_t n;
	if (rt_journal_load_host(dir, HOST, &recs, &n, NULL, err, sizeof err))
		fail_msg("load_host: %s", err);
	assert_int_equal(n, 2); /* the first journal's two trials */
	assert_trial(&recs[0], 0);
	assert_trial(&recs[1], 1);
	rt_journal_records_free(recs, n);
}

/*
 * A child appending trials as fast as it can, killed once it has reported
 * `after` appends (a byte each on a pipe it never waits on): the kill lands
 * wherever the child is then, mid-append or between appends, however slow
 * the machine.
 */
static void kill_while_appending(int after)
{
	char dir[128], err[RT_ERRLEN] = "";
	snprintf(dir, sizeof dir, "%s/killed", tmp);
	rt_journal *j;
	if (rt_journal_create(dir, HOST, FP, NULL, "rigtune tune", &j, err, sizeof err))
		fail_msg("create: %s", err);
	char path[256];
	snprintf(path, sizeof path, "%s", rt_journal_path(j));
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		fcntl(fds[1], F_SETFL, O_NONBLOCK); /* a full pipe must not stop the appends */
		for (int i = 0;; i++) {
			rt_point pt;
			rt_shape sh;
			rt_measurement m;
			make_trial(i, &pt, &sh, &m);
			rt_journal_trial jt = {.w = gemm(), .pt = &pt, .sh = &sh, .m = &m};
			if (rt_journal_append(j, &jt, NULL, 0))
				_exit(1);
			rt_measurement_free(&m);
			if (write(fds[1], "", 1) < 0) {
				/* full: the parent has what it waits for */
			}
		}
	}
	close(fds[1]);
	rt_journal_close(j);
	char byte;
	for (int got = 0; got < after; got++)
		assert_int_equal(read(fds[0], &byte, 1), 1);
	assert_int_equal(kill(pid, SIGKILL), 0);
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	rt_journal_record *recs;
	size_t n;
	int dropped;
	if (rt_journal_load(path, &recs, &n, &dropped, NULL, err, sizeof err))
		fail_msg("load after kill: %s", err);
	assert_true(n >= (size_t)after);
	assert_true(dropped == 0 || dropped == 1);
	for (size_t i = 0; i < n; i++)
		assert_trial(&recs[i], (int)i);
	rt_journal_records_free(recs, n);

	/* Resume: the journal takes more entries and stays clean. */
	if (rt_journal_open(path, FP, &j, NULL, err, sizeof err))
		fail_msg("open after kill: %s", err);
	append_trial(j, (int)n);
	rt_journal_close(j);
	load_expect(path, n + 1, 0);
	unlink(path);
}

static void test_sigkill(void **state)
{
	(void)state;
	static const int after[] = {1, 2, 5, 17, 60};
	for (size_t i = 0; i < RT_COUNT(after); i++)
		kill_while_appending(after[i]);
}

static void touch(const char *dir, const char *name)
{
	char p[300];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	spit(p, "", 0);
}

static void test_latest_by_name(void **state)
{
	(void)state;
	char dir[128], out[256], want[300], err[RT_ERRLEN] = "";
	snprintf(dir, sizeof dir, "%s/r", tmp);
	assert_int_equal(rt_journal_latest(dir, HOST, out, sizeof out, err, sizeof err),
			 RT_EINVAL);
	assert_non_null(strstr(err, "no journal of box"));
	mkdir(dir, 0755);
	/* Created in an order unlike their names. */
	touch(dir, "box-20240102-000000-2.yaml");
	touch(dir, "box-20231231-235959.yaml");
	touch(dir, "box-extra-20250101-000000.yaml");
	touch(dir, "box-20240102-000000.yaml");
	touch(dir, "box-20240102-000000-10.yaml");
	touch(dir, "other-20250101-000000.yaml");
	touch(dir, "box-20250101-00000.yaml");
	touch(dir, "box-20250101-000000.yml");
	touch(dir, "box-20240101-120000.yaml");

	assert_int_equal(rt_journal_latest(dir, HOST, out, sizeof out, err, sizeof err), 0);
	snprintf(want, sizeof want, "%s/box-20240102-000000-10.yaml", dir);
	assert_string_equal(out, want);
	assert_int_equal(rt_journal_latest(dir, HOST, out, 10, err, sizeof err), RT_EINVAL);

	char **paths;
	size_t n;
	assert_int_equal(rt_journal_list(dir, HOST, &paths, &n, err, sizeof err), 0);
	static const char *const order[] = {
		"box-20231231-235959.yaml", "box-20240101-120000.yaml",
		"box-20240102-000000.yaml", "box-20240102-000000-2.yaml",
		"box-20240102-000000-10.yaml"};
	assert_int_equal(n, RT_COUNT(order));
	for (size_t i = 0; i < n; i++) {
		snprintf(want, sizeof want, "%s/%s", dir, order[i]);
		assert_string_equal(paths[i], want);
	}
	rt_journal_list_free(paths, n);
	rt_journal_list_free(NULL, 0);

	assert_int_equal(rt_journal_latest(dir, "box-extra", out, sizeof out, err, sizeof err),
			 0);
	snprintf(want, sizeof want, "%s/box-extra-20250101-000000.yaml", dir);
	assert_string_equal(out, want);

	/* Two journals in the same second get distinct names, the second one newest. */
	rt_journal *a, *b;
	assert_int_equal(rt_journal_create(dir, "same", FP, NULL, NULL, &a, err, sizeof err), 0);
	assert_int_equal(rt_journal_create(dir, "same", FP, NULL, NULL, &b, err, sizeof err), 0);
	assert_string_not_equal(rt_journal_path(a), rt_journal_path(b));
	assert_int_equal(rt_journal_latest(dir, "same", out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, rt_journal_path(b));
	rt_journal_close(a);
	rt_journal_close(b);

	assert_int_equal(rt_journal_create(dir, "a/b", FP, NULL, NULL, &a, err, sizeof err),
			 RT_EINVAL);
	assert_null(a);
}

/* The header keeps the machine when given one, and the journal still loads. */
static void test_header_machine(void **state)
{
	(void)state;
	rt_machine mach;
	memset(&mach, 0, sizeof mach);
	strcpy(mach.cpu_model, "Test CPU 9000");
	strcpy(mach.blas_core, "Haswell");
	mach.cores = mach.pus = 4;
	rt_journal *j;
	char err[RT_ERRLEN] = "", dir[128], path[256];
	snprintf(dir, sizeof dir, "%s/results", tmp);
	if (rt_journal_create(dir, HOST, FP, &mach, "rigtune tune", &j, err, sizeof err))
		fail_msg("create: %s", err);
	append_trial(j, 0);
	snprintf(path, sizeof path, "%s", rt_journal_path(j));
	rt_journal_close(j);
	rt_journal_record *recs;
	size_t n;
	int dropped;
	rt_journal_header hdr;
	if (rt_journal_load(path, &recs, &n, &dropped, &hdr, err, sizeof err))
		fail_msg("load: %s", err);
	assert_int_equal(n, 1);
	assert_int_equal(dropped, 0);
	assert_string_equal(hdr.fingerprint, FP);
	assert_string_equal(hdr.command, "rigtune tune");
	assert_trial(&recs[0], 0);
	rt_journal_records_free(recs, n);
	/* the machine is in the first document, before its end marker */
	char *text;
	size_t len;
	assert_int_equal(rt_read_file(path, &text, &len, err, sizeof err), 0);
	char *machine = strstr(text, "\nmachine:\n"), *end = strstr(text, "\n...\n");
	assert_non_null(machine);
	assert_true(machine < end);
	char *model = strstr(text, "model: Test CPU 9000");
	assert_true(model && model < end);
	char *core = strstr(text, "core: Haswell");
	assert_true(core && core < end);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_last_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_after_torn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_new_fingerprint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_middle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_journal_causes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_journal_missing_knobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_document, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find, setup, teardown),
		cmocka_unit_test(test_point_and_shape_equal),
		cmocka_unit_test_setup_teardown(test_roles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_trials, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_host_skips_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_latest_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_machine, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
