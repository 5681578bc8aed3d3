build-k2/tuner/lock.o: tuner/lock.c tuner/lock.h tuner/../common/rt.h
tuner/lock.h:
tuner/../common/rt.h:
