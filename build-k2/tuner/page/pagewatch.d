build-k2/tuner/page/pagewatch.o: tuner/page/pagewatch.c \
 tuner/page/pagewatch.h tuner/page/../watch/watch.h \
 tuner/page/../watch/device.h tuner/page/../watch/procfs.h \
 tuner/page/../html.h
tuner/page/pagewatch.h:
tuner/page/../watch/watch.h:
tuner/page/../watch/device.h:
tuner/page/../watch/procfs.h:
tuner/page/../html.h:
