build-k2/tuner/journal.o: tuner/journal.c tuner/journal.h tuner/knob.h \
 tuner/machine.h tuner/yamlw.h tuner/measure.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h \
 tuner/../search/space.h tuner/../workloads/knobs.h \
 tuner/../workloads/workload.h tuner/contention.h tuner/params.h \
 tuner/measure_yaml.h tuner/yamlr.h tuner/../common/rt.h tuner/cli.h
tuner/journal.h:
tuner/knob.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/measure.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/../search/space.h:
tuner/../workloads/knobs.h:
tuner/../workloads/workload.h:
tuner/contention.h:
tuner/params.h:
tuner/measure_yaml.h:
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/cli.h:
