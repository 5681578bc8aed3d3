build-k2/tuner/watch/watch_yaml.o: tuner/watch/watch_yaml.c \
 tuner/watch/../../common/rt.h tuner/watch/../yamlr.h \
 tuner/watch/../../common/rt.h tuner/watch/../yamlw.h tuner/watch/watch.h \
 tuner/watch/device.h tuner/watch/procfs.h
tuner/watch/../../common/rt.h:
tuner/watch/../yamlr.h:
tuner/watch/../../common/rt.h:
tuner/watch/../yamlw.h:
tuner/watch/watch.h:
tuner/watch/device.h:
tuner/watch/procfs.h:
