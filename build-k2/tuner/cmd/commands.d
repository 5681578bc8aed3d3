build-k2/tuner/cmd/commands.o: tuner/cmd/commands.c tuner/cmd/commands.h \
 tuner/cmd/../../common/rt.h tuner/cmd/../cli.h tuner/cmd/../params.h \
 tuner/cmd/../../workloads/workload.h tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
