build-k2/search/strategy_model.o: search/strategy_model.c \
 search/minimize.h search/strategy_impl.h search/../common/rng.h \
 search/strategy.h search/../common/rt.h search/space.h
search/minimize.h:
search/strategy_impl.h:
search/../common/rng.h:
search/strategy.h:
search/../common/rt.h:
search/space.h:
