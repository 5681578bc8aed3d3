build-k2/tuner/cmd/cmd_exec.o: tuner/cmd/cmd_exec.c tuner/cmd/../apply.h \
 tuner/cmd/../config.h tuner/cmd/../../search/fit.h \
 tuner/cmd/../../workloads/workload.h tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../machine.h \
 tuner/cmd/../yamlw.h tuner/cmd/../yamlr.h tuner/cmd/../../common/rt.h \
 tuner/cmd/commands.h tuner/cmd/../../common/rt.h tuner/cmd/../cli.h \
 tuner/cmd/../params.h tuner/cmd/../pin.h
tuner/cmd/../apply.h:
tuner/cmd/../config.h:
tuner/cmd/../../search/fit.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../machine.h:
tuner/cmd/../yamlw.h:
tuner/cmd/../yamlr.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../pin.h:
