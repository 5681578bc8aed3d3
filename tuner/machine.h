/*
 * machine.h: what the machine is, as far as it changes a measurement.
 *
 * rt_machine_probe() reads the hwloc topology (the live machine, or an hwloc
 * XML export for tests and for planning another machine), the OS, the CPU
 * frequency governor, memory, the BLAS library and each backend's devices.
 * rt_machine_fingerprint() hashes exactly the fields that make two
 * measurements comparable (docs/commands/probe.md: "The fingerprint").
 */
#ifndef RT_MACHINE_H
#define RT_MACHINE_H

#include <stdint.h>

#include "yamlw.h"

#define RT_MAX_KINDS 8
#define RT_MAX_NUMA 64
#define RT_MAX_ACCEL 8
#define RT_MAX_DEVICES 16

typedef struct rt_cpukind {
	int efficiency;      /* hwloc's rank: higher is more powerful; -1 unknown */
	int cores, pus;
	char core_type[32];  /* hwloc's CoreType info, "" if not given */
	int freq_max_mhz;    /* 0 if not given */
} rt_cpukind;

typedef struct rt_accel_device {
	char name[128];
	char driver[64];
	uint64_t mem_total;
	int compute_units;
	unsigned precisions;
	char gemm_impl[160]; /* rt_device_info's: what its GEMMs run on */
	char monitor[16];    /* its utilization monitor, "" none */
	int unified_memory;  /* 1: it shares the host's memory (Apple's GPUs) */
} rt_accel_device;

typedef struct rt_accel {
	char backend[16];
	int available;
	char reason[256];    /* why not, when !available */
	char visible[48];    /* its table's visible_devices ("CUDA_VISIBLE_DEVICES"); "" none */
	char framework_device[16]; /* its table's framework_device ("cuda", "mps"); "" none */
	int ndevices;
	rt_accel_device dev[RT_MAX_DEVICES];
} rt_accel;

typedef struct rt_machine {
	char source[256];    /* "live" or the XML file */
	char hostname[64];
	char cpu_model[128];
	char arch[32];
	int packages, cores, pus, numa_nodes;
	uint64_t numa_mem[RT_MAX_NUMA];
	int nkinds;
	rt_cpukind kinds[RT_MAX_KINDS];
	uint64_t l1d, l2, l3; /* bytes, per instance; 0 if none */
	char os_name[64], os_release[64], kernel[64];
	char governor[32];    /* "" where not readable */
	char microcode[32];   /* /proc/cpuinfo's revision ("0x1000065"); "" where not given */
	int freq_min_mhz, freq_max_mhz;
	uint64_t mem_total, mem_available;
	char blas_library[32], blas_version[32], blas_core[32], blas_threading[16];
	char blas_file[256];  /* the library file it runs (links resolved); "" where not known */
	char blas_from[32];   /* where that came from (blas_origin.h: "Homebrew"); "" not known */
	unsigned blas_precisions; /* RT_PREC_BIT mask */
	int naccel;
	rt_accel accel[RT_MAX_ACCEL];
} rt_machine;

/*
 * Fills m. topology_xml NULL probes the live machine; otherwise the file must
 * be an hwloc XML export (RT_EINVAL with the file name and hwloc's complaint
 * if it is missing or malformed) and live-only fields (governor, available
 * memory, accelerators) are left empty.
 */
int rt_machine_probe(const char *topology_xml, rt_machine *m, char *err, size_t errlen);

/* Usable cores for compute: cores of the most powerful kind on hybrid chips is
   rt_machine_pcores(); all physical cores otherwise. */
int rt_machine_pcores(const rt_machine *m);

/* 16 hex digits. */
void rt_machine_fingerprint(const rt_machine *m, char out[17]);

/* Emits the machine as a YAML mapping (the value of a `machine:` key). */
void rt_machine_emit(rt_yw *w, const rt_machine *m);

#endif
