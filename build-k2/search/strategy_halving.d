build-k2/search/strategy_halving.o: search/strategy_halving.c \
 search/strategy_impl.h search/../common/rng.h search/strategy.h \
 search/../common/rt.h search/space.h
search/strategy_impl.h:
search/../common/rng.h:
search/strategy.h:
search/../common/rt.h:
search/space.h:
