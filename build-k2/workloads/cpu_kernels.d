build-k2/workloads/cpu_kernels.o: workloads/cpu_kernels.c \
 workloads/cpu_backend.h workloads/backend.h workloads/../common/rt.h \
 workloads/pool.h workloads/kernels.h workloads/cpu_kernels_t.h
workloads/cpu_backend.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/pool.h:
workloads/kernels.h:
workloads/cpu_kernels_t.h:
