/*
 * naive.h: the naive default, the run a user starts from before tuning:
 * the CPU, fp32, every usable core as compute threads, no worker threads, no
 * pinning, the workload's default batch (or number of environments), on the
 * user's model shape. `rigtune tune` measures it once per workload
 * (journaled with role: naive, never ranked) and `rigtune report` sets its
 * phase split beside the recommended point's, so that what tuning changed is
 * visible.
 */
#ifndef RT_NAIVE_H
#define RT_NAIVE_H

#include "../workloads/workload.h"

/*
 * The naive point of w on a machine with usable_cores for the model shape
 * `model` (NULL: the workload's defaults): into pt and sh. The knee's key,
 * when it is a shape key (ppo's num_envs), goes back to its default.
 */
void rt_naive_point(const rt_workload *w, const rt_shape *model, int usable_cores, rt_point *pt,
                    rt_shape *sh);

#endif
