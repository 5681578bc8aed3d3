build-k2/tuner/sweep/sweep_script.o: tuner/sweep/sweep_script.c \
 tuner/sweep/sweep_impl.h tuner/sweep/sweep.h tuner/sweep/../config.h \
 tuner/sweep/../../search/fit.h tuner/sweep/../../workloads/workload.h \
 tuner/sweep/../../workloads/backend.h \
 tuner/sweep/../../workloads/../common/rt.h \
 tuner/sweep/../../workloads/registry.h tuner/sweep/../machine.h \
 tuner/sweep/../yamlw.h tuner/sweep/../yamlr.h \
 tuner/sweep/../../common/rt.h
tuner/sweep/sweep_impl.h:
tuner/sweep/sweep.h:
tuner/sweep/../config.h:
tuner/sweep/../../search/fit.h:
tuner/sweep/../../workloads/workload.h:
tuner/sweep/../../workloads/backend.h:
tuner/sweep/../../workloads/../common/rt.h:
tuner/sweep/../../workloads/registry.h:
tuner/sweep/../machine.h:
tuner/sweep/../yamlw.h:
tuner/sweep/../yamlr.h:
tuner/sweep/../../common/rt.h:
