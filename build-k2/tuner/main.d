build-k2/tuner/main.o: tuner/main.c tuner/../workloads/cpu_backend.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/pool.h tuner/cmd/commands.h \
 tuner/cmd/../../common/rt.h tuner/cmd/../cli.h tuner/cmd/../params.h \
 tuner/cmd/../../workloads/workload.h tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/registry.h
tuner/../workloads/cpu_backend.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/pool.h:
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/registry.h:
