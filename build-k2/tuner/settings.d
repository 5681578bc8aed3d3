build-k2/tuner/settings.o: tuner/settings.c tuner/settings.h \
 tuner/frameworks.h tuner/yamlr.h tuner/../common/rt.h tuner/yamlw.h
tuner/settings.h:
tuner/frameworks.h:
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/yamlw.h:
