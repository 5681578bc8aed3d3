build-k2/tuner/check/check_run.o: tuner/check/check_run.c \
 tuner/check/check_run.h tuner/check/../../search/stats.h \
 tuner/check/check_baseline.h tuner/check/../canary.h \
 tuner/check/../config.h tuner/check/../../search/fit.h \
 tuner/check/../../workloads/workload.h \
 tuner/check/../../workloads/backend.h \
 tuner/check/../../workloads/../common/rt.h \
 tuner/check/../../workloads/registry.h tuner/check/../machine.h \
 tuner/check/../yamlw.h tuner/check/../yamlr.h \
 tuner/check/../../common/rt.h tuner/check/../knob.h \
 tuner/check/../yamlr.h tuner/check/check_canary.h \
 tuner/check/check_trial.h tuner/check/../measure.h \
 tuner/check/../machine.h tuner/check/machdiff.h tuner/check/verdict.h \
 tuner/check/../backends.h tuner/check/../../workloads/backend.h \
 tuner/check/../contention.h tuner/check/../progress.h \
 tuner/check/check_pairs.h
tuner/check/check_run.h:
tuner/check/../../search/stats.h:
tuner/check/check_baseline.h:
tuner/check/../canary.h:
tuner/check/../config.h:
tuner/check/../../search/fit.h:
tuner/check/../../workloads/workload.h:
tuner/check/../../workloads/backend.h:
tuner/check/../../workloads/../common/rt.h:
tuner/check/../../workloads/registry.h:
tuner/check/../machine.h:
tuner/check/../yamlw.h:
tuner/check/../yamlr.h:
tuner/check/../../common/rt.h:
tuner/check/../knob.h:
tuner/check/../yamlr.h:
tuner/check/check_canary.h:
tuner/check/check_trial.h:
tuner/check/../measure.h:
tuner/check/../machine.h:
tuner/check/machdiff.h:
tuner/check/verdict.h:
tuner/check/../backends.h:
tuner/check/../../workloads/backend.h:
tuner/check/../contention.h:
tuner/check/../progress.h:
tuner/check/check_pairs.h:
