build-k2/tuner/spacefile.o: tuner/spacefile.c tuner/spacefile.h \
 tuner/../search/space.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/../common/rt.h \
 tuner/../workloads/knobs.h tuner/../workloads/workload.h \
 tuner/../workloads/loader.h tuner/usercmd_knobs.h tuner/machine.h \
 tuner/yamlw.h tuner/usercmd.h tuner/knob.h tuner/measure.h \
 tuner/params.h tuner/yamlr.h
tuner/spacefile.h:
tuner/../search/space.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/../common/rt.h:
tuner/../workloads/knobs.h:
tuner/../workloads/workload.h:
tuner/../workloads/loader.h:
tuner/usercmd_knobs.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/usercmd.h:
tuner/knob.h:
tuner/measure.h:
tuner/params.h:
tuner/yamlr.h:
