build-k2/tuner/watch/procfs.o: tuner/watch/procfs.c tuner/watch/procfs.h \
 tuner/watch/../../common/rt.h
tuner/watch/procfs.h:
tuner/watch/../../common/rt.h:
