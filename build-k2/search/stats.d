build-k2/search/stats.o: search/stats.c search/stats.h \
 search/../common/rng.h search/../common/rt.h
search/stats.h:
search/../common/rng.h:
search/../common/rt.h:
