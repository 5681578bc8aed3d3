build-k2/tuner/yamlr.o: tuner/yamlr.c tuner/yamlr.h tuner/../common/rt.h \
 tuner/params.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/params.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
