build-k2/tuner/cmd/cmd_bench.o: tuner/cmd/cmd_bench.c \
 tuner/cmd/commands.h tuner/cmd/../../common/rt.h tuner/cmd/../cli.h \
 tuner/cmd/../params.h tuner/cmd/../../workloads/workload.h \
 tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../lock.h \
 tuner/cmd/../machine.h tuner/cmd/../yamlw.h tuner/cmd/../measure.h \
 tuner/cmd/../output.h tuner/cmd/../params.h tuner/cmd/../measure_yaml.h \
 tuner/cmd/../measure.h tuner/cmd/../yamlr.h tuner/cmd/../../common/rt.h
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../lock.h:
tuner/cmd/../machine.h:
tuner/cmd/../yamlw.h:
tuner/cmd/../measure.h:
tuner/cmd/../output.h:
tuner/cmd/../params.h:
tuner/cmd/../measure_yaml.h:
tuner/cmd/../measure.h:
tuner/cmd/../yamlr.h:
tuner/cmd/../../common/rt.h:
