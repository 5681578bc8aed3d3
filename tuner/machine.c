#include "machine.h"

#include <dlfcn.h>
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../common/platform.h"
#include "../common/rt.h"
#include "../workloads/backend.h"
#include "../workloads/blas.h"
#include "blas_kernels.h"
#include "blas_origin.h"

/* Copies src (NULL: empty) into dst, truncating to fit. */
static void copy_str(char *dst, size_t n, const char *src)
{
	size_t len = src ? strnlen(src, n - 1) : 0;
	if (len)
		memcpy(dst, src, len);
	dst[len] = '\0';
}

/* The live-only fields: OS, governor, microcode, frequencies, memory. */
static void probe_live(rt_machine *m)
{
	struct utsname u;
	if (uname(&u) == 0) {
		copy_str(m->kernel, sizeof m->kernel, u.release);
		copy_str(m->arch, sizeof m->arch, u.machine);
	}
	rt_plat_os_name(m->os_name, sizeof m->os_name);
	rt_plat_cpu_freq(m->governor, sizeof m->governor, &m->freq_min_mhz, &m->freq_max_mhz);
	rt_plat_cpu_microcode(m->microcode, sizeof m->microcode);
	char flags[8192];
	rt_plat_cpu_flags(flags, sizeof flags);
	copy_str(m->vector_isa, sizeof m->vector_isa, rt_cpu_vector_isa(flags));
	uint64_t total, avail;
	if (rt_plat_memory(&total, &avail) == 0) {
		m->mem_total = total;
		m->mem_available = avail;
	}
}

static uint64_t cache_size(hwloc_topology_t t, hwloc_obj_type_t type)
{
	hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);
	return o ? o->attr->cache.size : 0;
}

static void probe_kinds(hwloc_topology_t t, rt_machine *m)
{
	int nr = hwloc_cpukinds_get_nr(t, 0);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!set)
		return;
	for (int i = 0; i < nr && m->nkinds < RT_MAX_KINDS; i++) {
		int eff;
		unsigned ninfos;
		struct hwloc_info_s *infos;
		if (hwloc_cpukinds_get_info(t, (unsigned)i, set, &eff, &ninfos, &infos, 0))
			continue;
		rt_cpukind *k = &m->kinds[m->nkinds++];
		k->efficiency = eff;
		k->cores = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE);
		k->pus = hwloc_bitmap_weight(set);
		for (unsigned j = 0; j < ninfos; j++) {
			if (!strcmp(infos[j].name, "CoreType"))
				copy_str(k->core_type, sizeof k->core_type, infos[j].value);
			else if (!strcmp(infos[j].name, "FrequencyMaxMHz"))
				k->freq_max_mhz = atoi(infos[j].value);
		}
	}
	hwloc_bitmap_free(set);
}

/*
 * An hwloc older than 2.6, or one that does not read Apple's perflevels,
 * lists no kinds: the system's own count (hw.perflevelN), E-cores first as
 * hwloc orders them. One PU a core: no Apple core runs two threads.
 */
static void kinds_from_system(rt_machine *m)
{
	int perf, eff;
	if (rt_plat_core_kinds(&perf, &eff) || perf <= 0 || eff <= 0)
		return;
	m->kinds[0] = (rt_cpukind){.efficiency = 0, .cores = eff, .pus = eff};
	m->kinds[1] = (rt_cpukind){.efficiency = 1, .cores = perf, .pus = perf};
	copy_str(m->kinds[0].core_type, sizeof m->kinds[0].core_type, "Efficiency");
	copy_str(m->kinds[1].core_type, sizeof m->kinds[1].core_type, "Performance");
	m->nkinds = 2;
}

static void probe_topology(hwloc_topology_t t, rt_machine *m)
{
	hwloc_obj_t root = hwloc_get_root_obj(t);
	m->packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	m->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	m->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	m->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
	for (int i = 0; i < m->numa_nodes && i < RT_MAX_NUMA; i++) {
		hwloc_obj_t n = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
		m->numa_mem[i] = n->attr->numanode.local_memory;
	}
	m->l1d = cache_size(t, HWLOC_OBJ_L1CACHE);
	m->l2 = cache_size(t, HWLOC_OBJ_L2CACHE);
	m->l3 = cache_size(t, HWLOC_OBJ_L3CACHE);
	probe_kinds(t, m);

	hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
	copy_str(m->cpu_model, sizeof m->cpu_model,
		 pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL);
	copy_str(m->hostname, sizeof m->hostname, hwloc_obj_get_info_by_name(root, "HostName"));
	copy_str(m->os_name, sizeof m->os_name, hwloc_obj_get_info_by_name(root, "OSName"));
	copy_str(m->kernel, sizeof m->kernel, hwloc_obj_get_info_by_name(root, "OSRelease"));
	copy_str(m->arch, sizeof m->arch, hwloc_obj_get_info_by_name(root, "Architecture"));
	m->mem_total = 0;
	for (int i = 0; i < m->numa_nodes && i < RT_MAX_NUMA; i++)
		m->mem_total += m->numa_mem[i];
}

/*
 * The file of the library that runs this binary's GEMMs (the one its
 * cblas_sgemm comes from), links resolved where it is on disk (not in
 * macOS's shared cache); "" where the loader does not say.
 */
static void blas_file(char *buf, size_t len)
{
	Dl_info info;
	char real[PATH_MAX];
	void *sgemm = dlsym(RTLD_DEFAULT, "cblas_sgemm");
	const char *file = sgemm && dladdr(sgemm, &info) ? info.dli_fname : NULL;
	copy_str(buf, len, file && realpath(file, real) ? real : file);
}

/*
 * The BLAS this binary runs: its file and where that came from
 * (blas_origin.h), and OpenBLAS's own description of itself. The binary
 * links OpenBLAS: a file whose path says nothing is OpenBLAS too.
 */
static void probe_blas(rt_machine *m)
{
	blas_file(m->blas_file, sizeof m->blas_file);
	rt_blas_origin o = rt_blas_origin_of(m->blas_file);
	copy_str(m->blas_library, sizeof m->blas_library, o.library ? o.library : "OpenBLAS");
	copy_str(m->blas_from, sizeof m->blas_from, o.from);
	m->blas_precisions = RT_PREC_BIT(RT_FP64) | RT_PREC_BIT(RT_FP32);
	const char *config, *core;
	int p;
	if (strcmp(m->blas_library, "OpenBLAS") || rt_blas_openblas(&config, &core, &p)) {
		/* Accelerate runs a pool of its own (VECLIB_MAXIMUM_THREADS) */
		copy_str(m->blas_threading, sizeof m->blas_threading, "pthreads");
		return;
	}
	if (config && !strncmp(config, "OpenBLAS ", 9))
		sscanf(config + 9, "%31s", m->blas_version);
	copy_str(m->blas_core, sizeof m->blas_core, core);
	static const char *const layers[] = {"sequential", "pthreads", "openmp"};
	copy_str(m->blas_threading, sizeof m->blas_threading,
		 p >= 0 && p < 3 ? layers[p] : "unknown");
	if (dlsym(RTLD_DEFAULT, "cblas_sbgemm"))
		m->blas_precisions |= RT_PREC_BIT(RT_BF16);
}

int rt_machine_probe(const char *topology_xml, rt_machine *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	hwloc_topology_t t;
	if (hwloc_topology_init(&t))
		return rt_fail(err, errlen, RT_ERUNTIME, "hwloc_topology_init failed");
	if (topology_xml) {
		if (access(topology_xml, R_OK)) {
			int rc = rt_fail(err, errlen, RT_EINVAL, "%s: %s", topology_xml,
					 strerror(errno));
			hwloc_topology_destroy(t);
			return rc;
		}
		if (hwloc_topology_set_xml(t, topology_xml)) {
			hwloc_topology_destroy(t);
			return rt_fail(err, errlen, RT_EINVAL,
				       "%s: not an hwloc XML topology (%s)", topology_xml,
				       strerror(errno));
		}
	}
	if (hwloc_topology_load(t)) {
		int rc = rt_fail(err, errlen, topology_xml ? RT_EINVAL : RT_ERUNTIME,
				 "%s: hwloc cannot load the topology (%s)",
				 topology_xml ? topology_xml : "live machine", strerror(errno));
		hwloc_topology_destroy(t);
		return rc;
	}
	probe_topology(t, m);
	hwloc_topology_destroy(t);
	copy_str(m->source, sizeof m->source, topology_xml ? topology_xml : "live");
	if (!topology_xml) {
		if (m->nkinds == 0)
			kinds_from_system(m);
		probe_live(m);
		if (!m->hostname[0])
			gethostname(m->hostname, sizeof m->hostname - 1);
	}
	probe_blas(m);
	return RT_OK;
}

int rt_machine_pcores(const rt_machine *m)
{
	if (m->nkinds < 2)
		return m->cores;
	/* hwloc lists kinds from least to most powerful. */
	return m->kinds[m->nkinds - 1].cores;
}

const rt_accel *rt_machine_accel(const rt_machine *m, const char *backend)
{
	for (int i = 0; i < m->naccel; i++)
		if (!strcmp(m->accel[i].backend, backend))
			return &m->accel[i];
	return NULL;
}

void rt_machine_fingerprint(const rt_machine *m, char out[17])
{
	char buf[4096];
	size_t n = 0;
#define ADD(...) n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, __VA_ARGS__)
	ADD("cpu=%s;arch=%s;packages=%d;cores=%d;pus=%d;numa=%d;", m->cpu_model, m->arch,
	    m->packages, m->cores, m->pus, m->numa_nodes);
	for (int i = 0; i < m->nkinds; i++)
		ADD("kind=%d:%d;", m->kinds[i].efficiency, m->kinds[i].cores);
	ADD("mem_gib=%llu;kernel=%s;governor=%s;", (unsigned long long)(m->mem_total >> 30),
	    m->kernel, m->governor);
	ADD("blas=%s %s %s %s;", m->blas_library, m->blas_version, m->blas_core,
	    m->blas_threading);
	for (int i = 0; i < m->naccel; i++)
		for (int d = 0; d < m->accel[i].ndevices; d++) {
			ADD("dev=%s:%s:%s;", m->accel[i].backend, m->accel[i].dev[d].name,
			    m->accel[i].dev[d].driver);
			/* a GPU's GEMM library (rocBLAS or the own kernel); the CPU's is blas= */
			if (!rt_backend_on_host(m->accel[i].backend))
				ADD("gemm=%s;", m->accel[i].dev[d].gemm_impl);
		}
#undef ADD
	snprintf(out, 17, "%016llx", (unsigned long long)rt_fnv1a(buf, strlen(buf)));
}
