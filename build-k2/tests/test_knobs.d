build-k2/tests/test_knobs.o: tests/test_knobs.c tests/../common/rt.h \
 tests/../tuner/params.h tests/../tuner/../workloads/workload.h \
 tests/../tuner/../workloads/backend.h \
 tests/../tuner/../workloads/../common/rt.h \
 tests/../tuner/../workloads/registry.h tests/../workloads/knobs.h \
 tests/../workloads/workload.h
tests/../common/rt.h:
tests/../tuner/params.h:
tests/../tuner/../workloads/workload.h:
tests/../tuner/../workloads/backend.h:
tests/../tuner/../workloads/../common/rt.h:
tests/../tuner/../workloads/registry.h:
tests/../workloads/knobs.h:
tests/../workloads/workload.h:
