build-k2/search/strategy_grid.o: search/strategy_grid.c \
 search/strategy_impl.h search/../common/rng.h search/strategy.h \
 search/../common/rt.h search/space.h
search/strategy_impl.h:
search/../common/rng.h:
search/strategy.h:
search/../common/rt.h:
search/space.h:
