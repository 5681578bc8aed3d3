build-k2/tuner/backends.o: tuner/backends.c tuner/backends.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/machine.h tuner/yamlw.h tuner/../workloads/loader.h \
 tuner/../workloads/backend.h tuner/child.h
tuner/backends.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/../workloads/loader.h:
tuner/../workloads/backend.h:
tuner/child.h:
