build-k2/tuner/usercmd_knobs.o: tuner/usercmd_knobs.c \
 tuner/usercmd_knobs.h tuner/machine.h tuner/yamlw.h tuner/usercmd.h \
 tuner/knob.h tuner/measure.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/envnames.h tuner/params.h \
 tuner/../workloads/loader.h
tuner/usercmd_knobs.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/usercmd.h:
tuner/knob.h:
tuner/measure.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/envnames.h:
tuner/params.h:
tuner/../workloads/loader.h:
