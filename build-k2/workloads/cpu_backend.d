build-k2/workloads/cpu_backend.o: workloads/cpu_backend.c \
 workloads/cpu_backend.h workloads/backend.h workloads/../common/rt.h \
 workloads/pool.h /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h \
 /usr/include/x86_64-linux-gnu/openblas-pthread/openblas_config.h \
 workloads/cpu_dnnl.h workloads/kernels.h
workloads/cpu_backend.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/pool.h:
/usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h:
/usr/include/x86_64-linux-gnu/openblas-pthread/openblas_config.h:
workloads/cpu_dnnl.h:
workloads/kernels.h:
