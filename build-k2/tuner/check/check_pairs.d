build-k2/tuner/check/check_pairs.o: tuner/check/check_pairs.c \
 tuner/check/check_pairs.h tuner/check/../../search/stats.h
tuner/check/check_pairs.h:
tuner/check/../../search/stats.h:
