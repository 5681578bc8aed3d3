build-k2/tuner/usercmd.o: tuner/usercmd.c tuner/usercmd.h tuner/knob.h \
 tuner/measure.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/child.h tuner/contention.h \
 tuner/pin.h
tuner/usercmd.h:
tuner/knob.h:
tuner/measure.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/child.h:
tuner/contention.h:
tuner/pin.h:
