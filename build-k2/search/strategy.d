build-k2/search/strategy.o: search/strategy.c search/strategy.h \
 search/../common/rt.h search/space.h search/strategies.h
search/strategy.h:
search/../common/rt.h:
search/space.h:
search/strategies.h:
