build-k2/tuner/cmd/cmd_sweep.o: tuner/cmd/cmd_sweep.c \
 tuner/cmd/commands.h tuner/cmd/../../common/rt.h tuner/cmd/../cli.h \
 tuner/cmd/../params.h tuner/cmd/../../workloads/workload.h \
 tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../output.h \
 tuner/cmd/../params.h tuner/cmd/../sweep/sweep.h \
 tuner/cmd/../sweep/../config.h tuner/cmd/../sweep/../../search/fit.h \
 tuner/cmd/../sweep/../../workloads/workload.h \
 tuner/cmd/../sweep/../machine.h tuner/cmd/../sweep/../yamlw.h \
 tuner/cmd/../sweep/../yamlr.h tuner/cmd/../sweep/../../common/rt.h
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../output.h:
tuner/cmd/../params.h:
tuner/cmd/../sweep/sweep.h:
tuner/cmd/../sweep/../config.h:
tuner/cmd/../sweep/../../search/fit.h:
tuner/cmd/../sweep/../../workloads/workload.h:
tuner/cmd/../sweep/../machine.h:
tuner/cmd/../sweep/../yamlw.h:
tuner/cmd/../sweep/../yamlr.h:
tuner/cmd/../sweep/../../common/rt.h:
