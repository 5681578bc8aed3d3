build-k2/workloads/transformer.o: workloads/transformer.c \
 workloads/../common/rng.h workloads/synthetic_work.h \
 workloads/transformer.h workloads/workload.h workloads/backend.h \
 workloads/../common/rt.h workloads/registry.h
workloads/../common/rng.h:
workloads/synthetic_work.h:
workloads/transformer.h:
workloads/workload.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/registry.h:
