build-k2/search/fit.o: search/fit.c search/fit.h search/../common/rng.h \
 search/../common/rt.h search/minimize.h search/stats.h
search/fit.h:
search/../common/rng.h:
search/../common/rt.h:
search/minimize.h:
search/stats.h:
