build-k2/common/rng.o: common/rng.c common/rng.h
common/rng.h:
