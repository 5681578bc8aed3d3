build-k2/tuner/journal_list.o: tuner/journal_list.c tuner/journal.h \
 tuner/knob.h tuner/machine.h tuner/yamlw.h tuner/measure.h \
 tuner/../workloads/workload.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h tuner/../workloads/registry.h
tuner/journal.h:
tuner/knob.h:
tuner/machine.h:
tuner/yamlw.h:
tuner/measure.h:
tuner/../workloads/workload.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
tuner/../workloads/registry.h:
