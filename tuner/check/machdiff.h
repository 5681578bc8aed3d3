/*
 * machdiff.h: what changed between two machines (the baseline's, read from
 * the `machine:` mapping that its configuration or journal header keeps,
 * and this one's as probed), for `rigtune check`.
 *
 * The diff walks the machine's field table (machine.h: rt_machine_fields),
 * so a field added there is diffed without code here. It reports every
 * field whose text (as the document writes it) differs, or that one side
 * writes and the other does not. Mappings are walked field by field; the
 * items of a sequence are matched by their key field (accelerators by
 * backend, devices by index, NUMA nodes by node, CPU kinds by efficiency
 * rank); precisions are one value ("[fp64, fp32]"). Paths read
 * "blas.core", "cpu.numa_nodes[0].memory_gib",
 * "accelerators[cuda].devices[0].driver". Fields flagged RT_MF_NODIFF are
 * left out: the source, or derived from fields that are diffed (the
 * fingerprint, smt, usable_cores, a kind's role, the bf16 note). Fields
 * flagged RT_MF_STATE (available memory, a NUMA node's memory as hwloc
 * reads it) are the moment's state, not the machine: those that differ
 * go to the diff's state list, shown apart and never counted as a change
 * (memory_gib.total describes the machine). Memory sizes (RT_MF_NEAR) within 5% of each
 * other are the same: what a machine reports moves with the kernel's
 * reservations and, in a VM, its balloon. The diff stops at
 * RT_MDIFF_MAX_ENTRIES fields (truncated set); a sequence holds at most its
 * array's items (RT_MAX_NUMA, RT_MAX_DEVICES...).
 */
#ifndef RT_MACHDIFF_H
#define RT_MACHDIFF_H

#include "../machine.h"

typedef struct rt_mdiff_entry {
	char *field;  /* dotted path */
	char *before; /* NULL: the field is new */
	char *after;  /* NULL: the field is gone */
	int hardware; /* its field is RT_MF_HARDWARE */
} rt_mdiff_entry;

/*
 * The most fields a diff lists: a machine description has a few dozen
 * fields; a crafted baseline (64 NUMA nodes, 8 backends of 16 devices)
 * must not turn into thousands of lines.
 */
#define RT_MDIFF_MAX_ENTRIES 200

typedef struct rt_mdiff {
	rt_mdiff_entry *v; /* the changes */
	size_t n, cap;
	rt_mdiff_entry *state; /* RT_MF_STATE fields that differ: the moment's, not changes */
	size_t nstate, state_cap;
	int truncated; /* the walk stopped at a bound: more may differ than is listed */
} rt_mdiff;

/*
 * The fields that differ from machine a to machine b: in each mapping those
 * a writes, in the table's order, then those only b writes; in each
 * sequence a's items, then those only b has. d starts empty and is freed
 * with rt_mdiff_free, also on failure (RT_ENOMEM).
 */
int rt_mdiff_compute(const rt_machine *a, const rt_machine *b, rt_mdiff *d);
void rt_mdiff_free(rt_mdiff *d); /* accepts an empty or half-filled diff */

/* The entry for field, NULL when it did not change. */
const rt_mdiff_entry *rt_mdiff_find(const rt_mdiff *d, const char *field);

/*
 * Whether the entry says the hardware is another: a field flagged
 * RT_MF_HARDWARE (the CPU model, the architecture, the count of packages,
 * cores or PUs).
 */
int rt_mdiff_is_hardware(const rt_mdiff_entry *e);

#endif
