/*
 * pin.h: which processing units a trial's threads may run on.
 *
 * The harness binds the whole trial process (so OpenBLAS's pool, the
 * backend's kernel threads and the workload's workers all inherit it) to the
 * PUs that the point's pin policy picks for threads + workers threads:
 *   compact  cores in hwloc's logical order, one PU each (neighbours share
 *            caches); SMT siblings only once every core has one thread
 *   spread   hwloc_distrib over the whole machine: across packages and NUMA
 *            nodes first
 *   pcores   cores of the most powerful CPU kind first (P-cores on hybrid
 *            chips), in compact order; E-cores only when P-cores run out
 *   ecores   the least powerful kind first (E-cores), then the others
 *   none     no binding
 *
 * Where the system binds no thread to a CPU (macOS: platform.h
 * rt_plat_can_bind), pcores, ecores and none steer by QoS class instead
 * (rt_plat_steer: P-cores, E-cores, any), and compact and spread cannot be
 * had.
 */
#ifndef RT_PIN_H
#define RT_PIN_H

#include <hwloc.h>

#include "../workloads/workload.h"

/*
 * Fills out with the PUs for n threads under policy on topology t. For n
 * beyond the PU count every PU is used. Returns 0, or RT_EINVAL for n < 1.
 */
int rt_pin_cpuset(hwloc_topology_t t, rt_pin policy, int n, hwloc_bitmap_t out);

/*
 * Binds the calling process on the live machine, or steers it where nothing
 * binds; RT_ERUNTIME with the reason, RT_EINVAL for a policy that can be
 * neither.
 */
int rt_pin_self(rt_pin policy, int n, char *err, size_t errlen);

/* The rt_steer (platform.h) standing for policy where nothing binds; -1: none (compact, spread). */
int rt_pin_steer(rt_pin policy);

/* What policy does where nothing binds, for a recommendation ("steered to the performance ..."). */
const char *rt_pin_steer_said(rt_pin policy);

/* RT_EINVAL "this system binds no thread to a CPU: pin=POLICY cannot be had ..." into err. */
int rt_pin_cannot_bind(rt_pin policy, char *err, size_t errlen);

#endif
