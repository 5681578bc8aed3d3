build-k2/workloads/cpu_dnnl.o: workloads/cpu_dnnl.c workloads/cpu_dnnl.h \
 workloads/backend.h workloads/../common/rt.h workloads/pool.h
workloads/cpu_dnnl.h:
workloads/backend.h:
workloads/../common/rt.h:
workloads/pool.h:
