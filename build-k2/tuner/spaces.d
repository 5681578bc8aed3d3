build-k2/tuner/spaces.o: tuner/spaces.c tuner/spaces.h \
 tuner/../search/space.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/../common/rt.h tuner/spacefile.h \
 tuner/../workloads/registry.h
tuner/spaces.h:
tuner/../search/space.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/../common/rt.h:
tuner/spacefile.h:
tuner/../workloads/registry.h:
