/*
 * devmon_ioreport.h: IOReport's samples as plain C, and the GPU's busy
 * share computed from them (devmon_ioreport.c). On a Mac the monitor turns
 * each delta sample of IOReport into these structs; the arithmetic is here,
 * apart from the Darwin calls, so that tests on Linux check it against
 * samples in tests/data/ioreport/.
 *
 * A delta sample holds channels; a state channel (as "GPUPH" of group
 * "GPU Stats", subgroup "GPU Performance States") holds the residency of
 * each of its states over the delta: "OFF", "IDLE" or "DOWN" when the GPU
 * did nothing, a performance state ("P1".."P15") when it ran.
 */
#ifndef RT_DEVMON_IOREPORT_H
#define RT_DEVMON_IOREPORT_H

#include <stddef.h>

#define RT_IOR_MAX_STATES 32
#define RT_IOR_NAME 64

typedef struct rt_ior_state {
	char name[RT_IOR_NAME];
	long long residency; /* the delta's time in the state, in IOReport's units */
} rt_ior_state;

typedef struct rt_ior_channel {
	char group[RT_IOR_NAME], subgroup[RT_IOR_NAME], name[RT_IOR_NAME];
	int nstates;
	rt_ior_state state[RT_IOR_MAX_STATES];
} rt_ior_channel;

/* The group and subgroup the GPU's performance states are in, and the channel. */
#define RT_IOR_GPU_GROUP "GPU Stats"
#define RT_IOR_GPU_SUBGROUP "GPU Performance States"
#define RT_IOR_GPU_CHANNEL "GPUPH"

/* Whether a state is one the GPU works in (not "OFF", "IDLE" or "DOWN"). */
int rt_ioreport_state_active(const char *name);

/*
 * The GPU's busy share over a delta sample's n channels: the residency of
 * GPUPH's active states over all of its residency. RT_OK; RT_EUNAVAIL with
 * why when there is no GPUPH channel, a negative residency, or none at all
 * (a delta too short to have any).
 */
int rt_ioreport_gpu_busy(const rt_ior_channel *ch, int n, double *busy, char *why, size_t len);

#endif
