build-k2/tuner/canary.o: tuner/canary.c tuner/canary.h \
 tuner/../common/rt.h
tuner/canary.h:
tuner/../common/rt.h:
