build-k2/tuner/child.o: tuner/child.c tuner/child.h tuner/../common/rt.h
tuner/child.h:
tuner/../common/rt.h:
