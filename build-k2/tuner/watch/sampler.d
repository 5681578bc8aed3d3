build-k2/tuner/watch/sampler.o: tuner/watch/sampler.c \
 tuner/watch/../../common/rt.h tuner/watch/watch.h tuner/watch/device.h \
 tuner/watch/procfs.h
tuner/watch/../../common/rt.h:
tuner/watch/watch.h:
tuner/watch/device.h:
tuner/watch/procfs.h:
