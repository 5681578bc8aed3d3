build-k2/tests/test_page.o: tests/test_page.c tests/../common/rt.h \
 tests/../tuner/page/chart.h tests/../tuner/check/check.h \
 tests/../tuner/check/check_result.h tests/../tuner/check/verdict.h \
 tests/../tuner/check/../yamlr.h tests/../tuner/check/../../common/rt.h \
 tests/../tuner/check/check_run.h \
 tests/../tuner/check/../../search/stats.h \
 tests/../tuner/check/check_baseline.h tests/../tuner/check/../canary.h \
 tests/../tuner/check/../config.h tests/../tuner/check/../../search/fit.h \
 tests/../tuner/check/../../workloads/workload.h \
 tests/../tuner/check/../../workloads/backend.h \
 tests/../tuner/check/../../workloads/../common/rt.h \
 tests/../tuner/check/../../workloads/registry.h \
 tests/../tuner/check/../machine.h tests/../tuner/check/../yamlw.h \
 tests/../tuner/check/../yamlr.h tests/../tuner/check/../knob.h \
 tests/../tuner/check/check_canary.h tests/../tuner/check/check_trial.h \
 tests/../tuner/check/../measure.h tests/../tuner/check/../machine.h \
 tests/../tuner/check/machdiff.h tests/../tuner/gnuplot.h \
 tests/../tuner/naive.h tests/../tuner/../workloads/workload.h \
 tests/../tuner/page/pagedata.h tests/../tuner/page/../../search/fit.h \
 tests/../tuner/page/../check/check_result.h \
 tests/../tuner/page/../config.h tests/../tuner/page/../crossover.h \
 tests/../tuner/page/../../workloads/workload.h \
 tests/../tuner/page/../machine.h tests/../tuner/page/../replay.h \
 tests/../tuner/page/../../search/fit.h tests/../tuner/page/../yamlw.h \
 tests/../tuner/page/../journal.h tests/../tuner/page/../knob.h \
 tests/../tuner/page/../measure.h tests/../tuner/page/../machine.h \
 tests/../tuner/page/../replay.h tests/../tuner/page/../watch/watch.h \
 tests/../tuner/page/../watch/device.h \
 tests/../tuner/page/../watch/procfs.h
tests/../common/rt.h:
tests/../tuner/page/chart.h:
tests/../tuner/check/check.h:
tests/../tuner/check/check_result.h:
tests/../tuner/check/verdict.h:
tests/../tuner/check/../yamlr.h:
tests/../tuner/check/../../common/rt.h:
tests/../tuner/check/check_run.h:
tests/../tuner/check/../../search/stats.h:
tests/../tuner/check/check_baseline.h:
tests/../tuner/check/../canary.h:
tests/../tuner/check/../config.h:
tests/../tuner/check/../../search/fit.h:
tests/../tuner/check/../../workloads/workload.h:
tests/../tuner/check/../../workloads/backend.h:
tests/../tuner/check/../../workloads/../common/rt.h:
tests/../tuner/check/../../workloads/registry.h:
tests/../tuner/check/../machine.h:
tests/../tuner/check/../yamlw.h:
tests/../tuner/check/../yamlr.h:
tests/../tuner/check/../knob.h:
tests/../tuner/check/check_canary.h:
tests/../tuner/check/check_trial.h:
tests/../tuner/check/../measure.h:
tests/../tuner/check/../machine.h:
tests/../tuner/check/machdiff.h:
tests/../tuner/gnuplot.h:
tests/../tuner/naive.h:
tests/../tuner/../workloads/workload.h:
tests/../tuner/page/pagedata.h:
tests/../tuner/page/../../search/fit.h:
tests/../tuner/page/../check/check_result.h:
tests/../tuner/page/../config.h:
tests/../tuner/page/../crossover.h:
tests/../tuner/page/../../workloads/workload.h:
tests/../tuner/page/../machine.h:
tests/../tuner/page/../replay.h:
tests/../tuner/page/../../search/fit.h:
tests/../tuner/page/../yamlw.h:
tests/../tuner/page/../journal.h:
tests/../tuner/page/../knob.h:
tests/../tuner/page/../measure.h:
tests/../tuner/page/../machine.h:
tests/../tuner/page/../replay.h:
tests/../tuner/page/../watch/watch.h:
tests/../tuner/page/../watch/device.h:
tests/../tuner/page/../watch/procfs.h:
