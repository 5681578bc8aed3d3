build-k2/tuner/watch/device.o: tuner/watch/device.c tuner/watch/device.h \
 tuner/watch/../../common/rt.h tuner/watch/../../workloads/gpu/monitor.h \
 tuner/watch/../../workloads/gpu/host_common.h \
 tuner/watch/../../workloads/gpu/../backend.h \
 tuner/watch/../../workloads/gpu/../../common/rt.h
tuner/watch/device.h:
tuner/watch/../../common/rt.h:
tuner/watch/../../workloads/gpu/monitor.h:
tuner/watch/../../workloads/gpu/host_common.h:
tuner/watch/../../workloads/gpu/../backend.h:
tuner/watch/../../workloads/gpu/../../common/rt.h:
