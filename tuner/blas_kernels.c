/*
 * blas_kernels.c: OpenBLAS's x86 kernel sets by the vector instructions
 * they use, against the CPU's widest (blas_kernels.h).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../common/rt.h"
#include "blas_kernels.h"

enum { ISA_SSE, ISA_AVX, ISA_AVX2, ISA_AVX512, ISA_AVX512_BF16 };

/* OpenBLAS's x86 kernel sets (openblas_get_corename), by what they use. */
static const struct {
	const char *core;
	int isa;
} cores[] = {
	{"Katmai", ISA_SSE},        {"Coppermine", ISA_SSE},     {"Northwood", ISA_SSE},
	{"Prescott", ISA_SSE},      {"Banias", ISA_SSE},         {"Core2", ISA_SSE},
	{"Penryn", ISA_SSE},        {"Dunnington", ISA_SSE},     {"Nehalem", ISA_SSE},
	{"Atom", ISA_SSE},          {"Athlon", ISA_SSE},         {"Opteron", ISA_SSE},
	{"Opteron(SSE3)", ISA_SSE}, {"Barcelona", ISA_SSE},      {"Nano", ISA_SSE},
	{"Bobcat", ISA_SSE},        {"Sandybridge", ISA_AVX},    {"Bulldozer", ISA_AVX},
	{"Piledriver", ISA_AVX},    {"Steamroller", ISA_AVX},    {"Haswell", ISA_AVX2},
	{"Zen", ISA_AVX2},          {"Excavator", ISA_AVX2},     {"SkylakeX", ISA_AVX512},
	{"Cooperlake", ISA_AVX512_BF16}, {"SapphireRapids", ISA_AVX512_BF16},
};

/* The CPU's widest, as /proc/cpuinfo flags them, and the kernels OpenBLAS has for it. */
static const struct {
	const char *flag, *name, *core;
} isas[] = {
	[ISA_SSE] = {"sse3", "sse", "Prescott"},
	[ISA_AVX] = {"avx", "avx", "Sandybridge"},
	[ISA_AVX2] = {"avx2", "avx2", "Haswell"},
	[ISA_AVX512] = {"avx512f", "avx512", "SkylakeX"},
	[ISA_AVX512_BF16] = {"avx512_bf16", "avx512_bf16", "Cooperlake"},
};

const char *rt_cpu_vector_isa(const char *cpuinfo_flags)
{
	for (int i = (int)RT_COUNT(isas) - 1; i >= 0; i--)
		if (rt_list_has(cpuinfo_flags, " \t\n", isas[i].flag))
			return isas[i].name;
	return "";
}

static int isa_named(const char *name)
{
	for (size_t i = 0; i < RT_COUNT(isas); i++)
		if (name && !strcmp(name, isas[i].name))
			return (int)i;
	return -1;
}

static int core_isa(const char *core)
{
	for (size_t i = 0; i < RT_COUNT(cores); i++)
		if (core && !strcasecmp(core, cores[i].core))
			return cores[i].isa;
	return -1;
}

int rt_blas_kernels_wider(const char *core, const char *isa, const char **out, int max)
{
	int ran = core_isa(core), has = isa_named(isa), n = 0;
	if (ran < 0 || has < 0)
		return 0;
	for (int i = ran + 1; i <= has && n < max; i++)
		out[n++] = isas[i].core;
	return n;
}

void rt_blas_kernels_note(const char *core, const char *isa, char *buf, size_t len)
{
	int ran = core_isa(core), has = isa_named(isa);
	if (len)
		buf[0] = '\0';
	/* bf16 changes OpenBLAS's sbgemm alone: SkylakeX's fp32 kernels are Cooperlake's */
	if (ran < 0 || has < 0 || ran >= (has < ISA_AVX512 ? has : ISA_AVX512))
		return;
	snprintf(buf, len,
		 "OpenBLAS runs its %s kernels (%s) on a CPU with %s (a model it did not know, or "
		 "OPENBLAS_CORETYPE's choice); OPENBLAS_CORETYPE=%s selects its kernels (check --a "
		 "current --b env:OPENBLAS_CORETYPE=%s measures it)",
		 core, isas[ran].name, isas[has].name, isas[has].core, isas[has].core);
}
