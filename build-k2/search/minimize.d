build-k2/search/minimize.o: search/minimize.c search/minimize.h \
 search/../common/rt.h
search/minimize.h:
search/../common/rt.h:
