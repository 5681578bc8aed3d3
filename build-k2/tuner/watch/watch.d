build-k2/tuner/watch/watch.o: tuner/watch/watch.c \
 tuner/watch/../../common/rt.h tuner/watch/../usercmd.h \
 tuner/watch/../knob.h tuner/watch/../measure.h \
 tuner/watch/../../workloads/workload.h \
 tuner/watch/../../workloads/backend.h \
 tuner/watch/../../workloads/../common/rt.h \
 tuner/watch/../../workloads/registry.h tuner/watch/watch.h \
 tuner/watch/device.h tuner/watch/procfs.h
tuner/watch/../../common/rt.h:
tuner/watch/../usercmd.h:
tuner/watch/../knob.h:
tuner/watch/../measure.h:
tuner/watch/../../workloads/workload.h:
tuner/watch/../../workloads/backend.h:
tuner/watch/../../workloads/../common/rt.h:
tuner/watch/../../workloads/registry.h:
tuner/watch/watch.h:
tuner/watch/device.h:
tuner/watch/procfs.h:
