build-k2/workloads/gemm.o: workloads/gemm.c workloads/../common/rng.h \
 workloads/workload.h workloads/backend.h workloads/../common/rt.h \
 workloads/registry.h
workloads/../common/rng.h:
workloads/workload.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/registry.h:
