build-k2/tuner/contention.o: tuner/contention.c tuner/contention.h
tuner/contention.h:
