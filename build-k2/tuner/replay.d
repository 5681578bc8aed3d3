build-k2/tuner/replay.o: tuner/replay.c tuner/replay.h \
 tuner/../search/fit.h tuner/../common/rt.h tuner/output.h
tuner/replay.h:
tuner/../search/fit.h:
tuner/../common/rt.h:
tuner/output.h:
