build-k2/tuner/page/pagedata.o: tuner/page/pagedata.c \
 tuner/page/pagedata.h tuner/page/../../search/fit.h \
 tuner/page/../check/check_result.h tuner/page/../check/verdict.h \
 tuner/page/../check/../yamlr.h tuner/page/../check/../../common/rt.h \
 tuner/page/../config.h tuner/page/../../search/fit.h \
 tuner/page/../../workloads/workload.h \
 tuner/page/../../workloads/backend.h \
 tuner/page/../../workloads/../common/rt.h \
 tuner/page/../../workloads/registry.h tuner/page/../machine.h \
 tuner/page/../yamlw.h tuner/page/../yamlr.h tuner/page/../crossover.h \
 tuner/page/../replay.h tuner/page/../journal.h tuner/page/../knob.h \
 tuner/page/../measure.h tuner/page/../machine.h tuner/page/../replay.h \
 tuner/page/../watch/watch.h tuner/page/../watch/device.h \
 tuner/page/../watch/procfs.h tuner/page/../naive.h \
 tuner/page/../params.h tuner/page/../../workloads/knobs.h \
 tuner/page/../../workloads/workload.h
tuner/page/pagedata.h:
tuner/page/../../search/fit.h:
tuner/page/../check/check_result.h:
tuner/page/../check/verdict.h:
tuner/page/../check/../yamlr.h:
tuner/page/../check/../../common/rt.h:
tuner/page/../config.h:
tuner/page/../../search/fit.h:
tuner/page/../../workloads/workload.h:
tuner/page/../../workloads/backend.h:
tuner/page/../../workloads/../common/rt.h:
tuner/page/../../workloads/registry.h:
tuner/page/../machine.h:
tuner/page/../yamlw.h:
tuner/page/../yamlr.h:
tuner/page/../crossover.h:
tuner/page/../replay.h:
tuner/page/../journal.h:
tuner/page/../knob.h:
tuner/page/../measure.h:
tuner/page/../machine.h:
tuner/page/../replay.h:
tuner/page/../watch/watch.h:
tuner/page/../watch/device.h:
tuner/page/../watch/procfs.h:
tuner/page/../naive.h:
tuner/page/../params.h:
tuner/page/../../workloads/knobs.h:
tuner/page/../../workloads/workload.h:
