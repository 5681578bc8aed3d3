build-k2/tuner/apply.o: tuner/apply.c tuner/apply.h tuner/config.h \
 tuner/../search/fit.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/machine.h tuner/yamlw.h \
 tuner/yamlr.h tuner/../common/rt.h tuner/cli.h tuner/params.h \
 tuner/envnames.h tuner/usercmd_knobs.h tuner/usercmd.h tuner/knob.h \
 tuner/measure.h tuner/pin.h
tuner/apply.h:
tuner/config.h:
tuner/../search/fit.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/cli.h:
tuner/params.h:
tuner/envnames.h:
tuner/usercmd_knobs.h:
tuner/usercmd.h:
tuner/knob.h:
tuner/measure.h:
tuner/pin.h:
