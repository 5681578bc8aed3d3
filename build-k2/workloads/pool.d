build-k2/workloads/pool.o: workloads/pool.c workloads/pool.h \
 workloads/../common/rt.h
workloads/pool.h:
workloads/../common/rt.h:
