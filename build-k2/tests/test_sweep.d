build-k2/tests/test_sweep.o: tests/test_sweep.c tests/../common/rt.h \
 tests/../tuner/sweep/sweep.h tests/../tuner/sweep/../config.h \
 tests/../tuner/sweep/../../search/fit.h \
 tests/../tuner/sweep/../../workloads/workload.h \
 tests/../tuner/sweep/../../workloads/backend.h \
 tests/../tuner/sweep/../../workloads/../common/rt.h \
 tests/../tuner/sweep/../../workloads/registry.h \
 tests/../tuner/sweep/../machine.h tests/../tuner/sweep/../yamlw.h \
 tests/../tuner/sweep/../yamlr.h tests/../tuner/sweep/../../common/rt.h \
 tests/../tuner/sweep/sweep_impl.h tests/../tuner/sweep/sweep.h
tests/../common/rt.h:
tests/../tuner/sweep/sweep.h:
tests/../tuner/sweep/../config.h:
tests/../tuner/sweep/../../search/fit.h:
tests/../tuner/sweep/../../workloads/workload.h:
tests/../tuner/sweep/../../workloads/backend.h:
tests/../tuner/sweep/../../workloads/../common/rt.h:
tests/../tuner/sweep/../../workloads/registry.h:
tests/../tuner/sweep/../machine.h:
tests/../tuner/sweep/../yamlw.h:
tests/../tuner/sweep/../yamlr.h:
tests/../tuner/sweep/../../common/rt.h:
tests/../tuner/sweep/sweep_impl.h:
tests/../tuner/sweep/sweep.h:
