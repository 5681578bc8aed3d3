build-k2/tuner/cmd/cmd_check.o: tuner/cmd/cmd_check.c \
 tuner/cmd/../check/check.h tuner/cmd/../check/check_result.h \
 tuner/cmd/../check/verdict.h tuner/cmd/../check/../yamlr.h \
 tuner/cmd/../check/../../common/rt.h tuner/cmd/../check/check_run.h \
 tuner/cmd/../check/../../search/stats.h \
 tuner/cmd/../check/check_baseline.h tuner/cmd/../check/../canary.h \
 tuner/cmd/../check/../config.h tuner/cmd/../check/../../search/fit.h \
 tuner/cmd/../check/../../workloads/workload.h \
 tuner/cmd/../check/../../workloads/backend.h \
 tuner/cmd/../check/../../workloads/../common/rt.h \
 tuner/cmd/../check/../../workloads/registry.h \
 tuner/cmd/../check/../machine.h tuner/cmd/../check/../yamlw.h \
 tuner/cmd/../check/../yamlr.h tuner/cmd/../check/../knob.h \
 tuner/cmd/../check/check_canary.h tuner/cmd/../check/check_trial.h \
 tuner/cmd/../check/../measure.h tuner/cmd/../check/../machine.h \
 tuner/cmd/../check/machdiff.h tuner/cmd/commands.h \
 tuner/cmd/../../common/rt.h tuner/cmd/../cli.h tuner/cmd/../params.h \
 tuner/cmd/../../workloads/workload.h tuner/cmd/../lock.h \
 tuner/cmd/../output.h tuner/cmd/../params.h tuner/cmd/../fleet/fleet.h \
 tuner/cmd/../fleet/../journal.h tuner/cmd/../fleet/../knob.h \
 tuner/cmd/../fleet/../machine.h tuner/cmd/../fleet/../measure.h \
 tuner/cmd/../fleet/../machine.h
tuner/cmd/../check/check.h:
tuner/cmd/../check/check_result.h:
tuner/cmd/../check/verdict.h:
tuner/cmd/../check/../yamlr.h:
tuner/cmd/../check/../../common/rt.h:
tuner/cmd/../check/check_run.h:
tuner/cmd/../check/../../search/stats.h:
tuner/cmd/../check/check_baseline.h:
tuner/cmd/../check/../canary.h:
tuner/cmd/../check/../config.h:
tuner/cmd/../check/../../search/fit.h:
tuner/cmd/../check/../../workloads/workload.h:
tuner/cmd/../check/../../workloads/backend.h:
tuner/cmd/../check/../../workloads/../common/rt.h:
tuner/cmd/../check/../../workloads/registry.h:
tuner/cmd/../check/../machine.h:
tuner/cmd/../check/../yamlw.h:
tuner/cmd/../check/../yamlr.h:
tuner/cmd/../check/../knob.h:
tuner/cmd/../check/check_canary.h:
tuner/cmd/../check/check_trial.h:
tuner/cmd/../check/../measure.h:
tuner/cmd/../check/../machine.h:
tuner/cmd/../check/machdiff.h:
tuner/cmd/commands.h:
tuner/cmd/../../common/rt.h:
tuner/cmd/../cli.h:
tuner/cmd/../params.h:
tuner/cmd/../../workloads/workload.h:
tuner/cmd/../lock.h:
tuner/cmd/../output.h:
tuner/cmd/../params.h:
tuner/cmd/../fleet/fleet.h:
tuner/cmd/../fleet/../journal.h:
tuner/cmd/../fleet/../knob.h:
tuner/cmd/../fleet/../machine.h:
tuner/cmd/../fleet/../measure.h:
tuner/cmd/../fleet/../machine.h:
