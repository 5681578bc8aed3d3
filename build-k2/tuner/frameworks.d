build-k2/tuner/frameworks.o: tuner/frameworks.c tuner/frameworks.h \
 tuner/yamlr.h tuner/../common/rt.h tuner/yamlw.h tuner/params.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h \
 tuner/usercmd.h tuner/knob.h tuner/measure.h
tuner/frameworks.h:
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/yamlw.h:
tuner/params.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/usercmd.h:
tuner/knob.h:
tuner/measure.h:
