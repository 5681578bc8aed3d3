build-k2/tuner/hints.o: tuner/hints.c tuner/hints.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h \
 tuner/frameworks.h tuner/yamlr.h tuner/../common/rt.h tuner/yamlw.h
tuner/hints.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/frameworks.h:
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/yamlw.h:
