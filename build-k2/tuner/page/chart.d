build-k2/tuner/page/chart.o: tuner/page/chart.c tuner/page/chart.h \
 tuner/page/../../common/rt.h tuner/page/../gnuplot.h
tuner/page/chart.h:
tuner/page/../../common/rt.h:
tuner/page/../gnuplot.h:
