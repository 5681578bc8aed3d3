build-k2/tuner/tune_workload.o: tuner/tune_workload.c \
 tuner/../workloads/knobs.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/backends.h \
 tuner/../workloads/backend.h tuner/machine.h tuner/yamlw.h tuner/naive.h \
 tuner/../workloads/workload.h tuner/params.h tuner/pin.h tuner/spaces.h \
 tuner/../search/space.h tuner/tune.h tuner/progress.h tuner/tune_run.h \
 tuner/../search/strategy.h tuner/../search/../common/rt.h \
 tuner/../search/space.h tuner/../workloads/loader.h tuner/crossover.h \
 tuner/replay.h tuner/../search/fit.h tuner/frameworks.h tuner/yamlr.h \
 tuner/../common/rt.h tuner/tune_target.h tuner/journal.h tuner/knob.h \
 tuner/measure.h
tuner/../workloads/knobs.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/backends.h:
tuner/../workloads/backend.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/naive.h:
tuner/../workloads/workload.h:
tuner/params.h:
tuner/pin.h:
tuner/spaces.h:
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
tuner/knob.h:
tuner/measure.h:
