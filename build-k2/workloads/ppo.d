build-k2/workloads/ppo.o: workloads/ppo.c workloads/ppo.h \
 workloads/ppo_env.h workloads/pool.h workloads/workload.h \
 workloads/backend.h workloads/../common/rt.h workloads/registry.h \
 workloads/../common/rng.h
workloads/ppo.h:
workloads/ppo_env.h:
workloads/pool.h:
workloads/workload.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/registry.h:
workloads/../common/rng.h:
