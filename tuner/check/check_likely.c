/* check_likely.c: a slowdown that every sample shows (check_likely.h). */
#include "check_likely.h"

#include <math.h>

double rt_check_lowest_chance(size_t nb, size_t nn)
{
	double n = (double)(nb + nn), k = (double)nn;
	return exp(lgamma(k + 1) + lgamma(n - k + 1) - lgamma(n + 1));
}

/* The extreme of n samples: the highest (sign 1) or the lowest (sign -1). */
static double extreme(const double *x, size_t n, int sign)
{
	double e = x[0];
	for (size_t i = 1; i < n; i++)
		e = sign > 0 ? fmax(e, x[i]) : fmin(e, x[i]);
	return e;
}

int rt_check_every_sample_slower(const double *base, size_t nb, const double *now, size_t nn,
				 double threshold, double alpha)
{
	if (!nb || nn < 2 || rt_check_lowest_chance(nb, nn) > alpha)
		return 0;
	/* throughput: slower is lower; the fastest now below the slowest then by the threshold */
	return extreme(now, nn, 1) <= (1 - threshold) * extreme(base, nb, -1);
}
