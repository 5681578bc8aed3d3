build-k2/tuner/plot.o: tuner/plot.c tuner/plot.h tuner/../search/fit.h \
 tuner/../common/rt.h tuner/gnuplot.h tuner/output.h
tuner/plot.h:
tuner/../search/fit.h:
tuner/../common/rt.h:
tuner/gnuplot.h:
tuner/output.h:
