build-k2/tuner/machine.o: tuner/machine.c tuner/machine.h tuner/yamlw.h \
 /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h \
 /usr/include/x86_64-linux-gnu/openblas-pthread/openblas_config.h \
 tuner/../common/rt.h tuner/../workloads/backend.h \
 tuner/../workloads/../common/rt.h
tuner/machine.h:
tuner/yamlw.h:
/usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h:
/usr/include/x86_64-linux-gnu/openblas-pthread/openblas_config.h:
tuner/../common/rt.h:
tuner/../workloads/backend.h:
tuner/../workloads/../common/rt.h:
