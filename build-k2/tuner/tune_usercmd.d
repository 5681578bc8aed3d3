build-k2/tuner/tune_usercmd.o: tuner/tune_usercmd.c tuner/usercmd_knobs.h \
 tuner/machine.h tuner/yamlw.h tuner/usercmd.h tuner/knob.h \
 tuner/measure.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/pin.h tuner/spacefile.h \
 tuner/../search/space.h tuner/tune.h tuner/progress.h tuner/tune_run.h \
 tuner/../search/strategy.h tuner/../search/../common/rt.h \
 tuner/../search/space.h tuner/../workloads/loader.h tuner/crossover.h \
 tuner/replay.h tuner/../search/fit.h tuner/frameworks.h tuner/yamlr.h \
 tuner/../common/rt.h tuner/tune_target.h tuner/journal.h \
 tuner/../search/stats.h
tuner/usercmd_knobs.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/usercmd.h:
tuner/knob.h:
tuner/measure.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/pin.h:
tuner/spacefile.h:
tuner/../search/space.h:
tuner/tune.h:
tuner/progress.h:
tuner/tune_run.h:
tuner/../search/strategy.h:
tuner/../search/../common/rt.h:
tuner/../search/space.h:
tuner/../workloads/loader.h:
tuner/crossover.h:
tuner/replay.h:
tuner/../search/fit.h:
tuner/frameworks.h:
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/tune_target.h:
tuner/journal.h:
tuner/../search/stats.h:
