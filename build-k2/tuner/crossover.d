build-k2/tuner/crossover.o: tuner/crossover.c tuner/crossover.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h \
 tuner/machine.h tuner/yamlw.h tuner/replay.h tuner/../search/fit.h \
 tuner/backends.h tuner/../workloads/backend.h tuner/cli.h tuner/params.h \
 tuner/../workloads/loader.h tuner/measure.h tuner/plot.h \
 tuner/measure_yaml.h tuner/yamlr.h tuner/../common/rt.h
tuner/crossover.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/replay.h:
tuner/../search/fit.h:
tuner/backends.h:
tuner/../workloads/backend.h:
tuner/cli.h:
tuner/params.h:
tuner/../workloads/loader.h:
tuner/measure.h:
tuner/plot.h:
tuner/measure_yaml.h:
tuner/yamlr.h:
tuner/../common/rt.h:
