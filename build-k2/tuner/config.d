build-k2/tuner/config.o: tuner/config.c tuner/config.h \
 tuner/../search/fit.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/machine.h tuner/yamlw.h \
 tuner/yamlr.h tuner/../common/rt.h tuner/contention.h tuner/hints.h \
 tuner/frameworks.h tuner/settings.h tuner/params.h tuner/measure_yaml.h \
 tuner/measure.h tuner/tune_run.h tuner/../search/space.h \
 tuner/../search/strategy.h tuner/../search/../common/rt.h \
 tuner/../search/space.h tuner/../workloads/loader.h tuner/crossover.h \
 tuner/replay.h tuner/usercmd_knobs.h tuner/usercmd.h tuner/knob.h
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
tuner/contention.h:
tuner/hints.h:
tuner/frameworks.h:
tuner/settings.h:
tuner/params.h:
tuner/measure_yaml.h:
tuner/measure.h:
tuner/tune_run.h:
tuner/../search/space.h:
tuner/../search/strategy.h:
tuner/../search/../common/rt.h:
tuner/../search/space.h:
tuner/../workloads/loader.h:
tuner/crossover.h:
tuner/replay.h:
tuner/usercmd_knobs.h:
tuner/usercmd.h:
tuner/knob.h:
