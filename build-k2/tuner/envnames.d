build-k2/tuner/envnames.o: tuner/envnames.c tuner/envnames.h \
 tuner/../common/rt.h
tuner/envnames.h:
tuner/../common/rt.h:
