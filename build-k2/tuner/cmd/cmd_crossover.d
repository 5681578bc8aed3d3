build-k2/tuner/cmd/cmd_crossover.o: tuner/cmd/cmd_crossover.c \
 tuner/cmd/commands.h tuner/cmd/../../common/rt.h tuner/cmd/../cli.h \
 tuner/cmd/../params.h tuner/cmd/../../workloads/workload.h \
 tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../lock.h \
 tuner/cmd/../crossover.h tuner/cmd/../machine.h tuner/cmd/../yamlw.h \
 tuner/cmd/../replay.h tuner/cmd/../../search/fit.h \
 tuner/cmd/../machine.h tuner/cmd/../output.h tuner/cmd/../params.h \
 tuner/cmd/../../workloads/loader.h
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../lock.h:
tuner/cmd/../crossover.h:
tuner/cmd/../machine.h:
tuner/cmd/../yamlw.h:
tuner/cmd/../replay.h:
tuner/cmd/../../search/fit.h:
tuner/cmd/../machine.h:
tuner/cmd/../output.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/loader.h:
