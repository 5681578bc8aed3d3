build-k2/workloads/workload.o: workloads/workload.c workloads/workload.h \
 workloads/backend.h workloads/../common/rt.h workloads/registry.h
workloads/workload.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/registry.h:
