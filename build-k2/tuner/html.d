build-k2/tuner/html.o: tuner/html.c tuner/html.h
tuner/html.h:
