build-k2/search/space.o: search/space.c search/space.h \
 search/../common/rt.h
search/space.h:
search/../common/rt.h:
