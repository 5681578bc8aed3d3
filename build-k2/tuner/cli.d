build-k2/tuner/cli.o: tuner/cli.c tuner/cli.h tuner/params.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h \
 tuner/../workloads/knobs.h tuner/../workloads/workload.h
tuner/cli.h:
tuner/params.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/../workloads/knobs.h:
tuner/../workloads/workload.h:
