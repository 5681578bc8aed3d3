build-k2/tuner/cmd/cmd_tune.o: tuner/cmd/cmd_tune.c tuner/cmd/commands.h \
 tuner/cmd/../../common/rt.h tuner/cmd/../cli.h tuner/cmd/../params.h \
 tuner/cmd/../../workloads/workload.h tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../config.h \
 tuner/cmd/../../search/fit.h tuner/cmd/../machine.h tuner/cmd/../yamlw.h \
 tuner/cmd/../yamlr.h tuner/cmd/../../common/rt.h tuner/cmd/../lock.h \
 tuner/cmd/../output.h tuner/cmd/../params.h tuner/cmd/../tune.h \
 tuner/cmd/../progress.h tuner/cmd/../tune_run.h \
 tuner/cmd/../../search/space.h tuner/cmd/../../search/strategy.h \
 tuner/cmd/../../search/../common/rt.h tuner/cmd/../../search/space.h \
 tuner/cmd/../../workloads/loader.h tuner/cmd/../crossover.h \
 tuner/cmd/../replay.h tuner/cmd/../frameworks.h \
 tuner/cmd/../fleet/fleet.h tuner/cmd/../fleet/../journal.h \
 tuner/cmd/../fleet/../knob.h tuner/cmd/../fleet/../machine.h \
 tuner/cmd/../fleet/../measure.h \
 tuner/cmd/../fleet/../../workloads/workload.h \
 tuner/cmd/../fleet/../machine.h tuner/cmd/../../workloads/loader.h
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../config.h:
tuner/cmd/../../search/fit.h:
tuner/cmd/../machine.h:
tuner/cmd/../yamlw.h:
tuner/cmd/../yamlr.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../lock.h:
tuner/cmd/../output.h:
tuner/cmd/../params.h:
tuner/cmd/../tune.h:
tuner/cmd/../progress.h:
tuner/cmd/../tune_run.h:
tuner/cmd/../../search/space.h:
tuner/cmd/../../search/strategy.h:
tuner/cmd/../../search/../common/rt.h:
tuner/cmd/../../search/space.h:
tuner/cmd/../../workloads/loader.h:
tuner/cmd/../crossover.h:
tuner/cmd/../replay.h:
tuner/cmd/../frameworks.h:
tuner/cmd/../fleet/fleet.h:
tuner/cmd/../fleet/../journal.h:
tuner/cmd/../fleet/../knob.h:
tuner/cmd/../fleet/../machine.h:
tuner/cmd/../fleet/../measure.h:
tuner/cmd/../fleet/../../workloads/workload.h:
tuner/cmd/../fleet/../machine.h:
tuner/cmd/../../workloads/loader.h:
