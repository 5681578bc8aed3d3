build-k2/tuner/measure_yaml.o: tuner/measure_yaml.c tuner/measure_yaml.h \
 tuner/measure.h tuner/../workloads/workload.h \
 tuner/../workloads/backend.h tuner/../workloads/../common/rt.h \
 tuner/../workloads/registry.h tuner/yamlr.h tuner/../common/rt.h \
 tuner/yamlw.h tuner/contention.h tuner/../workloads/knobs.h \
 tuner/../workloads/workload.h
tuner/measure_yaml.h:
tuner/measure.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
tuner/yamlr.h:
tuner/../common/rt.h:
tuner/yamlw.h:
tuner/contention.h:
tuner/../workloads/knobs.h:
tuner/../workloads/workload.h:
