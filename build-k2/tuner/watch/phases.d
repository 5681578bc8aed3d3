build-k2/tuner/watch/phases.o: tuner/watch/phases.c \
 tuner/watch/../../common/rt.h tuner/watch/watch.h tuner/watch/device.h \
 tuner/watch/procfs.h
tuner/watch/../../common/rt.h:
tuner/watch/watch.h:
tuner/watch/device.h:
tuner/watch/procfs.h:
