build-k2/tuner/progress.o: tuner/progress.c tuner/progress.h \
 tuner/../common/rt.h tuner/cli.h tuner/params.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h
tuner/progress.h:
tuner/../common/rt.h:
tuner/cli.h:
tuner/params.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
