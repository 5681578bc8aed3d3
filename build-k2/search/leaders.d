build-k2/search/leaders.o: search/leaders.c search/leaders.h \
 search/../common/rt.h search/stats.h
search/leaders.h:
search/../common/rt.h:
search/stats.h:
