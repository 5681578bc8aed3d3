/*
 * registry.h: the workloads, one line each, in the order `tune` runs them
 * and help lists them. RT_WORKLOAD(NAME) stands for the table entry
 * rt_workload_NAME (its source file) and the default search space
 * configs/space-NAME.yaml (embedded by tuner/spaces.c). Included by
 * workloads/workload.c, workloads/workload.h and tuner/spaces.c with
 * RT_WORKLOAD defined; no include guard on purpose.
 */
RT_WORKLOAD(gemm)
RT_WORKLOAD(transformer)
RT_WORKLOAD(ppo)
