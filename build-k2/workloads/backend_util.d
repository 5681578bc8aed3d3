build-k2/workloads/backend_util.o: workloads/backend_util.c \
 workloads/backend.h workloads/../common/rt.h
workloads/backend.h:
workloads/../common/rt.h:
