/* The machine diff: two emitted machines with fields changed, added, removed and reordered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../common/rt.h"
#include "../tuner/check/machdiff.h"
#include "../tuner/machine.h"
#include "../workloads/backend.h"

/* A 2-socket server with one CUDA device, as rt_machine_probe would fill it. */
static void server(rt_machine *m)
{
	memset(m, 0, sizeof *m);
	strcpy(m->source, "live");
	strcpy(m->hostname, "box");
	strcpy(m->cpu_model, "Intel(R) Xeon(R) Gold 6230");
	strcpy(m->arch, "x86_64");
	m->packages = 2;
	m->cores = 40;
	m->pus = 80;
	m->numa_nodes = 2;
	m->numa_mem[0] = m->numa_mem[1] = 96ull << 30;
	m->nkinds = 1;
	m->kinds[0] = (rt_cpukind){.efficiency = 0, .cores = 40, .pus = 80};
	m->l1d = 32 << 10;
	m->l2 = 1 << 20;
	m->l3 = 27 << 20;
	strcpy(m->os_name, "Debian GNU/Linux 12 (bookworm)");
	strcpy(m->kernel, "6.1.0-18-amd64");
	strcpy(m->governor, "performance");
	strcpy(m->microcode, "0x5003604");
	m->mem_total = 192ull << 30;
	m->mem_available = 150ull << 30;
	strcpy(m->blas_library, "OpenBLAS");
	strcpy(m->blas_version, "0.3.21");
	strcpy(m->blas_core, "SkylakeX");
	strcpy(m->blas_threading, "pthreads");
	m->blas_precisions = RT_PREC_BIT(RT_FP64) | RT_PREC_BIT(RT_FP32);
	m->naccel = 2;
	rt_accel *c = &m->accel[0];
	strcpy(c->backend, "cuda");
	c->available = 1;
	c->ndevices = 1;
	strcpy(c->dev[0].name, "NVIDIA A100-SXM4-40GB");
	strcpy(c->dev[0].driver, "535.104.05");
	c->dev[0].mem_total = 40ull << 30;
	c->dev[0].compute_units = 108;
	c->dev[0].precisions = RT_PREC_BIT(RT_FP32) | RT_PREC_BIT(RT_TF32);
	rt_accel *h = &m->accel[1];
	strcpy(h->backend, "hip");
	strcpy(h->reason, "no HIP runtime");
}

/* The machine as probe prints it, read back. */
static void emit_and_load(const rt_machine *m, rt_yr *r)
{
	rt_yw w;
	char *text, err[RT_ERRLEN];
	size_t len;
	assert_int_equal(rt_yw_init(&w), 0);
	rt_machine_emit(&w, m);
	assert_int_equal(rt_yw_finish(&w, &text, &len, err, sizeof err), 0);
	assert_int_equal(rt_yr_load(r, "machine", text, len, err, sizeof err), 0);
	free(text);
}

static void diff_machines(const rt_machine *a, const rt_machine *b, rt_mdiff *d)
{
	rt_yr ra, rb;
	emit_and_load(a, &ra);
	emit_and_load(b, &rb);
	assert_int_equal(rt_mdiff_compute(&ra, rt_yr_root(&ra), &rb, rt_yr_root(&rb), d), 0);
	rt_yr_free(&ra);
	rt_yr_free(&rb);
}

static void expect(const rt_mdiff *d, const char *field, const char *before, const char *after)
{
	const rt_mdiff_entry *e = rt_mdiff_find(d, field);
	if (!e)
		fail_msg("no diff entry for %s", field);
	if (before)
		assert_string_equal(e->before, before);
	else
		assert_null(e->before);
	if (after)
		assert_string_equal(e->after, after);
	else
		assert_null(e->after);
}

static void test_same_machine_no_diff(void **state)
{
	(void)state;
	rt_machine a, b;
	server(&a);
	server(&b);
	b.mem_available = 3ull << 30; /* of the moment: not compared */
	b.numa_mem[0] += 3ull << 30;  /* 96 -> 99 GiB: within 5%, a balloon or a reservation */
	b.accel[0].dev[0].mem_total -= 1ull << 30; /* 40 -> 39 GiB */
	rt_mdiff d;
	diff_machines(&a, &b, &d);
	assert_int_equal(d.n, 0);
	rt_mdiff_free(&d);
}

static void test_upgrade_fields(void **state)
{
	(void)state;
	rt_machine a, b;
	server(&a);
	server(&b);
	strcpy(b.blas_core, "Haswell");
	strcpy(b.blas_version, "0.3.26");
	strcpy(b.kernel, "6.1.0-21-amd64");
	strcpy(b.governor, "powersave");
	strcpy(b.accel[0].dev[0].driver, "550.54.15");
	b.blas_precisions |= RT_PREC_BIT(RT_BF16);
	b.numa_mem[1] = 64ull << 30;
	b.microcode[0] = '\0';
	rt_mdiff d;
	diff_machines(&a, &b, &d);
	expect(&d, "blas.core", "SkylakeX", "Haswell");
	expect(&d, "blas.version", "0.3.21", "0.3.26");
	expect(&d, "os.kernel", "6.1.0-18-amd64", "6.1.0-21-amd64");
	expect(&d, "cpu.governor", "performance", "powersave");
	expect(&d, "cpu.microcode", "0x5003604", NULL);
	expect(&d, "accelerators[cuda].devices[0].driver", "535.104.05", "550.54.15");
	expect(&d, "cpu.numa_nodes[1].memory_gib", "96", "64");
	expect(&d, "blas.precisions", "[fp64, fp32]", "[fp64, fp32, bf16]");
	/* the bf16 note disappears once bf16 is there */
	expect(&d, "blas.bf16", "none in this OpenBLAS (no cblas_sbgemm); the cpu backend's gemm_impl names what runs bf16", NULL);
	assert_null(rt_mdiff_find(&d, "fingerprint")); /* a hash of the fields above */
	assert_int_equal(d.n, 9);
	for (size_t i = 0; i < d.n; i++)
		assert_false(rt_mdiff_is_hardware(&d.v[i]));
	rt_mdiff_free(&d);
}

static void test_hardware_and_accelerators(void **state)
{
	(void)state;
	rt_machine a, b;
	server(&a);
	server(&b);
	b.cores = 32;
	b.pus = 64;
	b.kinds[0].cores = 32;
	b.kinds[0].pus = 64;
	/* backends listed in another order: matched by name, not position */
	rt_accel t = b.accel[0];
	b.accel[0] = b.accel[1];
	b.accel[1] = t;
	/* a second device appears, the HIP runtime is found */
	b.accel[1].ndevices = 2;
	b.accel[1].dev[1] = b.accel[1].dev[0];
	b.accel[0].available = 1;
	rt_mdiff d;
	diff_machines(&a, &b, &d);
	expect(&d, "cpu.cores", "40", "32");
	expect(&d, "cpu.pus", "80", "64");
	expect(&d, "cpu.kinds[0].cores", "40", "32");
	expect(&d, "accelerators[cuda].devices[1].name", NULL, "NVIDIA A100-SXM4-40GB");
	expect(&d, "accelerators[cuda].devices[1].index", NULL, "1");
	expect(&d, "accelerators[hip].available", "false", "true");
	expect(&d, "accelerators[hip].reason", "no HIP runtime", NULL);
	expect(&d, "accelerators[hip].devices", NULL, "[]");
	assert_null(rt_mdiff_find(&d, "accelerators[cuda].devices[0].name"));
	assert_true(rt_mdiff_is_hardware(rt_mdiff_find(&d, "cpu.cores")));
	assert_true(rt_mdiff_is_hardware(rt_mdiff_find(&d, "cpu.pus")));
	assert_false(rt_mdiff_is_hardware(rt_mdiff_find(&d, "cpu.kinds[0].cores")));
	rt_mdiff_free(&d);
}

/* A field that a later probe adds is diffed without code for it. */
static void test_unknown_fields(void **state)
{
	(void)state;
	static const char old[] = "cpu: {model: X, cores: 2}\nblas: {core: Haswell}\n";
	static const char new[] = "cpu: {model: X, cores: 2}\n"
				  "blas: {core: Haswell, gemm_impl: sgemm_kernel_16x4}\n"
				  "frameworks: [{name: torch, version: 2.3.0}]\n";
	rt_yr ra, rb;
	char err[RT_ERRLEN];
	assert_int_equal(rt_yr_load(&ra, "old", old, strlen(old), err, sizeof err), 0);
	assert_int_equal(rt_yr_load(&rb, "new", new, strlen(new), err, sizeof err), 0);
	rt_mdiff d;
	assert_int_equal(rt_mdiff_compute(&ra, rt_yr_root(&ra), &rb, rt_yr_root(&rb), &d), 0);
	expect(&d, "blas.gemm_impl", NULL, "sgemm_kernel_16x4");
	expect(&d, "frameworks[0].name", NULL, "torch");
	expect(&d, "frameworks[0].version", NULL, "2.3.0");
	assert_int_equal(d.n, 3);
	rt_mdiff_free(&d);
	/* and the other way round: removed */
	assert_int_equal(rt_mdiff_compute(&rb, rt_yr_root(&rb), &ra, rt_yr_root(&ra), &d), 0);
	expect(&d, "blas.gemm_impl", "sgemm_kernel_16x4", NULL);
	assert_int_equal(d.n, 3);
	rt_mdiff_free(&d);
	rt_yr_free(&ra);
	rt_yr_free(&rb);
}


/*
 * A crafted baseline cannot make the diff huge or its walk quadratic: a
 * machine of 50,000 fields that all differ, and keyed sequences of 20,000
 * items, give at most RT_MDIFF_MAX_ENTRIES fields, marked truncated.
 */
static void test_bounded(void **state)
{
	(void)state;
	size_t cap = 4 << 20, la = 0, lb = 0;
	char *a = malloc(cap), *b = malloc(cap);
	assert_true(a && b);
	la += (size_t)snprintf(a + la, cap - la, "cpu: {model: X}\nwide:\n");
	lb += (size_t)snprintf(b + lb, cap - lb, "cpu: {model: X}\nwide:\n");
	for (int i = 0; i < 50000; i++) {
		la += (size_t)snprintf(a + la, cap - la, "  k%d: a\n", i);
		lb += (size_t)snprintf(b + lb, cap - lb, "  k%d: b\n", i);
	}
	la += (size_t)snprintf(a + la, cap - la, "devices:\n");
	lb += (size_t)snprintf(b + lb, cap - lb, "devices:\n");
	for (int i = 0; i < 20000; i++) {
		la += (size_t)snprintf(a + la, cap - la, "  - {index: %d, x: 1}\n", i);
		lb += (size_t)snprintf(b + lb, cap - lb, "  - {index: %d, x: 1}\n", 20000 - i);
	}
	rt_yr ra, rb;
	char err[RT_ERRLEN];
	assert_int_equal(rt_yr_load(&ra, "a", a, la, err, sizeof err), 0);
	assert_int_equal(rt_yr_load(&rb, "b", b, lb, err, sizeof err), 0);
	rt_mdiff d;
	double t0 = rt_now();
	assert_int_equal(rt_mdiff_compute(&ra, rt_yr_root(&ra), &rb, rt_yr_root(&rb), &d), 0);
	print_message("# bounded diff of 50,000 fields: %.3f s\n", rt_now() - t0);
	assert_int_equal(d.n, RT_MDIFF_MAX_ENTRIES);
	assert_true(d.truncated);
	expect(&d, "wide.k0", "a", "b");
	rt_mdiff_free(&d);
	/* the keyed sequences alone: compared up to the bound, marked truncated */
	assert_int_equal(rt_mdiff_compute(&ra, rt_yr_get(&ra, rt_yr_root(&ra), "devices"), &rb,
					  rt_yr_get(&rb, rt_yr_root(&rb), "devices"), &d),
			 0);
	assert_true(d.truncated);
	assert_true(d.n <= RT_MDIFF_MAX_ENTRIES);
	rt_mdiff_free(&d);
	rt_yr_free(&ra);
	rt_yr_free(&rb);
	free(a);
	free(b);
}

/* The live probe reads the microcode revision the kernel shows for the first CPU. */
static void test_live_microcode(void **state)
{
	(void)state;
	char want[64] = "", line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");
	while (f && !want[0] && fgets(line, sizeof line, f))
		if (!strncmp(line, "microcode", 9) && strchr(line, ':'))
			sscanf(strchr(line, ':') + 1, "%63s", want);
	if (f)
		fclose(f);
	if (!want[0])
		skip(); /* this kernel does not show it: nothing to compare */
	rt_machine m;
	char err[RT_ERRLEN];
	assert_int_equal(rt_machine_probe(NULL, &m, err, sizeof err), 0);
	assert_string_equal(m.microcode, want);
	rt_yr r;
	emit_and_load(&m, &r);
	assert_string_equal(rt_yr_scalar(rt_yr_at(&r, rt_yr_root(&r), "cpu.microcode")), want);
	rt_yr_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_machine_no_diff),
		cmocka_unit_test(test_upgrade_fields),
		cmocka_unit_test(test_hardware_and_accelerators),
		cmocka_unit_test(test_unknown_fields),
		cmocka_unit_test(test_live_microcode),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
