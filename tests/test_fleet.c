/*
 * The fleet's parts that need no Slurm and no database: the sbatch script
 * (every string quoted, as bash reads it back; directives refused when a
 * shell-free #SBATCH line cannot hold them) and the journal observer that
 * tune --store uploads through (every trial told once, with its place, also
 * after a resume). The engines themselves: tests/cli/test_fleet.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tuner/fleet/fleet.h"

static void directives(void **state)
{
	(void)state;
	assert_true(rt_fleet_directive_ok("gpu[01-16]"));
	assert_true(rt_fleet_directive_ok("a100&ib|(h100*2)"));
	assert_true(rt_fleet_directive_ok("0:30:00"));
	assert_true(rt_fleet_directive_ok("/shared/rig-1.2"));
	assert_false(rt_fleet_directive_ok(""));
	assert_false(rt_fleet_directive_ok("rt\n#SBATCH --uid=0"));
	assert_false(rt_fleet_directive_ok("a b"));
	assert_false(rt_fleet_directive_ok("a'b"));
	assert_false(rt_fleet_directive_ok("$(reboot)"));
}

/* Runs text with bash, which prints the words of args, store and rigtune one a line. */
static char *bash_words(const char *script)
{
	char path[] = "/tmp/rt_fleet_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	/* the script's assignments, then print instead of running anything */
	const char *from = strstr(script, "args=(");
	const char *to = strstr(script, "exec ");
	if (!to)
		to = strstr(script, "\"${rigtune[@]}\" check");
	assert_non_null(from);
	assert_non_null(to);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "node=n7\n%.*s printf '%%s\\n' \"${rigtune[@]}\" \"${store[@]}\" \"${args[@]}\"\n",
		(int)(to - from), from);
	fclose(f);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "bash %s", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	static char out[4096];
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	pclose(p);
	unlink(path);
	return out;
}

static void script_quotes_every_string(void **state)
{
	(void)state;
	char *args[] = {"--name", "it's; rm -rf / `x` $(y) \"z\"", "--budget", "3"};
	rt_fleet_job job = {.action = RT_FLEET_TUNE,
			    .count = 3,
			    .partition = "gpu",
			    .constraint = "a100",
			    .store = "postgresql://u@db/rt?application_name=a b",
			    .rigtune = "/opt/rig tune/rigtune",
			    .workdir = "/shared/o'brien",
			    .args = args,
			    .nargs = 4};
	char *text, err[256];
	assert_int_equal(rt_fleet_script(&job, &text, err, sizeof err), RT_OK);
	assert_non_null(strstr(text, "#SBATCH --array=0-2\n"));
	assert_non_null(strstr(text, "#SBATCH --exclusive\n"));
	assert_non_null(strstr(text, "#SBATCH --partition=gpu\n"));
	assert_non_null(strstr(text, "#SBATCH --constraint=a100\n"));
	assert_non_null(strstr(text, "cd '/shared/o'\\''brien' || exit 3\n"));
	assert_null(strstr(text, "#SBATCH --chdir")); /* a quote cannot go there: sbatch --chdir */
	assert_string_equal(bash_words(text),
			    "/opt/rig tune/rigtune\n--store\n"
			    "postgresql://u@db/rt?application_name=a b\n--node\nn7\n--name\n"
			    "it's; rm -rf / `x` $(y) \"z\"\n--budget\n3\n");
	free(text);

	job.constraint = "a100\n#SBATCH --uid=0";
	assert_int_equal(rt_fleet_script(&job, &text, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "--constraint"));
	assert_null(text);
}

static void check_script_succeeds_on_a_regression(void **state)
{
	(void)state;
	rt_fleet_job job = {.action = RT_FLEET_CHECK, .count = 1, .store = "s", .rigtune = "r",
			    .workdir = "/w"};
	char *text, err[256];
	assert_int_equal(rt_fleet_script(&job, &text, err, sizeof err), RT_OK);
	assert_non_null(strstr(text, "--baseline \"configs/$node.yaml\""));
	assert_non_null(strstr(text, "[ \"$rc\" = 1 ] && rc=0"));
	assert_null(strstr(text, "#SBATCH --partition"));
	assert_non_null(strstr(text, "#SBATCH --chdir=/w\n"));
	free(text);
}

/* ---- the journal observer ---- */

typedef struct seen {
	int n;
	long seq[8];
	char host[8][64], started[8][32], fp[8][17];
	int batch[8];
} seen;

static void observe(void *ctx, const rt_journal_header *hdr, const char *path, long seq,
		    const rt_journal_record *rec)
{
	seen *s = ctx;
	assert_non_null(strstr(path, "/box-"));
	assert_true(s->n < 8);
	s->seq[s->n] = seq;
	snprintf(s->host[s->n], 64, "%s", hdr->host);
	snprintf(s->started[s->n], 32, "%s", hdr->started);
	snprintf(s->fp[s->n], 17, "%s", rec->fingerprint);
	s->batch[s->n] = rec->point.batch;
	s->n++;
}

static void append(rt_journal *j, int batch)
{
	const rt_workload *w = rt_workload_find("gemm");
	rt_point pt;
	rt_shape sh;
	rt_point_default(&pt);
	pt.batch = batch;
	rt_shape_default(w, &sh);
	double samples[3] = {1.5, 2.5, 3.5};
	rt_measurement m = {.feasible = 1, .nsamples = 3, .samples = samples, .median = 2.5,
			    .nphases = w->nphases};
	char err[256];
	rt_journal_trial jt = {.role = RT_TRIAL_SEARCH, .w = w, .pt = &pt, .sh = &sh, .m = &m};
	assert_int_equal(rt_journal_append(j, &jt, err, sizeof err),
			 RT_OK);
}

static void observer_sees_every_trial_in_place(void **state)
{
	(void)state;
	char dir[] = "/tmp/rt_fleet_XXXXXX", err[256], path[1024];
	assert_non_null(mkdtemp(dir));
	seen s = {0};
	rt_journal *j;
	rt_journal_observe(observe, &s);
	assert_int_equal(rt_journal_create(dir, "box", "0123abcd4567ef89", NULL, "t", &j, err,
					   sizeof err),
			 RT_OK);
	append(j, 16);
	append(j, 32);
	snprintf(path, sizeof path, "%s", rt_journal_path(j));
	rt_journal_close(j);
	/* a resumed journal goes on counting where the file is */
	assert_int_equal(rt_journal_open(path, "fedcba9876543210", &j, NULL, err, sizeof err),
			 RT_OK);
	append(j, 64);
	rt_journal_close(j);
	rt_journal_observe(NULL, NULL);
	j = NULL;
	assert_int_equal(rt_journal_create(dir, "box", "0123abcd4567ef89", NULL, "t", &j, err,
					   sizeof err),
			 RT_OK);
	append(j, 128); /* no observer: not seen */
	rt_journal_close(j);

	assert_int_equal(s.n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(s.seq[i], i);
		assert_string_equal(s.host[i], "box");
		assert_string_equal(s.started[i], s.started[0]);
	}
	assert_int_equal(s.batch[0], 16);
	assert_int_equal(s.batch[2], 64);
	assert_string_equal(s.fp[1], "0123abcd4567ef89");
	assert_string_equal(s.fp[2], "fedcba9876543210");
	/* the seq is the place rt_journal_load gives the same trial */
	rt_journal_record *recs;
	size_t n;
	assert_int_equal(rt_journal_load(path, &recs, &n, NULL, NULL, err, sizeof err), RT_OK);
	assert_int_equal(n, 3);
	assert_int_equal(recs[2].point.batch, 64);
	rt_journal_records_free(recs, n);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* msg redacted against url must equal want. */
static void redacts(const char *url, const char *msg, size_t len, const char *want)
{
	char buf[256];
	assert_true(len <= sizeof buf);
	snprintf(buf, len, "%s", msg);
	rt_store_redact(buf, len, url);
	assert_string_equal(buf, want);
}

/*
 * The store's messages go to shared Slurm logs: libpq quotes a badly
 * percent-encoded password whole, and a conninfo's password= may come back.
 */
static void store_messages_carry_no_password(void **state)
{
	(void)state;
	redacts("postgresql://rt:Hunter2%zzSecret@db/rt",
		"invalid percent-encoded token: \"Hunter2%zzSecret\"", 256,
		"invalid percent-encoded token: \"***\"");
	redacts("postgres://u:p@ss@db/rt?sslmode=require", "bad p@ss and p@ss again", 256,
		"bad *** and *** again");
	redacts("postgresql:///rt?host=/s&password=Hunter2&user=u", "no password=Hunter2 here", 256,
		"no password=*** here");
	redacts("host=/s password=xy dbname=rt", "said password=xy", 256, "said password=***");
	/* a password in the message that the URL does not spell (a conninfo echoed) */
	redacts(NULL, "invalid: password='abc def'", 256, "invalid: password='***'");
	/* one character grows to three: cut at the buffer's end, never past it */
	redacts("postgresql://u:x@db/rt", "axbxcx", 8, "a***b");
	redacts("postgresql://u@db/rt", "no secret: u@db", 256, "no secret: u@db");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(directives),
		cmocka_unit_test(store_messages_carry_no_password),
		cmocka_unit_test(script_quotes_every_string),
		cmocka_unit_test(check_script_succeeds_on_a_regression),
		cmocka_unit_test(observer_sees_every_trial_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
