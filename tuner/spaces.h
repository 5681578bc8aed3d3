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

#endif
