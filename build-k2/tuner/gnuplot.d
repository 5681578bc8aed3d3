build-k2/tuner/gnuplot.o: tuner/gnuplot.c tuner/gnuplot.h \
 tuner/../common/rt.h
tuner/gnuplot.h:
tuner/../common/rt.h:
