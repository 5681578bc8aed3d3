build-k2/workloads/names.o: workloads/names.c workloads/workload.h \
 workloads/backend.h workloads/../common/rt.h workloads/registry.h
workloads/workload.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/registry.h:
