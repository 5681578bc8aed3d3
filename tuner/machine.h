/*
 * machine.h: what the machine is, as far as it changes a measurement.
 *
 * rt_machine_probe() reads the hwloc topology (the live machine, or an hwloc
 * XML export for tests and for planning another machine), the OS, the CPU
 * frequency governor, memory, the BLAS library and each backend's devices.
 * rt_machine_fingerprint() hashes exactly the fields that make two
 * measurements comparable (docs/commands/probe.md: "The fingerprint").
 *
 * The machine as a document (the `machine:` section of probe's output, of a
 * configuration and of a journal's header) is one table of its fields,
 * rt_machine_fields (machine_doc.c): the writer (rt_machine_emit), the
 * reader (rt_machine_read) and check's diff (check/machdiff.h) all walk it.
 */
#ifndef RT_MACHINE_H
#define RT_MACHINE_H

#include <stdint.h>

#include "../workloads/backend.h"
#include "yamlr.h"
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

typedef struct rt_accel {
	char backend[16];
	int available;
	char reason[256];    /* why not, when !available */
	char visible[48];    /* its table's visible_devices ("CUDA_VISIBLE_DEVICES"); "" none */
	char framework_device[16]; /* its table's framework_device ("cuda", "mps"); "" none */
	int ndevices;
	rt_device_info dev[RT_MAX_DEVICES]; /* as its plugin's device_info gave them */
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
	char vector_isa[16];  /* the widest x86 vector instructions (blas_kernels.h); "" other */
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

/* The accelerator entry of backend ("cuda"), or NULL when m has none. */
const rt_accel *rt_machine_accel(const rt_machine *m, const char *backend);

/* 16 hex digits. */
void rt_machine_fingerprint(const rt_machine *m, char out[17]);

/* ---- the machine as a document (machine_doc.c) ---- */

/* How a field's value is kept in its struct, and so written and read. */
typedef enum rt_mf_kind {
	RT_MF_STR,   /* char[size]: its text */
	RT_MF_INT,   /* int */
	RT_MF_GIB,   /* uint64_t bytes, written in GiB to 4 significant digits */
	RT_MF_KIB,   /* uint64_t bytes, written in whole KiB */
	RT_MF_BOOL,  /* int: true or false */
	RT_MF_PRECS, /* unsigned RT_PREC_BIT mask: a sequence [fp64, fp32] */
	RT_MF_MAP,   /* a mapping of more fields (sub) of the same struct */
	RT_MF_SEQ,   /* a sequence of structs, each an item of sub's fields */
} rt_mf_kind;

enum {
	RT_MF_IF_SET = 1 << 0,   /* written only when it has a value (not "", not 0) */
	RT_MF_FLOW = 1 << 1,     /* a MAP, or a SEQ's items, in flow style ({a: 1}) */
	RT_MF_KEY = 1 << 2,      /* the field that names an item of its SEQ in a diff */
	RT_MF_HARDWARE = 1 << 3, /* a change says the hardware is another */
	RT_MF_NODIFF = 1 << 4,   /* not compared: of the moment, or derived from fields that are */
	RT_MF_NEAR = 1 << 5,     /* a memory size: within 5% is the same */
	RT_MF_STATE = 1 << 6,    /* the moment's state (free memory): shown apart in a diff,
				    never a change of the machine (machdiff.h) */
};

/* Where a field is: the machine, the struct it is in and, in a SEQ, the item's place. */
typedef struct rt_mctx {
	const rt_machine *m;
	const void *obj;
	int index, count; /* 0 and 1 outside a sequence */
} rt_mctx;

typedef struct rt_mfield rt_mfield;
struct rt_mfield {
	const char *key;  /* NULL ends a table */
	rt_mf_kind kind;
	unsigned flags;
	size_t off, size; /* the value in its struct (a SEQ's array); size: a STR's buffer */
	/* Whether it is written (NULL: always, or when set with RT_MF_IF_SET). */
	int (*shown)(const rt_mctx *c);
	/* A value derived from other fields, as text; the reader does not set it in the machine. */
	void (*derive)(const rt_mctx *c, char *buf, size_t len);
	/* A derived value the reader keeps as the document says it: its place in an
	   rt_machine_said (said_size 0: none); a SEQ's item i keeps it i * said_size further. */
	size_t said_off, said_size;
	const char *empty;     /* STR: the text written for "" ("unknown"); NULL: "" */
	const rt_mfield *sub;  /* MAP: its fields; SEQ: an item's */
	size_t count_off;      /* SEQ: the int that counts its items */
	size_t item_size;      /* SEQ: one item */
	int max;               /* SEQ: the array's length */
};

/* The machine's fields in the order they are written. */
extern const rt_mfield rt_machine_fields[];

#define RT_MF_TEXT_LEN 256

/*
 * Whether field f of c is written, and its text in buf (len >= RT_MF_TEXT_LEN):
 * a scalar's as written, a PRECS's as "[fp64, fp32]", a MAP's "" and a SEQ's
 * "[]". Returns 0 (buf "") where it is not written.
 */
int rt_mfield_text(const rt_mfield *f, const rt_mctx *c, char *buf, size_t len);
/* A SEQ's items in c (at most its max), and item i's context. */
int rt_mfield_count(const rt_mfield *f, const rt_mctx *c);
rt_mctx rt_mfield_item(const rt_mfield *f, const rt_mctx *c, int i);

/* Emits the machine as a YAML mapping (the value of a `machine:` key). */
void rt_machine_emit(rt_yw *w, const rt_machine *m);

/*
 * What a document says of the values derived from its other fields, as it
 * says them: a reader shows these (an older rigtune's words included), not
 * what this one would derive from the fields (rt_machine_pcores, ...). ""
 * or 0 where the document has none.
 */
typedef struct rt_machine_said {
	int usable_cores;                /* cpu.usable_cores */
	char role[RT_MAX_KINDS][16];     /* cpu.kinds[i].role: "performance" */
	char bf16[256];                  /* blas.bf16: why the BLAS has no bf16 GEMM */
	char core_note[RT_MF_TEXT_LEN];  /* blas.core_note: its kernels narrower than the CPU's */
} rt_machine_said;

/*
 * The machine mapping map (as rt_machine_emit wrote it, in a configuration
 * or a journal's header) into m, and into said (NULL: not wanted) the
 * derived values it says. A field that is absent is empty or 0; a key that
 * is not in the table is left alone (a later rigtune may add some), and so
 * is a precision it does not know. RT_EINVAL
 * "NAME:LINE:COLUMN: machine: cores: expected a whole number" for a value
 * of another type.
 */
int rt_machine_read(const rt_yr *r, const rt_ynode *map, rt_machine *m, rt_machine_said *said);

/*
 * A size the reader kept in bytes, in GiB as the document says it: 62.6
 * for `memory_gib: 62.6`, not the 62.5999999996 of its byte count (exact
 * to 6 significant digits; rt_machine_emit writes 4).
 */
double rt_machine_gib(uint64_t bytes);

/* A mask of RT_PREC_BIT as its names in order, joined by sep ("fp64, fp32"). */
void rt_machine_precisions_text(unsigned mask, const char *sep, char *buf, size_t len);

#endif
