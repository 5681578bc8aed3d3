build-k2/tuner/yamlw.o: tuner/yamlw.c tuner/yamlw.h tuner/../common/rt.h
tuner/yamlw.h:
tuner/../common/rt.h:
