build-k2/tuner/sweep/sweep_plan.o: tuner/sweep/sweep_plan.c \
 tuner/sweep/../../workloads/knobs.h \
 tuner/sweep/../../workloads/workload.h \
 tuner/sweep/../../workloads/backend.h \
 tuner/sweep/../../workloads/../common/rt.h \
 tuner/sweep/../../workloads/registry.h tuner/sweep/../journal.h \
 tuner/sweep/../knob.h tuner/sweep/../machine.h tuner/sweep/../yamlw.h \
 tuner/sweep/../measure.h tuner/sweep/../../workloads/workload.h \
 tuner/sweep/../pin.h tuner/sweep/../spaces.h \
 tuner/sweep/../../search/space.h tuner/sweep/sweep.h \
 tuner/sweep/../config.h tuner/sweep/../../search/fit.h \
 tuner/sweep/../yamlr.h tuner/sweep/../../common/rt.h \
 tuner/sweep/../apply.h tuner/sweep/../config.h
tuner/sweep/../../workloads/knobs.h:
tuner/sweep/../../workloads/workload.h:
tuner/sweep/../../workloads/backend.h:
tuner/sweep/../../workloads/../common/rt.h:
tuner/sweep/../../workloads/registry.h:
tuner/sweep/../journal.h:
tuner/sweep/../knob.h:
tuner/sweep/../machine.h:
tuner/sweep/../yamlw.h:
tuner/sweep/../measure.h:
tuner/sweep/../../workloads/workload.h:
tuner/sweep/../pin.h:
tuner/sweep/../spaces.h:
tuner/sweep/../../search/space.h:
tuner/sweep/sweep.h:
tuner/sweep/../config.h:
tuner/sweep/../../search/fit.h:
tuner/sweep/../yamlr.h:
tuner/sweep/../../common/rt.h:
tuner/sweep/../apply.h:
tuner/sweep/../config.h:
