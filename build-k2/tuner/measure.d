build-k2/tuner/measure.o: tuner/measure.c tuner/measure.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h \
 tuner/../search/stats.h tuner/backends.h tuner/../workloads/backend.h \
 tuner/machine.h tuner/yamlw.h tuner/child.h tuner/contention.h \
 tuner/pin.h
tuner/measure.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/../search/stats.h:
tuner/backends.h:
tuner/../workloads/backend.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/child.h:
tuner/contention.h:
tuner/pin.h:
