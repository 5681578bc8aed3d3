build-k2/tuner/tune.o: tuner/tune.c tuner/tune.h tuner/progress.h \
 tuner/tune_run.h tuner/../search/space.h tuner/../search/strategy.h \
 tuner/../search/../common/rt.h tuner/../search/space.h \
 tuner/../workloads/loader.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/crossover.h \
 tuner/../workloads/workload.h tuner/../workloads/registry.h \
 tuner/machine.h tuner/yamlw.h tuner/replay.h tuner/../search/fit.h \
 tuner/frameworks.h tuner/yamlr.h tuner/../common/rt.h tuner/backends.h \
 tuner/../workloads/backend.h tuner/canary.h tuner/journal.h tuner/knob.h \
 tuner/measure.h tuner/../search/leaders.h tuner/../search/stats.h \
 tuner/output.h tuner/pin.h tuner/spaces.h tuner/tune_target.h
tuner/tune.h:
tuner/progress.h:
tuner/tune_run.h:
tuner/../search/space.h:
tuner/../search/strategy.h:
tuner/../search/../common/rt.h:
tuner/../search/space.h:
tuner/../workloads/loader.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/crossover.h:
tuner/../workloads/workload.h:
tuner/../workloads/registry.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/replay.h:
tuner/../search/fit.h:
tuner/frameworks.h:
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/backends.h:
tuner/../workloads/backend.h:
tuner/canary.h:
tuner/journal.h:
tuner/knob.h:
tuner/measure.h:
tuner/../search/leaders.h:
tuner/../search/stats.h:
tuner/output.h:
tuner/pin.h:
tuner/spaces.h:
tuner/tune_target.h:
