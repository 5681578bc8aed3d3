build-k2/workloads/loader.o: workloads/loader.c workloads/loader.h \
 workloads/backend.h workloads/../common/rt.h workloads/cpu_backend.h \
 workloads/pool.h
workloads/loader.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/cpu_backend.h:
workloads/pool.h:
