build-k2/tuner/check/machdiff.o: tuner/check/machdiff.c \
 tuner/check/machdiff.h tuner/check/../yamlr.h \
 tuner/check/../../common/rt.h tuner/check/../../common/rt.h
tuner/check/machdiff.h:
tuner/check/../yamlr.h:
tuner/check/../../common/rt.h:
tuner/check/../../common/rt.h:
