build-k2/tuner/usercmd_template.o: tuner/usercmd_template.c \
 tuner/../common/rt.h tuner/usercmd.h tuner/knob.h tuner/measure.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h
tuner/../common/rt.h:
tuner/usercmd.h:
tuner/knob.h:
tuner/measure.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
