/*
 * The machine probe on the live machine and on XML topologies, pinning, YAML
 * round trip, and the BLAS named from its file.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tuner/blas_kernels.h"
#include "../tuner/blas_origin.h"
#include "../tuner/machine.h"
#include "../tuner/pin.h"
#include "yaml_lookup.h"

#define DATA "tests/data/"

static void probe_or_fail(const char *xml, rt_machine *m)
{
	char err[512] = "";
	int rc = rt_machine_probe(xml, m, err, sizeof err);
	if (rc)
		fail_msg("probe %s: %s", xml ? xml : "live", err);
}

static void test_live_matches_os(void **state)
{
	(void)state;
	rt_machine m;
	probe_or_fail(NULL, &m);
	/*
	 * hwloc counts the online PUs less those a cgroup cpuset forbids: the
	 * online count, or (in a restricted container) the affinity mask's.
	 */
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
	assert_true(m.pus == (int)sysconf(_SC_NPROCESSORS_ONLN) || m.pus == CPU_COUNT(&set));
	assert_true(m.cores >= 1 && m.cores <= m.pus);
	assert_true(m.mem_total > 0 && m.mem_available <= m.mem_total);
	assert_string_equal(m.blas_library, "OpenBLAS");
	assert_true(m.blas_core[0] != '\0');
	assert_string_equal(m.source, "live");
}

static void test_hybrid_laptop(void **state)
{
	(void)state;
	rt_machine m;
	probe_or_fail(DATA "hybrid16.xml", &m);
	assert_int_equal(m.packages, 1);
	assert_int_equal(m.cores, 16);
	assert_int_equal(m.pus, 16);
	assert_int_equal(m.nkinds, 2);
	/* hwloc lists the least powerful kind first */
	assert_int_equal(m.kinds[0].cores, 4);
	assert_string_equal(m.kinds[0].core_type, "Efficiency");
	assert_int_equal(m.kinds[1].cores, 12);
	assert_int_equal(m.kinds[1].freq_max_mhz, 4500);
	assert_int_equal(rt_machine_pcores(&m), 12);
	assert_int_equal(m.l2, 4u << 20);
	assert_string_equal(m.cpu_model, "Apple M4 Max");
	assert_int_equal(m.mem_total >> 30, 128);
}

static void test_numa_server(void **state)
{
	(void)state;
	rt_machine m;
	probe_or_fail(DATA "numa2smt.xml", &m);
	assert_int_equal(m.packages, 2);
	assert_int_equal(m.numa_nodes, 2);
	assert_int_equal(m.cores, 16);
	assert_int_equal(m.pus, 32);
	assert_int_equal(m.numa_mem[1] >> 30, 64);
	assert_int_equal(m.l3, 32u << 20);
	assert_int_equal(rt_machine_pcores(&m), 16);
}

static void test_bad_topologies(void **state)
{
	(void)state;
	rt_machine m;
	char err[512];
	assert_int_equal(rt_machine_probe(DATA "no-such.xml", &m, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, "no-such.xml"));
	char path[] = "/tmp/rt_badtopoXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "<topology><object", 17), 17);
	close(fd);
	assert_int_equal(rt_machine_probe(path, &m, err, sizeof err), RT_EINVAL);
	assert_non_null(strstr(err, path));
	unlink(path);
}

static hwloc_topology_t load_xml(const char *path)
{
	hwloc_topology_t t;
	assert_int_equal(hwloc_topology_init(&t), 0);
	assert_int_equal(hwloc_topology_set_xml(t, path), 0);
	assert_int_equal(hwloc_topology_load(t), 0);
	return t;
}

static void test_pin_policies(void **state)
{
	(void)state;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char buf[128];

	hwloc_topology_t hy = load_xml(DATA "hybrid16.xml");
	assert_int_equal(rt_pin_cpuset(hy, RT_PIN_PCORES, 4, set), 0);
	hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
	assert_string_equal(buf, "4-7"); /* P-cores, not the E-cores 0-3 */
	assert_int_equal(rt_pin_cpuset(hy, RT_PIN_PCORES, 14, set), 0);
	hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
	assert_string_equal(buf, "0-1,4-15"); /* 12 P-cores, then E-cores */
	assert_int_equal(rt_pin_cpuset(hy, RT_PIN_COMPACT, 3, set), 0);
	hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
	assert_string_equal(buf, "0-2");
	hwloc_topology_destroy(hy);

	hwloc_topology_t numa = load_xml(DATA "numa2smt.xml");
	/* compact: one PU per core before any SMT sibling */
	assert_int_equal(rt_pin_cpuset(numa, RT_PIN_COMPACT, 4, set), 0);
	hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
	assert_string_equal(buf, "0,2,4,6");
	/* spread: across both packages (PUs 0-15 and 16-31) */
	assert_int_equal(rt_pin_cpuset(numa, RT_PIN_SPREAD, 2, set), 0);
	assert_int_equal(hwloc_bitmap_weight(set), 2);
	assert_true(hwloc_bitmap_first(set) < 16 && hwloc_bitmap_last(set) >= 16);
	assert_int_equal(rt_pin_cpuset(numa, RT_PIN_SPREAD, 0, set), RT_EINVAL);
	hwloc_topology_destroy(numa);
	hwloc_bitmap_free(set);
}

static void test_fingerprint(void **state)
{
	(void)state;
	rt_machine a, b;
	char fa[17], fb[17];
	probe_or_fail(DATA "hybrid16.xml", &a);
	probe_or_fail(DATA "hybrid16.xml", &b);
	rt_machine_fingerprint(&a, fa);
	rt_machine_fingerprint(&b, fb);
	assert_string_equal(fa, fb);
	assert_int_equal(strlen(fa), 16);
	strcpy(b.governor, "powersave"); /* a field that changes timings */
	rt_machine_fingerprint(&b, fb);
	assert_string_not_equal(fa, fb);
	b = a;
	b.mem_available /= 2; /* a field that does not */
	rt_machine_fingerprint(&b, fb);
	assert_string_equal(fa, fb);
}

/* m as probe writes it, under machine: (a new string). */
static char *machine_yaml(const rt_machine *m)
{
	rt_yw w;
	assert_int_equal(rt_yw_init(&w), 0);
	rt_yw_map(&w, 0);
	rt_yw_str(&w, "machine");
	rt_machine_emit(&w, m);
	rt_yw_end_map(&w);
	char *text, err[256];
	size_t len;
	assert_int_equal(rt_yw_finish(&w, &text, &len, err, sizeof err), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

static void test_yaml_round_trip(void **state)
{
	(void)state;
	rt_machine m;
	probe_or_fail(DATA "numa2smt.xml", &m);
	char *text = machine_yaml(&m), fp[17];

	yaml_document_t doc;
	assert_int_equal(yl_load(&doc, text), 0);
	assert_int_equal((int)yl_num(&doc, "machine/cpu/cores"), 16);
	assert_int_equal((int)yl_num(&doc, "machine/cpu/pus"), 32);
	assert_int_equal((int)yl_num(&doc, "machine/cpu/smt"), 2);
	assert_int_equal(yl_len(&doc, "machine/cpu/numa_nodes"), 2);
	assert_float_equal(yl_num(&doc, "machine/cpu/numa_nodes/1/memory_gib"), 64.0, 1e-9);
	assert_int_equal((int)yl_num(&doc, "machine/cpu/caches_kib/l3"), 32768);
	rt_machine_fingerprint(&m, fp);
	assert_string_equal(yl_str(&doc, "machine/fingerprint"), fp);
	assert_string_equal(yl_str(&doc, "machine/blas/precisions/1"), "fp32");
	yaml_document_delete(&doc);
	free(text);
}

/*
 * The BLAS's name and who put it there come from its file's path alone:
 * Homebrew's OpenBLAS on Apple Silicon (its opt/ link, its Cellar, its lib/
 * where it is linked, the cross-build's install name) and on Intel Macs,
 * Accelerate, Debian's OpenBLAS (from: not said), and nothing of the rest.
 */
static void test_blas_origin(void **state)
{
	(void)state;
	static const char *const cases[][3] = {
		{"/opt/homebrew/opt/openblas/lib/libopenblas.0.dylib", "OpenBLAS", "Homebrew"},
		{"/opt/homebrew/Cellar/openblas/0.3.28/lib/libopenblas.0.dylib", "OpenBLAS",
		 "Homebrew"},
		{"/opt/homebrew/lib/libopenblas.dylib", "OpenBLAS", "Homebrew"},
		{"/usr/local/opt/openblas/lib/libopenblas.dylib", "OpenBLAS", "Homebrew"},
		{"/usr/local/Cellar/openblas/0.3.21/lib/libopenblasp-r0.3.21.dylib", "OpenBLAS",
		 "Homebrew"},
		{"/usr/local/lib/libopenblas.dylib", "OpenBLAS", NULL},
		{"/System/Library/Frameworks/Accelerate.framework/Versions/A/Frameworks/"
		 "vecLib.framework/Versions/A/libBLAS.dylib",
		 "Accelerate", "macOS"},
		{"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0", "OpenBLAS", NULL},
		{"/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", NULL, NULL},
		{"/opt/homebrew/lib/libmkl_rt.dylib", NULL, "Homebrew"},
		{"", NULL, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rt_blas_origin o = rt_blas_origin_of(cases[i][0]);
		if ((o.library == NULL) != (cases[i][1] == NULL) ||
		    (o.library && strcmp(o.library, cases[i][1])) ||
		    (o.from == NULL) != (cases[i][2] == NULL) ||
		    (o.from && strcmp(o.from, cases[i][2])))
			fail_msg("'%s': %s from %s, expected %s from %s", cases[i][0],
				 o.library ? o.library : "(nothing)", o.from ? o.from : "(nothing)",
				 cases[i][1] ? cases[i][1] : "(nothing)",
				 cases[i][2] ? cases[i][2] : "(nothing)");
	}
	assert_null(rt_blas_origin_of(NULL).library);
}

/*
 * probe names the file of this binary's OpenBLAS, and where it came from
 * when its path says (here Debian's: it does not); a Homebrew one is said so.
 */
static void test_blas_file(void **state)
{
	(void)state;
	rt_machine m;
	yaml_document_t doc;
	probe_or_fail(NULL, &m);
	assert_non_null(strstr(m.blas_file, "openblas"));
	assert_int_equal(access(m.blas_file, R_OK), 0);
	assert_string_equal(m.blas_from, "");
	char *text = machine_yaml(&m);
	assert_int_equal(yl_load(&doc, text), 0);
	assert_string_equal(yl_str(&doc, "machine/blas/file"), m.blas_file);
	assert_null(yl_str(&doc, "machine/blas/from"));
	yaml_document_delete(&doc);
	free(text);

	snprintf(m.blas_from, sizeof m.blas_from, "Homebrew");
	snprintf(m.blas_file, sizeof m.blas_file, "%s",
		 "/opt/homebrew/opt/openblas/lib/libopenblas.0.dylib");
	text = machine_yaml(&m);
	assert_int_equal(yl_load(&doc, text), 0);
	assert_string_equal(yl_str(&doc, "machine/blas/library"), "OpenBLAS");
	assert_string_equal(yl_str(&doc, "machine/blas/from"), "Homebrew");
	assert_string_equal(yl_str(&doc, "machine/blas/file"),
			    "/opt/homebrew/opt/openblas/lib/libopenblas.0.dylib");
	yaml_document_delete(&doc);
	free(text);
}

/* The widest vector instructions named by whole flags, and kernels narrower than them. */
static void test_blas_kernels(void **state)
{
	(void)state;
	assert_string_equal(rt_cpu_vector_isa("fpu sse3 avx avx2 avx512f avx512_bf16 amx_tile"),
			    "avx512_bf16");
	assert_string_equal(rt_cpu_vector_isa("sse3 avx avx2 avx512f avx512dq"), "avx512");
	assert_string_equal(rt_cpu_vector_isa("sse3 avx avx2 avx512_vbmi\n"), "avx2");
	assert_string_equal(rt_cpu_vector_isa("sse3 avx2x avx"), "avx");
	assert_string_equal(rt_cpu_vector_isa("pni sse3"), "sse");
	assert_string_equal(rt_cpu_vector_isa("fp asimd sve"), "");
	assert_string_equal(rt_cpu_vector_isa(""), "");
	char note[RT_MF_TEXT_LEN];
	/* the H100 host's case: SSE kernels on an AVX-512 BF16 Xeon */
	rt_blas_kernels_note("Prescott", "avx512_bf16", note, sizeof note);
	assert_non_null(strstr(note, "runs its Prescott kernels (sse) on a CPU with avx512_bf16"));
	assert_non_null(strstr(note, "OPENBLAS_CORETYPE=Cooperlake selects"));
	assert_true(strlen(note) < sizeof note - 1); /* whole, not cut */
	rt_blas_kernels_note("zen", "avx512", note, sizeof note);
	assert_non_null(strstr(note, "OPENBLAS_CORETYPE=SkylakeX"));
	rt_blas_kernels_note("Sandybridge", "avx2", note, sizeof note);
	assert_non_null(strstr(note, "OPENBLAS_CORETYPE=Haswell"));
	/* kernels that fit, bf16 aside (it changes sbgemm alone), and names not in the table */
	const char *fit[][2] = {{"SkylakeX", "avx512_bf16"}, {"Cooperlake", "avx512"},
				{"Haswell", "avx2"},         {"Zen", "avx2"},
				{"SapphireRapids", "avx512_bf16"}, {"NEOVERSEN1", ""},
				{"VORTEX", "avx2"},          {"Prescott", ""}};
	for (size_t i = 0; i < RT_COUNT(fit); i++) {
		snprintf(note, sizeof note, "not cleared");
		rt_blas_kernels_note(fit[i][0], fit[i][1], note, sizeof note);
		assert_string_equal(note, "");
	}
	/* the candidates tune measures (blas_cores.h): each level above the kernels run, to the CPU's */
	const char *wider[6];
	assert_int_equal(rt_blas_kernels_wider("Prescott", "avx512_bf16", wider, 6), 4);
	assert_string_equal(wider[0], "Sandybridge");
	assert_string_equal(wider[1], "Haswell");
	assert_string_equal(wider[2], "SkylakeX");
	assert_string_equal(wider[3], "Cooperlake");
	assert_int_equal(rt_blas_kernels_wider("Haswell", "avx512", wider, 6), 1);
	assert_string_equal(wider[0], "SkylakeX");
	assert_int_equal(rt_blas_kernels_wider("Haswell", "avx512_bf16", wider, 1), 1); /* max */
	assert_int_equal(rt_blas_kernels_wider("Haswell", "avx2", wider, 6), 0);
	assert_int_equal(rt_blas_kernels_wider("Cooperlake", "avx512_bf16", wider, 6), 0);
	assert_int_equal(rt_blas_kernels_wider("NEOVERSEN1", "", wider, 6), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_matches_os),
		cmocka_unit_test(test_hybrid_laptop),
		cmocka_unit_test(test_numa_server),
		cmocka_unit_test(test_bad_topologies),
		cmocka_unit_test(test_pin_policies),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_yaml_round_trip),
		cmocka_unit_test(test_blas_origin),
		cmocka_unit_test(test_blas_file),
		cmocka_unit_test(test_blas_kernels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
