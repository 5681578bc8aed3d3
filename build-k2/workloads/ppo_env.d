build-k2/workloads/ppo_env.o: workloads/ppo_env.c workloads/ppo_env.h \
 workloads/pool.h workloads/../common/rng.h workloads/../common/rt.h \
 workloads/synthetic_work.h
workloads/ppo_env.h:
workloads/pool.h:
workloads/../common/rng.h:
workloads/../common/rt.h:
workloads/synthetic_work.h:
