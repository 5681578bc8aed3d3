build-k2/tuner/cmd/cmd_report.o: tuner/cmd/cmd_report.c \
 tuner/cmd/commands.h tuner/cmd/../../common/rt.h tuner/cmd/../cli.h \
 tuner/cmd/../params.h tuner/cmd/../../workloads/workload.h \
 tuner/cmd/../../workloads/backend.h \
 tuner/cmd/../../workloads/../common/rt.h \
 tuner/cmd/../../workloads/registry.h tuner/cmd/../gnuplot.h \
 tuner/cmd/../output.h tuner/cmd/../page/page.h \
 tuner/cmd/../page/pagedata.h tuner/cmd/../page/../../search/fit.h \
 tuner/cmd/../page/../check/check_result.h \
 tuner/cmd/../page/../check/verdict.h \
 tuner/cmd/../page/../check/../yamlr.h \
 tuner/cmd/../page/../check/../../common/rt.h \
 tuner/cmd/../page/../config.h tuner/cmd/../page/../../search/fit.h \
 tuner/cmd/../page/../../workloads/workload.h \
 tuner/cmd/../page/../machine.h tuner/cmd/../page/../yamlw.h \
 tuner/cmd/../page/../yamlr.h tuner/cmd/../page/../crossover.h \
 tuner/cmd/../page/../replay.h tuner/cmd/../page/../journal.h \
 tuner/cmd/../page/../knob.h tuner/cmd/../page/../measure.h \
 tuner/cmd/../page/../machine.h tuner/cmd/../page/../replay.h \
 tuner/cmd/../page/../watch/watch.h tuner/cmd/../page/../watch/device.h \
 tuner/cmd/../page/../watch/procfs.h
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../../workloads/backend.h:
tuner/cmd/../../workloads/../common/rt.h:
tuner/cmd/../../workloads/registry.h:
tuner/cmd/../gnuplot.h:
tuner/cmd/../output.h:
tuner/cmd/../page/page.h:
tuner/cmd/../page/pagedata.h:
tuner/cmd/../page/../../search/fit.h:
tuner/cmd/../page/../check/check_result.h:
tuner/cmd/../page/../check/verdict.h:
tuner/cmd/../page/../check/../yamlr.h:
tuner/cmd/../page/../check/../../common/rt.h:
tuner/cmd/../page/../config.h:
tuner/cmd/../page/../../search/fit.h:
tuner/cmd/../page/../../workloads/workload.h:
tuner/cmd/../page/../machine.h:
tuner/cmd/../page/../yamlw.h:
tuner/cmd/../page/../yamlr.h:
tuner/cmd/../page/../crossover.h:
tuner/cmd/../page/../replay.h:
tuner/cmd/../page/../journal.h:
tuner/cmd/../page/../knob.h:
tuner/cmd/../page/../measure.h:
tuner/cmd/../page/../machine.h:
tuner/cmd/../page/../replay.h:
tuner/cmd/../page/../watch/watch.h:
tuner/cmd/../page/../watch/device.h:
tuner/cmd/../page/../watch/procfs.h:
