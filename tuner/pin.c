#include "pin.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "../common/platform.h"
#include "../common/rt.h"

/*
 * Adds up to n PUs of the cores inside `within`, in logical order: the first
 * PU of each core, then (second pass) the second PU of each, and so on.
 * Returns how many were added.
 */
static int add_compact(hwloc_topology_t t, hwloc_const_bitmap_t within, int n,
		       hwloc_bitmap_t out)
{
	int added = 0, ncores = hwloc_get_nbobjs_inside_cpuset_by_type(t, within, HWLOC_OBJ_CORE);
	for (int smt = 0; added < n; smt++) {
		int any = 0;
		for (int c = 0; c < ncores && added < n; c++) {
			hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(
				t, within, HWLOC_OBJ_CORE, (unsigned)c);
			hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(
				t, core->cpuset, HWLOC_OBJ_PU, (unsigned)smt);
			if (!pu || hwloc_bitmap_isset(out, pu->os_index))
				continue;
			hwloc_bitmap_set(out, pu->os_index);
			added++;
			any = 1;
		}
		if (!any)
			break;
	}
	return added;
}

static int pin_spread(hwloc_topology_t t, int n, hwloc_bitmap_t out)
{
	hwloc_bitmap_t sets[n];
	hwloc_obj_t root = hwloc_get_root_obj(t);
	/* hwloc_distrib splits the tree into n even parts, outer levels first. */
	if (hwloc_distrib(t, &root, 1, sets, (unsigned)n, INT_MAX, 0))
		return RT_ERUNTIME;
	for (int i = 0; i < n; i++) {
		hwloc_bitmap_singlify(sets[i]);
		hwloc_bitmap_or(out, out, sets[i]);
		hwloc_bitmap_free(sets[i]);
	}
	return RT_OK;
}

/*
 * Most powerful kind first (pcores), or least (ecores): hwloc lists kinds
 * from least to most powerful.
 */
static void pin_by_kind(hwloc_topology_t t, int n, int powerful_first, hwloc_bitmap_t out)
{
	int nk = hwloc_cpukinds_get_nr(t, 0);
	hwloc_bitmap_t kind = hwloc_bitmap_alloc();
	int added = 0;
	for (int i = 0; i < nk && added < n; i++) {
		int k = powerful_first ? nk - 1 - i : i;
		if (!hwloc_cpukinds_get_info(t, (unsigned)k, kind, NULL, NULL, NULL, 0))
			added += add_compact(t, kind, n - added, out);
	}
	hwloc_bitmap_free(kind);
	if (added < n) /* no cpukinds known: plain compact */
		add_compact(t, hwloc_topology_get_topology_cpuset(t), n - added, out);
}

int rt_pin_cpuset(hwloc_topology_t t, rt_pin policy, int n, hwloc_bitmap_t out)
{
	if (n < 1)
		return RT_EINVAL;
	hwloc_bitmap_zero(out);
	hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t);
	int npus = hwloc_bitmap_weight(all);
	if (n >= npus || policy == RT_PIN_NONE) {
		hwloc_bitmap_copy(out, all);
		return RT_OK;
	}
	switch (policy) {
	case RT_PIN_SPREAD:
		return pin_spread(t, n, out);
	case RT_PIN_PCORES:
	case RT_PIN_ECORES:
		pin_by_kind(t, n, policy == RT_PIN_PCORES, out);
		return RT_OK;
	default:
		add_compact(t, all, n, out);
		return RT_OK;
	}
}

int rt_pin_steer(rt_pin policy)
{
	switch (policy) {
	case RT_PIN_NONE:
		return RT_STEER_ANY;
	case RT_PIN_PCORES:
		return RT_STEER_PERFORMANCE;
	case RT_PIN_ECORES:
		return RT_STEER_EFFICIENCY;
	default:
		return -1;
	}
}

const char *rt_pin_steer_said(rt_pin policy)
{
	switch (policy) {
	case RT_PIN_NONE:
		return "placed by the system, on any core";
	case RT_PIN_PCORES:
		return "steered to the performance cores by QoS class (user-interactive)";
	case RT_PIN_ECORES:
		return "kept on the efficiency cores (the background band, as taskpolicy -b does)";
	default:
		return "cannot be had: this system binds no thread to a CPU";
	}
}

int rt_pin_cannot_bind(rt_pin policy, char *err, size_t errlen)
{
	return rt_fail(err, errlen, RT_EINVAL,
		       "this system binds no thread to a CPU: pin=%s cannot be had (pcores, "
		       "ecores and none steer by QoS class)",
		       rt_pin_name(policy));
}

/* Where nothing binds (macOS): the policy's QoS class for this process, or why not. */
static int steer_self(rt_pin policy, char *err, size_t errlen)
{
	int s = rt_pin_steer(policy);
	if (s < 0)
		return rt_pin_cannot_bind(policy, err, errlen);
	if (rt_plat_steer((rt_steer)s))
		return rt_fail(err, errlen, RT_ERUNTIME, "cannot steer to the %s: %s",
			       rt_pin_name(policy), strerror(errno));
	return RT_OK;
}

int rt_pin_self(rt_pin policy, int n, char *err, size_t errlen)
{
	if (!rt_plat_can_bind())
		return steer_self(policy, err, errlen);
	if (policy == RT_PIN_NONE)
		return RT_OK;
	hwloc_topology_t t;
	if (hwloc_topology_init(&t) || hwloc_topology_load(t))
		return rt_fail(err, errlen, RT_ERUNTIME, "hwloc cannot load the topology");
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int rc = set ? rt_pin_cpuset(t, policy, n, set) : RT_ENOMEM;
	if (rc == RT_OK && hwloc_set_cpubind(t, set, HWLOC_CPUBIND_PROCESS))
		rc = rt_fail(err, errlen, RT_ERUNTIME, "cannot bind to the %s PUs: %s",
			     rt_pin_name(policy), strerror(errno));
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(t);
	return rc;
}
