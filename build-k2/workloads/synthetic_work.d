build-k2/workloads/synthetic_work.o: workloads/synthetic_work.c \
 workloads/synthetic_work.h workloads/../common/rt.h
workloads/synthetic_work.h:
workloads/../common/rt.h:
