build-k2/tuner/check/check_baseline.o: tuner/check/check_baseline.c \
 tuner/check/check_baseline.h tuner/check/../canary.h \
 tuner/check/../config.h tuner/check/../../search/fit.h \
 tuner/check/../../workloads/workload.h \
 tuner/check/../../workloads/backend.h \
 tuner/check/../../workloads/../common/rt.h \
 tuner/check/../../workloads/registry.h tuner/check/../machine.h \
 tuner/check/../yamlw.h tuner/check/../yamlr.h \
 tuner/check/../../common/rt.h tuner/check/../knob.h \
 tuner/check/../yamlr.h tuner/check/../../search/stats.h \
 tuner/check/../../workloads/knobs.h \
 tuner/check/../../workloads/workload.h tuner/check/../crossover.h \
 tuner/check/../replay.h tuner/check/../journal.h tuner/check/../knob.h \
 tuner/check/../measure.h tuner/check/../replay.h \
 tuner/check/../usercmd.h tuner/check/../usercmd_knobs.h \
 tuner/check/../usercmd.h
tuner/check/check_baseline.h:
tuner/check/../canary.h:
tuner/check/../config.h:
tuner/check/../../search/fit.h:
tuner/check/../../workloads/workload.h:
tuner/check/../../workloads/backend.h:
tuner/check/../../workloads/../common/rt.h:
tuner/check/../../workloads/registry.h:
tuner/check/../machine.h:
tuner/check/../yamlw.h:
tuner/check/../yamlr.h:
tuner/check/../../common/rt.h:
tuner/check/../knob.h:
tuner/check/../yamlr.h:
tuner/check/../../search/stats.h:
tuner/check/../../workloads/knobs.h:
tuner/check/../../workloads/workload.h:
tuner/check/../crossover.h:
tuner/check/../replay.h:
tuner/check/../journal.h:
tuner/check/../knob.h:
tuner/check/../measure.h:
tuner/check/../replay.h:
tuner/check/../usercmd.h:
tuner/check/../usercmd_knobs.h:
tuner/check/../usercmd.h:
