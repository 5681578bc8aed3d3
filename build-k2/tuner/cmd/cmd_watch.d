build-k2/tuner/cmd/cmd_watch.o: tuner/cmd/cmd_watch.c \
 tuner/cmd/commands.h tuner/cmd/../../common/rt.h tuner/cmd/../cli.h \
 tuner/cmd/../params.h tuner/cmd/../../workloads/workload.h \
 tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../output.h \
 tuner/cmd/../watch/watch.h tuner/cmd/../watch/device.h \
 tuner/cmd/../watch/procfs.h
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../output.h:
tuner/cmd/../watch/watch.h:
tuner/cmd/../watch/device.h:
tuner/cmd/../watch/procfs.h:
