build-k2/workloads/knobs.o: workloads/knobs.c workloads/knobs.h \
 workloads/workload.h workloads/backend.h workloads/../common/rt.h \
 workloads/registry.h
workloads/knobs.h:
workloads/workload.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/registry.h:
