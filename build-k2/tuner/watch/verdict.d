build-k2/tuner/watch/verdict.o: tuner/watch/verdict.c \
 tuner/watch/../../common/rt.h tuner/watch/watch.h tuner/watch/device.h \
 tuner/watch/procfs.h
tuner/watch/../../common/rt.h:
tuner/watch/watch.h:
tuner/watch/device.h:
tuner/watch/procfs.h:
