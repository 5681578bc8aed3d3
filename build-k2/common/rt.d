build-k2/common/rt.o: common/rt.c common/rt.h
common/rt.h:
