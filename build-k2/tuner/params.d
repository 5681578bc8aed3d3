build-k2/tuner/params.o: tuner/params.c tuner/params.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h \
 tuner/../workloads/knobs.h tuner/../workloads/workload.h \
 tuner/../workloads/loader.h
tuner/params.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/../workloads/knobs.h:
tuner/../workloads/workload.h:
tuner/../workloads/loader.h:
