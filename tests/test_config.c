/* Reading a recommendation document: the fields consumers rely on, and refusals with their place. */
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
#include "../tuner/config.h"
#include "../tuner/crossover.h"

/* The shape `rigtune tune` writes (rt_config_emit, tuner/config.c), cut to what the reader needs. */
static const char config_text[] =
	"rigtune: 1\n"
	"generated: 2026-11-22T23:21:27Z\n"
	"machine:\n"
	"  hostname: box\n"
	"  fingerprint: 513012a640ec5cbf\n"
	"  cpu: {model: AMD EPYC, cores: 2}\n"
	"recommendations:\n"
	"  transformer:\n"
	"    shape: {d_model: 256, heads: 4}\n"
	"    recommended:\n"
	"      point: {backend: cpu, precision: fp32, batch: 32, threads: 2, workers: 0, pin: compact}\n"
	"      shape: {d_model: 256, heads: 4, seq_len: 64, d_ff: 1024, layers: 2, prep_us: 20}\n"
	"      throughput: {median: 265.625, ci95: [233.965, 283.644], unit: samples/s, cv: 0.0731}\n"
	"    fastest:\n"
	"      point: {backend: cpu, precision: fp32, batch: 64, threads: 2, workers: 0, pin: compact}\n"
	"      shape: {d_model: 256, heads: 4, seq_len: 64, d_ff: 1024, layers: 2, prep_us: 20}\n"
	"      throughput: {median: 270.5, ci95: [260, 280], unit: samples/s, cv: 0.02}\n"
	"    reason: the knee\n"
	"    env:\n"
	"      OMP_NUM_THREADS: '2'\n"
	"      OMP_PROC_BIND: close\n"
	"    hints:\n"
	"      pytorch: [torch.set_num_threads(2)]\n"
	"    future_key: ignored\n"
	"  ppo:\n"
	"    none: no feasible point in the space on this machine\n"
	"crossover: null\n"
	"search: {strategy: model, journal: results/box-20261122-232112.yaml}\n";

static char path[64];

static void write_config(const char *text)
{
	snprintf(path, sizeof path, "/tmp/rt-config-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(rt_write_all(fd, text, strlen(text)), 0);
	close(fd);
}

static void test_fields(void **state)
{
	(void)state;
	rt_config c;
	char err[RT_ERRLEN];
	write_config(config_text);
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	assert_string_equal(c.hostname, "box");
	assert_string_equal(c.fingerprint, "513012a640ec5cbf");
	assert_string_equal(c.journal, "results/box-20261122-232112.yaml");
	assert_null(c.crossover);
	assert_null(c.crossover_replay);
	assert_int_equal(c.partial, 0);
	assert_int_equal(c.nrecs, 2);
	const rt_config_rec *t = rt_config_find(&c, "transformer");
	assert_non_null(t);
	assert_null(t->none);
	assert_string_equal(rt_config_kv_get(&t->recommended.point, "batch"), "32");
	assert_string_equal(rt_config_kv_get(&t->fastest.point, "batch"), "64");
	assert_true(t->recommended.median == 265.625);
	assert_true(t->recommended.ci_lo == 233.965 && t->recommended.ci_hi == 283.644);
	assert_string_equal(t->recommended.unit, "samples/s");
	assert_int_equal(t->env.n, 2);
	assert_string_equal(t->env.kv[0].key, "OMP_NUM_THREADS");
	assert_string_equal(t->env.kv[0].value, "2");
	assert_string_equal(t->reason, "the knee");
	const rt_config_rec *p = rt_config_find(&c, "ppo");
	assert_string_equal(p->none, "no feasible point in the space on this machine");
	assert_null(rt_config_find(&c, "gemm"));

	const rt_workload *w = rt_workload_find("transformer");
	rt_point pt;
	rt_shape sh;
	assert_int_equal(rt_config_point_decode(&c, &t->fastest, w, &pt, &sh, err, sizeof err),
			 RT_OK);
	assert_int_equal(pt.batch, 64);
	assert_int_equal(pt.threads, 2);
	assert_int_equal(sh.v[rt_shape_index(w, "seq_len")], 64);
	rt_config_free(&c);
	unlink(path);
}

/* The message starts "FILE:LINE:COLUMN: " at the given place, and contains what. */
static void refused(const char *text, int line, int column, const char *what)
{
	rt_config c;
	char err[RT_ERRLEN], where[128];
	write_config(text);
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_EINVAL);
	snprintf(where, sizeof where, "%s:%d:%d: ", path, line, column);
	if (strncmp(err, where, strlen(where)) || !strstr(err, what))
		fail_msg("got '%s', expected '%s...%s'", err, where, what);
	rt_config_free(&c);
	unlink(path);
}

static char *replaced(const char *from, const char *to)
{
	static char buf[4096];
	const char *at = strstr(config_text, from);
	assert_non_null(at);
	snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - config_text), config_text, to,
		 at + strlen(from));
	return buf;
}

static void test_refusals(void **state)
{
	(void)state;
	refused("---\nrigtune_journal: 1\nhost: box\n...\n", 2, 1, "it is a results journal");
	refused("a: 1\n", 1, 1, "it is YAML of another kind");
	refused(replaced("rigtune: 1", "rigtune: 2"), 1, 10, "schema 2; this rigtune reads schema 1");
	refused(replaced("    fastest:\n", "    fastes:\n"), 9, 5, "missing key 'fastest'");
	refused(replaced("median: 270.5", "median: fast"), 17, 28, "median: expected a number");
	refused(replaced("ci95: [260, 280]", "ci95: [260]"), 17, 41, "ci95: expected [low, high]");
	/* a median the sweep divides by: NaN, infinite, zero, negative */
	refused(replaced("median: 270.5", "median: .nan"), 17, 28, "median: expected a finite number");
	refused(replaced("median: 270.5", "median: .inf"), 17, 28, "median: expected a finite number");
	refused(replaced("median: 270.5", "median: 0"), 17, 28,
		"median: a throughput must be above 0, found 0");
	refused(replaced("median: 270.5", "median: -3"), 17, 28,
		"median: a throughput must be above 0, found -3");
	/* finite, but no axis can be drawn over it (gnuplot failed on "inf", exit 3) */
	refused(replaced("median: 270.5", "median: 1e300"), 17, 28,
		"median: 1e+300 is out of range [-1e+18, 1e+18]");
	refused(replaced("ci95: [260, 280]", "ci95: [260, .inf]"), 17, 47,
		"ci95: inf is out of range [-1e+18, 1e+18]");
	refused(replaced("unit: samples/s, cv: 0.02", "cv: 0.02"), 17, 19, "missing key 'unit'");
	refused("rigtune: 1\nmachine: {hostname: a, fingerprint: b}\nrecommendations: []\n", 3, 18,
		"recommendations: expected a mapping");
	refused("rigtune: 1\nmachine: {hostname: a, fingerprint: b}\nrecommendations: {\n", 4, 1,
		"did not find expected");
}

/* crossover.replay: the sweep's observations tune saved, when it did; a name or nothing. */
static void test_crossover_replay(void **state)
{
	(void)state;
	rt_config c;
	char err[RT_ERRLEN];
	write_config(replaced("crossover: null", "crossover:\n  replay: results/box-xo.csv\n"
						 "  curves: []"));
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	assert_non_null(c.crossover);
	assert_string_equal(c.crossover_replay, "results/box-xo.csv");
	rt_config_free(&c);
	unlink(path);
	write_config(replaced("crossover: null", "crossover:\n  curves: []"));
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	assert_non_null(c.crossover);
	assert_null(c.crossover_replay);
	rt_config_free(&c);
	unlink(path);
	refused(replaced("crossover: null", "crossover:\n  replay: [a, b]"), 28, 11,
		"crossover.replay: expected the name of a CSV file");
	refused(replaced("crossover: null", "crossover:\n  replay: ''"), 28, 11,
		"crossover.replay: expected the name of a CSV file");
}

static void test_point_decode_names_the_place(void **state)
{
	(void)state;
	rt_config c;
	char err[RT_ERRLEN], where[128];
	write_config(replaced("batch: 64", "batch: 0"));
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	const rt_config_rec *t = rt_config_find(&c, "transformer");
	rt_point pt;
	rt_shape sh;
	assert_int_equal(rt_config_point_decode(&c, &t->fastest, rt_workload_find("transformer"),
						&pt, &sh, err, sizeof err),
			 RT_EINVAL);
	snprintf(where, sizeof where, "%s:15:53: batch=0: must be between 1 and", path);
	assert_int_equal(strncmp(err, where, strlen(where)), 0);
	rt_config_free(&c);
	unlink(path);
}

static void test_missing_file(void **state)
{
	(void)state;
	rt_config c;
	char err[RT_ERRLEN];
	assert_int_equal(rt_config_load("/nonexistent/cfg.yaml", &c, err, sizeof err), RT_EIO);
	assert_string_equal(err, "cannot read /nonexistent/cfg.yaml: No such file or directory");
	rt_config_free(&c);
}

/* Files a configuration names: as written, else beside it, else from its parent directory. */
static void test_locate(void **state)
{
	(void)state;
	char top[] = "/tmp/rt-locate-XXXXXX", f[200], out[300], want[300];
	assert_non_null(mkdtemp(top));
	snprintf(f, sizeof f, "%s/configs", top);
	assert_int_equal(mkdir(f, 0700), 0);
	snprintf(f, sizeof f, "%s/results", top);
	assert_int_equal(mkdir(f, 0700), 0);
	const char *files[] = {"results/j.yaml", "configs/near.csv"};
	for (size_t i = 0; i < RT_COUNT(files); i++) {
		snprintf(f, sizeof f, "%s/%s", top, files[i]);
		FILE *fp = fopen(f, "w");
		assert_non_null(fp);
		fclose(fp);
	}
	rt_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.path, sizeof c.path, "%s/configs/host.yaml", top);

	assert_int_equal(rt_config_locate(&c, "results/j.yaml", out, sizeof out), 1);
	snprintf(want, sizeof want, "%s/configs/../results/j.yaml", top);
	assert_string_equal(out, want);
	assert_int_equal(rt_config_locate(&c, "near.csv", out, sizeof out), 1);
	snprintf(want, sizeof want, "%s/configs/near.csv", top);
	assert_string_equal(out, want);
	snprintf(f, sizeof f, "%s/results/j.yaml", top);
	assert_int_equal(rt_config_locate(&c, f, out, sizeof out), 1);
	assert_string_equal(out, f);

	assert_int_equal(rt_config_locate(&c, "absent.yaml", out, sizeof out), 0);
	snprintf(want, sizeof want, "%s/configs/../absent.yaml", top);
	assert_string_equal(out, want);
	assert_int_equal(rt_config_locate(&c, "/nonexistent/j.yaml", out, sizeof out), 0);
	assert_string_equal(out, "/nonexistent/j.yaml");

	for (size_t i = 0; i < RT_COUNT(files); i++) {
		snprintf(f, sizeof f, "%s/%s", top, files[i]);
		unlink(f);
	}
	snprintf(f, sizeof f, "%s/configs", top);
	rmdir(f);
	snprintf(f, sizeof f, "%s/results", top);
	rmdir(f);
	rmdir(top);
}

/*
 * What consumers read beyond the checked fields, through the configuration's
 * own reader: the hints as rt_hints_emit writes them ({for, lines}) and as a
 * bare list, an entry's shape with its defaults, a problem placed at its line.
 */
static void test_consumers_read_through_the_reader(void **state)
{
	(void)state;
	rt_config c;
	char err[RT_ERRLEN];
	const char *lines[4];
	const rt_workload *tr = rt_workload_find("transformer"), *ppo = rt_workload_find("ppo");
	rt_shape sh;
	write_config(config_text);
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	assert_string_equal(rt_config_scalar(&c, "generated"), "2026-11-22T23:21:27Z");
	assert_null(rt_config_scalar(&c, "unavailable"));
	assert_int_equal(rt_config_hints(&c, &c.recs[0], "pytorch", lines, 4), 1);
	assert_string_equal(lines[0], "torch.set_num_threads(2)");
	assert_int_equal(rt_config_hints(&c, &c.recs[0], "jax", lines, 4), 0);
	assert_int_equal(rt_config_entry_shape(&c, &c.recs[0], tr, &sh, err, sizeof err), RT_OK);
	assert_int_equal(sh.v[rt_shape_index(tr, "heads")], 4);
	assert_int_equal(sh.v[rt_shape_index(tr, "seq_len")], 64); /* not given: the default */
	assert_int_equal(rt_config_entry_shape(&c, &c.recs[1], ppo, &sh, err, sizeof err), RT_OK);
	assert_int_equal(sh.v[rt_shape_index(ppo, "num_envs")], 64);
	assert_int_equal(rt_config_bad(&c, "search.journal", err, sizeof err, "gone (%d)", 2),
			 RT_EINVAL);
	assert_non_null(strstr(err, ":28:"));
	assert_non_null(strstr(err, "search.journal: gone (2)"));
	rt_config_free(&c);
	unlink(path);

	static const char emitted[] =
		"rigtune: 1\n"
		"machine: {hostname: box, fingerprint: 513012a640ec5cbf}\n"
		"recommendations:\n"
		"  transformer:\n"
		"    shape: {d_model: 512}\n"
		"    recommended:\n"
		"      point: {backend: cpu, batch: 32}\n"
		"      shape: {d_model: 512}\n"
		"      throughput: {median: 2, ci95: [1, 3], unit: samples/s, cv: 0.01}\n"
		"    fastest:\n"
		"      point: {backend: cpu, batch: 64}\n"
		"      shape: {d_model: 512}\n"
		"      throughput: {median: 2, ci95: [1, 3], unit: samples/s, cv: 0.01}\n"
		"    reason: the knee\n"
		"    env: {OMP_NUM_THREADS: '2'}\n"
		"    hints:\n"
		"      pytorch:\n"
		"        for: 'PyTorch 2.1 (its BLAS: openblas, pthreads)'\n"
		"        lines: [\"os.environ['OPENBLAS_NUM_THREADS'] = '2'\", torch.set_num_threads(1)]\n"
		"        untested_lines: []\n";
	write_config(emitted);
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	assert_int_equal(rt_config_hints(&c, &c.recs[0], "pytorch", lines, 4), 2);
	assert_string_equal(lines[1], "torch.set_num_threads(1)");
	assert_int_equal(rt_config_hints(&c, &c.recs[0], "pytorch", lines, 1), 1); /* at most max */
	assert_int_equal(rt_config_entry_shape(&c, &c.recs[0], tr, &sh, err, sizeof err), RT_OK);
	assert_int_equal(sh.v[rt_shape_index(tr, "d_model")], 512);
	rt_config_free(&c);
	unlink(path);
}

/*
 * The machine: section, read by the machine's own reader on c->machine as
 * the page and the sweep read it: what is there, "" or 0 for what is not;
 * the derived values as the document says them (an older rigtune's bf16
 * sentence, a role), sizes in GiB as written. A malformed field is refused
 * at its place, and the configuration still loads (a page still shows it).
 */
static void test_machine_section(void **state)
{
	(void)state;
	rt_config c;
	static rt_machine m;
	rt_machine_said said;
	char err[RT_ERRLEN];
	write_config(replaced(
		"  cpu: {model: AMD EPYC, cores: 2}\n",
		"  cpu:\n"
		"    model: AMD EPYC\n"
		"    cores: 2\n"
		"    pus: 4\n"
		"    numa_nodes: [{node: 0, memory_gib: 7.5}, {node: 1, memory_gib: 0.15}]\n"
		"    kinds: [{role: performance, cores: 2, pus: 4, core_type: Zen4,"
		" freq_max_mhz: 5000}]\n"
		"    usable_cores: 3\n"
		"    caches_kib: {l1d: 32, l3: 32768}\n"
		"  memory_gib: {total: 15.5}\n"
		"  blas: {library: OpenBLAS, precisions: [fp64, fp32],"
		" bf16: 'unavailable: no cblas_sbgemm'}\n"
		"  accelerators:\n"
		"  - {backend: cuda, available: true, devices: [{index: 0, name: GPU, memory_gib: 23.99,"
		" compute_units: 128, precisions: [fp32, bf16]}]}\n"
		"  - {backend: hip, available: false, reason: no plugin}\n"));
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	rt_yr view = rt_yr_with_err(&c.yr, err, sizeof err);
	assert_int_equal(rt_machine_read(&view, c.machine, &m, &said), RT_OK);
	assert_string_equal(m.cpu_model, "AMD EPYC");
	assert_string_equal(m.arch, "");
	assert_true(m.cores == 2 && m.pus == 4 && m.packages == 0);
	assert_int_equal(m.numa_nodes, 2);
	/* as written, not the byte count's 0.15000000037 */
	assert_true(rt_machine_gib(m.numa_mem[0]) == 7.5 && rt_machine_gib(m.numa_mem[1]) == 0.15);
	assert_int_equal(m.nkinds, 1);
	assert_string_equal(m.kinds[0].core_type, "Zen4");
	assert_true(m.kinds[0].freq_max_mhz == 5000 && m.kinds[0].pus == 4);
	assert_true(m.l1d == 32 << 10 && m.l2 == 0 && m.l3 == 32768 << 10);
	assert_true(rt_machine_gib(m.mem_total) == 15.5 && m.mem_available == 0);
	assert_string_equal(m.blas_library, "OpenBLAS");
	assert_string_equal(m.blas_version, "");
	assert_int_equal(m.blas_precisions, RT_PREC_BIT(RT_FP64) | RT_PREC_BIT(RT_FP32));
	assert_int_equal(m.naccel, 2);
	assert_int_equal(m.accel[0].available, 1);
	assert_int_equal(m.accel[0].ndevices, 1);
	assert_true(rt_machine_gib(m.accel[0].dev[0].mem_total) == 23.99);
	assert_int_equal(m.accel[0].dev[0].compute_units, 128);
	assert_int_equal(m.accel[0].dev[0].precisions, RT_PREC_BIT(RT_FP32) | RT_PREC_BIT(RT_BF16));
	assert_string_equal(m.accel[0].dev[0].driver, "");
	assert_int_equal(m.accel[1].available, 0);
	assert_string_equal(m.accel[1].reason, "no plugin");
	assert_int_equal(m.accel[1].ndevices, 0);
	assert_ptr_equal(rt_machine_accel(&m, "hip"), &m.accel[1]);
	/* what it says, though this rigtune would derive 2 and write another sentence */
	assert_int_equal(said.usable_cores, 3);
	assert_int_equal(rt_machine_pcores(&m), 2);
	assert_string_equal(said.role[0], "performance");
	assert_string_equal(said.bf16, "unavailable: no cblas_sbgemm");
	rt_config_free(&c);
	unlink(path);

	/* a machine: with little in it reads as little, not as an error */
	write_config(config_text);
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	view = rt_yr_with_err(&c.yr, err, sizeof err);
	assert_int_equal(rt_machine_read(&view, c.machine, &m, &said), RT_OK);
	assert_true(m.numa_nodes == 0 && m.nkinds == 0 && m.naccel == 0 && !m.blas_library[0]);
	assert_true(m.mem_total == 0 && m.freq_max_mhz == 0 && !m.source[0]);
	assert_true(said.usable_cores == 0 && !said.role[0][0] && !said.bf16[0]);
	rt_config_free(&c);
	unlink(path);

	/* a field of another type: the configuration loads, its machine is refused at the field */
	write_config(replaced("cores: 2}", "cores: many}"));
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	view = rt_yr_with_err(&c.yr, err, sizeof err);
	assert_int_equal(rt_machine_read(&view, c.machine, &m, &said), RT_EINVAL);
	char want[RT_ERRLEN];
	snprintf(want, sizeof want,
		 "%s:6:33: machine: cores: expected a whole number from -1 to 16777216", path);
	assert_string_equal(err, want);
	rt_config_free(&c);
	unlink(path);
}

static const char xo_text[] =
	"crossover:\n"
	"  curves:\n"
	"  - {backend: cpu:8t, precision: fp32, fit: {a: 1e-12, b: 3, c: 2e-6}, range: [32, 2048],"
	" outliers: [[64, 0.5]]}\n"
	"  pairs:\n"
	"  - {between: [cpu/fp32, cuda/fp32], kind: in_range, n_star: 258.75, ci95: [256, 261],"
	" summary: cuda/fp32 wins from 259}\n"
	"  - {between: [cpu/fp32, hip/fp32], error: no overlap}\n"
	"  threads:\n"
	"  - {backend: cpu, precision: fp32, threads: 8, summary: 8 pay from 80, pays_from_n: 80,"
	" best: [{threads: 1, from_n: 32, to_n: 80}, {threads: 8, from_n: 80, to_n: 2048}]}\n";

/*
 * The crossover: section (rt_crossover_emit's analysis) as numbers, read by
 * crossover's reader, its curves' labels as rt_curves; a malformed one
 * refused at its place.
 */
static void test_crossover_section(void **state)
{
	(void)state;
	rt_config c;
	rt_crossover_doc x;
	char err[RT_ERRLEN];
	rt_yr r;
	write_config(replaced("crossover: null\n", xo_text));
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	r = rt_yr_with_err(&c.yr, err, sizeof err);
	assert_int_equal(rt_crossover_read(&r, c.crossover, &x), RT_OK);
	assert_int_equal(x.ncurves, 1);
	assert_string_equal(x.curves[0].label, "cpu:8t");
	assert_string_equal(x.curves[0].id.backend, "cpu");
	assert_true(x.curves[0].id.threads == 8 && !x.curves[0].id.xfer && !x.curves[0].id.pin[0]);
	assert_true(x.curves[0].fit.b == 3 && x.curves[0].fit.n_min == 32 &&
		    x.curves[0].fit.n_max == 2048);
	assert_int_equal(x.curves[0].noutliers, 1);
	assert_true(x.curves[0].outliers[0] == 64 && x.curves[0].outliers[1] == 0.5);
	assert_int_equal(x.npairs, 2);
	assert_string_equal(x.pairs[0].kind, "in_range");
	assert_true(x.pairs[0].n_star == 258.75 && x.pairs[0].ci_lo == 256 &&
		    x.pairs[0].ci_hi == 261);
	assert_null(x.pairs[0].error);
	assert_string_equal(x.pairs[1].error, "no overlap");
	assert_true(isnan(x.pairs[1].n_star));
	assert_int_equal(x.nthreads, 1);
	assert_int_equal(x.threads[0].threads, 8);
	assert_true(x.threads[0].pays_from == 80);
	assert_int_equal(x.threads[0].nbest, 2);
	assert_true(x.threads[0].best[1].threads == 8 && x.threads[0].best[1].n_hi == 2048);
	rt_crossover_doc_free(&x);
	rt_config_free(&c);
	unlink(path);

	/* an outlier without its seconds: line 29 is the curve's */
	char text[4096];
	snprintf(text, sizeof text, "%s", replaced("crossover: null\n", xo_text));
	char *o = strstr(text, "[[64, 0.5]]");
	memcpy(o, "[[64]]     ", 11);
	write_config(text);
	assert_int_equal(rt_config_load(path, &c, err, sizeof err), RT_OK);
	r = rt_yr_with_err(&c.yr, err, sizeof err);
	assert_int_equal(rt_crossover_read(&r, c.crossover, &x), RT_EINVAL);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, ":29:"));
	assert_non_null(strstr(err, "outliers: expected [n, seconds] pairs"));
	rt_crossover_doc_free(&x);
	rt_config_free(&c);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_crossover_replay),
		cmocka_unit_test(test_point_decode_names_the_place),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_consumers_read_through_the_reader),
		cmocka_unit_test(test_machine_section),
		cmocka_unit_test(test_crossover_section),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
