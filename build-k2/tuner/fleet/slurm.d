build-k2/tuner/fleet/slurm.o: tuner/fleet/slurm.c tuner/fleet/fleet.h \
 tuner/fleet/../journal.h tuner/fleet/../knob.h tuner/fleet/../machine.h \
 tuner/fleet/../yamlw.h tuner/fleet/../measure.h \
 tuner/fleet/../../workloads/workload.h \
 tuner/fleet/../../workloads/backend.h \
 tuner/fleet/../../workloads/../common/rt.h \
 tuner/fleet/../../workloads/registry.h tuner/fleet/../machine.h \
 tuner/fleet/../cli.h tuner/fleet/../params.h tuner/fleet/../usercmd.h
tuner/fleet/fleet.h:
tuner/fleet/../journal.h:
tuner/fleet/../knob.h:
tuner/fleet/../machine.h:
tuner/fleet/../yamlw.h:
tuner/fleet/../measure.h:
tuner/fleet/../../workloads/workload.h:
tuner/fleet/../../workloads/backend.h:
tuner/fleet/../../workloads/../common/rt.h:
tuner/fleet/../../workloads/registry.h:
tuner/fleet/../machine.h:
tuner/fleet/../cli.h:
tuner/fleet/../params.h:
tuner/fleet/../usercmd.h:
