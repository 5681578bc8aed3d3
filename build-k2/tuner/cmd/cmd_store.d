build-k2/tuner/cmd/cmd_store.o: tuner/cmd/cmd_store.c \
 tuner/cmd/commands.h tuner/cmd/../../common/rt.h tuner/cmd/../cli.h \
 tuner/cmd/../params.h tuner/cmd/../../workloads/workload.h \
 tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../fleet/fleet.h \
 tuner/cmd/../fleet/../journal.h tuner/cmd/../fleet/../knob.h \
 tuner/cmd/../fleet/../machine.h tuner/cmd/../fleet/../yamlw.h \
 tuner/cmd/../fleet/../measure.h \
 tuner/cmd/../fleet/../../workloads/workload.h \
 tuner/cmd/../fleet/../machine.h
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../fleet/fleet.h:
tuner/cmd/../fleet/../journal.h:
tuner/cmd/../fleet/../knob.h:
tuner/cmd/../fleet/../machine.h:
tuner/cmd/../fleet/../yamlw.h:
tuner/cmd/../fleet/../measure.h:
tuner/cmd/../fleet/../../workloads/workload.h:
tuner/cmd/../fleet/../machine.h:
