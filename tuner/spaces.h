/* spaces.h: a workload's search space, from the embedded defaults or a --space file. */
#ifndef RT_SPACES_H
#define RT_SPACES_H

#include "../search/space.h"
#include "../workloads/workload.h"

/*
 * The space for workload w: space_file when given (its `workload:` must
 * match when present), else the default. Errors name the file, line and
 * column.
 */
int rt_space_for(const rt_workload *w, const char *space_file, long usable_cores,
		 rt_space **out, char *err, size_t errlen);

/*
 * A default space fitted to a system that binds no thread to a CPU
 * (can_bind 0: macOS): its pin values become those that steer by QoS
 * class: pcores, ecores and none on a chip of two core kinds (hybrid),
 * none alone elsewhere. Where threads bind, s is left as it is. rt_space_for
 * does this with the live machine's facts. 0, or RT_ENOMEM.
 */
int rt_space_steer_pins(rt_space *s, int can_bind, int hybrid, char *err, size_t errlen);

#endif
