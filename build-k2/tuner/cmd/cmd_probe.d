build-k2/tuner/cmd/cmd_probe.o: tuner/cmd/cmd_probe.c \
 tuner/cmd/../backends.h tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h tuner/cmd/../machine.h \
 tuner/cmd/../yamlw.h tuner/cmd/commands.h tuner/cmd/../../common/rt.h \
 tuner/cmd/../cli.h tuner/cmd/../params.h \
 tuner/cmd/../../workloads/workload.h tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../frameworks.h \
 tuner/cmd/../yamlr.h tuner/cmd/../../common/rt.h tuner/cmd/../machine.h \
 tuner/cmd/../output.h tuner/cmd/../settings.h tuner/cmd/../frameworks.h
tuner/cmd/../backends.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../machine.h:
tuner/cmd/../yamlw.h:
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../frameworks.h:
tuner/cmd/../yamlr.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../machine.h:
tuner/cmd/../output.h:
tuner/cmd/../settings.h:
tuner/cmd/../frameworks.h:
