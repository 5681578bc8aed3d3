build-k2/tuner/output.o: tuner/output.c tuner/output.h \
 tuner/../common/rt.h
tuner/output.h:
tuner/../common/rt.h:
